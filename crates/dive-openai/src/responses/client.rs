//! [`OpenAi`]: the [`Llm`] for the Responses API (`POST /responses`), for OpenAI or any
//! vendor described by a [`Profile`] (xAI's Grok speaks it too).

use dive_core::{BoxFuture, EventStream, Llm, LlmError, ModelInfo, ModelRequest, ModelResponse, StreamEvent};
use dive_provider::{ProviderError, open_stream, response_sse};
use futures_util::StreamExt;
use serde_json::Value;

use crate::profile::Profile;
use crate::responses::decode::decode_response;
use crate::responses::encode::{ResponsesOptions, encode_request};
use crate::responses::stream::{ResponsesEvents, ResponsesMapper};
use crate::transport::{Builder, Transport, price};

/// The OpenAI Responses API as an [`Llm`]: the default way to call OpenAI. `Debug` never
/// shows the API key.
///
/// For OpenAI itself use [`OpenAi::builder`]; for another vendor speaking the Responses API,
/// [`OpenAi::builder_for`] with the vendor's [`Profile`]. Chat Completions is
/// [`ChatCompletions`](crate::ChatCompletions).
///
/// ```no_run
/// use dive_core::{Llm, Message, ModelRequest};
/// use dive_openai::OpenAi;
/// # async fn run() -> Result<(), dive_core::LlmError> {
/// let gpt = OpenAi::builder().model("gpt-5.5").build()?; // OPENAI_API_KEY
/// let reply = gpt.generate(ModelRequest::new(vec![Message::user("Hello")])).await?;
/// println!("{}", reply.text_content());
/// # Ok(()) }
/// ```
#[derive(Debug, Clone)]
pub struct OpenAi {
    t: Transport,
}

/// Builds an [`OpenAi`] (Responses API) client.
pub type OpenAiBuilder = Builder<OpenAi>;

impl Builder<OpenAi> {
    /// Builds the client.
    ///
    /// # Errors
    /// `Authentication` when the profile requires a key and none was given or found in its
    /// variable; `Other` when the HTTP client cannot be built.
    pub fn build(self) -> Result<OpenAi, LlmError> {
        Ok(OpenAi { t: self.transport()? })
    }
}

impl OpenAi {
    /// A builder for OpenAI's Responses API (default model [`DEFAULT_MODEL`](crate::DEFAULT_MODEL)).
    pub fn builder() -> OpenAiBuilder {
        Builder::new(Profile::openai())
    }

    /// A builder for another vendor's Responses API endpoint.
    pub fn builder_for(profile: Profile) -> OpenAiBuilder {
        Builder::new(profile)
    }

    /// A client from `OPENAI_API_KEY` and (optionally) `OPENAI_BASE_URL`.
    ///
    /// # Errors
    /// See [`Builder::build`](Builder#method.build-1).
    pub fn from_env() -> Result<Self, LlmError> {
        Self::builder().build()
    }

    /// The API root this client calls.
    #[must_use]
    pub fn base_url(&self) -> &str {
        &self.t.base_url
    }

    /// The vendor profile.
    #[must_use]
    pub fn profile(&self) -> &Profile {
        &self.t.profile
    }

    /// The request body this client sends for `request` (`stream` selects the streaming
    /// form). Holds no secret.
    #[must_use]
    pub fn request_body(&self, request: &ModelRequest, stream: bool) -> Value {
        let mut opts = ResponsesOptions::new(&self.t.model, &self.t.profile.dialect).streaming(stream);
        opts.max_tokens = self.t.max_tokens;
        encode_request(request, &opts)
    }

    fn model_of<'a>(&'a self, request: &'a ModelRequest) -> &'a str {
        request.model.as_deref().unwrap_or(&self.t.model)
    }

    async fn generate_inner(&self, request: ModelRequest) -> Result<ModelResponse, ProviderError> {
        let body = self.request_body(&request, false);
        let json = self.t.post_json("/responses", &body, &request.headers).await?;
        let mut response = decode_response(&json);
        let model = if response.model.is_empty() { self.model_of(&request) } else { &response.model };
        let pricing = self.t.pricing(model);
        price(&mut response.usage, pricing.as_ref());
        Ok(response)
    }

    async fn stream_inner(&self, request: ModelRequest) -> Result<EventStream, ProviderError> {
        let body = self.request_body(&request, true);
        let pricing = self.t.pricing(self.model_of(&request));
        let provider = self.t.provider();
        let (body, headers, pricing) = (&body, &request.headers, &pricing);
        let events = open_stream(
            &self.t.retry,
            move || async move {
                let response = self.t.post("/responses", body, headers).await?;
                let mapper = ResponsesMapper::new(provider);
                Ok(ResponsesEvents::new(Box::pin(response_sse(provider, response)), mapper, pricing.clone()))
            },
            |event| !matches!(event, StreamEvent::Ping),
        )
        .await?;
        Ok(Box::pin(events.map(|item| item.map_err(LlmError::from))))
    }
}

impl Llm for OpenAi {
    fn provider(&self) -> &str {
        self.t.provider()
    }

    fn model(&self) -> &str {
        &self.t.model
    }

    fn generate(&self, request: ModelRequest) -> BoxFuture<'_, Result<ModelResponse, LlmError>> {
        Box::pin(async move { self.generate_inner(request).await.map_err(LlmError::from) })
    }

    fn stream(&self, request: ModelRequest) -> BoxFuture<'_, Result<EventStream, LlmError>> {
        Box::pin(async move { self.stream_inner(request).await.map_err(LlmError::from) })
    }

    fn supports_streaming(&self) -> bool {
        true
    }

    fn model_info(&self) -> Option<ModelInfo> {
        self.t.model_info(&self.t.model).cloned()
    }
}
