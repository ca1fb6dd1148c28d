//! The event-stream parser of the HTML Living Standard ("Parsing an event stream",
//! "Interpreting an event stream"), fed bytes as they arrive. Every byte is scanned once: the
//! start of an unfinished line waits in one buffer and only the new bytes are searched for its
//! end, so reads of any size cost time linear in the stream.

use std::time::Duration;

use memchr::{memchr, memchr2};

use super::{EventName, SseEvent};

/// The UTF-8 byte order mark, ignored once at the start of the stream.
const BOM: &[u8] = b"\xEF\xBB\xBF";

/// The most bytes one event may hold (its data and its unfinished line): a guard against a
/// server that never ends a line.
pub(crate) const MAX_EVENT_BYTES: usize = 64 * 1024 * 1024;

/// The buffered bytes of one event passed [`MAX_EVENT_BYTES`].
#[derive(Debug)]
pub(crate) struct EventTooLarge;

/// The parser state: the standard's buffers plus the unfinished line.
#[derive(Debug)]
pub(crate) struct Framer {
    /// The start of a line whose end has not arrived yet; it never holds CR or LF.
    partial: Vec<u8>,
    /// The bytes so far ended with CR, so an LF starting the next ones completes a CRLF.
    after_cr: bool,
    /// No line has been interpreted yet (the BOM may still come).
    first_line: bool,
    /// The data buffer: each `data` value followed by LF.
    data: Vec<u8>,
    /// The event type buffer (`None`: empty).
    event_type: Option<EventName>,
    /// The last name an `event:` field gave: the next event of that name shares it.
    last_name: EventName,
    /// `message`, the name of an event without one.
    message: EventName,
    /// The last event ID buffer; it outlives the event that set it.
    last_id: String,
    /// The reconnection time the last valid `retry` field set.
    retry: Option<Duration>,
}

impl Default for Framer {
    fn default() -> Self {
        Self {
            partial: Vec::new(),
            after_cr: false,
            first_line: true,
            data: Vec::new(),
            event_type: None,
            last_name: EventName::default(),
            message: EventName::from("message"),
            last_id: String::new(),
            retry: None,
        }
    }
}

impl Framer {
    /// Reads `bytes`, one read of the stream, from `*at` until a blank line dispatches an
    /// event, which is returned with `*at` just past that line. When the read runs out first,
    /// its unfinished last line waits for the next read, `*at` is `bytes.len()` and the answer
    /// is `Ok(None)`. A read is handed in again from where it stopped until it runs out: most
    /// reads hold one event, which then goes to the caller without a queue.
    ///
    /// # Errors
    /// [`EventTooLarge`] when the event being read outgrows [`MAX_EVENT_BYTES`]; the parser
    /// must not be fed again.
    pub(crate) fn next_event(
        &mut self,
        bytes: &[u8],
        at: &mut usize,
    ) -> Result<Option<SseEvent>, EventTooLarge> {
        // `after_cr` is only set when a read ran out, so a byte here starts the next read.
        if self.after_cr
            && let Some(&first) = bytes.get(*at)
        {
            self.after_cr = false;
            if first == b'\n' {
                *at += 1;
            }
        }
        let mut rest = bytes.get(*at..).unwrap_or_default();
        loop {
            if let Some(len) = self.repeated_name_line(rest) {
                *at += len;
                rest = &rest[len..];
            }
            let Some(end) = line_end(rest) else { break };
            if let Some(event) = self.lone_data_line(rest, end) {
                *at += end + 2;
                return Ok(Some(event));
            }
            let mut next = end + 1;
            if rest[end] == b'\r' {
                match rest.get(next) {
                    Some(b'\n') => next += 1,
                    Some(_) => {}
                    None => self.after_cr = true,
                }
            }
            let event = if self.partial.is_empty() {
                self.line(&rest[..end])
            } else {
                let mut line = std::mem::take(&mut self.partial);
                line.extend_from_slice(&rest[..end]);
                let event = self.line(&line);
                line.clear();
                self.partial = line;
                event
            };
            *at += next;
            rest = &rest[next..];
            if event.is_some() {
                return Ok(event);
            }
        }
        self.partial.extend_from_slice(rest);
        *at = bytes.len();
        if self.partial.len() + self.data.len() > MAX_EVENT_BYTES {
            return Err(EventTooLarge);
        }
        Ok(None)
    }

    /// Parses a whole read and queues every event it completes ([`next_event`](Self::next_event)
    /// until the read runs out).
    ///
    /// # Errors
    /// As [`next_event`](Self::next_event).
    #[cfg(test)]
    pub(crate) fn feed(
        &mut self,
        bytes: &[u8],
        out: &mut std::collections::VecDeque<SseEvent>,
    ) -> Result<(), EventTooLarge> {
        let mut at = 0;
        while let Some(event) = self.next_event(bytes, &mut at)? {
            out.push_back(event);
        }
        Ok(())
    }

    /// Ends the stream the way Dive does at a clean end of the body: an unfinished last line
    /// is interpreted as if its line end had arrived, and an event still waiting for its blank
    /// line is dispatched. (The standard discards both; that is what dropping the parser
    /// without calling this does.)
    pub(crate) fn finish(&mut self) -> Option<SseEvent> {
        if !self.partial.is_empty() {
            let line = std::mem::take(&mut self.partial);
            if let Some(event) = self.line(&line) {
                return Some(event);
            }
        }
        self.dispatch()
    }

