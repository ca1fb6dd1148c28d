//! [`ChatCompletions`]: the [`Llm`] for `POST /chat/completions`, for OpenAI or any vendor
//! described by a [`Profile`].

use dive_core::{BoxFuture, EventStream, Llm, LlmError, ModelInfo, ModelRequest, ModelResponse, StreamEvent};
use dive_provider::{ProviderError, open_stream, response_sse};
use futures_util::StreamExt;
use serde_json::Value;

use crate::chat::decode::decode_response;
use crate::chat::encode::{ChatOptions, encode_request};
use crate::chat::stream::{ChatEvents, ChatMapper};
use crate::profile::Profile;
use crate::transport::{Builder, Transport, price};

/// Chat Completions as an [`Llm`]. `Debug` never shows the API key.
///
/// For OpenAI itself use [`ChatCompletions::builder`]; for an OpenAI-compatible vendor,
/// [`ChatCompletions::builder_for`] with the vendor's [`Profile`].
///
/// ```no_run
/// use dive_core::{Llm, Message, ModelRequest};
/// use dive_openai::ChatCompletions;
/// # async fn run() -> Result<(), dive_core::LlmError> {
/// let gpt = ChatCompletions::builder().model("gpt-5.5").build()?; // OPENAI_API_KEY
/// let reply = gpt.generate(ModelRequest::new(vec![Message::user("Hello")])).await?;
/// println!("{}", reply.text_content());
/// # Ok(()) }
/// ```
#[derive(Debug, Clone)]
pub struct ChatCompletions {
    t: Transport,
}

/// Builds a [`ChatCompletions`].
pub type ChatCompletionsBuilder = Builder<ChatCompletions>;

impl Builder<ChatCompletions> {
    /// Builds the client.
    ///
    /// # Errors
    /// `Authentication` when the profile requires a key and none was given or found in its
    /// variable; `Other` when the HTTP client cannot be built.
    pub fn build(self) -> Result<ChatCompletions, LlmError> {
        Ok(ChatCompletions { t: self.transport()? })
    }
}

impl ChatCompletions {
    /// A builder for OpenAI's Chat Completions (default model
    /// [`DEFAULT_CHAT_MODEL`](crate::DEFAULT_CHAT_MODEL)).
    pub fn builder() -> ChatCompletionsBuilder {
        Builder::new(Profile::openai().with_default_model(crate::catalog::DEFAULT_CHAT_MODEL))
    }

    /// A builder for another vendor's Chat Completions endpoint.
    pub fn builder_for(profile: Profile) -> ChatCompletionsBuilder {
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
        let mut opts = ChatOptions::new(&self.t.model, &self.t.profile.dialect).streaming(stream);
        opts.max_tokens = self.t.max_tokens;
        encode_request(request, &opts)
    }

    fn model_of<'a>(&'a self, request: &'a ModelRequest) -> &'a str {
        request.model.as_deref().unwrap_or(&self.t.model)
    }

    async fn generate_inner(&self, request: ModelRequest) -> Result<ModelResponse, ProviderError> {
        let body = self.request_body(&request, false);
        let json = self.t.post_json("/chat/completions", &body, &request.headers).await?;
        let mut response = decode_response(&json, &self.t.profile.dialect);
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
                let response = self.t.post("/chat/completions", body, headers).await?;
                let mapper = ChatMapper::new(provider, self.t.profile.dialect.clone());
                Ok(ChatEvents::new(Box::pin(response_sse(provider, response)), mapper, pricing.clone()))
            },
            |event| !matches!(event, StreamEvent::Ping),
        )
        .await?;
        Ok(Box::pin(events.map(|item| item.map_err(LlmError::from))))
    }
}

impl Llm for ChatCompletions {
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
