//! [`Wire`]: the two OpenAI wire formats as one [`WireFormat`] of the generic
//! [`HttpProvider`](dive_provider::HttpProvider), parameterised by the API ([`Chat`],
//! [`Responses`]) and the vendor whose [`Profile`] it carries.

use std::borrow::Cow;
use std::fmt;
use std::marker::PhantomData;

use dive_core::{CompactedWindow, LlmErrorKind, ModelRequest, ModelResponse};
use dive_provider::{
    CallContext, Encoded, EncodedTools, ProviderBuilder, ProviderError, StreamMapper, ToolCache, Vendor,
    WireFormat,
};

use crate::body::Body;
use crate::dialect::Dialect;
use crate::options::check_options;
use crate::profile::{COMPATIBLE, Compatible, Profile, Speaks};

mod sealed {
    pub trait Sealed {}
}

/// One of the two OpenAI APIs: where requests go and how bodies, responses and streams are
/// translated. Implemented by [`Chat`] and [`Responses`] only.
pub trait Api: sealed::Sealed + fmt::Debug + Send + Sync + 'static {
    /// The path below the base URL (`/responses`, `/chat/completions`).
    const PATH: &'static str;
    /// Whether this is Chat Completions (no `previous_response_id`).
    const CHAT: bool;
    /// The stream mapper.
    type Mapper: StreamMapper<Frame = dive_provider::SseEvent>;
    /// The request body, its tools taken from `tools`.
    ///
    /// # Errors
    /// A tool list that does not serialize.
    fn encode<'a>(
        request: &'a ModelRequest,
        call: &CallContext<'a>,
        dialect: &'a Dialect,
        tools: &ToolCache,
    ) -> Result<Body<'a>, serde_json::Error>;
    /// A non-streaming response body, read straight into typed structs.
    ///
    /// # Errors
    /// A body that is not the API's response object.
    fn decode(body: &[u8], dialect: &Dialect) -> Result<ModelResponse, serde_json::Error>;
    /// A mapper for one stream.
    fn mapper(provider: &'static str, dialect: &Dialect) -> Self::Mapper;
    /// The path of this API's native compaction endpoint, if it has one.
    const COMPACT_PATH: Option<&'static str> = None;
    /// The native compaction body made from this API's ordinary (non-streaming) body.
    fn compaction_body(body: serde_json::Value) -> serde_json::Value {
        body
    }
    /// Reads a native compaction answer.
    ///
    /// # Errors
    /// What is wrong with the answer, in words.
    fn decode_compaction(body: &[u8]) -> Result<CompactedWindow, String> {
        let _ = body;
        Err("this API has no native compaction".to_owned())
    }
}

/// The Chat Completions API (`POST /chat/completions`).
#[derive(Debug, Clone, Copy)]
pub struct Chat;

/// The Responses API (`POST /responses`).
#[derive(Debug, Clone, Copy)]
pub struct Responses;

impl sealed::Sealed for Chat {}
impl sealed::Sealed for Responses {}

impl Api for Chat {
    const PATH: &'static str = "/chat/completions";
    const CHAT: bool = true;
    type Mapper = crate::chat::ChatMapper;

    fn encode<'a>(
        request: &'a ModelRequest,
        call: &CallContext<'a>,
        dialect: &'a Dialect,
        tools: &ToolCache,
    ) -> Result<Body<'a>, serde_json::Error> {
        let mut opts = crate::chat::ChatOptions::new(call.model, dialect).streaming(call.stream);
        opts.max_tokens = call.max_tokens;
        let tools =
            tools.get(request, || EncodedTools::encode(&crate::chat::encode_tools(request, dialect)))?;
        Ok(crate::chat::body(request, &opts, tools))
    }

    fn decode(body: &[u8], dialect: &Dialect) -> Result<ModelResponse, serde_json::Error> {
        crate::chat::decode_body(body, dialect)
    }

    fn mapper(provider: &'static str, dialect: &Dialect) -> Self::Mapper {
        crate::chat::ChatMapper::new(provider, dialect.clone())
    }
}