    /// The length of the `event:` line that starts `rest` when it names the event as the
    /// last one did (`event: ` and that name, then LF), its type set: a model's stream names
    /// event after event alike, and such a line is known by comparing its bytes, without
    /// searching for its end. `None` for any other line: the line-by-line path reads it.
    fn repeated_name_line(&mut self, rest: &[u8]) -> Option<usize> {
        if self.first_line || !self.partial.is_empty() || self.last_name.is_empty() {
            return None;
        }
        let name = self.last_name.as_bytes();
        let after = rest.strip_prefix(b"event: ")?;
        if after.get(..name.len())? != name || after.get(name.len()) != Some(&b'\n') {
            return None;
        }
        self.event_type = Some(self.last_name.clone());
        Some(b"event: ".len() + name.len() + 1)
    }

    /// The event of the `data:` line that starts `rest` and ends (LF) at `end`, when a blank
    /// line (LF) follows it and it is the event's only data line: nearly every event of a
    /// model's stream. Its value goes straight into the event's own buffer, with the result
    /// the line-by-line path gives (`None` for any other line: that path reads it).
    fn lone_data_line(&mut self, rest: &[u8], end: usize) -> Option<SseEvent> {
        if !(self.partial.is_empty() && self.data.is_empty() && !self.first_line) {
            return None;
        }
        let value = rest.get(..end)?.strip_prefix(b"data:")?;
        if rest.get(end..end + 2)? != b"\n\n" {
            return None;
        }
        let event_type = self.event_type.take();
        Some(self.event(event_type, field_value(value).to_vec()))
    }

    /// Interprets one line (without its line end); a blank line dispatches.
    fn line(&mut self, mut line: &[u8]) -> Option<SseEvent> {
        if self.first_line {
            self.first_line = false;
            line = line.strip_prefix(BOM).unwrap_or(line);
        }
        if line.is_empty() {
            return self.dispatch();
        }
        // The two fields of nearly every line are known by their first bytes (the first colon
        // of such a line is the one after the name); any other line is searched for its colon.
        if let Some(value) = line.strip_prefix(b"data:") {
            self.push_data(field_value(value));
        } else if let Some(value) = line.strip_prefix(b"event:") {
            self.event_type = self.name(field_value(value));
        } else {
            match memchr(b':', line) {
                Some(0) => {} // a comment
                Some(colon) => self.other_field(&line[..colon], field_value(&line[colon + 1..])),
                None => self.other_field(line, b""),
            }
        }
        None
    }

    /// A field other than `data` and `event` (which [`line`](Self::line) reads itself).
    fn other_field(&mut self, name: &[u8], value: &[u8]) {
        match name {
            b"data" => self.push_data(value),
            b"event" => self.event_type = self.name(value),
            b"id" if !value.contains(&0) => self.last_id = text(value),
            b"retry" if !value.is_empty() && value.iter().all(u8::is_ascii_digit) => {
                // Digits only, so the text is ASCII; a value past u64 milliseconds is ignored.
                if let Ok(ms) = String::from_utf8_lossy(value).parse::<u64>() {
                    self.retry = Some(Duration::from_millis(ms));
                }
            }
            _ => {}
        }
    }

    /// A `data` field: its value and a LF join the data buffer.
    fn push_data(&mut self, value: &[u8]) {
        self.data.extend_from_slice(value);
        self.data.push(b'\n');
    }

    /// The event type an `event:` field sets: the last name again when it is the same (shared,
    /// not allocated), `None` for an empty one.
    fn name(&mut self, value: &[u8]) -> Option<EventName> {
        if value.is_empty() {
            return None;
        }
        if value != self.last_name.as_bytes() {
            self.last_name = EventName::from_bytes(value);
        }
        Some(self.last_name.clone())
    }

    /// An event of `event_type` (`message` when `None`) with `data`, the last event ID (model
    /// APIs send none: no call to clone an empty one) and the reconnection time.
    #[inline]
    fn event(&self, event_type: Option<EventName>, data: Vec<u8>) -> SseEvent {
        let event = event_type.unwrap_or_else(|| self.message.clone());
        let id = if self.last_id.is_empty() { String::new() } else { self.last_id.clone() };
        SseEvent { event, data, id, retry: self.retry }
    }

    /// A blank line: the event if it has data; the buffers are reset either way.
    fn dispatch(&mut self) -> Option<SseEvent> {
        let event_type = self.event_type.take();
        if self.data.is_empty() {
            return None;
        }
        self.data.pop(); // the LF after the last data line
        // The next event likely has a size like this one (its line end included): room for a
        // little more, so a slightly longer one is not copied to grow; capped.
        let keep = (self.data.len() + 2).next_power_of_two().min(64 * 1024);
        let data = std::mem::replace(&mut self.data, Vec::with_capacity(keep));
        Some(self.event(event_type, data))
    }
}

/// A field's value without the one space the standard lets follow the colon.
fn field_value(value: &[u8]) -> &[u8] {
    value.strip_prefix(b" ").unwrap_or(value)
}

/// A field value as text: bytes that are not UTF-8 become U+FFFD.
fn text(value: &[u8]) -> String {
    match std::str::from_utf8(value) {
        Ok(text) => text.to_owned(),
        Err(_) => String::from_utf8_lossy(value).into_owned(),
    }
}

/// Where the first CR or LF is. Reads of a few bytes are searched byte by byte: setting up the
/// vector search would cost more than the search.
fn line_end(bytes: &[u8]) -> Option<usize> {
    if bytes.len() < 16 {
        bytes.iter().position(|b| matches!(b, b'\n' | b'\r'))
    } else {
        memchr2(b'\n', b'\r', bytes)
    }
}
