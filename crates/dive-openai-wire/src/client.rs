//! [`Client`]: one [`Llm`] implementation for both OpenAI APIs, parameterised by the wire
//! format ([`Api`]). [`OpenAi`](crate::OpenAi) is `Client<Responses>`,
//! [`ChatCompletions`](crate::ChatCompletions) is `Client<Chat>`.

use std::marker::PhantomData;

use dive_core::{BoxFuture, EventStream, Llm, LlmError, ModelInfo, ModelRequest, ModelResponse, StreamEvent};
use dive_provider::{ProviderError, open_stream, response_sse};
use futures_util::StreamExt;
use serde_json::Value;

use crate::events::{Events, Mapper};
use crate::profile::{Dialect, Profile};
use crate::transport::{Builder, Transport, price};

mod sealed {
    pub trait Sealed {}
}

/// A wire format: where requests go and how bodies, responses and streams are translated.
/// Implemented by [`Chat`](crate::chat::Chat) and [`Responses`](crate::responses::Responses)
/// only.
pub trait Api: sealed::Sealed + Send + Sync + 'static {
    /// The path below the base URL (`/responses`, `/chat/completions`).
    const PATH: &'static str;
    /// The stream mapper.
    type Mapper: Mapper + Send + 'static;
    /// The OpenAI profile this API uses by default.
    fn default_profile() -> Profile;
    /// The request body.
    fn encode(
        request: &ModelRequest,
        model: &str,
        max_tokens: Option<u32>,
        stream: bool,
        dialect: &Dialect,
    ) -> Value;
    /// A non-streaming response.
    fn decode(json: &Value, dialect: &Dialect) -> ModelResponse;
    /// A mapper for one stream.
    fn mapper(provider: &'static str, dialect: &Dialect) -> Self::Mapper;
}

impl sealed::Sealed for crate::chat::Chat {}
impl sealed::Sealed for crate::responses::Responses {}

/// An OpenAI-format client for API `A`. `Debug` never shows the API key.
///
/// Use the aliases: [`OpenAi`](crate::OpenAi) (the Responses API, the default) and
/// [`ChatCompletions`](crate::ChatCompletions).
///
/// ```no_run
/// use dive_core::{Llm, Message, ModelRequest};
/// use dive_openai::{ChatCompletions, OpenAi};
/// # async fn run() -> Result<(), dive_core::LlmError> {
/// let gpt = OpenAi::builder().model("gpt-5.5").build()?; // OPENAI_API_KEY, OPENAI_BASE_URL
/// let reply = gpt.generate(ModelRequest::new(vec![Message::user("Hello")])).await?;
/// let chat = ChatCompletions::from_env()?;
/// let again = chat.generate(ModelRequest::new(vec![Message::user("Hello")])).await?;
/// # Ok(()) }
/// ```
#[derive(Debug)]
pub struct Client<A> {
    t: Transport,
    api: PhantomData<fn() -> A>,
}

impl<A> Clone for Client<A> {
    fn clone(&self) -> Self {
        Self { t: self.t.clone(), api: PhantomData }
    }
}

impl<A: Api> Builder<Client<A>> {
    /// Builds the client.
    ///
    /// # Errors
    /// `Authentication` when the profile requires a key and none was given or found in its
    /// variable; `Other` when the HTTP client cannot be built.
    pub fn build(self) -> Result<Client<A>, LlmError> {
        Ok(Client { t: self.transport()?, api: PhantomData })
    }
}

impl<A: Api> Client<A> {
    /// A builder for OpenAI itself (`OPENAI_API_KEY`, `OPENAI_BASE_URL`).
    pub fn builder() -> Builder<Self> {
        Builder::new(A::default_profile())
    }

    /// A builder for another vendor speaking this API.
    pub fn builder_for(profile: Profile) -> Builder<Self> {
        Builder::new(profile)
    }

    /// A client from `OPENAI_API_KEY` and (optionally) `OPENAI_BASE_URL`.
    ///
    /// # Errors
    /// As the builder's `build`.
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
    /// form). Holds no secret (except remote MCP server tokens, which the body must carry).
    #[must_use]
    pub fn request_body(&self, request: &ModelRequest, stream: bool) -> Value {
        A::encode(request, &self.t.model, self.t.max_tokens, stream, &self.t.profile.dialect)
    }

    fn model_of<'a>(&'a self, request: &'a ModelRequest) -> &'a str {
        request.model.as_deref().unwrap_or(&self.t.model)
    }

    async fn generate_inner(&self, request: ModelRequest) -> Result<ModelResponse, ProviderError> {
        let body = self.request_body(&request, false);
        let json = self.t.post_json(A::PATH, &body, &request.headers).await?;
        let mut response = A::decode(&json, &self.t.profile.dialect);
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
                let response = self.t.post(A::PATH, body, headers).await?;
                let mapper = A::mapper(provider, &self.t.profile.dialect);
                Ok(Events::new(Box::pin(response_sse(provider, response)), mapper, pricing.clone()))
            },
            |event| !matches!(event, StreamEvent::Ping),
        )
        .await?;
        Ok(Box::pin(events.map(|item| item.map_err(LlmError::from))))
    }
}

impl<A: Api> Llm for Client<A> {
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
