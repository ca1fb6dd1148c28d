//! [`Client`]: one [`Llm`] implementation for both OpenAI wire formats, parameterised by the
//! wire format ([`Api`]) and the vendor whose [`Profile`] `builder()` starts from
//! ([`Vendor`]). `dive_openai::OpenAi` is `Client<Responses, dive_openai::OpenAiVendor>`;
//! [`CompatibleChat`](crate::CompatibleChat) is any OpenAI-compatible endpoint.

use std::marker::PhantomData;

use dive_core::{BoxFuture, EventStream, Llm, LlmError, ModelInfo, ModelRequest, ModelResponse, StreamEvent};
use dive_provider::{ProviderError, open_stream, response_sse};
use futures_util::StreamExt;
use serde_json::Value;

use crate::events::{Events, Mapper};
use crate::dialect::Dialect;
use crate::profile::Profile;
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

/// The vendor a client type stands for: the [`Profile`] its `builder()` and `from_env()`
/// start from on API `A`. Each vendor crate declares one marker type (`OpenAiVendor`,
/// `MistralVendor`, …); [`Compatible`] is any OpenAI-compatible endpoint.
pub trait Vendor<A>: Send + Sync + 'static {
    /// The vendor's facts and dialect on API `A`.
    fn profile() -> Profile;
}

/// Any OpenAI-compatible endpoint: the base URL (and a key, when it needs one) come from the
/// user. Provider name `openai-compatible`, key variable `OPENAI_COMPATIBLE_API_KEY` (optional),
/// base URL variable `OPENAI_COMPATIBLE_BASE_URL`, [`Dialect::compatible`](crate::Dialect::compatible).
///
/// ```
/// use dive_openai_wire::CompatibleChat;
/// let llm = CompatibleChat::builder().base_url("http://127.0.0.1:8000/v1").model("my-model").build().unwrap();
/// assert_eq!(dive_core::Llm::provider(&llm), "openai-compatible");
/// // Without a base URL there is nothing to call.
/// assert!(CompatibleChat::builder().model("m").build().is_err());
/// ```
#[derive(Debug, Clone, Copy)]
pub struct Compatible;

impl<A> Vendor<A> for Compatible {
    fn profile() -> Profile {
        Profile::new("openai-compatible", "", "")
            .with_api_key_env("OPENAI_COMPATIBLE_API_KEY")
            .with_api_key_required(false)
            .with_base_url_env("OPENAI_COMPATIBLE_BASE_URL")
    }
}

/// An OpenAI-format client for API `A`, built from vendor `V`'s [`Profile`] (or any profile
/// through [`Client::builder_for`]). `Debug` never shows the API key.
///
/// Vendor crates name their aliases (`dive_openai::OpenAi`, `dive_mistral::Mistral`, …);
/// [`CompatibleChat`](crate::CompatibleChat) and [`CompatibleResponses`](crate::CompatibleResponses)
/// call any OpenAI-compatible endpoint.
///
/// ```no_run
/// use dive_core::{Llm, Message, ModelRequest};
/// use dive_openai_wire::CompatibleChat;
/// # async fn run() -> Result<(), dive_core::LlmError> {
/// let llm = CompatibleChat::builder().base_url("http://127.0.0.1:8000/v1").model("my-model").build()?;
/// let reply = llm.generate(ModelRequest::new(vec![Message::user("Hello")])).await?;
/// # Ok(()) }
/// ```
#[derive(Debug)]
pub struct Client<A, V> {
    t: Transport,
    api: PhantomData<fn() -> (A, V)>,
}

impl<A, V> Clone for Client<A, V> {
    fn clone(&self) -> Self {
        Self { t: self.t.clone(), api: PhantomData }
    }
}

impl<A: Api, V> Builder<Client<A, V>> {
    /// Builds the client.
    ///
    /// # Errors
    /// `Authentication` when the profile requires a key and none was given or found in its
    /// variables; `InvalidRequest` when there is no base URL (a [`Compatible`] endpoint needs
    /// one); `Other` when the HTTP client cannot be built.
    pub fn build(self) -> Result<Client<A, V>, LlmError> {
        Ok(Client { t: self.transport()?, api: PhantomData })
    }
}

impl<A: Api, V: Vendor<A>> Client<A, V> {
    /// A builder for vendor `V` (its key and base-URL variables, default model, catalog).
    pub fn builder() -> Builder<Self> {
        Builder::new(V::profile())
    }

    /// A client from `V`'s key variable and (optionally) its base-URL variable.
    ///
    /// # Errors
    /// As the builder's `build`.
    pub fn from_env() -> Result<Self, LlmError> {
        Self::builder().build()
    }
}

impl<A: Api, V> Client<A, V> {
    /// A builder for another vendor speaking this API, described by `profile`.
    pub fn builder_for(profile: Profile) -> Builder<Self> {
        Builder::new(profile)
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

impl<A: Api, V: Send + Sync + 'static> Llm for Client<A, V> {
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
