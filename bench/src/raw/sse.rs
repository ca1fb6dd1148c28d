//! A minimal SSE reader for the raw client: feeds body chunks, hands each event's `data`
//! payload to a callback without copying it out.

use crate::BenchError;

/// Buffers a byte stream and splits it into SSE events.
#[derive(Debug, Default)]
pub struct SseReader {
    buf: Vec<u8>,
}

impl SseReader {
    /// Appends `chunk` and calls `on_data` with the `data:` payload of every complete event.
    ///
    /// # Errors
    /// What `on_data` returns.
    pub fn feed(
        &mut self,
        chunk: &[u8],
        mut on_data: impl FnMut(&[u8]) -> Result<(), BenchError>,
    ) -> Result<(), BenchError> {
        self.buf.extend_from_slice(chunk);
        let mut start = 0;
        while let Some(end) = memchr::memmem::find(&self.buf[start..], b"\n\n") {
            let event = &self.buf[start..start + end];
            for line in event.split(|&b| b == b'\n') {
                if let Some(data) = line.strip_prefix(b"data:") {
                    on_data(data.strip_prefix(b" ").unwrap_or(data))?;
                }
            }
            start += end + 2;
        }
        self.buf.drain(..start);
        Ok(())
    }
}
