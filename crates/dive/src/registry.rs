//! The provider registry: `dive::model("vendor/model")` builds an `Llm` from a
//! model spec among the providers compiled in.
//!
//! An explicit `vendor/` prefix wins; otherwise the model name's patterns pick the vendor
//! (`claude-…` → anthropic, `gpt-…` → openai, `gemini-…` → google, …). A vendor that exists
//! but is not compiled in is a clear error naming the feature to enable.
//!
//! ```
//! match dive::resolve_model("anthropic/claude-sonnet-5-5") {
//!     Ok((vendor, model)) => assert_eq!((vendor.name, model.as_str()), ("anthropic", "claude-sonnet-5-5")),
//!     // Built without the `anthropic` feature: the error names it.
//!     Err(e) => assert!(e.to_string().contains("`anthropic` feature")),
//! }
//! let err = dive::resolve_model("no-such-model-family").unwrap_err();
//! assert!(err.to_string().contains("vendor/model"));
//! ```

use std::sync::Arc;

use dive_core::{Llm, LlmError, ModelInfo};

/// Builds a provider for a model name.
type BuildFn = fn(&str, &ModelOptions) -> Result<Arc<dyn Llm>, ModelError>;

/// Transport settings for [`model_with`]: the retry policy (e.g. with an `on_retry` hook that
/// shows retries) and HTTP options (e.g. the idle read timeout). Unset fields keep each
/// provider's defaults.
///
/// ```
/// use std::time::Duration;
/// let options = dive::ModelOptions::default()
///     .with_http(dive::provider::HttpOptions::default().with_read_timeout(Duration::from_secs(120)));
/// assert!(options.retry.is_none());
/// ```
#[cfg(feature = "provider")]
#[cfg_attr(docsrs, doc(cfg(feature = "provider")))]
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct ModelOptions {
    /// The retry policy (default: each provider's).
    pub retry: Option<dive_provider::RetryPolicy>,
    /// HTTP transport options (default: each provider's).
    pub http: Option<dive_provider::HttpOptions>,
}

#[cfg(feature = "provider")]
impl ModelOptions {
    /// Sets the retry policy.
    #[must_use]
    pub fn with_retry(mut self, retry: dive_provider::RetryPolicy) -> Self {
        self.retry = Some(retry);
        self
    }

    /// Sets the HTTP options.
    #[must_use]
    pub fn with_http(mut self, http: dive_provider::HttpOptions) -> Self {
        self.http = Some(http);
        self
    }
}

/// Without any provider compiled in there is nothing to configure.
#[cfg(not(feature = "provider"))]
#[derive(Debug, Clone, Default)]
struct ModelOptions {}

/// Applies [`ModelOptions`] to a provider builder that has `retry_policy` and `http_options`.
#[cfg(feature = "provider")]
macro_rules! configured {
    ($builder:expr, $options:expr) => {{
        let mut builder = $builder;
        if let Some(retry) = &$options.retry {
            builder = builder.retry_policy(retry.clone());
        }
        if let Some(http) = &$options.http {
            builder = builder.http_options(http.clone());
        }
        builder
    }};
}

/// One vendor the registry knows, compiled in or not.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Vendor {
    /// The vendor prefix of model specs (`anthropic` in `anthropic/claude-…`).
    pub name: &'static str,
    /// The `dive` feature that compiles it in.
    pub feature: &'static str,
    /// The environment variable holding its API key (`None`: no key needed).
    pub key_env: Option<&'static str>,
    /// The environment variable overriding its base URL.
    pub base_url_env: &'static str,
    /// Bare model-name prefixes that select this vendor.
    pub prefixes: &'static [&'static str],
    /// The model used for `vendor/` with no model name.
    pub default_model: &'static str,
    /// Whether this build includes it.
    pub compiled_in: bool,
}

