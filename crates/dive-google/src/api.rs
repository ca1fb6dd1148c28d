//! [`GenerateContent`]: the Gemini API as a [`WireFormat`] on the generic provider, the
//! vendor facts ([`VENDOR`]) and the [`Gemini`] provider type.

use std::borrow::Cow;

use dive_core::LlmErrorKind;
use dive_core::{ModelRequest, ModelResponse, Secret};
use dive_provider::reqwest::header::HeaderMap;
use dive_provider::{
    CallContext, Encoded, EncodedTools, HttpProvider, ProviderBuilder, ProviderError, ToolCache, Vendor,
    WireFormat, secret_header,
};

use crate::PROVIDER;
use crate::body::Body;
use crate::catalog::{DEFAULT_MODEL, model_info};
use crate::decode::decode_response;
use crate::encode::{EncodeOptions, encode_request, encode_tools};
use crate::error::refine;
use crate::schema::SchemaError;
use crate::stream::ChunkDecoder;

/// The default API endpoint.
pub const DEFAULT_BASE_URL: &str = "https://generativelanguage.googleapis.com";
/// The API version path segment used unless [`GeminiBuilderExt::api_version`] says otherwise.
pub const DEFAULT_API_VERSION: &str = "v1beta";
/// `maxOutputTokens` when neither the request nor the builder sets one (capped by the
/// model's output limit).
pub const DEFAULT_MAX_TOKENS: u32 = 32_768;

/// What Gemini is: `GEMINI_API_KEY` (alias `GOOGLE_API_KEY`), `GEMINI_BASE_URL`, the default
/// model and the catalog. `from_env()` reads these variables; `build()` reads none.
pub const VENDOR: Vendor = Vendor::new(PROVIDER, DEFAULT_BASE_URL, DEFAULT_MODEL, model_info)
    .with_api_key_vars(&["GEMINI_API_KEY", "GOOGLE_API_KEY"])
    .with_base_url_var("GEMINI_BASE_URL");

/// The Gemini API (`generateContent`, `streamGenerateContent`) as an [`Llm`](dive_core::Llm):
/// the generic provider over [`GenerateContent`]. `Debug` never shows the API key; it is
/// sent only in the `x-goog-api-key` header.
///
/// ```no_run
/// use dive_google::Gemini;
/// use dive_core::{Llm, Message, ModelRequest};
/// # async fn run() -> Result<(), dive_core::LlmError> {
/// let gemini = Gemini::from_env()?; // GEMINI_API_KEY (or GOOGLE_API_KEY), optional GEMINI_BASE_URL
/// let reply = gemini.generate(ModelRequest::new(vec![Message::user("Hello")])).await?;
/// println!("{}", reply.text_content());
/// # Ok(()) }
/// ```
pub type Gemini = HttpProvider<GenerateContent>;

/// Builds a [`Gemini`]: `Gemini::builder()` (nothing read from the environment) or
/// `Gemini::builder_from_env()`. [`GeminiBuilderExt`] adds the API version.
pub type GeminiBuilder = ProviderBuilder<GenerateContent>;

/// The Gemini API wire format: how a [`ModelRequest`] becomes a body, where it goes
/// (`/{version}/models/{model}:generateContent`, or `:streamGenerateContent?alt=sse`), how
/// the key is sent (`x-goog-api-key`) and how responses, streams and errors are read.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct GenerateContent {
    /// The API version path segment (default [`DEFAULT_API_VERSION`]; `v1` for the stable
    /// surface).
    pub api_version: Cow<'static, str>,
    /// The last tool list, converted to Gemini's schema dialect and encoded once.
    tools: ToolCache,
}

impl Default for GenerateContent {
    fn default() -> Self {
        Self { api_version: Cow::Borrowed(DEFAULT_API_VERSION), tools: ToolCache::default() }
    }
}

/// The Gemini-only builder setting.
pub trait GeminiBuilderExt {
    /// The API version segment (default [`DEFAULT_API_VERSION`]; `v1` for the stable surface).
    #[must_use]
    fn api_version(self, version: impl Into<String>) -> Self;
}

impl GeminiBuilderExt for GeminiBuilder {
    fn api_version(self, version: impl Into<String>) -> Self {
        let version = version.into();
        self.map_wire(|w| w.api_version = Cow::Owned(version))
    }
}

/// The model id of a call (`models/` prefix removed).
fn model_id<'a>(call: &CallContext<'a>) -> &'a str {
    call.model.strip_prefix("models/").unwrap_or(call.model)
}

impl WireFormat for GenerateContent {
    type Body<'a> = Body<'a>;
    type Mapper = ChunkDecoder;

    fn vendor(&self) -> &Vendor {
        &VENDOR
    }

    fn encode<'a>(
        &'a self,
        request: &'a ModelRequest,
        call: &CallContext<'a>,
    ) -> Result<Encoded<Body<'a>>, ProviderError> {
        dive_provider::refuse_foreign_options(PROVIDER, request)?;
        dive_provider::refuse_unsupported_content(PROVIDER, request, |block| {
            dive_provider::model_cannot_take(call, block)
        })?;
        let max_tokens = call.max_tokens_or(DEFAULT_MAX_TOKENS);
        let files_base = format!("{}/{}", call.base_url, self.api_version);
        let invalid = |e: SchemaError| {
            ProviderError::new(PROVIDER, LlmErrorKind::InvalidRequest, e.to_string()).with_source(e)
        };
        let tools = self.tools.get(request, || {
            let tools = encode_tools(request).map_err(invalid)?;
            EncodedTools::encode(&tools).map_err(|e| {
                ProviderError::new(
                    PROVIDER,
                    LlmErrorKind::InvalidRequest,
                    format!("the tool list does not serialize: {e}"),
                )
            })
        })?;
        let opts = EncodeOptions { model: model_id(call), max_tokens, files_base, tools };
        let body = encode_request(request, opts).map_err(invalid)?;
        Ok(Encoded::new(body))
    }

    fn path(&self, _encoded: &Encoded<Body<'_>>, call: &CallContext<'_>) -> Cow<'static, str> {
        let method = if call.stream { "streamGenerateContent?alt=sse" } else { "generateContent" };
        Cow::Owned(format!("/{}/models/{}:{method}", self.api_version, model_id(call)))
    }

    fn authorize(&self, key: &Secret, headers: &mut HeaderMap) -> Result<(), ProviderError> {
        headers.insert("x-goog-api-key", secret_header(PROVIDER, key.expose())?);
        Ok(())
    }

    fn decode(&self, body: &[u8], _call: &CallContext<'_>) -> Result<ModelResponse, ProviderError> {
        decode_response(body)
    }

    fn mapper(&self, _call: &CallContext<'_>) -> ChunkDecoder {
        ChunkDecoder::new()
    }

    fn refine_error(&self, error: ProviderError, body: &str) -> ProviderError {
        refine(error, &serde_json::from_str(body).unwrap_or_default())
    }
}
