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

use std::fmt;
use std::sync::Arc;

use dive_core::{Llm, LlmError, ModelInfo};

mod builtin;

/// Builds a provider for a model name with the caller's transport options.
type BuildFn = dyn Fn(&str, &ModelOptions) -> Result<Arc<dyn Llm>, ModelError> + Send + Sync;

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

/// Transport settings for a provider being built; without the `provider` feature there is
/// nothing to configure.
#[cfg(not(feature = "provider"))]
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct ModelOptions {}

/// One vendor the registry knows, compiled in or not.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Vendor {
    /// The vendor prefix of model specs (`anthropic` in `anthropic/claude-…`).
    pub name: &'static str,
    /// The `dive` feature that compiles it in.
    pub feature: &'static str,
    /// The environment variable holding its API key (`None`: no key needed, or not compiled
    /// in), from the provider crate's vendor facts.
    pub key_env: Option<&'static str>,
    /// Further key variables read when [`Self::key_env`] is unset (xAI's `GROK_API_KEY`).
    pub key_aliases: &'static [&'static str],
    /// The environment variable overriding its base URL (empty: none, or not compiled in).
    pub base_url_env: &'static str,
    /// Bare model-name prefixes that select this vendor.
    pub prefixes: &'static [&'static str],
    /// The model used for `vendor/` with no model name (empty when not compiled in).
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

/// One provider a [`Registry`] can build: its [`Vendor`] entry and how to build it.
///
/// ```
/// use std::sync::Arc;
/// use dive::Llm;
/// let echo = dive::Registration::new("echo", |model, _options| {
///     Ok(Arc::new(dive_test::ScriptedModel::new([]).with_model(model)) as Arc<dyn Llm>)
/// })
/// .with_prefixes(&["echo-"])
/// .with_default_model("echo-1");
/// let mut registry = dive::Registry::builtin();
/// registry.register(echo);
/// assert_eq!(registry.model("echo-2").unwrap().model(), "echo-2");
/// assert_eq!(registry.model("echo/").unwrap().model(), "echo-1");
/// ```
#[derive(Clone)]
pub struct Registration {
    vendor: Vendor,
    build: Option<Arc<BuildFn>>,
    catalog: Arc<dyn Fn() -> Vec<ModelInfo> + Send + Sync>,
}

impl fmt::Debug for Registration {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Registration").field("vendor", &self.vendor).finish_non_exhaustive()
    }
}

impl Registration {
    /// A provider named `name` (the `name/` prefix of model specs), built by `build` from a
    /// model name and the caller's [`ModelOptions`]. No key variable, prefixes or catalog
    /// until set.
    pub fn new(
        name: &'static str,
        build: impl Fn(&str, &ModelOptions) -> Result<Arc<dyn Llm>, ModelError> + Send + Sync + 'static,
    ) -> Self {
        Self {
            vendor: Vendor {
                name,
                feature: name,
                key_env: None,
                key_aliases: &[],
                base_url_env: "",
                prefixes: &[],
                default_model: "",
                compiled_in: true,
            },
            build: Some(Arc::new(build)),
            catalog: Arc::new(Vec::new),
        }
    }

    /// A provider described by a provider crate's vendor facts (name, key variables, base-URL
    /// variable, default model); `build` should read the same variables (`from_env`).
    #[cfg(feature = "provider")]
    #[cfg_attr(docsrs, doc(cfg(feature = "provider")))]
    pub fn from_vendor(
        vendor: &dive_provider::Vendor,
        build: impl Fn(&str, &ModelOptions) -> Result<Arc<dyn Llm>, ModelError> + Send + Sync + 'static,
    ) -> Self {
        let mut r = Self::new(vendor.name, build).with_default_model(vendor.default_model);
        let (first, rest) = vendor.api_key_vars.split_first().map_or((None, &[][..]), |(f, r)| (Some(*f), r));
        r.vendor.key_env = first.filter(|_| vendor.api_key_required);
        r.vendor.key_aliases = if vendor.api_key_required { rest } else { &[] };
        r.vendor.base_url_env = vendor.base_url_var.unwrap_or_default();
        r
    }

