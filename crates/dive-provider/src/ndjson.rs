//! Newline-delimited JSON decoding: a byte stream in, one line out ([`NdjsonLine`], for a
//! wire format that reads each line into its own typed structs) or one JSON value a line
//! ([`decode_ndjson`]).

use std::error::Error as StdError;

use crate::{Frame, ProviderError};
use bytes::{Buf, Bytes, BytesMut};
use dive_core::{BoxStream, LlmErrorKind};
use futures_util::{Stream, StreamExt, stream};
use serde_json::Value;

/// One NDJSON line (its `\n` / `\r\n` removed, never blank), not parsed: the stream mapper
/// reads it straight into its typed structs (`serde_json::from_slice(line.as_bytes())`).
#[derive(Debug, Clone, Default)]
pub struct NdjsonLine(Bytes);

impl NdjsonLine {
    /// The line's bytes.
    #[must_use]
    pub fn as_bytes(&self) -> &[u8] {
        &self.0
    }
}

/// A decoded value written back as a line (for callers holding values already).
impl From<Value> for NdjsonLine {
    fn from(v: Value) -> Self {
        Self(Bytes::from(v.to_string()))
    }
}

impl Frame for NdjsonLine {
    fn frames(provider: &'static str, response: reqwest::Response) -> BoxStream<Result<Self, ProviderError>> {
        Box::pin(decode_ndjson_lines(provider, Box::pin(response.bytes_stream())))
    }
}

/// The longest line accepted (a guard against a server that never sends a newline).
const MAX_LINE: usize = 16 * 1024 * 1024;

struct State<S> {
    bytes: S,
    buf: BytesMut,
    /// How much of `buf` is known to hold no newline: each read is searched once, never the
    /// whole unfinished line again (which made a long line fed in small reads quadratic).
    scanned: usize,
    done: bool,
    provider: &'static str,
}

/// Decodes NDJSON: lines may be split across reads at any byte (even inside a UTF-8
/// character), `\r\n` endings and blank lines are accepted, and a last line without a final
/// newline still counts when it is complete JSON.
///
/// Errors: a transport failure becomes `Timeout` (a reqwest read timeout) or `Network`; a
/// line that is not JSON becomes `Decode`; bytes left at the end that do not form a JSON
/// value (the connection was cut inside a line) become `StreamInterrupted`. The stream ends
/// after its first error.
///
/// ```
/// use futures::StreamExt;
/// let chunks = vec![Ok::<_, std::io::Error>(bytes::Bytes::from_static(b"{\"a\":1}\n{\"b\"")),
///                   Ok(bytes::Bytes::from_static(b":2}\n"))];
/// let lines: Vec<_> = futures::executor::block_on(
///     dive_provider::decode_ndjson("demo", futures::stream::iter(chunks)).collect::<Vec<_>>());
/// assert_eq!(lines.len(), 2);
/// assert_eq!(lines[1].as_ref().unwrap()["b"], 2);
/// ```
pub fn decode_ndjson<S, B, E>(
    provider: &'static str,
    bytes: S,
) -> impl Stream<Item = Result<Value, ProviderError>> + use<S, B, E>
where
    S: Stream<Item = Result<B, E>> + Unpin,
    B: AsRef<[u8]>,
    E: StdError + Send + Sync + 'static,
{
    decode_ndjson_lines(provider, bytes).scan(false, move |ended, line| {
        if *ended {
            return std::future::ready(None);
        }
        let item = line.and_then(|l| parse(provider, l.as_bytes(), LlmErrorKind::Decode));
        *ended = item.is_err();
        std::future::ready(Some(item))
    })
}

/// [`decode_ndjson`]'s framing without the parse: one [`NdjsonLine`] a line, with the same
/// rules (split lines, `\r\n`, blank lines, a last line without newline, the 16 MiB guard);
/// a cut inside the last line is `StreamInterrupted`. A line that is not JSON is the
/// reader's `Decode` error.
pub fn decode_ndjson_lines<S, B, E>(
    provider: &'static str,
    bytes: S,
) -> impl Stream<Item = Result<NdjsonLine, ProviderError>> + use<S, B, E>
where
    S: Stream<Item = Result<B, E>> + Unpin,
    B: AsRef<[u8]>,
    E: StdError + Send + Sync + 'static,
{
    let state = State { bytes, buf: BytesMut::new(), scanned: 0, done: false, provider };
    stream::unfold(state, |mut st| async move {
        if st.done {
            return None;
        }
        loop {
            if let Some(line) = next_line(&mut st.buf, &mut st.scanned) {
                if line.iter().all(u8::is_ascii_whitespace) {
                    continue;
                }
                return Some((Ok(NdjsonLine(line.freeze())), st));
            }
            if st.buf.len() > MAX_LINE {
                st.done = true;
                let e =
                    ProviderError::new(st.provider, LlmErrorKind::Decode, "NDJSON line longer than 16 MiB");
                return Some((Err(e), st));
            }
            match st.bytes.next().await {
                Some(Ok(chunk)) => st.buf.extend_from_slice(chunk.as_ref()),
                Some(Err(e)) => {
                    st.done = true;
                    return Some((Err(crate::body_read_error(st.provider, e)), st));
                }
                None => {
                    st.done = true;
                    let rest = std::mem::take(&mut st.buf);
                    if rest.iter().all(u8::is_ascii_whitespace) {
                        return None;
                    }
                    // A last line without newline counts only when it is whole JSON.
                    let whole = parse_as::<serde::de::IgnoredAny>(
                        st.provider,
                        &rest,
                        LlmErrorKind::StreamInterrupted,
                    )
                    .map(|_| NdjsonLine(rest.freeze()));
                    return Some((whole, st));
                }
            }
        }
    })
}