/// Why a model spec could not become a model.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ModelError {
    /// The vendor exists but this build does not include it.
    #[error(
        "the {vendor} provider is not compiled in: enable the `{feature}` feature of `dive` \
         (Cargo.toml: dive = {{ version = \"…\", features = [\"{feature}\"] }})"
    )]
    NotCompiledIn {
        /// The vendor.
        vendor: &'static str,
        /// The feature to enable.
        feature: &'static str,
    },
    /// No vendor matches the model name.
    #[error(
        "no provider matches model {model:?}: write it as vendor/model (vendors: {known}); \
         compiled in: {compiled}"
    )]
    NoVendor {
        /// The model spec.
        model: String,
        /// Every vendor name.
        known: String,
        /// The vendors this build includes.
        compiled: String,
    },
    /// The provider could not be built (e.g. its API key is not set).
    #[error(transparent)]
    Provider(Box<LlmError>),
}

impl From<LlmError> for ModelError {
    fn from(e: LlmError) -> Self {
        Self::Provider(Box::new(e))
    }
}

struct Entry {
    vendor: Vendor,
    build: Option<BuildFn>,
    catalog: fn() -> Vec<ModelInfo>,
}

fn no_catalog() -> Vec<ModelInfo> {
    Vec::new()
}

#[cfg(feature = "anthropic")]
fn anthropic_entry() -> (Option<BuildFn>, fn() -> Vec<ModelInfo>) {
    fn build(model: &str, options: &ModelOptions) -> Result<Arc<dyn Llm>, ModelError> {
        Ok(Arc::new(configured!(dive_anthropic::Anthropic::builder_from_env().model(model), options).build()?))
    }
    (Some(build), || dive_anthropic::MODELS.clone())
}

#[cfg(not(feature = "anthropic"))]
fn anthropic_entry() -> (Option<BuildFn>, fn() -> Vec<ModelInfo>) {
    (None, no_catalog)
}

#[cfg(feature = "openai")]
fn openai_entry() -> (Option<BuildFn>, fn() -> Vec<ModelInfo>) {
    fn build(model: &str, options: &ModelOptions) -> Result<Arc<dyn Llm>, ModelError> {
        Ok(Arc::new(configured!(dive_openai::OpenAi::builder_from_env().model(model), options).build()?))
    }
    (Some(build), || dive_openai::MODELS.clone())
}

#[cfg(not(feature = "openai"))]
fn openai_entry() -> (Option<BuildFn>, fn() -> Vec<ModelInfo>) {
    (None, no_catalog)
}

/// OpenAI through Chat Completions instead of the Responses API (`openai-completions/gpt-…`).
#[cfg(feature = "openai")]
fn openai_completions_entry() -> (Option<BuildFn>, fn() -> Vec<ModelInfo>) {
    fn build(model: &str, options: &ModelOptions) -> Result<Arc<dyn Llm>, ModelError> {
        Ok(Arc::new(configured!(dive_openai::ChatCompletions::builder_from_env().model(model), options).build()?))
    }
    (Some(build), no_catalog)
}

#[cfg(not(feature = "openai"))]
fn openai_completions_entry() -> (Option<BuildFn>, fn() -> Vec<ModelInfo>) {
    (None, no_catalog)
}

#[cfg(feature = "ollama")]
fn ollama_entry() -> (Option<BuildFn>, fn() -> Vec<ModelInfo>) {
    fn build(model: &str, options: &ModelOptions) -> Result<Arc<dyn Llm>, ModelError> {
        Ok(Arc::new(configured!(dive_ollama::Ollama::builder().model(model), options).build()?))
    }
    (Some(build), || dive_ollama::MODELS.clone())
}

#[cfg(not(feature = "ollama"))]
fn ollama_entry() -> (Option<BuildFn>, fn() -> Vec<ModelInfo>) {
    (None, no_catalog)
}

