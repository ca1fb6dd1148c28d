//! [`Chat`]: the Chat Completions wire format (`POST /chat/completions`) for [`Client`].

use dive_core::{ModelRequest, ModelResponse};
use serde_json::Value;

use crate::chat::decode::decode_response;
use crate::chat::encode::{ChatOptions, encode_request};
use crate::chat::stream::ChatMapper;
use crate::client::{Api, Client};
use crate::profile::{Dialect, Profile};
use crate::transport::Builder;

/// The Chat Completions API (marker type for [`Client`]).
#[derive(Debug, Clone, Copy)]
pub struct Chat;

/// Chat Completions as an [`Llm`](dive_core::Llm), for OpenAI ([`Client::builder`], default
/// model [`DEFAULT_CHAT_MODEL`](crate::DEFAULT_CHAT_MODEL)) or an OpenAI-compatible vendor
/// ([`Client::builder_for`] with its [`Profile`]).
pub type ChatCompletions = Client<Chat>;

/// Builds a [`ChatCompletions`] client.
pub type ChatCompletionsBuilder = Builder<ChatCompletions>;

impl Api for Chat {
    const PATH: &'static str = "/chat/completions";
    type Mapper = ChatMapper;

    fn default_profile() -> Profile {
        Profile::openai().with_default_model(crate::catalog::DEFAULT_CHAT_MODEL)
    }

    fn encode(
        request: &ModelRequest,
        model: &str,
        max_tokens: Option<u32>,
        stream: bool,
        dialect: &Dialect,
    ) -> Value {
        let mut opts = ChatOptions::new(model, dialect).streaming(stream);
        opts.max_tokens = max_tokens;
        encode_request(request, &opts)
    }

    fn decode(json: &Value, dialect: &Dialect) -> ModelResponse {
        decode_response(json, dialect)
    }

    fn mapper(provider: &'static str, dialect: &Dialect) -> ChatMapper {
        ChatMapper::new(provider, dialect.clone())
    }
}