    #[allow(dead_code)] // Unused when every provider feature is on.
    /// A vendor this build does not include: model specs naming it fail with
    /// [`ModelError::NotCompiledIn`].
    fn missing(name: &'static str) -> Self {
        let mut r = Self::new(name, |_, _| {
            Err(ModelError::NoVendor { model: String::new(), known: String::new(), compiled: String::new() })
        });
        r.build = None;
        r.vendor.compiled_in = false;
        r
    }

    /// Bare model-name prefixes that select this provider (`claude-` for Anthropic).
    #[must_use]
    pub fn with_prefixes(mut self, prefixes: &'static [&'static str]) -> Self {
        self.vendor.prefixes = prefixes;
        self
    }

    /// The model used for `name/` with no model name.
    #[must_use]
    pub fn with_default_model(mut self, model: &'static str) -> Self {
        self.vendor.default_model = model;
        self
    }

    /// The key variable shown to users (`dive models`, error messages).
    #[must_use]
    pub fn with_key_env(mut self, var: &'static str) -> Self {
        self.vendor.key_env = Some(var);
        self
    }

    /// The base-URL variable shown to users.
    #[must_use]
    pub fn with_base_url_env(mut self, var: &'static str) -> Self {
        self.vendor.base_url_env = var;
        self
    }

    /// The models listed by [`Registry::catalog`].
    #[must_use]
    pub fn with_catalog(mut self, catalog: impl Fn() -> Vec<ModelInfo> + Send + Sync + 'static) -> Self {
        self.catalog = Arc::new(catalog);
        self
    }

    /// The `dive` feature named when it is not compiled in.
    fn with_feature(mut self, feature: &'static str) -> Self {
        self.vendor.feature = feature;
        self
    }

    fn with_name(mut self, name: &'static str) -> Self {
        self.vendor.name = name;
        self
    }

    /// This provider's registry entry.
    #[must_use]
    pub fn vendor(&self) -> Vendor {
        self.vendor
    }
}

/// The providers model specs resolve among: [`Registry::builtin`] holds those compiled into
/// this build; [`Registry::register`] adds your own (a later registration of a name replaces
/// an earlier one). `dive::model` and friends use the built-in registry; nothing is global.
#[derive(Debug, Clone, Default)]
pub struct Registry {
    entries: Vec<Registration>,
}

impl Registry {
    /// An empty registry.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Every provider this build knows (compiled in or not), in matching order.
    #[must_use]
    pub fn builtin() -> Self {
        Self { entries: builtin::registrations() }
    }

    /// Adds a provider, replacing one of the same name; it is matched before OpenRouter's
    /// catch-all `org/model` ids.
    pub fn register(&mut self, registration: Registration) -> &mut Self {
        self.entries.retain(|e| e.vendor.name != registration.vendor.name);
        let at =
            self.entries.iter().position(|e| e.vendor.name == "openrouter").unwrap_or(self.entries.len());
        self.entries.insert(at, registration);
        self
    }

    /// Every vendor, in matching order, with whether this build includes it.
    #[must_use]
    pub fn vendors(&self) -> Vec<Vendor> {
        self.entries.iter().map(|e| e.vendor).collect()
    }

    /// The model catalogs of the providers compiled in: `(vendor, model info)`.
    #[must_use]
    pub fn catalog(&self) -> Vec<(&'static str, ModelInfo)> {
        self.entries.iter().flat_map(|e| (e.catalog)().into_iter().map(move |m| (e.vendor.name, m))).collect()
    }

