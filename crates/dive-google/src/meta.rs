//! Where Gemini replay data lives in dive-core content blocks.
//!
//! A block decoded from Gemini carries `metadata.google`, an object with:
//! - `thought_signature`: the part's `thoughtSignature`, replayed on the same part (text,
//!   thought or function call) when the history is sent back;
//! - `call_id` (`true`, on tool calls): the call id came from Gemini and is echoed in the
//!   `functionCall` and its `functionResponse`; when absent the id was synthesised here and
//!   is never sent.
//!
//! Parts this version does not model (executable code, code results, …) are kept as
//! [`Content::Unknown`](dive_core::Content::Unknown) blocks `{"type": "google_part", "part": …}`
//! and replayed verbatim.

use dive_core::ToolUse;
use serde_json::{Map, Value, json};

/// The metadata key of Gemini replay data.
pub(crate) const GOOGLE: &str = "google";
/// The `type` of an unmodelled Gemini part kept verbatim.
pub(crate) const PART_KIND: &str = "google_part";

/// The thought signature stored in a block's metadata.
pub(crate) fn signature(meta: &Map<String, Value>) -> Option<&str> {
    meta.get(GOOGLE)?.get("thought_signature")?.as_str()
}

/// Whether a tool call's id came from Gemini (and must be echoed).
pub(crate) fn call_id_from_api(call: &ToolUse) -> bool {
    call.metadata.get(GOOGLE).and_then(|g| g.get("call_id")).and_then(Value::as_bool) == Some(true)
}

/// The metadata of a block decoded from a part: `{"google": {...}}`.
pub(crate) fn part_metadata(signature: Option<&str>, call_id: bool) -> Map<String, Value> {
    let mut google = Map::new();
    if let Some(sig) = signature {
        google.insert("thought_signature".into(), json!(sig));
    }
    if call_id {
        google.insert("call_id".into(), Value::Bool(true));
    }
    let mut meta = Map::new();
    meta.insert(GOOGLE.into(), Value::Object(google));
    meta
}
