//! The Responses API (`POST /responses`): its encoder, decoder and stream
//! mapper, public so vendors speaking the same API (xAI) can reuse them.

mod compact;
mod decode;
mod encode;
mod stream;

pub(crate) use compact::{COMPACT_PATH, compaction_body, decode_compaction};
pub(crate) use decode::decode_body;
pub use decode::{decode_item, decode_response, decode_usage};
pub use encode::{ResponsesBody, ResponsesOptions, encode_body, encode_request};
pub(crate) use encode::{body, encode_tools};
pub use stream::{ResponsesEvents, ResponsesMapper};
