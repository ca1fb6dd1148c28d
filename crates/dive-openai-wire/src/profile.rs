//! [`Profile`]: a vendor reachable through an OpenAI wire format — its facts (name,
//! endpoint, key variables, default model, catalog) and its [`Dialect`]. OpenAI-compatible
//! vendor crates (OpenAI itself, Grok, OpenRouter, Mistral, …) declare one instead of
//! re-implementing the encoders.

use dive_core::ModelInfo;

use crate::dialect::Dialect;

/// Looks a model up in a vendor's catalog.
pub type CatalogFn = fn(&str) -> Option<&'static ModelInfo>;

fn no_catalog(_: &str) -> Option<&'static ModelInfo> {
    None
}

/// A vendor reachable through an OpenAI wire format: its name, endpoint, key variable,
/// default model, catalog and [`Dialect`].
///
/// ```
/// use dive_openai_wire::{CompatibleChat, Dialect, Profile};
/// let profile = Profile::new("acme", "https://api.acme.test/v1", "acme-large")
///     .with_api_key_env("ACME_API_KEY")
///     .with_base_url_env("ACME_BASE_URL")
///     .with_dialect(Dialect::compatible());
/// let llm = CompatibleChat::builder_for(profile).api_key("k").build().unwrap();
/// assert_eq!(dive_core::Llm::provider(&llm), "acme");
/// ```
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Profile {
    /// Provider name reported by the client and its errors.
    pub provider: &'static str,
    /// Default API root, including the version segment (`https://api.openai.com/v1`).
    pub base_url: &'static str,
    /// Environment variable holding the API key.
    pub api_key_env: Option<&'static str>,
    /// Further variables read, in order, when [`Self::api_key_env`] is unset (xAI's
    /// `GROK_API_KEY`).
    pub api_key_aliases: &'static [&'static str],
    /// Whether building fails without a key (false for local servers such as Ollama).
    pub api_key_required: bool,
    /// Environment variable overriding the base URL.
    pub base_url_env: Option<&'static str>,
    /// The model used when none is given.
    pub default_model: &'static str,
    /// The vendor's model catalog (context windows, prices).
    pub catalog: CatalogFn,
    /// Wire differences.
    pub dialect: Dialect,
}

impl Profile {
    /// A profile with no key variable, no catalog and [`Dialect::compatible`]; add the rest
    /// with the `with_*` methods.
    #[must_use]
    pub fn new(provider: &'static str, base_url: &'static str, default_model: &'static str) -> Self {
        Self {
            provider,
            base_url,
            api_key_env: None,
            api_key_aliases: &[],
            api_key_required: false,
            base_url_env: None,
            default_model,
            catalog: no_catalog,
            dialect: Dialect::compatible(),
        }
    }

    /// Reads the key from this variable, and requires one.
    #[must_use]
    pub fn with_api_key_env(mut self, var: &'static str) -> Self {
        self.api_key_env = Some(var);
        self.api_key_required = true;
        self
    }

    /// Also reads the key from these variables, in order, when the main one is unset.
    #[must_use]
    pub fn with_api_key_aliases(mut self, vars: &'static [&'static str]) -> Self {
        self.api_key_aliases = vars;
        self
    }

    /// Whether a key is required.
    #[must_use]
    pub fn with_api_key_required(mut self, required: bool) -> Self {
        self.api_key_required = required;
        self
    }

    /// Reads a base URL override from this variable.
    #[must_use]
    pub fn with_base_url_env(mut self, var: &'static str) -> Self {
        self.base_url_env = Some(var);
        self
    }

    /// Sets the default model.
    #[must_use]
    pub fn with_default_model(mut self, model: &'static str) -> Self {
        self.default_model = model;
        self
    }

    /// Sets the catalog lookup.
    #[must_use]
    pub fn with_catalog(mut self, catalog: CatalogFn) -> Self {
        self.catalog = catalog;
        self
    }

    /// Sets the dialect.
    #[must_use]
    pub fn with_dialect(mut self, dialect: Dialect) -> Self {
        self.dialect = dialect;
        self
    }
}
