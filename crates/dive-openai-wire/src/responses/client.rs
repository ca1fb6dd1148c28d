//! [`Responses`]: the Responses API wire format (`POST /responses`) for [`Client`].

use dive_core::{ModelRequest, ModelResponse};
use serde_json::Value;

use crate::client::{Api, Client, Compatible};
use crate::dialect::Dialect;
use crate::responses::decode::decode_response;
use crate::responses::encode::{ResponsesOptions, encode_request};
use crate::responses::stream::ResponsesMapper;

/// The Responses API (marker type for [`Client`]).
#[derive(Debug, Clone, Copy)]
pub struct Responses;

/// The Responses API as an [`Llm`](dive_core::Llm) for any endpoint speaking it (base URL
/// and key from the user, [`Compatible`]).
pub type CompatibleResponses = Client<Responses, Compatible>;

impl Api for Responses {
    const PATH: &'static str = "/responses";
    type Mapper = ResponsesMapper;

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