#[cfg(feature = "mistral")]
fn mistral_entry() -> (Option<BuildFn>, fn() -> Vec<ModelInfo>) {
    fn build(model: &str, options: &ModelOptions) -> Result<Arc<dyn Llm>, ModelError> {
        Ok(Arc::new(configured!(dive_mistral::builder().model(model), options).build()?))
    }
    (Some(build), || dive_mistral::MODELS.clone())
}

#[cfg(not(feature = "mistral"))]
fn mistral_entry() -> (Option<BuildFn>, fn() -> Vec<ModelInfo>) {
    (None, no_catalog)
}

#[cfg(feature = "openrouter")]
fn openrouter_entry() -> (Option<BuildFn>, fn() -> Vec<ModelInfo>) {
    fn build(model: &str, options: &ModelOptions) -> Result<Arc<dyn Llm>, ModelError> {
        Ok(Arc::new(configured!(dive_openrouter::builder().model(model), options).build()?))
    }
    (Some(build), || dive_openrouter::MODELS.clone())
}

#[cfg(not(feature = "openrouter"))]
fn openrouter_entry() -> (Option<BuildFn>, fn() -> Vec<ModelInfo>) {
    (None, no_catalog)
}

#[cfg(feature = "grok")]
fn grok_entry() -> (Option<BuildFn>, fn() -> Vec<ModelInfo>) {
    fn build(model: &str, options: &ModelOptions) -> Result<Arc<dyn Llm>, ModelError> {
        Ok(Arc::new(configured!(dive_grok::builder().model(model), options).build()?))
    }
    (Some(build), || dive_grok::MODELS.clone())
}

#[cfg(not(feature = "grok"))]
fn grok_entry() -> (Option<BuildFn>, fn() -> Vec<ModelInfo>) {
    (None, no_catalog)
}

#[cfg(feature = "google")]
fn google_entry() -> (Option<BuildFn>, fn() -> Vec<ModelInfo>) {
    fn build(model: &str, options: &ModelOptions) -> Result<Arc<dyn Llm>, ModelError> {
        Ok(Arc::new(configured!(dive_google::Gemini::builder().model(model), options).build()?))
    }
    (Some(build), || dive_google::MODELS.clone())
}

#[cfg(not(feature = "google"))]
fn google_entry() -> (Option<BuildFn>, fn() -> Vec<ModelInfo>) {
    (None, no_catalog)
}

#[allow(clippy::too_many_arguments)]
fn entry(
    name: &'static str,
    key_env: Option<&'static str>,
    base_url_env: &'static str,
    prefixes: &'static [&'static str],
    default_model: &'static str,
    (build, catalog): (Option<BuildFn>, fn() -> Vec<ModelInfo>),
) -> Entry {
    Entry {
        vendor: Vendor {
            name,
            feature: name,
            key_env,
            base_url_env,
            prefixes,
            default_model,
            compiled_in: build.is_some(),
        },
        build,
        catalog,
    }
}

/// Every vendor in matching order (OpenRouter, which matches any `org/model` id, is last).
fn entries() -> Vec<Entry> {
    vec![
        entry(
            "anthropic",
            Some("ANTHROPIC_API_KEY"),
            "ANTHROPIC_BASE_URL",
            &["claude-"],
            "claude-sonnet-5-5",
            anthropic_entry(),
        ),
        entry(
            "openai",
            Some("OPENAI_API_KEY"),
            "OPENAI_BASE_URL",
            &["gpt-", "o3", "o4", "codex"],
            "gpt-6-luna",
            openai_entry(),
        ),
        // Explicit only (no name patterns); compiled in by the `openai` feature.
        {
            let mut e = entry(
                "openai-completions",
                Some("OPENAI_API_KEY"),
                "OPENAI_BASE_URL",
                &[],
                "gpt-5.5",
                openai_completions_entry(),
            );
            e.vendor.feature = "openai";
            e
        },
        entry(
            "google",
            Some("GEMINI_API_KEY"),
            "GEMINI_BASE_URL",
            &["gemini-"],
            "gemini-3.5-pro",
            google_entry(),
        ),
        entry("grok", Some("XAI_API_KEY"), "XAI_BASE_URL", &["grok-"], "grok-4", grok_entry()),
        entry(
            "mistral",
            Some("MISTRAL_API_KEY"),
            "MISTRAL_BASE_URL",
            &["mistral-", "ministral-", "codestral-", "devstral-", "magistral-"],
            "mistral-medium-latest",
            mistral_entry(),
        ),
        entry(
            "ollama",
            None,
            "OLLAMA_HOST",
            &[
                "llama",
                "codellama",
                "mixtral",
                "gemma",
                "glm-",
                "gpt-oss",
                "minimax-",
                "qwen",
                "phi",
                "deepseek",
            ],
            "gpt-oss:20b",
            ollama_entry(),
        ),
        entry(
            "openrouter",
            Some("OPENROUTER_API_KEY"),
            "OPENROUTER_BASE_URL",
            &[],
            "anthropic/claude-sonnet-5",
            openrouter_entry(),
        ),
    ]
}

