//! The Responses API (`POST /responses`): its encoder, decoder and stream
//! mapper, public so vendors speaking the same API (xAI) can reuse them.

mod decode;
mod encode;
mod stream;

pub use decode::{decode_item, decode_response, decode_usage};
pub use encode::{ResponsesOptions, encode_request};
pub(crate) use encode::{encode_fields, encode_tools};
pub use stream::{ResponsesEvents, ResponsesMapper};
