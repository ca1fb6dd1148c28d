//! The conversation as sent ([`WireMessages`]): which blocks of the history go on the wire
//! and where the cache breakpoints sit are planned once per request, then every block is
//! serialized straight from the history it borrows. No JSON tree is built, except for the
//! blocks this version only carries (server tool blocks, provider and unknown blocks), which
//! are sent as they were kept.

use std::borrow::Cow;
use std::fmt;

use dive_core::{CacheControl, CacheTtl, Citation, Content, Message, Role};
use serde::ser::{SerializeMap, SerializeSeq};
use serde::{Serialize, Serializer};
use serde_json::{Map, Value};

use crate::cache::place_breakpoints;

/// A `cache_control` object as sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WireCacheControl<'a> {
    kind: &'a str,
    ttl: Option<CacheTtl>,
}

impl<'a> WireCacheControl<'a> {
    /// The automatic breakpoint: ephemeral, living `ttl` (the API's default when `None`).
    #[must_use]
    pub fn ephemeral(ttl: Option<CacheTtl>) -> WireCacheControl<'static> {
        WireCacheControl { kind: "ephemeral", ttl }
    }

    /// A block's own breakpoint.
    #[must_use]
    pub fn of(cache_control: &'a CacheControl) -> Self {
        Self { kind: &cache_control.kind, ttl: cache_control.ttl }
    }
}

impl Serialize for WireCacheControl<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("type", self.kind)?;
        if let Some(ttl) = self.ttl {
            map.serialize_entry("ttl", ttl_text(ttl))?;
        }
        map.end()
    }
}

fn ttl_text(ttl: CacheTtl) -> &'static str {
    match ttl {
        CacheTtl::OneHour => "1h",
        _ => "5m",
    }
}

/// Where a sent block comes from.
#[derive(Debug, Clone, Copy)]
enum Source {
    /// `content[block]` of the history's message `message`.
    Block { message: usize, block: usize },
    /// A block kept as JSON: `raw[index]`.
    Raw(usize),
    /// The prefill text, the last block.
    Prefill,
}

/// The breakpoint a sent block carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mark {
    /// None.
    None,
    /// Its own `cache_control`, sent.
    Own,
    /// Its own, not sent: more explicit breakpoints than the API allows.
    Dropped,
    /// The request's automatic `cache_control`.
    Auto,
}

/// One top-level block on the wire.
#[derive(Debug, Clone, Copy)]
pub(crate) struct SentBlock {
    source: Source,
    pub(crate) mark: Mark,
    /// Whether a breakpoint may be placed on it (thinking blocks take none).
    pub(crate) cacheable: bool,
}

impl SentBlock {
    fn new(source: Source, own_cache_control: bool, cacheable: bool) -> Self {
        Self { source, mark: if own_cache_control { Mark::Own } else { Mark::None }, cacheable }
    }
}

/// One message on the wire: its role and its blocks, `blocks[start..end]`.
#[derive(Debug, Clone, Copy)]
struct SentMessage {
    role: &'static str,
    start: usize,
    end: usize,
}

/// The `messages` of a Messages API body, serialized from the history it holds.
pub struct WireMessages<'a> {
    history: Cow<'a, [Message]>,
    messages: Vec<SentMessage>,
    blocks: Vec<SentBlock>,
    raw: Vec<Value>,
    prefill: Option<&'a str>,
    auto: Option<WireCacheControl<'static>>,
}

impl fmt::Debug for WireMessages<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("WireMessages")
            .field("messages", &self.messages.len())
            .field("blocks", &self.blocks.len())
            .finish()
    }
}

