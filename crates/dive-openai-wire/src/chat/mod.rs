//! Chat Completions (`POST /chat/completions`): its encoder, decoder and
//! stream mapper, public so OpenAI-compatible vendor crates can reuse them.

mod chunk;
mod decode;
mod encode;
mod reasoning;
mod stream;

pub use decode::{decode_response, decode_usage};
pub use encode::{ChatOptions, encode_request};
pub(crate) use encode::{encode_fields, encode_tools, finish_body, json_schema_spec};
pub use stream::{ChatEvents, ChatMapper};
