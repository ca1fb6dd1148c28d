//! [`Messages`]: the Messages API as a [`WireFormat`] on the generic provider, the vendor
//! facts ([`VENDOR`]) and the [`Anthropic`] provider type.

use dive_core::{CacheTtl, CompactedWindow, LlmErrorKind, ModelRequest, ModelResponse, Secret};
use dive_provider::reqwest::header::HeaderMap;
use dive_provider::{
    CallContext, Encoded, EncodedTools, HttpProvider, ProviderBuilder, ProviderError, ToolCache, Vendor,
    WireFormat, secret_header,
};
use std::borrow::Cow;

use crate::PROVIDER;
use crate::catalog::{DEFAULT_MODEL, model_info};
use crate::compact::{compaction_answer, compaction_body};
use crate::decode::decode_body;
use crate::encode::{EncodeOptions, MessagesBody, encode_request, encode_tools};
use crate::stream::MessagesMapper;
use crate::toolset::declared;

/// The default API endpoint.
pub const DEFAULT_BASE_URL: &str = "https://api.anthropic.com";
/// The `anthropic-version` header sent with every call.
pub const API_VERSION: &str = "2023-06-01";
/// `max_tokens` when neither the request nor the builder sets one (capped by the model's
/// output limit).
pub const DEFAULT_MAX_TOKENS: u32 = 32_768;

/// What Anthropic is: `ANTHROPIC_API_KEY`, `ANTHROPIC_BASE_URL`, the default model and the
/// catalog. `from_env()` reads these variables; `build()` reads none.
pub const VENDOR: Vendor = Vendor::new(PROVIDER, DEFAULT_BASE_URL, DEFAULT_MODEL, model_info)
    .with_api_key_vars(&["ANTHROPIC_API_KEY"])
    .with_base_url_var("ANTHROPIC_BASE_URL");

/// The Anthropic Messages API as an [`Llm`](dive_core::Llm): the generic provider over
/// [`Messages`]. `Debug` never shows the API key.
///
/// ```no_run
/// use dive_anthropic::Anthropic;
/// use dive_core::{Llm, Message, ModelRequest};
/// # async fn run() -> Result<(), dive_core::LlmError> {
/// let claude = Anthropic::from_env()?; // ANTHROPIC_API_KEY, optional ANTHROPIC_BASE_URL
/// let reply = claude.generate(ModelRequest::new(vec![Message::user("Hello")])).await?;
/// println!("{}", reply.text_content());
/// # Ok(()) }
/// ```
pub type Anthropic = HttpProvider<Messages>;

/// Builds an [`Anthropic`]: `Anthropic::builder()` (nothing read from the environment) or
/// `Anthropic::builder_from_env()`. [`AnthropicBuilderExt`] adds the cache TTL.
pub type AnthropicBuilder = ProviderBuilder<Messages>;

/// The Messages API wire format: how a [`ModelRequest`] becomes a body, where it goes, how
/// the key is sent (`x-api-key`) and how responses and streams are read.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct Messages {
    /// The prompt-cache TTL of automatic breakpoints (the API default is 5 minutes).
    pub cache_ttl: Option<CacheTtl>,
    /// The last tool list, encoded.
    tools: ToolCache,
}

/// The Anthropic-only builder setting.
pub trait AnthropicBuilderExt {
    /// The prompt-cache TTL of automatic breakpoints (the API default is 5 minutes).
    #[must_use]
    fn cache_ttl(self, ttl: CacheTtl) -> Self;
}

impl AnthropicBuilderExt for AnthropicBuilder {
    fn cache_ttl(self, ttl: CacheTtl) -> Self {
        self.map_wire(|w| w.cache_ttl = Some(ttl))
    }
}

impl WireFormat for Messages {
    type Body<'a> = MessagesBody<'a>;
    type Mapper = MessagesMapper;

    fn vendor(&self) -> &Vendor {
        &VENDOR
    }

    fn encode<'a>(
        &'a self,
        request: &'a ModelRequest,
        call: &CallContext<'a>,
    ) -> Result<Encoded<MessagesBody<'a>>, ProviderError> {
        // The Messages API carries every media block; only a catalogued text-only model is
        // refused an image.
        dive_provider::refuse_unsupported_content(PROVIDER, request, |block| {
            dive_provider::model_cannot_take(call, block)
        })?;
        let max_tokens = call.max_tokens_or(DEFAULT_MAX_TOKENS);
        let declared = declared(request)
            .map_err(|message| ProviderError::new(PROVIDER, LlmErrorKind::InvalidRequest, message))?;
        let tools = self
            .tools
            .get(request, || EncodedTools::encode(&encode_tools(request, &declared.entries)))
            .map_err(|e| {
                ProviderError::new(
                    PROVIDER,
                    LlmErrorKind::InvalidRequest,
                    format!("the tool list does not serialize: {e}"),
                )
            })?;
        let opts = EncodeOptions {
            model: call.model,
            max_tokens,
            cache_ttl: self.cache_ttl,
            stream: call.stream,
            tools,
            declared_betas: declared.betas,
        };
        let encoded = encode_request(request, &opts)?;
        let mut out = Encoded::new(encoded.body);
        if !encoded.betas.is_empty() {
            out = out.with_header("anthropic-beta", encoded.betas.join(","));
        }
        Ok(out)
    }

    fn path(&self, encoded: &Encoded<MessagesBody<'_>>, _call: &CallContext<'_>) -> Cow<'static, str> {
        let path = if encoded.header("anthropic-beta").is_some() {
            "/v1/messages?beta=true"
        } else {
            "/v1/messages"
        };
        Cow::Borrowed(path)
    }

    fn fixed_headers(&self) -> &[(&'static str, &'static str)] {
        &[("anthropic-version", API_VERSION)]
    }

    fn authorize(&self, key: &Secret, headers: &mut HeaderMap) -> Result<(), ProviderError> {
        headers.insert("x-api-key", secret_header(PROVIDER, key.expose())?);
        Ok(())
    }

    fn decode(&self, body: &[u8], _call: &CallContext<'_>) -> Result<ModelResponse, ProviderError> {
        decode_body(body).map_err(|e| {
            ProviderError::new(
                PROVIDER,
                LlmErrorKind::Decode,
                format!("response is not a message object: {e}"),
            )
        })
    }

    fn mapper(&self, _call: &CallContext<'_>) -> MessagesMapper {
        MessagesMapper::new()
    }

    fn supports_compaction(&self) -> bool {
        true
    }

    fn encode_compaction(
        &self,
        request: &ModelRequest,
        instructions: Option<&str>,
        call: &CallContext<'_>,
    ) -> Result<(String, Encoded<serde_json::Value>), ProviderError> {
        let mut call = *call;
        call.stream = false;
        let encoded = self.encode(request, &call)?;
        Ok(("/v1/messages?beta=true".to_owned(), compaction_body(&encoded, instructions)?))
    }

    fn decode_compaction(
        &self,
        body: &[u8],
        call: &CallContext<'_>,
    ) -> Result<CompactedWindow, ProviderError> {
        compaction_answer(self.decode(body, call)?)
    }
}
