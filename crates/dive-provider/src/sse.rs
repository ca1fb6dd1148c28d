//! Server-sent events: a byte stream framed by the event-stream parser of the HTML standard
//! (`sse/framer.rs`, linear in the stream whatever the read sizes), mapped to
//! [`ProviderError`]s; and [`ExactJson`] (`sse/exact.rs`), which lets a mapper read the
//! fixed byte shape of a frequent event's data without the JSON parser, and [`ExactShape`]
//! (`sse/shape.rs`), which reads the next event of a shape a reader accepted by comparing runs
//! of bytes.

use std::borrow::Cow;
use std::error::Error as StdError;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use dive_core::LlmErrorKind;
use futures_util::Stream;

use crate::ProviderError;
use crate::stream::body_read_error;

mod exact;
mod framer;
mod name;
mod shape;
#[cfg(test)]
mod tests;

pub use exact::{ExactJson, ExactStr};
use framer::{EventTooLarge, Framer, MAX_EVENT_BYTES};
pub use name::EventName;
pub use shape::{ExactShape, ShapeHoles, ShapeValue};

/// One server-sent event.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct SseEvent {
    /// The `event:` name (`message` when the server sent none), shared with the other events
    /// of the stream that bear it.
    pub event: EventName,
    /// The `data:` lines joined with `\n`, as bytes: a mapper reads JSON from bytes, and only
    /// the strings it takes out need checking as UTF-8 (see [`ExactJson`]); [`text`](Self::text)
    /// decodes the whole of it as the standard does.
    pub data: Vec<u8>,
    /// The last event ID: set by an `id:` field, it stays until the next one changes it.
    pub id: String,
    /// The reconnection time the stream last set with a `retry:` field (digits only,
    /// milliseconds); it stays like `id`.
    pub retry: Option<Duration>,
}

impl SseEvent {
    /// The data as text, decoded as the standard decodes an event stream: bytes that are not
    /// UTF-8 become U+FFFD. Borrowed when the data is UTF-8, as it nearly always is.
    ///
    /// ```
    /// let mut event = dive_provider::SseEvent::default();
    /// event.data = b"{\"a\":1}".to_vec();
    /// assert_eq!(event.text(), r#"{"a":1}"#);
    /// event.data = b"caf\xC3".to_vec();
    /// assert_eq!(event.text(), "caf\u{fffd}");
    /// ```
    #[must_use]
    pub fn text(&self) -> Cow<'_, str> {
        decode_text(&self.data)
    }
}

/// Bytes as text, decoded as the standard decodes an event stream: what is not UTF-8 becomes
/// U+FFFD. Borrowed when the bytes are UTF-8.
///
/// ```
/// assert_eq!(dive_provider::decode_text(b"ok"), "ok");
/// assert_eq!(dive_provider::decode_text(b"\xFF!"), "\u{fffd}!");
/// ```
#[must_use]
pub fn decode_text(bytes: &[u8]) -> Cow<'_, str> {
    // The standard library's check is the fast one; the lossy decoder only for what fails it.
    match std::str::from_utf8(bytes) {
        Ok(text) => Cow::Borrowed(text),
        Err(_) => String::from_utf8_lossy(bytes),
    }
}