    fn find(&self, spec: &str) -> Result<(&Registration, String), ModelError> {
        let spec = spec.trim();
        let all = &self.entries;
        let names = |only_compiled: bool| {
            let list: Vec<&str> = all
                .iter()
                .filter(|e| !only_compiled || e.vendor.compiled_in)
                .map(|e| e.vendor.name)
                .collect();
            if list.is_empty() { "none".to_owned() } else { list.join(", ") }
        };
        let chosen = match spec.split_once('/') {
            Some((vendor, model)) if all.iter().any(|e| e.vendor.name == vendor) => {
                all.iter().find(|e| e.vendor.name == vendor).map(|e| (e, model.to_owned()))
            }
            Some(_) => all.iter().find(|e| e.vendor.name == "openrouter").map(|e| (e, spec.to_owned())),
            // The longest matching prefix wins (`gpt-oss` is Ollama's, `gpt-` OpenAI's).
            None => {
                let lower = spec.to_ascii_lowercase();
                all.iter()
                    .enumerate()
                    .filter_map(|(i, e)| {
                        e.vendor.prefixes.iter().filter(|p| lower.starts_with(*p)).map(|p| (p.len(), i)).max()
                    })
                    .max_by_key(|(len, i)| (*len, std::cmp::Reverse(*i)))
                    .map(|(_, i)| (&all[i], spec.to_owned()))
            }
        };
        let Some((entry, model)) = chosen else {
            return Err(ModelError::NoVendor {
                model: spec.to_owned(),
                known: names(false),
                compiled: names(true),
            });
        };
        let model = if model.is_empty() { entry.vendor.default_model.to_owned() } else { model };
        Ok((entry, model))
    }

    /// Which vendor and model name a spec selects, without building anything (no key needed).
    ///
    /// # Errors
    /// [`ModelError::NoVendor`] when nothing matches; [`ModelError::NotCompiledIn`] when the
    /// vendor exists but this build lacks its feature.
    pub fn resolve(&self, spec: &str) -> Result<(Vendor, String), ModelError> {
        let (entry, model) = self.find(spec)?;
        if !entry.vendor.compiled_in {
            return Err(ModelError::NotCompiledIn {
                vendor: entry.vendor.name,
                feature: entry.vendor.feature,
            });
        }
        Ok((entry.vendor, model))
    }

    /// Builds the model a spec names (see [`model`]).
    ///
    /// # Errors
    /// As [`Registry::resolve`], plus [`ModelError::Provider`] when the provider cannot be
    /// built (typically its API key is not set).
    pub fn model(&self, spec: &str) -> Result<Arc<dyn Llm>, ModelError> {
        self.model_with(spec, &ModelOptions::default())
    }

    /// Builds the model a spec names with transport options (what `dive::model_with` does with the built-in registry).
    ///
    /// # Errors
    /// As [`Registry::model`].
    pub fn model_with(&self, spec: &str, options: &ModelOptions) -> Result<Arc<dyn Llm>, ModelError> {
        let (entry, model) = self.find(spec)?;
        let build = entry
            .build
            .as_ref()
            .ok_or(ModelError::NotCompiledIn { vendor: entry.vendor.name, feature: entry.vendor.feature })?;
        build(&model, options)
    }
}

/// Every vendor the registry knows, in matching order, with whether this build includes it.
#[must_use]
pub fn vendors() -> Vec<Vendor> {
    Registry::builtin().vendors()
}

/// Which vendor and model name a spec selects, without building anything (no key needed).
///
/// # Errors
/// [`ModelError::NoVendor`] when nothing matches; [`ModelError::NotCompiledIn`] when the
/// vendor exists but this build lacks its feature.
pub fn resolve_model(spec: &str) -> Result<(Vendor, String), ModelError> {
    Registry::builtin().resolve(spec)
}

/// Builds the model a spec names: `vendor/model`, `vendor/` (its default model), or a bare
/// model name matched by pattern. Keys and base URLs come from the environment.
///
/// # Errors
/// As [`resolve_model`], plus [`ModelError::Provider`] when the provider cannot be built
/// (typically its API key is not set).
pub fn model(spec: &str) -> Result<Arc<dyn Llm>, ModelError> {
    Registry::builtin().model(spec)
}

/// [`model`] with transport settings: a retry policy (with an `on_retry` hook, say) and HTTP
/// options applied to whichever provider the spec selects.
///
/// # Errors
/// As [`model`].
#[cfg(feature = "provider")]
#[cfg_attr(docsrs, doc(cfg(feature = "provider")))]
pub fn model_with(spec: &str, options: &ModelOptions) -> Result<Arc<dyn Llm>, ModelError> {
    Registry::builtin().model_with(spec, options)
}

