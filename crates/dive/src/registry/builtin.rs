//! The providers this build of `dive` knows: one [`Registration`] per provider feature, its
//! facts read from the provider crate's own `VENDOR` and `MODELS` (the facade copies no key
//! names, base-URL variables or default models). A feature that is off leaves a placeholder
//! that only says which feature to enable.
//!
//! What stays here is the facade's own knowledge: the feature that compiles each vendor in,
//! the bare model-name prefixes that route to it, and the matching order (OpenRouter, which
//! takes any `org/model` id, last).

#[allow(unused_imports)] // Unused when no provider feature is on.
use std::sync::Arc;

use super::Registration;

/// Applies [`ModelOptions`](super::ModelOptions) to a provider builder that has
/// `retry_policy` and `http_options`.
#[cfg(feature = "provider")]
#[allow(unused_macros)] // Unused with `provider` but no vendor feature.
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

/// A compiled-in provider from its crate's vendor facts and catalog; `$builder` is its
/// builder with the environment read.
macro_rules! provider {
    ($feature:literal, $prefixes:expr, $vendor:expr, $models:expr, $builder:expr) => {{
        #[cfg(feature = $feature)]
        let r = Registration::from_vendor(&$vendor, |model, options| {
            Ok(Arc::new(configured!($builder.model(model), options).build()?))
        })
        .with_catalog(|| $models.clone());
        #[cfg(not(feature = $feature))]
        let r = Registration::missing($feature);
        r.with_feature($feature).with_prefixes($prefixes)
    }};
}

/// Every provider of this build, in matching order.
pub(super) fn registrations() -> Vec<Registration> {
    vec![
        provider!(
            "anthropic",
            &["claude-"],
            dive_anthropic::VENDOR,
            dive_anthropic::MODELS,
            dive_anthropic::Anthropic::builder_from_env()
        ),
        provider!(
            "openai",
            &["gpt-", "o3", "o4", "codex"],
            dive_openai::VENDOR,
            dive_openai::MODELS,
            dive_openai::OpenAi::builder_from_env()
        ),
        // Explicit only (no name patterns); compiled in by the `openai` feature.
        openai_completions(),
        provider!(
            "google",
            &["gemini-"],
            dive_google::VENDOR,
            dive_google::MODELS,
            dive_google::Gemini::builder_from_env()
        ),
        provider!(
            "grok",
            &["grok-"],
            dive_grok::VENDOR,
            dive_grok::MODELS,
            dive_grok::Grok::builder_from_env()
        ),
        provider!(
            "mistral",
            &["mistral-", "ministral-", "codestral-", "devstral-", "magistral-"],
            dive_mistral::VENDOR,
            dive_mistral::MODELS,
            dive_mistral::Mistral::builder_from_env()
        ),
        ollama(),
        provider!(
            "deepinfra",
            &[],
            dive_compatible::deepinfra::VENDOR,
            dive_compatible::deepinfra::MODELS,
            dive_compatible::deepinfra::DeepInfra::builder_from_env()
        ),
        provider!(
            "groq",
            &[],
            dive_compatible::groq::VENDOR,
            dive_compatible::groq::MODELS,
            dive_compatible::groq::Groq::builder_from_env()
        ),
        provider!(
            "together",
            &[],
            dive_compatible::together::VENDOR,
            dive_compatible::together::MODELS,
            dive_compatible::together::Together::builder_from_env()
        ),
        openai_compatible(),
        provider!(
            "openrouter",
            &[],
            dive_openrouter::VENDOR,
            dive_openrouter::MODELS,
            dive_openrouter::OpenRouter::builder_from_env()
        ),
    ]
}

/// OpenAI through Chat Completions instead of the Responses API (`openai-completions/gpt-…`).
fn openai_completions() -> Registration {
    #[cfg(feature = "openai")]
    let r = {
        let mut vendor = dive_openai::VENDOR;
        vendor.default_model = dive_openai::DEFAULT_CHAT_MODEL;
        Registration::from_vendor(&vendor, |model, options| {
            let builder = dive_openai::ChatCompletions::builder_from_env();
            Ok(Arc::new(configured!(builder.model(model), options).build()?))
        })
    };
    #[cfg(not(feature = "openai"))]
    let r = Registration::missing("openai-completions");
    r.with_name("openai-completions").with_feature("openai")
}

/// Any OpenAI-compatible endpoint (`openai-compatible/<model>`): the base URL from
/// `OPENAI_COMPATIBLE_BASE_URL`, an optional key from `OPENAI_COMPATIBLE_API_KEY`.
fn openai_compatible() -> Registration {
    #[cfg(feature = "openai-compatible")]
    let r = Registration::from_vendor(&dive_openai_wire::COMPATIBLE, |model, options| {
        use dive_openai_wire::{COMPATIBLE, Chat, Compatible, Dialect, Profile, Wire};
        let var = COMPATIBLE.base_url_var.unwrap_or_default();
        // `dive::model` is a from_env-style constructor: it reads the vendor's variables.
        #[allow(clippy::disallowed_methods)]
        let unset = std::env::var(var).map_or(true, |url| url.trim().is_empty());
        if unset {
            let message =
                format!("openai-compatible needs a base URL: set {var} (e.g. http://127.0.0.1:8000/v1)");
            let error = dive_core::LlmError::new(dive_core::LlmErrorKind::InvalidRequest, message);
            return Err(error.with_provider(COMPATIBLE.name).into());
        }
        let wire = Wire::<Chat, Compatible>::with_profile(Profile::new(COMPATIBLE, Dialect::compatible()));
        let builder = dive_provider::ProviderBuilder::from_env(wire);
        Ok(Arc::new(configured!(builder.model(model), options).build()?))
    });
    #[cfg(not(feature = "openai-compatible"))]
    let r = Registration::missing("openai-compatible");
    r.with_feature("openai-compatible")
}

/// Ollama: no key; the host from `OLLAMA_HOST` (read by its builder).
fn ollama() -> Registration {
    const PREFIXES: &[&str] =
        &["llama", "codellama", "mixtral", "gemma", "glm-", "gpt-oss", "minimax-", "qwen", "phi", "deepseek"];
    #[cfg(feature = "ollama")]
    let r = Registration::new("ollama", |model, options| {
        Ok(Arc::new(configured!(dive_ollama::Ollama::builder_from_env().model(model), options).build()?))
    })
    .with_base_url_env("OLLAMA_HOST")
    .with_default_model(dive_ollama::DEFAULT_MODEL)
    .with_catalog(|| dive_ollama::MODELS.clone());
    #[cfg(not(feature = "ollama"))]
    let r = Registration::missing("ollama");
    r.with_feature("ollama").with_prefixes(PREFIXES)
}
