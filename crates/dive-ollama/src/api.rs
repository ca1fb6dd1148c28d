//! [`Chat`]: Ollama's `/api/chat` as a [`WireFormat`] on the generic provider, the vendor
//! facts ([`VENDOR`]) and the [`Ollama`] provider type.

use dive_core::{LlmErrorKind, ModelRequest, ModelResponse};
use dive_provider::{
    CallContext, Encoded, EncodedTools, HttpProvider, ProviderBuilder, ProviderError, ToolCache, Vendor,
    WireFormat,
};
use std::borrow::Cow;

use crate::PROVIDER;
use crate::body::Body;
use crate::catalog::{DEFAULT_MODEL, model_info};
use crate::decode::decode_response;
use crate::encode::{EncodeOptions, encode_request, encode_tools};
use crate::host::{DEFAULT_HOST, parse_host};
use crate::response::Line;
use crate::stream::{ChatMapper, line_error};

/// What Ollama is: a local server (no key needed; `OLLAMA_API_KEY`, when set, is sent as a
/// bearer token for Ollama's hosted service), `OLLAMA_HOST` (read as the `ollama` CLI reads
/// it, see [`parse_host`]), the default model and the catalog. `from_env()` reads these
/// variables; `build()` reads none.
pub const VENDOR: Vendor = Vendor::new(PROVIDER, DEFAULT_HOST, DEFAULT_MODEL, model_info)
    .with_api_key_vars(&["OLLAMA_API_KEY"])
    .with_base_url_var("OLLAMA_HOST")
    .key_optional();

/// Ollama's `/api/chat` as an [`Llm`](dive_core::Llm): the generic provider over [`Chat`].
/// `Debug` never shows the API key (used only with Ollama's hosted service).
///
/// ```no_run
/// use dive_ollama::Ollama;
/// use dive_core::{Llm, Message, ModelRequest};
/// # async fn run() -> Result<(), dive_core::LlmError> {
/// let llm = Ollama::from_env()?; // OLLAMA_HOST, default http://localhost:11434
/// let reply = llm.generate(ModelRequest::new(vec![Message::user("Hello")])).await?;
/// println!("{}", reply.text_content());
/// # Ok(()) }
/// ```
pub type Ollama = HttpProvider<Chat>;

/// Builds an [`Ollama`]: `Ollama::builder()` (nothing read from the environment) or
/// `Ollama::builder_from_env()`. [`OllamaBuilderExt`] adds the host, `num_ctx` and
/// `keep_alive`.
pub type OllamaBuilder = ProviderBuilder<Chat>;

/// The `/api/chat` wire format: how a [`ModelRequest`] becomes a body, and how whole
/// responses, NDJSON streams and error lines are read. The key, when one is set, is sent as
/// `Authorization: Bearer`.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct Chat {
    /// The context window Ollama allocates (`options.num_ctx`) unless a request's
    /// [`OllamaOptions`](crate::OllamaOptions) says otherwise.
    pub num_ctx: Option<u32>,
    /// How long the server keeps the model loaded after a call (`keep_alive`).
    pub keep_alive: Option<String>,
    /// The last tool list, encoded.
    tools: ToolCache,
}

/// The Ollama-only builder settings.
pub trait OllamaBuilderExt {
    /// The server, e.g. `http://localhost:11434` or `gpu-box:11434` (see [`parse_host`]);
    /// the same as `base_url`.
    #[must_use]
    fn host(self, host: impl Into<String>) -> Self;

    /// The context window Ollama allocates (`options.num_ctx`); Ollama's own default is
    /// small (4096 tokens in most versions), too small for agents with tools.
    #[must_use]
    fn num_ctx(self, tokens: u32) -> Self;

    /// How long the server keeps the model loaded after a call (`"5m"`, `"1h"`, `"-1"`).
    #[must_use]
    fn keep_alive(self, duration: impl Into<String>) -> Self;
}

impl OllamaBuilderExt for OllamaBuilder {
    fn host(self, host: impl Into<String>) -> Self {
        self.base_url(host)
    }

    fn num_ctx(self, tokens: u32) -> Self {
        self.map_wire(|w| w.num_ctx = Some(tokens))
    }

    fn keep_alive(self, duration: impl Into<String>) -> Self {
        let duration = duration.into();
        self.map_wire(|w| w.keep_alive = Some(duration))
    }
}

impl WireFormat for Chat {
    type Body<'a> = Body<'a>;
    type Mapper = ChatMapper;

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
            crate::encode::unsupported(block).or_else(|| text_only_model(call, block))
        })?;
        let tools =
            self.tools.get(request, || EncodedTools::encode(&encode_tools(request))).map_err(|e| {
                ProviderError::new(
                    PROVIDER,
                    LlmErrorKind::InvalidRequest,
                    format!("the tool list does not serialize: {e}"),
                )
            })?;
        let opts = EncodeOptions {
            model: call.model,
            num_ctx: self.num_ctx,
            keep_alive: self.keep_alive.as_deref(),
            stream: call.stream,
            tools,
        };
        Ok(Encoded::new(encode_request(request, &opts)))
    }

    fn path(&self, _encoded: &Encoded<Body<'_>>, _call: &CallContext<'_>) -> Cow<'static, str> {
        Cow::Borrowed("/api/chat")
    }

    fn base_url(&self, url: &str) -> String {
        parse_host(url)
    }

    fn decode(&self, body: &[u8], _call: &CallContext<'_>) -> Result<ModelResponse, ProviderError> {
        let decode_error = |e: serde_json::Error| {
            ProviderError::new(PROVIDER, LlmErrorKind::Decode, format!("response is not JSON: {e}"))
        };
        let line = Line::parse(body).map_err(decode_error)?;
        if let Some(error) = &line.error {
            return Err(line_error(error));
        }
        Ok(decode_response(line))
    }

    fn mapper(&self, _call: &CallContext<'_>) -> ChatMapper {
        ChatMapper::new()
    }
}

/// An image for a model the catalog lists as text-only, matched on the whole family name
/// (`llama3.2:3b` is `llama3.2`): a prefix is not enough here, since `qwen3-vl` sees and
/// `qwen3` does not.
fn text_only_model(call: &CallContext<'_>, block: &dive_core::Content) -> Option<String> {
    let family = call.model.split(':').next().unwrap_or(call.model);
    call.model_info.filter(|info| info.id == family)?;
    dive_provider::model_cannot_take(call, block)
}