/// The model catalogs of the vendors compiled in: `(vendor, model info)`.
#[must_use]
pub fn catalog() -> Vec<(&'static str, ModelInfo)> {
    Registry::builtin().catalog()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn explicit_vendor_prefixes_win_and_patterns_pick_otherwise() {
        let registry = Registry::builtin();
        let vendor_of = |spec: &str| match registry.find(spec) {
            Ok((e, m)) => format!("{}:{m}", e.vendor.name),
            Err(e) => format!("error: {e}"),
        };
        assert_eq!(vendor_of("openai/claude-like-name"), "openai:claude-like-name");
        assert_eq!(vendor_of("claude-opus-4-8"), "anthropic:claude-opus-4-8");
        assert_eq!(vendor_of("gpt-5.5-mini"), "openai:gpt-5.5-mini");
        assert_eq!(vendor_of("o4-mini"), "openai:o4-mini");
        assert_eq!(vendor_of("openai-completions/gpt-4.1"), "openai-completions:gpt-4.1");
        // `vendor/` takes the provider crate's default model; a vendor not compiled in has none.
        let openai_default = if cfg!(feature = "openai") { "gpt-6-luna" } else { "" };
        assert_eq!(vendor_of("openai/"), format!("openai:{openai_default}"));
        assert_eq!(vendor_of("gemini-3.5-flash"), "google:gemini-3.5-flash");
        assert_eq!(vendor_of("Mistral-large"), "mistral:Mistral-large");
        assert_eq!(vendor_of("qwen3:32b"), "ollama:qwen3:32b");
        assert_eq!(vendor_of("gpt-oss:20b"), "ollama:gpt-oss:20b", "the longest prefix wins");
        assert_eq!(vendor_of("meta-llama/llama-4"), "openrouter:meta-llama/llama-4");
        let anthropic_default = if cfg!(feature = "anthropic") { "claude-sonnet-5-5" } else { "" };
        assert_eq!(vendor_of("anthropic/"), format!("anthropic:{anthropic_default}"));
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

    #[test]
    fn a_registered_provider_is_matched_before_openrouter_and_replaces_one_of_its_name() {
        use std::sync::atomic::{AtomicUsize, Ordering};
        static BUILT: AtomicUsize = AtomicUsize::new(0);
        let mut registry = Registry::builtin();
        let acme = |tag: &'static str| {
            Registration::new("acme", move |model, _| {
                BUILT.fetch_add(1, Ordering::SeqCst);
                Ok(Arc::new(dive_test::ScriptedModel::new([]).with_model(format!("{tag}:{model}")))
                    as Arc<dyn Llm>)
            })
            .with_prefixes(&["acme-"])
            .with_key_env("ACME_API_KEY")
        };
        registry.register(acme("first")).register(acme("second"));
        let names: Vec<&str> = registry.vendors().iter().map(|v| v.name).collect();
        assert_eq!(names.iter().filter(|n| **n == "acme").count(), 1);
        assert_eq!(names.last(), Some(&"openrouter"), "openrouter's catch-all stays last");
        assert_eq!(registry.model("acme-large").unwrap().model(), "second:acme-large");
        assert_eq!(registry.model("acme/x").unwrap().model(), "second:x");
        assert_eq!(BUILT.load(Ordering::SeqCst), 2);
        let (vendor, _) = registry.resolve("acme-large").unwrap();
        assert_eq!((vendor.key_env, vendor.compiled_in), (Some("ACME_API_KEY"), true));
        // The built-in registry knows nothing of it.
        assert!(Registry::builtin().resolve("acme-large").is_err());
    }

    #[cfg(all(feature = "grok", feature = "deepinfra"))]
    #[test]
    fn compiled_in_facts_come_from_the_provider_crates() {
        let vendors = vendors();
        let grok = vendors.iter().find(|v| v.name == "grok").unwrap();
        assert_eq!((grok.key_env, grok.key_aliases), (Some("XAI_API_KEY"), &["GROK_API_KEY"][..]));
        assert_eq!(grok.default_model, dive_grok::DEFAULT_MODEL);
        let deepinfra = vendors.iter().find(|v| v.name == "deepinfra").unwrap();
        assert_eq!(deepinfra.base_url_env, "DEEPINFRA_BASE_URL");
    }
}
