//! Chat Completions (`POST /chat/completions`): its encoder, decoder and
//! stream mapper, public so OpenAI-compatible vendor crates can reuse them.

mod chunk;
mod decode;
mod encode;
mod reasoning;
mod stream;
mod usage;

pub(crate) use decode::decode_body;
pub use decode::{decode_response, decode_usage};
pub use encode::{ChatBody, ChatOptions, encode_body, encode_request};
pub(crate) use encode::{body, encode_tools, json_schema_spec};
pub use stream::{ChatEvents, ChatMapper};
