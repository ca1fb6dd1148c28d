//! [`OllamaOptions`]: the request fields only Ollama has, as a typed
//! [`ProviderOption`](dive_core::ProviderOption) carried on a [`ModelRequest`](dive_core::ModelRequest).

use dive_core::ProviderOption;

/// Ollama-only request fields, set with
/// [`ModelRequest::with_option`](dive_core::ModelRequest::with_option); they win over the
/// provider's own settings ([`OllamaBuilderExt`](crate::OllamaBuilderExt)). Any other
/// provider refuses a request that carries them (an `InvalidRequest` naming `OllamaOptions`).
/// Other keys of Ollama's `options` object can still be sent through `provider_options`.
///
/// ```
/// use dive_core::{Message, ModelRequest};
/// use dive_ollama::OllamaOptions;
/// let request = ModelRequest::new(vec![Message::user("hi")])
///     .with_option(OllamaOptions::default().with_num_ctx(32_768).with_keep_alive("10m").with_seed(7));
/// assert_eq!(request.options.get::<OllamaOptions>().and_then(|o| o.num_ctx), Some(32_768));
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct OllamaOptions {
    /// `options.num_ctx`: the context window the server allocates for this call.
    pub num_ctx: Option<u32>,
    /// `keep_alive`: how long the model stays loaded after this call (`"5m"`, `"-1"`).
    pub keep_alive: Option<String>,
    /// `options.seed`: the sampling seed.
    pub seed: Option<i64>,
    /// `options.top_k`: sample from the `k` most likely tokens.
    pub top_k: Option<u32>,
}

impl OllamaOptions {
    /// Sets the context window.
    #[must_use]
    pub fn with_num_ctx(mut self, tokens: u32) -> Self {
        self.num_ctx = Some(tokens);
        self
    }

    /// Sets how long the model stays loaded.
    #[must_use]
    pub fn with_keep_alive(mut self, duration: impl Into<String>) -> Self {
        self.keep_alive = Some(duration.into());
        self
    }

    /// Sets the sampling seed.
    #[must_use]
    pub fn with_seed(mut self, seed: i64) -> Self {
        self.seed = Some(seed);
        self
    }

    /// Sets top-k sampling.
    #[must_use]
    pub fn with_top_k(mut self, k: u32) -> Self {
        self.top_k = Some(k);
        self
    }
}

impl ProviderOption for OllamaOptions {
    const PROVIDER: &'static str = crate::PROVIDER;
    const NAME: &'static str = "OllamaOptions";
}
