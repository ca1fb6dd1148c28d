//! Capturing every log line of the current thread while a check runs (the secret check reads
//! them).

use std::io::Write;
use std::sync::{Arc, Mutex};

use tracing::subscriber::DefaultGuard;

#[derive(Clone, Default)]
struct Buffer(Arc<Mutex<Vec<u8>>>);

impl Write for Buffer {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner).extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// A TRACE-level subscriber installed as this thread's default until [`finish`](Self::finish).
pub(crate) struct Capture {
    buffer: Buffer,
    guard: DefaultGuard,
}

impl Capture {
    pub(crate) fn start() -> Self {
        let buffer = Buffer::default();
        let writer = buffer.clone();
        let subscriber = tracing_subscriber::fmt()
            .with_max_level(tracing::Level::TRACE)
            .with_writer(move || writer.clone())
            .with_ansi(false)
            .finish();
        let guard = tracing::subscriber::set_default(subscriber);
        Self { buffer, guard }
    }

    /// Everything logged, as text.
    pub(crate) fn finish(self) -> String {
        drop(self.guard);
        let bytes = self.buffer.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner).clone();
        String::from_utf8_lossy(&bytes).into_owned()
    }
}