impl Api for Responses {
    const PATH: &'static str = "/responses";
    const CHAT: bool = false;
    type Mapper = crate::responses::ResponsesMapper;

    fn encode<'a>(
        request: &'a ModelRequest,
        call: &CallContext<'a>,
        dialect: &'a Dialect,
        tools: &ToolCache,
    ) -> Result<Body<'a>, serde_json::Error> {
        let mut opts = crate::responses::ResponsesOptions::new(call.model, dialect).streaming(call.stream);
        opts.max_tokens = call.max_tokens;
        let tools = tools.get(request, || EncodedTools::encode(&crate::responses::encode_tools(request)))?;
        Ok(crate::responses::body(request, &opts, tools))
    }

    fn decode(body: &[u8], _dialect: &Dialect) -> Result<ModelResponse, serde_json::Error> {
        crate::responses::decode_body(body)
    }

    fn mapper(provider: &'static str, _dialect: &Dialect) -> Self::Mapper {
        crate::responses::ResponsesMapper::new(provider)
    }

    const COMPACT_PATH: Option<&'static str> = Some(crate::responses::COMPACT_PATH);

    fn compaction_body(body: serde_json::Value) -> serde_json::Value {
        crate::responses::compaction_body(body)
    }

    fn decode_compaction(body: &[u8]) -> Result<CompactedWindow, String> {
        crate::responses::decode_compaction(body)
    }
}

/// OpenAI wire format `A` for vendor `V`, as a [`WireFormat`]: vendor crates name
/// `HttpProvider<Wire<Chat, MistralVendor>>` and get the builder, retry, streaming and
/// pricing from dive-provider.
pub struct Wire<A, V> {
    profile: Profile,
    tools: ToolCache,
    api: PhantomData<fn() -> (A, V)>,
}

impl<A, V> Wire<A, V> {
    /// The wire format for a profile given at run time.
    #[must_use]
    pub fn with_profile(profile: Profile) -> Self {
        Self { profile, tools: ToolCache::default(), api: PhantomData }
    }

    /// The profile (vendor facts and dialect).
    #[must_use]
    pub fn profile(&self) -> &Profile {
        &self.profile
    }

    /// The dialect, to adjust it on a builder (`builder.map_wire(|w| w.dialect_mut()…)`).
    pub fn dialect_mut(&mut self) -> &mut Dialect {
        &mut self.profile.dialect
    }
}

impl<A, V> Clone for Wire<A, V> {
    fn clone(&self) -> Self {
        Self { profile: self.profile.clone(), tools: self.tools.clone(), api: PhantomData }
    }
}

impl<A: Api, V> fmt::Debug for Wire<A, V> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Wire").field("path", &A::PATH).field("profile", &self.profile).finish()
    }
}

impl<A, V: Speaks<A>> Default for Wire<A, V> {
    fn default() -> Self {
        Self::with_profile(V::profile())
    }
}

