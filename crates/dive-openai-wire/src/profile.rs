//! [`Profile`]: a vendor reachable through an OpenAI wire format — its facts
//! ([`Vendor`](dive_provider::Vendor): name, endpoint, key variables, default model, catalog)
//! and its [`Dialect`]. OpenAI-compatible vendor crates (OpenAI itself, Grok, OpenRouter,
//! Mistral, …) declare one instead of re-implementing the encoders, and name it through a
//! marker type ([`Speaks`]) so `Provider::builder()` starts from it.

use dive_provider::Vendor;

use crate::dialect::Dialect;

/// A vendor reachable through an OpenAI wire format: its facts and its [`Dialect`].
///
/// ```
/// use dive_openai_wire::{Chat, Dialect, Profile, builder_for};
/// use dive_provider::Vendor;
/// fn no_models(_: &str) -> Option<&'static dive_core::ModelInfo> { None }
/// const ACME: Vendor = Vendor::new("acme", "https://api.acme.test/v1", "acme-large", no_models)
///     .with_api_key_vars(&["ACME_API_KEY"])
///     .with_base_url_var("ACME_BASE_URL");
/// let llm = builder_for::<Chat>(Profile::new(ACME, Dialect::compatible())).api_key("k").build().unwrap();
/// assert_eq!(dive_core::Llm::provider(&llm), "acme");
/// ```
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Profile {
    /// The vendor facts: provider name, default base URL and model, key and base-URL
    /// variables, catalog.
    pub vendor: Vendor,
    /// Wire differences.
    pub dialect: Dialect,
}

impl Profile {
    /// A profile from vendor facts and a dialect.
    #[must_use]
    pub fn new(vendor: Vendor, dialect: Dialect) -> Self {
        Self { vendor, dialect }
    }

    /// Sets the dialect.
    #[must_use]
    pub fn with_dialect(mut self, dialect: Dialect) -> Self {
        self.dialect = dialect;
        self
    }

    /// Sets the default model.
    #[must_use]
    pub fn with_default_model(mut self, model: &'static str) -> Self {
        self.vendor.default_model = model;
        self
    }
}

/// A vendor speaking OpenAI wire format `A` ([`Chat`](crate::Chat) or
/// [`Responses`](crate::Responses)): the marker type a vendor crate names its provider with
/// (`HttpProvider<Wire<Chat, MistralVendor>>`), so `builder()` starts from its profile.
pub trait Speaks<A>: Send + Sync + 'static {
    /// The vendor's profile on this wire format.
    fn profile() -> Profile;
}

/// Any OpenAI-compatible endpoint, profile given at run time (a base URL and key from the
/// user): the vendor parameter of [`CompatibleChat`](crate::CompatibleChat) and
/// [`CompatibleResponses`](crate::CompatibleResponses), built with
/// [`compatible`](crate::compatible) or [`builder_for`](crate::builder_for).
#[derive(Debug, Clone, Copy)]
pub struct Compatible;

fn no_catalog(_: &str) -> Option<&'static dive_core::ModelInfo> {
    None
}

/// The facts of an OpenAI-compatible endpoint named by the user: provider name
/// `openai-compatible`, an optional key read from `OPENAI_COMPATIBLE_API_KEY`, the base URL
/// from `OPENAI_COMPATIBLE_BASE_URL`, no catalog.
pub const COMPATIBLE: Vendor = Vendor::new("openai-compatible", "", "", no_catalog)
    .with_api_key_vars(&["OPENAI_COMPATIBLE_API_KEY"])
    .with_base_url_var("OPENAI_COMPATIBLE_BASE_URL")
    .key_optional();

/// Declares a vendor of an OpenAI wire format in its own crate: the marker type, its
/// [`Speaks`] impl returning the profile, and the provider alias on dive-provider's
/// `HttpProvider` (so `Alias::builder()`, `Alias::from_env()` and the `Llm` impl come from
/// there).
///
/// ```
/// use dive_openai_wire::{Dialect, Profile};
/// fn no_models(_: &str) -> Option<&'static dive_core::ModelInfo> { None }
/// const ACME: dive_provider::Vendor =
///     dive_provider::Vendor::new("acme", "https://api.acme.test/v1", "acme-1", no_models);
/// dive_openai_wire::vendor! {
///     /// Acme as the vendor of a `Wire`.
///     pub struct AcmeVendor: Speaks<Chat> = Profile::new(ACME, Dialect::compatible());
///     /// The Acme provider.
///     pub type Acme;
/// }
/// let llm = Acme::builder().api_key("k").build().unwrap();
/// assert_eq!(dive_core::Llm::provider(&llm), "acme");
/// ```
#[macro_export]
macro_rules! vendor {
    (
        $(#[$marker_meta:meta])*
        pub struct $marker:ident: Speaks<$api:ident> = $profile:expr;
        $(#[$alias_meta:meta])*
        pub type $alias:ident;
    ) => {
        $(#[$marker_meta])*
        #[derive(Debug, Clone, Copy)]
        pub struct $marker;

        impl $crate::Speaks<$crate::$api> for $marker {
            fn profile() -> $crate::Profile {
                $profile
            }
        }

        $(#[$alias_meta])*
        pub type $alias = $crate::HttpProvider<$crate::Wire<$crate::$api, $marker>>;
    };
}
