//! [`Chat`]: the Chat Completions wire format (`POST /chat/completions`) for [`Client`].

use dive_core::{ModelRequest, ModelResponse};
use serde_json::Value;

use crate::chat::decode::decode_response;
use crate::chat::encode::{ChatOptions, encode_request};
use crate::chat::stream::ChatMapper;
use crate::client::{Api, Client, Compatible};
use crate::dialect::Dialect;

/// The Chat Completions API (marker type for [`Client`]).
#[derive(Debug, Clone, Copy)]
pub struct Chat;

/// Chat Completions as an [`Llm`](dive_core::Llm) for any OpenAI-compatible endpoint (base
/// URL and key from the user, [`Compatible`]).
pub type CompatibleChat = Client<Chat, Compatible>;

impl Api for Chat {
    const PATH: &'static str = "/chat/completions";
    type Mapper = ChatMapper;

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
