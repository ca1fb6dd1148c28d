//! [`GeminiOptions`]: the request fields only Gemini has, as a typed
//! [`ProviderOption`](dive_core::ProviderOption) carried on a [`ModelRequest`](dive_core::ModelRequest).

use dive_core::ProviderOption;
use serde::Serialize;

/// Gemini-only request fields, set with
/// [`ModelRequest::with_option`](dive_core::ModelRequest::with_option). Any other provider
/// refuses a request that carries them (an `InvalidRequest` naming `GeminiOptions`).
///
/// ```
/// use dive_core::{Message, ModelRequest};
/// use dive_google::{GeminiOptions, SafetySetting};
/// let request = ModelRequest::new(vec![Message::user("hi")]).with_option(
///     GeminiOptions::default()
///         .with_seed(7)
///         .with_stream_function_call_arguments(true)
///         .with_safety_setting(SafetySetting::new("HARM_CATEGORY_DANGEROUS_CONTENT", "BLOCK_ONLY_HIGH")),
/// );
/// assert_eq!(request.options.get::<GeminiOptions>().and_then(|o| o.seed), Some(7));
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct GeminiOptions {
    /// `safetySettings`: the blocking threshold of each harm category.
    pub safety_settings: Vec<SafetySetting>,
    /// `generationConfig.seed`: the sampling seed.
    pub seed: Option<i64>,
    /// `toolConfig.functionCallingConfig.streamFunctionCallArguments`: stream each function
    /// call's arguments as they are generated (assembled into one call each by the decoder).
    pub stream_function_call_arguments: bool,
    /// `cachedContent`: the name of a context cache (`cachedContents/…`) the prompt continues.
    pub cached_content: Option<String>,
}

impl GeminiOptions {
    /// Adds a safety setting.
    #[must_use]
    pub fn with_safety_setting(mut self, setting: SafetySetting) -> Self {
        self.safety_settings.push(setting);
        self
    }

    /// Sets the sampling seed.
    #[must_use]
    pub fn with_seed(mut self, seed: i64) -> Self {
        self.seed = Some(seed);
        self
    }

    /// Turns streamed function-call arguments on or off.
    #[must_use]
    pub fn with_stream_function_call_arguments(mut self, on: bool) -> Self {
        self.stream_function_call_arguments = on;
        self
    }

    /// Continues a context cache (`cachedContents/…`).
    #[must_use]
    pub fn with_cached_content(mut self, name: impl Into<String>) -> Self {
        self.cached_content = Some(name.into());
        self
    }
}

impl ProviderOption for GeminiOptions {
    const PROVIDER: &'static str = crate::PROVIDER;
    const NAME: &'static str = "GeminiOptions";
}

/// One `safetySettings` entry, in Gemini's enum names.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct SafetySetting {
    /// The harm category, e.g. `HARM_CATEGORY_DANGEROUS_CONTENT`.
    pub category: String,
    /// The threshold, e.g. `BLOCK_ONLY_HIGH`, `BLOCK_NONE`, `OFF`.
    pub threshold: String,
}

impl SafetySetting {
    /// A setting for `category` at `threshold`.
    pub fn new(category: impl Into<String>, threshold: impl Into<String>) -> Self {
        Self { category: category.into(), threshold: threshold.into() }
    }
}