/// Takes one complete line (without its `\n` / `\r\n`) off the front of `buf`, searching
/// only the bytes past `scanned` and moving `scanned` past them when no line is complete.
fn next_line(buf: &mut BytesMut, scanned: &mut usize) -> Option<BytesMut> {
    let Some(at) = buf[*scanned..].iter().position(|b| *b == b'\n') else {
        *scanned = buf.len();
        return None;
    };
    let end = *scanned + at;
    *scanned = 0;
    let mut line = buf.split_to(end);
    buf.advance(1);
    if line.last() == Some(&b'\r') {
        line.truncate(line.len() - 1);
    }
    Some(line)
}

fn parse(provider: &'static str, line: &[u8], kind: LlmErrorKind) -> Result<Value, ProviderError> {
    parse_as(provider, line, kind)
}

fn parse_as<T: serde::de::DeserializeOwned>(
    provider: &'static str,
    line: &[u8],
    kind: LlmErrorKind,
) -> Result<T, ProviderError> {
    serde_json::from_slice(line).map_err(|e| {
        let what = if kind == LlmErrorKind::StreamInterrupted {
            "stream ended inside a line"
        } else {
            "stream line is not JSON"
        };
        ProviderError::new(provider, kind, format!("{what}: {e}"))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use bytes::Bytes;
    use proptest::prelude::*;

    fn run(chunks: Vec<Result<Bytes, std::io::Error>>) -> Vec<Result<Value, ProviderError>> {
        futures::executor::block_on(decode_ndjson("t", stream::iter(chunks)).collect::<Vec<_>>())
    }

    fn ok(chunks: &[&[u8]]) -> Vec<Result<Bytes, std::io::Error>> {
        chunks.iter().map(|c| Ok(Bytes::copy_from_slice(c))).collect()
    }

    #[test]
    fn crlf_blank_lines_and_a_last_line_without_newline() {
        let out = run(ok(&[b"{\"a\":1}\r\n\r\n\n{\"a\":", b"2}"]));
        let values: Vec<Value> = out.into_iter().map(Result::unwrap).collect();
        assert_eq!(values, vec![serde_json::json!({"a": 1}), serde_json::json!({"a": 2})]);
    }

    #[test]
    fn a_cut_inside_a_line_is_an_interruption_and_bad_json_a_decode_error() {
        let out = run(ok(&[b"{\"a\":1}\n{\"a\":"]));
        assert!(out[0].is_ok());
        assert_eq!(out[1].as_ref().unwrap_err().kind, LlmErrorKind::StreamInterrupted);
        let out = run(ok(&[b"not json\n{\"a\":1}\n"]));
        assert_eq!(out.len(), 1, "the stream stops at its first error");
        assert_eq!(out[0].as_ref().unwrap_err().kind, LlmErrorKind::Decode);
    }

    #[test]
    fn transport_errors_are_network_errors() {
        let out = run(vec![Ok(Bytes::from_static(b"{}\n")), Err(std::io::Error::other("reset"))]);
        assert_eq!(out[1].as_ref().unwrap_err().kind, LlmErrorKind::Network);
    }

    #[test]
    fn a_long_line_fed_one_byte_a_read_decodes() {
        // Each read used to re-scan the whole unfinished line: hours for this mebibyte.
        let text = "y".repeat(1024 * 1024);
        let body = format!("{{\"t\":\"{text}\"}}\n{{\"done\":true}}\n");
        let chunks = body.as_bytes().iter().map(|b| Ok(Bytes::copy_from_slice(&[*b]))).collect();
        let values: Vec<Value> = run(chunks).into_iter().map(Result::unwrap).collect();
        assert_eq!(values.len(), 2);
        assert_eq!(values[0]["t"].as_str().map(str::len), Some(text.len()));
        assert_eq!(values[1]["done"], true);
    }

    proptest! {
        #[test]
        fn any_chunking_decodes_the_same(cuts in proptest::collection::vec(0usize..120, 0..10)) {
            let text = "{\"t\":\"héllo ✓\"}\n{\"t\":\"wörld\",\"n\":[1,2]}\r\n\n{\"done\":true}\n".as_bytes();
            let mut cuts: Vec<usize> = cuts.into_iter().filter(|c| *c <= text.len()).collect();
            cuts.sort_unstable();
            let mut chunks = Vec::new();
            let mut start = 0;
            for c in cuts.into_iter().chain([text.len()]) {
                chunks.push(Ok(Bytes::copy_from_slice(&text[start..c])));
                start = c;
            }
            let values: Vec<Value> = run(chunks).into_iter().map(Result::unwrap).collect();
            prop_assert_eq!(values.len(), 3);
            prop_assert_eq!(&values[0]["t"], "héllo ✓");
            prop_assert_eq!(&values[2]["done"], true);
        }
    }
}
