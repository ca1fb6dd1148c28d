//! Chat Completions (`POST /chat/completions`): the client, and its encoder, decoder and
//! stream mapper, public so OpenAI-compatible vendor crates can reuse them.

mod client;
mod decode;
mod encode;
mod reasoning;
mod stream;

pub use client::{Chat, CompatibleChat};
pub use decode::{decode_response, decode_usage};
pub use encode::{ChatOptions, encode_request};
pub(crate) use encode::{finish_body, json_schema_spec};
pub use stream::{ChatEvents, ChatMapper};
