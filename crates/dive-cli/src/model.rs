//! Which model the CLI runs on: `--model`, else the first compiled-in provider whose key is
//! set, else the offline test model (said plainly).

use std::sync::Arc;

use dive::Llm;
use dive_test::TestModel;

/// The chosen model.
pub struct ModelChoice {
    /// The model.
    pub llm: Arc<dyn Llm>,
    /// `vendor/model` as shown to the user.
    pub label: String,
    /// Running on the test model.
    pub offline: bool,
}

/// The notice printed when no key is found.
pub const OFFLINE_NOTICE: &str = "dive is running offline on the test model: no API key was found. \
It calls the read-only tools once each and summarises them; nothing leaves this machine.\n\
To go online, set a provider key (e.g. ANTHROPIC_API_KEY, in the environment or a .env file) \
or pass --model vendor/model; `dive models` lists the providers this build includes.";

fn offline() -> ModelChoice {
    ModelChoice { llm: Arc::new(TestModel::new()), label: "test/offline".into(), offline: true }
}

fn key_is_set(var: &str) -> bool {
    std::env::var(var).is_ok_and(|v| !v.trim().is_empty())
}

/// Builds `spec` with the CLI's transport options; a missing key is said in the user's words
/// (which variable to set), not the library's.
fn build(spec: &str, options: &dive::ModelOptions) -> Result<ModelChoice, String> {
    if let Ok((vendor, _)) = dive::resolve_model(spec)
        && let Some(var) = vendor.key_env
        && !key_is_set(var)
        && !(vendor.name == "grok" && key_is_set("GROK_API_KEY"))
    {
        return Err(crate::errors::missing_key(vendor.name, var));
    }
    let llm = dive::model_with(spec, options).map_err(|e| crate::errors::model_error(&e))?;
    let label = format!("{}/{}", llm.provider(), llm.model());
    Ok(ModelChoice { llm, label, offline: false })
}

/// Picks the model.
///
/// # Errors
/// The registry's error (unknown vendor, feature not compiled in), or which key to set.
pub fn choose(spec: Option<&str>, options: &dive::ModelOptions) -> Result<ModelChoice, String> {
    if let Some(spec) = spec.map(str::trim).filter(|s| !s.is_empty()) {
        if spec == "test" || spec.starts_with("test/") {
            return Ok(offline());
        }
        return build(spec, options);
    }
    for vendor in dive::vendors() {
        if vendor.compiled_in && vendor.key_env.is_some_and(key_is_set) {
            return build(&format!("{}/", vendor.name), options);
        }
    }
    Ok(offline())
}
