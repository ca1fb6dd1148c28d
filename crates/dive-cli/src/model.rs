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

/// Picks the model.
///
/// # Errors
/// The registry's error (unknown vendor, feature not compiled in, missing key), as text.
pub fn choose(spec: Option<&str>) -> Result<ModelChoice, String> {
    if let Some(spec) = spec.map(str::trim).filter(|s| !s.is_empty()) {
        if spec == "test" || spec.starts_with("test/") {
            return Ok(offline());
        }
        let llm = dive::model(spec).map_err(|e| e.to_string())?;
        let label = format!("{}/{}", llm.provider(), llm.model());
        return Ok(ModelChoice { llm, label, offline: false });
    }
    for vendor in dive::vendors() {
        if vendor.compiled_in && vendor.key_env.is_some_and(key_is_set) {
            let llm = dive::model(&format!("{}/", vendor.name)).map_err(|e| e.to_string())?;
            let label = format!("{}/{}", llm.provider(), llm.model());
            return Ok(ModelChoice { llm, label, offline: false });
        }
    }
    Ok(offline())
}
