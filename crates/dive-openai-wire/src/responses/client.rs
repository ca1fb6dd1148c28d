//! [`Responses`]: the Responses API wire format (`POST /responses`) for [`Client`].

use dive_core::{ModelRequest, ModelResponse};
use serde_json::Value;

use crate::client::{Api, Client};
use crate::profile::{Dialect, Profile};
use crate::responses::decode::decode_response;
use crate::responses::encode::{ResponsesOptions, encode_request};
use crate::responses::stream::ResponsesMapper;
use crate::transport::Builder;

/// The Responses API (marker type for [`Client`]).
#[derive(Debug, Clone, Copy)]
pub struct Responses;

/// The OpenAI Responses API as an [`Llm`](dive_core::Llm): the default way to call OpenAI
/// ([`Client::builder`], default model [`DEFAULT_MODEL`](crate::DEFAULT_MODEL)), or another
/// vendor speaking it such as xAI ([`Client::builder_for`] with its [`Profile`]).
pub type OpenAi = Client<Responses>;

/// Builds an [`OpenAi`] (Responses API) client.
pub type OpenAiBuilder = Builder<OpenAi>;

impl Api for Responses {
    const PATH: &'static str = "/responses";
    type Mapper = ResponsesMapper;

    fn default_profile() -> Profile {
        Profile::openai()
    }

    fn encode(
        request: &ModelRequest,
        model: &str,
        max_tokens: Option<u32>,
        stream: bool,
        dialect: &Dialect,
    ) -> Value {
        let mut opts = ResponsesOptions::new(model, dialect).streaming(stream);
        opts.max_tokens = max_tokens;
        encode_request(request, &opts)
    }

    fn decode(json: &Value, _dialect: &Dialect) -> ModelResponse {
        decode_response(json)
    }

    fn mapper(provider: &'static str, _dialect: &Dialect) -> ResponsesMapper {
        ResponsesMapper::new(provider)
    }
}