impl<'a> WireMessages<'a> {
    /// Plans the conversation: `history` as sent (tool calls answered, reminders rendered),
    /// `system` messages kept as such when the model takes them (`native_system`), the
    /// `prefill` text as a last assistant message, and with `auto` set the cache breakpoints
    /// placed (see `crate::cache`).
    pub(crate) fn plan(
        history: Cow<'a, [Message]>,
        native_system: bool,
        prefill: Option<&'a str>,
        auto: Option<WireCacheControl<'static>>,
    ) -> Self {
        let mut wire =
            Self { history, messages: Vec::new(), blocks: Vec::new(), raw: Vec::new(), prefill, auto };
        let history = std::mem::take(&mut wire.history);
        for (message, m) in history.iter().enumerate() {
            let role = match &m.role {
                Role::Assistant => "assistant",
                Role::System if native_system => "system",
                _ => "user",
            };
            let start = wire.blocks.len();
            for (block, content) in m.content.iter().enumerate() {
                wire.plan_block(Source::Block { message, block }, content, role);
            }
            if wire.blocks.len() > start {
                wire.messages.push(SentMessage { role, start, end: wire.blocks.len() });
            }
        }
        wire.history = history;
        if let Some(text) = prefill.filter(|t| !t.is_empty()) {
            let start = wire.blocks.len();
            wire.blocks.push(SentBlock::new(Source::Prefill, false, true));
            wire.messages.push(SentMessage { role: "assistant", start, end: start + 1 });
            wire.prefill = Some(text);
        } else {
            wire.prefill = None;
        }
        if wire.auto.is_some() {
            place_breakpoints(&mut wire.blocks);
        }
        wire
    }

    /// Adds the block `content` of a message sent as `role`, or nothing when Anthropic cannot
    /// take it (another provider's reasoning, empty text, summaries).
    fn plan_block(&mut self, source: Source, content: &Content, role: &'static str) {
        let assistant = role == "assistant";
        if role == "system" {
            if content.as_text().is_some_and(|t| !t.is_empty()) {
                self.blocks.push(SentBlock::new(source, false, true));
            }
            return;
        }
        let typed = |own: Option<&CacheControl>| Some(SentBlock::new(source, own.is_some(), true));
        let planned = match content {
            Content::Text(t) if !t.text.is_empty() => typed(t.cache_control.as_ref()),
            Content::Image(i) => typed(i.cache_control.as_ref()),
            Content::Document(d) => typed(d.cache_control.as_ref()),
            Content::File(_) => typed(None),
            Content::ToolUse(t) => typed(t.cache_control.as_ref()),
            Content::ToolResult(r) => typed(r.cache_control.as_ref()),
            // Only Anthropic's own signed reasoning can be replayed; an `id` marks another
            // provider's reasoning item.
            Content::Thinking(t) if assistant && t.signature.is_some() && t.id.is_none() => {
                Some(SentBlock::new(source, false, false))
            }
            Content::RedactedThinking(_) if assistant => Some(SentBlock::new(source, false, false)),
            Content::Refusal(r) if assistant && !r.refusal.is_empty() => typed(None),
            Content::Reminder(r) => {
                let mut text = Map::new();
                text.insert("type".into(), Value::from("text"));
                text.insert("text".into(), Value::from(r.render()));
                self.raw_block(text)
            }
            Content::ServerToolUse(_)
            | Content::ServerToolResult(_)
            | Content::Provider(_)
            | Content::Unknown(_) => match serde_json::to_value(content) {
                Ok(Value::Object(mut kept)) => {
                    kept.retain(|_, v| !v.is_null());
                    self.raw_block(kept)
                }
                _ => None,
            },
            _ => None,
        };
        self.blocks.extend(planned);
    }

    /// A block sent as kept: its own `cache_control` is whatever the JSON holds.
    fn raw_block(&mut self, kept: Map<String, Value>) -> Option<SentBlock> {
        let own = kept.contains_key("cache_control");
        let cacheable = !matches!(
            kept.get("type").and_then(Value::as_str),
            Some("thinking" | "redacted_thinking") | None
        );
        self.raw.push(Value::Object(kept));
        Some(SentBlock::new(Source::Raw(self.raw.len() - 1), own, cacheable))
    }
}

impl Serialize for WireMessages<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut seq = serializer.serialize_seq(Some(self.messages.len()))?;
        for m in &self.messages {
            seq.serialize_element(&MessageOut { wire: self, message: *m })?;
        }
        seq.end()
    }
}

struct MessageOut<'w, 'a> {
    wire: &'w WireMessages<'a>,
    message: SentMessage,
}

