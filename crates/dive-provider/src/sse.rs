//! Server-sent events decoded by `eventsource-stream` (never by hand), mapped to
//! [`ProviderError`]s.

use std::error::Error as StdError;

use dive_core::LlmErrorKind;
use eventsource_stream::{EventStreamError, Eventsource};
use futures_util::{Stream, StreamExt};

use crate::ProviderError;

/// One server-sent event.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct SseEvent {
    /// The `event:` name (`message` when the server sent none).
    pub event: String,
    /// The `data:` lines joined with `\n`.
    pub data: String,
    /// The `id:` field.
    pub id: String,
}

/// Decodes a byte stream into [`SseEvent`]s. Comments (`: keep-alive`) are skipped, CRLF and
/// LF framing and events split across chunks at any byte are handled by `eventsource-stream`.
///
/// A transport error becomes a [`ProviderError`] of kind `Timeout` (a reqwest read
/// timeout) or `Network`; bytes that are not UTF-8 or not SSE become `Decode`.
///
/// ```
/// use futures::StreamExt;
/// let chunks = vec![Ok::<_, std::io::Error>(bytes::Bytes::from_static(b"event: ping\nda")),
///                   Ok(bytes::Bytes::from_static(b"ta: {}\n\n"))];
/// let events: Vec<_> = futures::executor::block_on(
///     dive_provider::decode_sse("demo", futures::stream::iter(chunks)).collect::<Vec<_>>());
/// let first = events[0].as_ref().unwrap();
/// assert_eq!((first.event.as_str(), first.data.as_str()), ("ping", "{}"));
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
    bytes.eventsource().map(move |item| match item {
        Ok(e) => Ok(SseEvent { event: e.event, data: e.data, id: e.id }),
        Err(EventStreamError::Transport(e)) => {
            let timeout = (&e as &(dyn StdError + 'static))
                .downcast_ref::<reqwest::Error>()
                .is_some_and(reqwest::Error::is_timeout);
            let kind = if timeout { LlmErrorKind::Timeout } else { LlmErrorKind::Network };
            Err(ProviderError::new(provider, kind, format!("stream transport failed: {e}")).with_source(e))
        }
        Err(EventStreamError::Utf8(e)) => {
            Err(ProviderError::new(provider, LlmErrorKind::Decode, format!("stream is not UTF-8: {e}")))
        }
        Err(EventStreamError::Parser(e)) => {
            Err(ProviderError::new(provider, LlmErrorKind::Decode, format!("malformed SSE: {e}")))
        }
    })
}

/// [`decode_sse`] over the body of a reqwest response.
pub fn response_sse(
    provider: &'static str,
    response: reqwest::Response,
) -> impl Stream<Item = Result<SseEvent, ProviderError>> + use<> {
    decode_sse(provider, response.bytes_stream())
}