/// Decodes a byte stream into [`SseEvent`]s by the event-stream rules of the HTML standard:
/// CR, LF and CRLF line ends (a CRLF may be split between reads), one leading UTF-8 BOM
/// ignored, comments (`: keep-alive`) skipped, a single space after the colon removed, a blank
/// line with no data dispatching nothing. Reads may split the stream at any byte, and their
/// size never changes the cost per byte.
///
/// Two choices go beyond the standard. An event's data is handed over as bytes, not decoded:
/// [`SseEvent::text`] decodes it as the standard does (bytes that are not UTF-8 become
/// U+FFFD), and a mapper that reads JSON need not check the bytes it skips. The event name
/// and the ID are decoded that way. When the body ends cleanly, an event still waiting for its
/// blank line (and an unfinished last line) is dispatched, where the standard discards it:
/// a server that closes its body on purpose has finished, and some vendors end their last
/// event that way. A body that breaks dispatches nothing more.
///
/// A transport error becomes a [`ProviderError`] of kind `Timeout` (a reqwest read
/// timeout) or `Network`; an event over 64 MiB (a server that never ends a line) becomes
/// `Decode`. The stream ends after its first error.
///
/// ```
/// use futures::StreamExt;
/// let chunks = vec![Ok::<_, std::io::Error>(bytes::Bytes::from_static(b"event: ping\nda")),
///                   Ok(bytes::Bytes::from_static(b"ta: {}\n\n"))];
/// let events: Vec<_> = futures::executor::block_on(
///     dive_provider::decode_sse("demo", futures::stream::iter(chunks)).collect::<Vec<_>>());
/// let first = events[0].as_ref().unwrap();
/// assert_eq!((first.event.as_str(), first.data.as_slice()), ("ping", &b"{}"[..]));
/// ```
pub fn decode_sse<S, B, E>(
    provider: &'static str,
    bytes: S,
) -> impl Stream<Item = Result<SseEvent, ProviderError>> + use<S, B, E>
where
    S: Stream<Item = Result<B, E>>,
    B: AsRef<[u8]>,
    E: StdError + Send + Sync + 'static,
{
    SseStream { bytes, read: None, at: 0, framer: Framer::default(), done: false, provider }
}

/// [`decode_sse`] over the body of a reqwest response.
pub fn response_sse(
    provider: &'static str,
    response: reqwest::Response,
) -> impl Stream<Item = Result<SseEvent, ProviderError>> + use<> {
    decode_sse(provider, response.bytes_stream())
}

pin_project_lite::pin_project! {
    /// The stream behind [`decode_sse`]: hands the framer one read at a time, and takes each
    /// event out of it as soon as its blank line is read (`read` is the read being framed,
    /// `at` how far).
    struct SseStream<S, B> {
        #[pin]
        bytes: S,
        read: Option<B>,
        at: usize,
        framer: Framer,
        done: bool,
        provider: &'static str,
    }
}

impl<S, B, E> Stream for SseStream<S, B>
where
    S: Stream<Item = Result<B, E>>,
    B: AsRef<[u8]>,
    E: StdError + Send + Sync + 'static,
{
    type Item = Result<SseEvent, ProviderError>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let mut this = self.project();
        loop {
            // A read framed to its end (most reads hold one event) is dropped without asking
            // the framer again: it has nothing left to frame in it.
            if let Some(read) = this.read.as_ref()
                && *this.at < read.as_ref().len()
            {
                match this.framer.next_event(read.as_ref(), this.at) {
                    Ok(Some(event)) => return Poll::Ready(Some(Ok(event))),
                    Ok(None) => {}
                    Err(EventTooLarge) => {
                        *this.done = true;
                        *this.read = None;
                        let message = format!(
                            "an SSE event passed {} MiB without ending; the server's stream is not SSE",
                            MAX_EVENT_BYTES / (1024 * 1024)
                        );
                        return Poll::Ready(Some(Err(ProviderError::new(
                            this.provider,
                            LlmErrorKind::Decode,
                            message,
                        ))));
                    }
                }
            }
            *this.read = None;
            if *this.done {
                return Poll::Ready(None);
            }
            match this.bytes.as_mut().poll_next(cx) {
                Poll::Pending => return Poll::Pending,
                Poll::Ready(Some(Ok(read))) => {
                    *this.read = Some(read);
                    *this.at = 0;
                }
                Poll::Ready(Some(Err(e))) => {
                    *this.done = true;
                    return Poll::Ready(Some(Err(body_read_error(this.provider, e))));
                }
                Poll::Ready(None) => {
                    *this.done = true;
                    if let Some(event) = this.framer.finish() {
                        return Poll::Ready(Some(Ok(event)));
                    }
                }
            }
        }
    }
}
