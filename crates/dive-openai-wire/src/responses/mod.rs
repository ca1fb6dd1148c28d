//! The Responses API (`POST /responses`): the client, and its encoder, decoder and stream
//! mapper, public so vendors speaking the same API (xAI) can reuse them.

mod client;
mod decode;
mod encode;
mod stream;

pub use client::{CompatibleResponses, Responses};
pub use decode::{decode_item, decode_response, decode_usage};
pub use encode::{ResponsesOptions, encode_request};
pub use stream::{ResponsesEvents, ResponsesMapper};