impl Serialize for MessageOut<'_, '_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(2))?;
        map.serialize_entry("role", self.message.role)?;
        map.serialize_entry("content", &BlocksOut(self))?;
        map.end()
    }
}

struct BlocksOut<'m, 'w, 'a>(&'m MessageOut<'w, 'a>);

impl Serialize for BlocksOut<'_, '_, '_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let MessageOut { wire, message } = self.0;
        let blocks = &wire.blocks[message.start..message.end];
        let mut seq = serializer.serialize_seq(Some(blocks.len()))?;
        for block in blocks {
            seq.serialize_element(&BlockOut { wire, block, role: message.role })?;
        }
        seq.end()
    }
}

struct BlockOut<'w, 'a> {
    wire: &'w WireMessages<'a>,
    block: &'w SentBlock,
    role: &'static str,
}

impl Serialize for BlockOut<'_, '_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        let own = match self.block.source {
            Source::Block { message, block } => {
                let content = &self.wire.history[message].content[block];
                if self.role == "system" {
                    write_text(&mut map, content.as_text().unwrap_or_default())?;
                    None
                } else {
                    write_block(&mut map, content, self.role == "assistant")?
                }
            }
            Source::Raw(index) => {
                if let Some(Value::Object(kept)) = self.wire.raw.get(index) {
                    for (k, v) in kept.iter().filter(|(k, _)| k.as_str() != "cache_control") {
                        map.serialize_entry(k, v)?;
                    }
                    if self.block.mark == Mark::Own
                        && let Some(own) = kept.get("cache_control")
                    {
                        map.serialize_entry("cache_control", own)?;
                    }
                }
                None
            }
            Source::Prefill => {
                write_text(&mut map, self.wire.prefill.unwrap_or_default())?;
                None
            }
        };
        match (self.block.mark, own) {
            (Mark::Own, Some(own)) => map.serialize_entry("cache_control", &WireCacheControl::of(own))?,
            (Mark::Auto, _) => map.serialize_entry("cache_control", &self.wire.auto)?,
            _ => {}
        }
        map.end()
    }
}

fn write_text<M: SerializeMap>(map: &mut M, text: &str) -> Result<(), M::Error> {
    map.serialize_entry("type", "text")?;
    map.serialize_entry("text", text)
}

/// A file block's `source`.
#[derive(Serialize)]
struct FileSource<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    file_id: &'a str,
}

/// `{}`: the input of a call whose input is not an object.
struct EmptyObject;

impl Serialize for EmptyObject {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_map(Some(0))?.end()
    }
}