/// Every vendor the registry knows, in matching order, with whether this build includes it.
#[must_use]
pub fn vendors() -> Vec<Vendor> {
    entries().into_iter().map(|e| e.vendor).collect()
}

fn find(spec: &str) -> Result<(Entry, String), ModelError> {
    let spec = spec.trim();
    let all = entries();
    let names = |only_compiled: bool| {
        let list: Vec<&str> =
            all.iter().filter(|e| !only_compiled || e.vendor.compiled_in).map(|e| e.vendor.name).collect();
        if list.is_empty() { "none".to_owned() } else { list.join(", ") }
    };
    let (known, compiled) = (names(false), names(true));
    let chosen = match spec.split_once('/') {
        Some((vendor, model)) if all.iter().any(|e| e.vendor.name == vendor) => {
            let i = all.iter().position(|e| e.vendor.name == vendor).unwrap_or_default();
            Some((i, model.to_owned()))
        }
        Some(_) => all.iter().position(|e| e.vendor.name == "openrouter").map(|i| (i, spec.to_owned())),
        // The longest matching prefix wins (`gpt-oss` is Ollama's, `gpt-` OpenAI's).
        None => {
            let lower = spec.to_ascii_lowercase();
            all.iter()
                .enumerate()
                .filter_map(|(i, e)| {
                    e.vendor.prefixes.iter().filter(|p| lower.starts_with(*p)).map(|p| (p.len(), i)).max()
                })
                .max_by_key(|(len, i)| (*len, std::cmp::Reverse(*i)))
                .map(|(_, i)| (i, spec.to_owned()))
        }
    };
    let Some((index, model)) = chosen else {
        return Err(ModelError::NoVendor { model: spec.to_owned(), known, compiled });
    };
    let entry = all.into_iter().nth(index).ok_or_else(|| ModelError::NoVendor {
        model: spec.to_owned(),
        known: String::new(),
        compiled: String::new(),
    })?;
    let model = if model.is_empty() { entry.vendor.default_model.to_owned() } else { model };
    Ok((entry, model))
}

/// Which vendor and model name a spec selects, without building anything (no key needed).
///
/// # Errors
/// [`ModelError::NoVendor`] when nothing matches; [`ModelError::NotCompiledIn`] when the
/// vendor exists but this build lacks its feature.
pub fn resolve_model(spec: &str) -> Result<(Vendor, String), ModelError> {
    let (entry, model) = find(spec)?;
    if !entry.vendor.compiled_in {
        return Err(ModelError::NotCompiledIn { vendor: entry.vendor.name, feature: entry.vendor.feature });
    }
    Ok((entry.vendor, model))
}

/// Builds the model a spec names: `vendor/model`, `vendor/` (its default model), or a bare
/// model name matched by pattern. Keys and base URLs come from the environment.
///
/// # Errors
/// As [`resolve_model`], plus [`ModelError::Provider`] when the provider cannot be built
/// (typically its API key is not set).
pub fn model(spec: &str) -> Result<Arc<dyn Llm>, ModelError> {
    build_model(spec, &ModelOptions::default())
}

