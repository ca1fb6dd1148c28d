//! Unique identifiers for turns, messages, background tasks and sessions.
//!
//! Identifiers are a prefix, an underscore and 26 lowercase base-32 characters: 48 bits of
//! milliseconds since the Unix epoch followed by 80 random bits, so they sort by creation time.
//! Randomness comes from the standard library's per-process hash keys; no extra crate needed.

use std::collections::hash_map::RandomState;
use std::hash::{BuildHasher, Hasher};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

const ALPHABET: &[u8; 32] = b"0123456789abcdefghjkmnpqrstvwxyz";

static COUNTER: AtomicU64 = AtomicU64::new(0);

/// Returns a new identifier such as `turn_01jd8k3x…`.
///
/// ```
/// let a = dive_core::new_id("turn");
/// let b = dive_core::new_id("turn");
/// assert!(a.starts_with("turn_"));
/// assert_ne!(a, b);
/// ```
#[must_use]
pub fn new_id(prefix: &str) -> String {
    let millis = SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_millis() as u64).unwrap_or(0);
    let mut hasher = RandomState::new().build_hasher();
    hasher.write_u64(COUNTER.fetch_add(1, Ordering::Relaxed));
    hasher.write_u64(millis);
    let r1 = hasher.finish();
    hasher.write_u64(r1);
    let r2 = hasher.finish();
    // 48 bits of time, then 80 bits of randomness: 128 bits, 26 symbols of 5 bits (130 bits).
    let hi: u128 =
        (u128::from(millis & 0xFFFF_FFFF_FFFF) << 80) | (u128::from(r1) << 16) | u128::from(r2 & 0xFFFF);
    let mut symbols = [0u8; 26];
    for (i, symbol) in symbols.iter_mut().rev().enumerate() {
        *symbol = ALPHABET[((hi >> (i * 5)) & 31) as usize];
    }
    let mut out = String::with_capacity(prefix.len() + 27);
    out.push_str(prefix);
    out.push('_');
    // Every symbol is ASCII, so this never falls back.
    out.push_str(std::str::from_utf8(&symbols).unwrap_or_default());
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn ids_are_unique_and_prefixed() {
        let ids: HashSet<String> = (0..10_000).map(|_| new_id("x")).collect();
        assert_eq!(ids.len(), 10_000);
        assert!(ids.iter().all(|id| id.starts_with("x_") && id.len() == 28));
    }

    #[test]
    fn ids_sort_by_time() {
        let a = new_id("t");
        std::thread::sleep(std::time::Duration::from_millis(3));
        let b = new_id("t");
        assert!(a < b, "{a} !< {b}");
    }
}
