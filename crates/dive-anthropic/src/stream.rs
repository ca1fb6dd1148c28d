//! Messages API stream events → dive-core [`StreamEvent`]s.
//!
//! Every event type is handled: `message_start`, `content_block_start`,
//! `content_block_delta` (`text_delta`, `input_json_delta`, `thinking_delta`,
//! `signature_delta`, `citations_delta`), `content_block_stop`, `message_delta`,
//! `message_stop`, `ping` and `error`. Unknown event and delta types are skipped (logged at
//! debug), so a new API event never breaks an old client.
//!
//! [`AnthropicEvents`] feeds every event to a [`ResponseAccumulator`], so that an `error`
//! event, a broken connection or a stream that ends without `message_stop` becomes a typed
//! [`ProviderError`] carrying the finished part of the response, never a silent success.

use std::borrow::Cow;
use std::pin::Pin;
use std::task::{Context, Poll};

use dive_core::{
    Citation, ContentDelta, LlmErrorKind, MessageDelta, Pricing, ResponseAccumulator, StreamEvent, Usage,
};
use dive_provider::{ProviderError, SseEvent};
use futures_util::Stream;
use serde::Deserialize;
use serde_json::Value;

use crate::PROVIDER;
use crate::decode::{decode_block, decode_message, decode_usage, price};

fn decode_error(message: String) -> ProviderError {
    ProviderError::new(PROVIDER, LlmErrorKind::Decode, message)
}

fn index(v: &Value) -> Result<usize, ProviderError> {
    v.get("index")
        .and_then(Value::as_u64)
        .and_then(|i| usize::try_from(i).ok())
        .ok_or_else(|| decode_error("stream event without a content block index".into()))
}

fn text_field(v: &Value, key: &str) -> String {
    v.get(key).and_then(Value::as_str).unwrap_or_default().to_owned()
}

/// The hot path: `content_block_delta` events are most of a stream, so they are read into a
/// borrowed struct instead of a `serde_json::Value` tree.
#[derive(Deserialize)]
struct FastDelta<'a> {
    index: usize,
    #[serde(borrow)]
    delta: FastDeltaBody<'a>,
}

#[derive(Deserialize)]
struct FastDeltaBody<'a> {
    #[serde(rename = "type", borrow)]
    kind: Cow<'a, str>,
    #[serde(default, borrow)]
    text: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    partial_json: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    thinking: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    signature: Option<Cow<'a, str>>,
}

fn fast_delta(data: &str) -> Option<StreamEvent> {
    let d: FastDelta<'_> = serde_json::from_str(data).ok()?;
    let own = |v: Option<Cow<'_, str>>| v.map(Cow::into_owned);
    let delta = match d.delta.kind.as_ref() {
        "text_delta" => ContentDelta::TextDelta { text: own(d.delta.text)? },
        "input_json_delta" => ContentDelta::InputJsonDelta { partial_json: own(d.delta.partial_json)? },
        "thinking_delta" => ContentDelta::ThinkingDelta { thinking: own(d.delta.thinking)? },
        "signature_delta" => ContentDelta::SignatureDelta { signature: own(d.delta.signature)? },
        _ => return None,
    };
    Some(StreamEvent::ContentBlockDelta { index: d.index, delta })
}

/// Maps one SSE event. `Ok(None)` for events that carry nothing for the caller.
///
/// # Errors
/// A typed error for an `error` event; `Decode` for JSON that does not parse.
pub fn map_event(event: &SseEvent) -> Result<Option<StreamEvent>, ProviderError> {
    if event.event == "content_block_delta"
        && let Some(fast) = fast_delta(&event.data)
    {
        return Ok(Some(fast));
    }
    let mut data: Value = serde_json::from_str(&event.data)
        .map_err(|e| decode_error(format!("stream event {:?} is not JSON: {e}", event.event)))?;
    let kind = data.get("type").and_then(Value::as_str).unwrap_or(&event.event).to_owned();
    let out = match kind.as_str() {
        "message_start" => StreamEvent::MessageStart {
            message: decode_message(data.get_mut("message").map(Value::take).unwrap_or_default()),
        },
        "content_block_start" => {
            let index = index(&data)?;
            let block = data.get_mut("content_block").map(Value::take).unwrap_or_default();
            StreamEvent::ContentBlockStart { index, content_block: decode_block(block) }
        }
        "content_block_delta" => {
            let index = index(&data)?;
            let d = data.get_mut("delta").map(Value::take).unwrap_or_default();
            let delta = match d.get("type").and_then(Value::as_str).unwrap_or_default() {
                "text_delta" => ContentDelta::TextDelta { text: text_field(&d, "text") },
                "input_json_delta" => {
                    ContentDelta::InputJsonDelta { partial_json: text_field(&d, "partial_json") }
                }
                "thinking_delta" => ContentDelta::ThinkingDelta { thinking: text_field(&d, "thinking") },
                "signature_delta" => ContentDelta::SignatureDelta { signature: text_field(&d, "signature") },
                "citations_delta" => {
                    let citation: Citation = d
                        .get("citation")
                        .cloned()
                        .and_then(|c| serde_json::from_value(c).ok())
                        .ok_or_else(|| decode_error("citations_delta without a citation".into()))?;
                    ContentDelta::CitationsDelta { citation }
                }
                other => {
                    tracing::debug!(delta = other, "skipping unknown Anthropic delta type");
                    return Ok(None);
                }
            };
            StreamEvent::ContentBlockDelta { index, delta }
        }
        "content_block_stop" => StreamEvent::ContentBlockStop { index: index(&data)? },
        "message_delta" => {
            let d = data.get("delta").cloned().unwrap_or_default();
            let mut delta = MessageDelta::default();
            delta.stop_reason = d.get("stop_reason").and_then(Value::as_str).map(str::to_owned);
            delta.stop_sequence = d.get("stop_sequence").and_then(Value::as_str).map(str::to_owned);
            delta.stop_details = d.get("stop_details").filter(|v| !v.is_null()).cloned();
            StreamEvent::MessageDelta { delta, usage: data.get("usage").map(decode_usage) }
        }
        "message_stop" => StreamEvent::MessageStop,
        "ping" => StreamEvent::Ping,
        "error" => return Err(ProviderError::from_stream_error(PROVIDER, &data)),
        other => {
            tracing::debug!(event = other, "skipping unknown Anthropic stream event");
            return Ok(None);
        }
    };
    Ok(Some(out))
}