/// [`model`] with transport settings: a retry policy (with an `on_retry` hook, say) and HTTP
/// options applied to whichever provider the spec selects.
///
/// # Errors
/// As [`model`].
#[cfg(feature = "provider")]
#[cfg_attr(docsrs, doc(cfg(feature = "provider")))]
pub fn model_with(spec: &str, options: &ModelOptions) -> Result<Arc<dyn Llm>, ModelError> {
    build_model(spec, options)
}

fn build_model(spec: &str, options: &ModelOptions) -> Result<Arc<dyn Llm>, ModelError> {
    let (entry, model) = find(spec)?;
    let build = entry
        .build
        .ok_or(ModelError::NotCompiledIn { vendor: entry.vendor.name, feature: entry.vendor.feature })?;
    build(&model, options)
}

/// The model catalogs of the vendors compiled in: `(vendor, model info)`.
#[must_use]
pub fn catalog() -> Vec<(&'static str, ModelInfo)> {
    entries().into_iter().flat_map(|e| (e.catalog)().into_iter().map(move |m| (e.vendor.name, m))).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn explicit_vendor_prefixes_win_and_patterns_pick_otherwise() {
        let vendor_of = |spec: &str| match find(spec) {
            Ok((e, m)) => format!("{}:{m}", e.vendor.name),
            Err(e) => format!("error: {e}"),
        };
        assert_eq!(vendor_of("openai/claude-like-name"), "openai:claude-like-name");
        assert_eq!(vendor_of("claude-opus-4-8"), "anthropic:claude-opus-4-8");
        assert_eq!(vendor_of("gpt-5.5-mini"), "openai:gpt-5.5-mini");
        assert_eq!(vendor_of("o4-mini"), "openai:o4-mini");
        assert_eq!(vendor_of("openai-completions/gpt-4.1"), "openai-completions:gpt-4.1");
        assert_eq!(vendor_of("openai/"), "openai:gpt-6-luna");
        assert_eq!(vendor_of("gemini-3.5-flash"), "google:gemini-3.5-flash");
        assert_eq!(vendor_of("Mistral-large"), "mistral:Mistral-large");
        assert_eq!(vendor_of("qwen3:32b"), "ollama:qwen3:32b");
        assert_eq!(vendor_of("gpt-oss:20b"), "ollama:gpt-oss:20b", "the longest prefix wins");
        assert_eq!(vendor_of("meta-llama/llama-4"), "openrouter:meta-llama/llama-4");
        assert_eq!(vendor_of("anthropic/"), "anthropic:claude-sonnet-5-5");
        assert!(vendor_of("mystery-model").starts_with("error: no provider matches"));
    }

    #[test]
    fn missing_features_are_named() {
        match resolve_model("openai/gpt-5.5") {
            Ok((vendor, _)) => assert!(vendor.compiled_in && cfg!(feature = "openai")),
            Err(err) => assert!(err.to_string().contains("enable the `openai` feature"), "{err}"),
        }
        let compiled = vendors().iter().filter(|v| v.compiled_in).count();
        let any_provider = cfg!(feature = "anthropic")
            || cfg!(feature = "openai")
            || cfg!(feature = "google")
            || cfg!(feature = "grok")
            || cfg!(feature = "mistral")
            || cfg!(feature = "ollama")
            || cfg!(feature = "openrouter");
        assert_eq!(any_provider, compiled >= 1);
        if cfg!(feature = "openai") {
            let (vendor, model) = resolve_model("openai-completions/gpt-5.5").unwrap();
            assert_eq!(
                (vendor.name, vendor.feature, model.as_str()),
                ("openai-completions", "openai", "gpt-5.5")
            );
        }
        let google = vendors().iter().any(|v| v.name == "google" && v.compiled_in);
        assert_eq!(google, cfg!(feature = "google"));
    }
}
