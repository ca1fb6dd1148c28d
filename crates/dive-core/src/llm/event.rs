//! Streaming events: the provider-neutral shape every provider's stream is mapped to.
//!
//! The sequence is `MessageStart`, then per block `ContentBlockStart`, any number of
//! `ContentBlockDelta`, `ContentBlockStop`; then `MessageDelta` (stop reason, usage) and
//! `MessageStop`. `Ping` may appear anywhere. [`ResponseAccumulator`](super::ResponseAccumulator)
//! assembles a [`ModelResponse`](super::ModelResponse) from them.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::response::ModelResponse;
use super::usage::Usage;
use crate::message::{Citation, Content};

/// One streaming event.
///
/// The rare, large payloads (the starting message, a block's initial value, the stop fields
/// and usage) are boxed, so the event a stream sends thousands of times, a
/// [`ContentBlockDelta`](Self::ContentBlockDelta), stays small as it moves through queues.
/// The constructors ([`message_start`](Self::message_start),
/// [`block_start`](Self::block_start), [`message_delta`](Self::message_delta)) box for you.
///
/// ```
/// use dive_core::{ContentDelta, MessageDelta, StreamEvent, TextContent, Usage};
/// let events = [
///     StreamEvent::block_start(0, TextContent::new("")),
///     StreamEvent::ContentBlockDelta { index: 0, delta: ContentDelta::TextDelta { text: "Hi".into() } },
///     StreamEvent::ContentBlockStop { index: 0 },
///     StreamEvent::message_delta(MessageDelta::stop("end_turn"), Some(Usage::default())),
/// ];
/// assert!(matches!(&events[3], StreamEvent::MessageDelta { delta, .. } if delta.stop_reason.as_deref() == Some("end_turn")));
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
#[non_exhaustive]
pub enum StreamEvent {
    /// The response began. `message` carries id, model and any initial usage.
    MessageStart {
        /// The response so far (normally no content).
        message: Box<ModelResponse>,
    },
    /// A content block began.
    ContentBlockStart {
        /// Block index.
        index: usize,
        /// The block's initial value (text empty, tool input `{}`).
        content_block: Box<Content>,
    },
    /// More of a content block.
    ContentBlockDelta {
        /// Block index.
        index: usize,
        /// The delta.
        delta: ContentDelta,
    },
    /// A content block finished.
    ContentBlockStop {
        /// Block index.
        index: usize,
    },
    /// Top-level changes: stop reason and a usage snapshot.
    MessageDelta {
        /// Stop fields.
        delta: Box<MessageDelta>,
        /// A usage snapshot (merged field-wise, never added).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        usage: Option<Box<Usage>>,
    },
    /// The response finished.
    MessageStop,
    /// Keep-alive.
    Ping,
}

/// Stop fields carried by [`StreamEvent::MessageDelta`].
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct MessageDelta {
    /// Raw stop reason.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_reason: Option<String>,
    /// Matched stop sequence.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_sequence: Option<String>,
    /// Stop detail.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_details: Option<Value>,
    /// Response-level provider metadata that arrives late in a stream (e.g. Gemini
    /// `groundingMetadata`), merged key by key into [`ModelResponse::metadata`].
    #[serde(default, skip_serializing_if = "serde_json::Map::is_empty")]
    pub metadata: serde_json::Map<String, Value>,
}

impl MessageDelta {
    /// A delta with a stop reason.
    #[must_use]
    pub fn stop(reason: impl Into<String>) -> Self {
        Self { stop_reason: Some(reason.into()), ..Self::default() }
    }
}

/// A piece of a content block.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
#[non_exhaustive]
pub enum ContentDelta {
    /// Text appended to a text block.
    TextDelta {
        /// The text.
        text: String,
    },
    /// Partial JSON appended to a tool call's input.
    InputJsonDelta {
        /// The JSON fragment.
        partial_json: String,
    },
    /// Thinking text appended.
    ThinkingDelta {
        /// The text.
        thinking: String,
    },
    /// The thinking block's signature.
    SignatureDelta {
        /// The signature.
        signature: String,
    },
    /// A citation attached to a text block.
    CitationsDelta {
        /// The citation.
        citation: Box<Citation>,
    },
    /// Provider metadata merged into the block (e.g. Gemini thought signatures).
    MetadataDelta {
        /// Key/values merged.
        metadata: serde_json::Map<String, Value>,
    },
}

impl StreamEvent {
    /// [`MessageStart`](Self::MessageStart) of `message`.
    #[must_use]
    pub fn message_start(message: ModelResponse) -> Self {
        Self::MessageStart { message: Box::new(message) }
    }

    /// [`ContentBlockStart`](Self::ContentBlockStart) of block `index` with its initial value.
    #[must_use]
    pub fn block_start(index: usize, content_block: impl Into<Content>) -> Self {
        Self::ContentBlockStart { index, content_block: Box::new(content_block.into()) }
    }

    /// [`MessageDelta`](Self::MessageDelta) of stop fields and an optional usage snapshot.
    #[must_use]
    pub fn message_delta(delta: MessageDelta, usage: Option<Usage>) -> Self {
        Self::MessageDelta { delta: Box::new(delta), usage: usage.map(Box::new) }
    }

    /// Synthesises the event sequence of a complete response, for models without streaming.
    ///
    /// Tool inputs are sent as one `input_json_delta`; other blocks are sent whole in their
    /// start event.
    #[must_use]
    pub fn sequence_for(response: &ModelResponse) -> Vec<StreamEvent> {
        let mut start = response.clone();
        start.content.clear();
        start.stop_reason.clear();
        start.stop_sequence = None;
        start.stop_details = None;
        start.usage = Usage::default();
        let mut events = vec![StreamEvent::message_start(start)];
        for (index, block) in response.content.iter().enumerate() {
            match block {
                Content::Text(t) => {
                    let mut empty = t.clone();
                    empty.text.clear();
                    events.push(StreamEvent::block_start(index, Content::Text(empty)));
                    if !t.text.is_empty() {
                        events.push(StreamEvent::ContentBlockDelta {
                            index,
                            delta: ContentDelta::TextDelta { text: t.text.clone() },
                        });
                    }
                }
                Content::ToolUse(call) => {
                    let mut empty = call.clone();
                    empty.input = Value::Object(serde_json::Map::new()).into();
                    events.push(StreamEvent::block_start(index, Content::ToolUse(empty)));
                    events.push(StreamEvent::ContentBlockDelta {
                        index,
                        delta: ContentDelta::InputJsonDelta { partial_json: call.input.to_string() },
                    });
                }
                other => events.push(StreamEvent::block_start(index, other.clone())),
            }
            events.push(StreamEvent::ContentBlockStop { index });
        }
        let stop = MessageDelta {
            stop_reason: Some(response.stop_reason.clone()),
            stop_sequence: response.stop_sequence.clone(),
            stop_details: response.stop_details.clone(),
            metadata: serde_json::Map::new(),
        };
        events.push(StreamEvent::message_delta(stop, Some(response.usage.clone())));
        events.push(StreamEvent::MessageStop);
        events
    }
}