/// The stream adapter: SSE events in, [`StreamEvent`]s out, with usage priced from the
/// catalog and the end of the stream checked.
pub struct AnthropicEvents<S> {
    inner: S,
    acc: ResponseAccumulator,
    usage: Usage,
    pricing: Option<Pricing>,
    finished: bool,
}

impl<S> std::fmt::Debug for AnthropicEvents<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AnthropicEvents").field("events", &self.acc.event_count()).finish_non_exhaustive()
    }
}

impl<S> AnthropicEvents<S>
where
    S: Stream<Item = Result<SseEvent, ProviderError>> + Unpin,
{
    /// Wraps a stream of SSE events; `pricing` sets `Usage::cost` on usage snapshots.
    pub fn new(inner: S, pricing: Option<Pricing>) -> Self {
        Self { inner, acc: ResponseAccumulator::new(), usage: Usage::default(), pricing, finished: false }
    }

    fn fail(&mut self, error: ProviderError) -> ProviderError {
        self.finished = true;
        let acc = std::mem::take(&mut self.acc);
        let started = acc.has_started();
        let partial = acc.into_finished_response();
        let error = if started { error.with_partial(partial) } else { error };
        tracing::debug!(kind = %error.kind, "Anthropic stream failed: {}", error.message);
        error
    }

    fn price(&mut self, usage: &mut Usage) {
        self.usage.merge_snapshot(usage);
        let mut merged = self.usage.clone();
        price(&mut merged, self.pricing.as_ref());
        *usage = merged;
    }
}

impl<S> Stream for AnthropicEvents<S>
where
    S: Stream<Item = Result<SseEvent, ProviderError>> + Unpin,
{
    type Item = Result<StreamEvent, ProviderError>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = &mut *self;
        if this.finished {
            return Poll::Ready(None);
        }
        loop {
            let item = match Pin::new(&mut this.inner).poll_next(cx) {
                Poll::Pending => return Poll::Pending,
                Poll::Ready(item) => item,
            };
            let sse = match item {
                Some(Ok(sse)) => sse,
                Some(Err(mut e)) => {
                    if this.acc.has_started() {
                        e.kind = LlmErrorKind::StreamInterrupted;
                        e.message = format!("stream broke after it started: {}", e.message);
                    }
                    return Poll::Ready(Some(Err(this.fail(e))));
                }
                None if this.acc.is_complete() => {
                    this.finished = true;
                    return Poll::Ready(None);
                }
                None => {
                    let e = ProviderError::new(
                        PROVIDER,
                        LlmErrorKind::StreamInterrupted,
                        "stream ended without message_stop",
                    );
                    return Poll::Ready(Some(Err(this.fail(e))));
                }
            };
            let mut event = match map_event(&sse) {
                Ok(Some(event)) => event,
                Ok(None) => continue,
                Err(e) => return Poll::Ready(Some(Err(this.fail(e)))),
            };
            match &mut event {
                StreamEvent::MessageStart { message } => this.price(&mut message.usage),
                StreamEvent::MessageDelta { usage: Some(usage), .. } => this.price(usage),
                _ => {}
            }
            if let Err(e) = this.acc.add(&event) {
                let e = decode_error(format!("inconsistent stream: {e}"));
                return Poll::Ready(Some(Err(this.fail(e))));
            }
            // Nothing after message_stop belongs to this response.
            this.finished = matches!(event, StreamEvent::MessageStop);
            return Poll::Ready(Some(Ok(event)));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sse(event: &str, data: &str) -> SseEvent {
        let mut e = SseEvent::default();
        e.event = event.into();
        e.data = data.into();
        e
    }

    #[test]
    fn fast_and_general_delta_paths_agree() {
        for delta in [
            r#"{"type":"text_delta","text":"a \"quoted\" \u00e9 line\n"}"#,
            r#"{"type":"input_json_delta","partial_json":"{\"x\": "}"#,
            r#"{"type":"thinking_delta","thinking":"hm"}"#,
            r#"{"type":"signature_delta","signature":"c2ln"}"#,
        ] {
            let data = format!(r#"{{"type":"content_block_delta","index":3,"delta":{delta}}}"#);
            let fast = map_event(&sse("content_block_delta", &data)).unwrap();
            let general = map_event(&sse("message", &data)).unwrap();
            assert!(fast.is_some());
            assert_eq!(fast, general, "{delta}");
        }
        let unknown = r#"{"type":"content_block_delta","index":0,"delta":{"type":"future_delta","x":1}}"#;
        assert_eq!(map_event(&sse("content_block_delta", unknown)).unwrap(), None);
    }
}
