//! [`Vendor`]: the facts a provider crate declares about its vendor (name, key variables,
//! base URL, default model, catalog), read by the generic provider and by registries.

use std::fmt;

use dive_core::ModelInfo;

/// What a provider crate declares about its vendor, as a `const`.
///
/// [`HttpProvider`](crate::HttpProvider) reads it in two places only: `build()` takes the
/// defaults (base URL, model) and the catalog from it, and `from_env()` reads the variables
/// it names. Nothing else in the workspace keeps a copy of these strings.
///
/// ```
/// use dive_provider::Vendor;
/// fn no_models(_: &str) -> Option<&'static dive_core::ModelInfo> { None }
/// const ACME: Vendor = Vendor::new("acme", "https://api.acme.test/v1", "acme-1", no_models)
///     .with_api_key_vars(&["ACME_API_KEY", "ACME_KEY"])
///     .with_base_url_var("ACME_BASE_URL");
/// assert_eq!(ACME.api_key_vars[1], "ACME_KEY");
/// assert!(ACME.api_key_required);
/// ```
#[derive(Clone, Copy)]
#[non_exhaustive]
pub struct Vendor {
    /// The provider name reported by [`Llm::provider`](dive_core::Llm::provider) and errors.
    pub name: &'static str,
    /// Environment variables holding the API key, tried in order (the first is the
    /// documented one, later ones are aliases). Read by `from_env()` only.
    pub api_key_vars: &'static [&'static str],
    /// Whether a call needs a key (`false` for a local server such as Ollama).
    pub api_key_required: bool,
    /// The variable overriding the base URL, read by `from_env()` only.
    pub base_url_var: Option<&'static str>,
    /// The base URL when none is given.
    pub default_base_url: &'static str,
    /// The model when none is given.
    pub default_model: &'static str,
    /// The vendor's catalog: model facts and prices by id.
    pub catalog: fn(&str) -> Option<&'static ModelInfo>,
}

impl fmt::Debug for Vendor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Vendor")
            .field("name", &self.name)
            .field("api_key_vars", &self.api_key_vars)
            .field("api_key_required", &self.api_key_required)
            .field("base_url_var", &self.base_url_var)
            .field("default_base_url", &self.default_base_url)
            .field("default_model", &self.default_model)
            .finish_non_exhaustive()
    }
}

impl Vendor {
    /// A vendor that needs a key, with no environment variables yet.
    #[must_use]
    pub const fn new(
        name: &'static str,
        default_base_url: &'static str,
        default_model: &'static str,
        catalog: fn(&str) -> Option<&'static ModelInfo>,
    ) -> Self {
        Self {
            name,
            api_key_vars: &[],
            api_key_required: true,
            base_url_var: None,
            default_base_url,
            default_model,
            catalog,
        }
    }

    /// The key variables, first the documented one, then aliases.
    #[must_use]
    pub const fn with_api_key_vars(mut self, vars: &'static [&'static str]) -> Self {
        self.api_key_vars = vars;
        self
    }

    /// The base-URL variable.
    #[must_use]
    pub const fn with_base_url_var(mut self, var: &'static str) -> Self {
        self.base_url_var = Some(var);
        self
    }

    /// Calls work without a key (a key, when given, is still sent).
    #[must_use]
    pub const fn key_optional(mut self) -> Self {
        self.api_key_required = false;
        self
    }

    /// The catalog entry of `model`.
    #[must_use]
    pub fn model_info(&self, model: &str) -> Option<&'static ModelInfo> {
        (self.catalog)(model)
    }
}