/// Writes the fields of a block (everything but its `cache_control`) and returns its own
/// `cache_control`. Only the kinds [`WireMessages::plan`] sends typed reach it.
fn write_block<'c, M: SerializeMap>(
    map: &mut M,
    block: &'c Content,
    assistant: bool,
) -> Result<Option<&'c CacheControl>, M::Error> {
    Ok(match block {
        Content::Text(t) => {
            write_text(map, &t.text)?;
            let citations: Vec<Value> = t.citations.iter().filter_map(encode_citation).collect();
            if !citations.is_empty() {
                map.serialize_entry("citations", &citations)?;
            }
            t.cache_control.as_ref()
        }
        Content::Image(i) => {
            map.serialize_entry("type", "image")?;
            map.serialize_entry("source", &i.source)?;
            i.cache_control.as_ref()
        }
        Content::Document(d) => {
            map.serialize_entry("type", "document")?;
            map.serialize_entry("source", &d.source)?;
            if let Some(title) = &d.title {
                map.serialize_entry("title", title)?;
            }
            if let Some(context) = &d.context {
                map.serialize_entry("context", context)?;
            }
            if let Some(c) = d.citations {
                map.serialize_entry("citations", &c)?;
            }
            d.cache_control.as_ref()
        }
        Content::File(f) => {
            let image = f.media_type.as_deref().is_some_and(|m| m.starts_with("image/"));
            map.serialize_entry("type", if image { "image" } else { "document" })?;
            map.serialize_entry("source", &FileSource { kind: "file", file_id: &f.file_id })?;
            None
        }
        Content::ToolUse(t) => {
            map.serialize_entry("type", "tool_use")?;
            map.serialize_entry("id", &t.id)?;
            map.serialize_entry("name", &t.name)?;
            if t.input.is_object() {
                map.serialize_entry("input", &t.input)?;
            } else {
                map.serialize_entry("input", &EmptyObject)?;
            }
            let caller = t.metadata.get("anthropic").and_then(|a| a.get("caller"));
            if let Some(caller) = caller.filter(|c| !c.is_null()) {
                map.serialize_entry("caller", caller)?;
            }
            if let Some(toolset) = &t.toolset_name {
                map.serialize_entry("toolset_name", toolset)?;
            }
            t.cache_control.as_ref()
        }
        Content::ToolResult(r) => {
            map.serialize_entry("type", "tool_result")?;
            map.serialize_entry("tool_use_id", &r.tool_use_id)?;
            if r.content.iter().any(nested_sent) {
                map.serialize_entry("content", &NestedOut(&r.content))?;
            }
            if r.is_error {
                map.serialize_entry("is_error", &true)?;
            }
            if let Some(toolset) = &r.toolset_name {
                map.serialize_entry("toolset_name", toolset)?;
            }
            r.cache_control.as_ref()
        }
        Content::Thinking(t) => {
            map.serialize_entry("type", "thinking")?;
            map.serialize_entry("thinking", &t.thinking)?;
            map.serialize_entry("signature", &t.signature)?;
            None
        }
        Content::RedactedThinking(r) => {
            map.serialize_entry("type", "redacted_thinking")?;
            map.serialize_entry("data", &r.data)?;
            None
        }
        Content::Refusal(r) if assistant => {
            write_text(map, &r.refusal)?;
            None
        }
        // Planned as kept JSON or not sent.
        _ => None,
    })
}

/// Whether a block inside a tool result is sent: text, images and documents.
fn nested_sent(block: &Content) -> bool {
    match block {
        Content::Text(t) => !t.text.is_empty(),
        Content::Image(_) | Content::Document(_) => true,
        _ => false,
    }
}

/// A tool result's `content`: its text, image and document blocks, each with its own
/// `cache_control`.
struct NestedOut<'c>(&'c [Content]);

impl Serialize for NestedOut<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut seq = serializer.serialize_seq(None)?;
        for block in self.0.iter().filter(|b| nested_sent(b)) {
            seq.serialize_element(&NestedBlock(block))?;
        }
        seq.end()
    }
}

struct NestedBlock<'c>(&'c Content);

impl Serialize for NestedBlock<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        if let Some(own) = write_block(&mut map, self.0, false)? {
            map.serialize_entry("cache_control", &WireCacheControl::of(own))?;
        }
        map.end()
    }
}

/// The fields each citation type takes in a request (responses carry a few more, such as
/// `file_id`, that requests reject).
fn citation_fields(kind: &str) -> Option<&'static [&'static str]> {
    Some(match kind {
        "char_location" => {
            &["cited_text", "document_index", "document_title", "start_char_index", "end_char_index"]
        }
        "page_location" => {
            &["cited_text", "document_index", "document_title", "start_page_number", "end_page_number"]
        }
        "content_block_location" => {
            &["cited_text", "document_index", "document_title", "start_block_index", "end_block_index"]
        }
        "web_search_result_location" => &["cited_text", "encrypted_index", "title", "url"],
        "search_result_location" => {
            &["cited_text", "search_result_index", "source", "title", "start_block_index", "end_block_index"]
        }
        _ => return None,
    })
}

fn encode_citation(c: &Citation) -> Option<Value> {
    let fields = citation_fields(&c.kind)?;
    let mut m = Map::new();
    m.insert("type".into(), Value::from(c.kind.as_str()));
    for f in fields {
        let value = if *f == "cited_text" {
            c.cited_text.as_ref().map(|t| Value::from(t.as_str()))
        } else {
            c.fields.get(*f).cloned()
        };
        m.insert((*f).to_owned(), value.unwrap_or(Value::Null));
    }
    Some(Value::Object(m))
}
