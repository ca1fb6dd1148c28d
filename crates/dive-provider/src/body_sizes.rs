//! [`BodySizes`]: how large a provider's request bodies have been, so the next body is written
//! into a buffer that rarely has to grow (a growing buffer is copied at every doubling).

use std::sync::atomic::{AtomicUsize, Ordering};

/// The first buffer, before any body was seen.
const FIRST: usize = 1024;
/// The largest size remembered: a larger body grows its buffer as usual, so one very large
/// request does not make every later buffer that large.
const MOST: usize = 64 * 1024;

/// The largest request body written so far (up to [`MOST`]), shared by a provider's clones.
#[derive(Debug, Default)]
pub(crate) struct BodySizes(AtomicUsize);

impl BodySizes {
    /// An empty buffer for the next body, as large as the largest body so far.
    pub(crate) fn buffer(&self) -> Vec<u8> {
        match self.0.load(Ordering::Relaxed) {
            0 => Vec::with_capacity(FIRST),
            seen => Vec::with_capacity(seen),
        }
    }

    /// Remembers a body of `len` bytes. The size only grows, and is only written when it does,
    /// so calls in flight together mostly read it.
    pub(crate) fn record(&self, len: usize) {
        if len <= MOST && len > self.0.load(Ordering::Relaxed) {
            self.0.fetch_max(len, Ordering::Relaxed);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_buffer_is_as_large_as_the_largest_body_up_to_the_cap() {
        let sizes = BodySizes::default();
        assert_eq!(sizes.buffer().capacity(), FIRST);
        sizes.record(3000);
        sizes.record(2000);
        assert!(sizes.buffer().capacity() >= 3000);
        assert!(sizes.buffer().is_empty());
        sizes.record(MOST + 1);
        assert!(sizes.buffer().capacity() < MOST, "a body over the cap is not remembered");
        sizes.record(MOST);
        assert!(sizes.buffer().capacity() >= MOST);
    }
}