impl<A: Api, V: Send + Sync + 'static> WireFormat for Wire<A, V> {
    type Body<'a>
        = Body<'a>
    where
        Self: 'a;
    type Mapper = A::Mapper;

    fn vendor(&self) -> &Vendor {
        &self.profile.vendor
    }

    fn encode<'a>(
        &'a self,
        request: &'a ModelRequest,
        call: &CallContext<'a>,
    ) -> Result<Encoded<Body<'a>>, ProviderError> {
        let provider = self.profile.vendor.name;
        check_options(provider, request, &self.profile.dialect, A::CHAT)?;
        dive_provider::refuse_unsupported_content(provider, request, |block| {
            dive_provider::model_cannot_take(call, block)
                .or_else(|| crate::dialect::cannot_take(&self.profile.dialect, block))
        })?;
        let body = A::encode(request, call, &self.profile.dialect, &self.tools).map_err(|e| {
            ProviderError::new(
                provider,
                LlmErrorKind::InvalidRequest,
                format!("the tool list does not serialize: {e}"),
            )
        })?;
        Ok(Encoded::new(body))
    }

    fn path(&self, _encoded: &Encoded<Body<'_>>, _call: &CallContext<'_>) -> Cow<'static, str> {
        Cow::Borrowed(A::PATH)
    }

    fn decode(&self, body: &[u8], _call: &CallContext<'_>) -> Result<ModelResponse, ProviderError> {
        A::decode(body, &self.profile.dialect).map_err(|e| {
            ProviderError::new(
                self.profile.vendor.name,
                LlmErrorKind::Decode,
                format!("response is not the API's JSON object: {e}"),
            )
        })
    }

    fn mapper(&self, _call: &CallContext<'_>) -> Self::Mapper {
        A::mapper(self.profile.vendor.name, &self.profile.dialect)
    }

    fn supports_compaction(&self) -> bool {
        A::COMPACT_PATH.is_some() && self.profile.dialect.native_compaction
    }

    fn encode_compaction(
        &self,
        request: &ModelRequest,
        instructions: Option<&str>,
        call: &CallContext<'_>,
    ) -> Result<(String, Encoded<serde_json::Value>), ProviderError> {
        let provider = self.profile.vendor.name;
        let path = A::COMPACT_PATH
            .filter(|_| self.supports_compaction())
            .ok_or_else(|| dive_provider::no_native_compaction(provider))?;
        if instructions.is_some_and(|i| !i.trim().is_empty()) {
            tracing::warn!(
                provider,
                "the compaction endpoint takes no summarising instructions; compacting without them"
            );
        }
        let mut call = *call;
        call.stream = false;
        let encoded = self.encode(request, &call)?;
        let body = serde_json::to_value(&encoded.body).map_err(|e| {
            ProviderError::new(
                provider,
                LlmErrorKind::InvalidRequest,
                format!("request body does not serialize: {e}"),
            )
        })?;
        Ok((path.to_owned(), Encoded::new(A::compaction_body(body))))
    }

    fn decode_compaction(
        &self,
        body: &[u8],
        _call: &CallContext<'_>,
    ) -> Result<CompactedWindow, ProviderError> {
        A::decode_compaction(body)
            .map_err(|message| ProviderError::new(self.profile.vendor.name, LlmErrorKind::Decode, message))
    }
}

/// Chat Completions for any OpenAI-compatible endpoint.
pub type CompatibleChat = dive_provider::HttpProvider<Wire<Chat, Compatible>>;

/// The Responses API for any endpoint speaking it.
pub type CompatibleResponses = dive_provider::HttpProvider<Wire<Responses, Compatible>>;

/// A builder for API `A` with a profile given at run time (a vendor without its own crate).
pub fn builder_for<A: Api>(profile: Profile) -> ProviderBuilder<Wire<A, Compatible>> {
    ProviderBuilder::new(Wire::with_profile(profile))
}

/// A builder for any OpenAI-compatible endpoint at `base_url` (`http://127.0.0.1:8000/v1`),
/// with [`Dialect::compatible`]; add the key with `api_key` when the server needs one.
///
/// ```
/// use dive_openai_wire::{Chat, compatible};
/// let llm = compatible::<Chat>("http://127.0.0.1:8000/v1").model("my-model").build().unwrap();
/// assert_eq!(dive_core::Llm::provider(&llm), "openai-compatible");
/// assert_eq!(llm.base_url(), "http://127.0.0.1:8000/v1");
/// ```
pub fn compatible<A: Api>(base_url: impl Into<String>) -> ProviderBuilder<Wire<A, Compatible>> {
    builder_for::<A>(Profile::new(COMPATIBLE, Dialect::compatible())).base_url(base_url)
}
