//! Prompt-cache breakpoints: the top-level automatic `cache_control` marks the
//! last cacheable block, and up to three explicit breakpoints are placed so that no two are
//! more than [`SPACING`] blocks apart, counting back from the end of the conversation.
//!
//! Why: the API looks for an earlier cache entry at most 20 blocks back from each breakpoint.
//! When one turn adds more than 20 blocks (many tool calls), the automatic breakpoint alone
//! would miss the previous turn's entry; intermediate breakpoints every 15 blocks extend the
//! look-back to 65 blocks. The API allows four breakpoints a request, so explicit ones set by
//! the application are kept first (the latest three), and the rest are filled in.

use crate::messages::{Mark, SentBlock};

/// The largest gap, in content blocks, between two breakpoints.
pub(crate) const SPACING: usize = 15;

/// Explicit breakpoints allowed next to the automatic one.
const EXPLICIT_SLOTS: usize = 3;

/// Marks the conversation's blocks (in order): the earliest explicit breakpoints past the
/// limit are dropped, and automatic ones fill the free slots.
pub(crate) fn place_breakpoints(blocks: &mut [SentBlock]) {
    let explicit = blocks.iter().filter(|b| b.mark == Mark::Own).count();
    let mut excess = explicit.saturating_sub(EXPLICIT_SLOTS);
    for b in blocks.iter_mut().filter(|b| b.mark == Mark::Own) {
        if excess == 0 {
            break;
        }
        b.mark = Mark::Dropped;
        excess -= 1;
    }
    let mut free = EXPLICIT_SLOTS.saturating_sub(explicit);
    let mut since = 0usize;
    for b in blocks.iter_mut().rev().skip(1) {
        if free == 0 {
            break;
        }
        since += 1;
        if b.mark == Mark::Own {
            since = 0;
            continue;
        }
        if since >= SPACING && b.cacheable {
            b.mark = Mark::Auto;
            free -= 1;
            since = 0;
        }
    }
}

#[cfg(test)]
mod tests {
    use std::borrow::Cow;

    use dive_core::{CacheControl, CacheTtl, Content, Message, Role, TextContent};
    use serde_json::{Value, json};

    use crate::messages::{WireCacheControl, WireMessages};

    fn conversation(blocks: usize) -> Vec<Message> {
        (0..blocks).map(|i| Message::user(format!("b{i}"))).collect()
    }

    /// The messages as sent, with automatic breakpoints.
    fn sent(history: &[Message]) -> Value {
        let auto = Some(WireCacheControl::ephemeral(None));
        serde_json::to_value(WireMessages::plan(Cow::Borrowed(history), true, None, auto)).unwrap()
    }

    fn marked(messages: &Value) -> Vec<usize> {
        let messages = messages.as_array().unwrap();
        messages
            .iter()
            .enumerate()
            .filter(|(_, m)| m["content"][0].get("cache_control").is_some())
            .map(|(i, _)| i)
            .collect()
    }

    #[test]
    fn short_conversations_get_no_explicit_breakpoints() {
        assert!(marked(&sent(&conversation(15))).is_empty());
    }

    #[test]
    fn long_conversations_get_breakpoints_every_fifteen_blocks_at_most_three() {
        let m = sent(&conversation(100));
        assert_eq!(marked(&m), vec![54, 69, 84]);
        assert_eq!(m[54]["content"][0]["cache_control"], json!({"type": "ephemeral"}));
    }

    #[test]
    fn explicit_breakpoints_are_kept_latest_first_and_limited() {
        let mut m = conversation(40);
        for i in [1, 2, 3, 4, 38] {
            let mut text = TextContent::new(format!("b{i}"));
            text.cache_control = Some(CacheControl::with_ttl(CacheTtl::OneHour));
            m[i] = Message::new(Role::User, vec![Content::Text(text)]);
        }
        let sent = sent(&m);
        assert_eq!(marked(&sent), vec![3, 4, 38]);
        assert_eq!(sent[38]["content"][0]["cache_control"], json!({"type": "ephemeral", "ttl": "1h"}));
    }

    #[test]
    fn thinking_blocks_take_no_breakpoint() {
        let mut m = conversation(40);
        assert_eq!(marked(&sent(&m)), vec![9, 24]);
        let thinking = dive_core::ThinkingContent::new("t", Some("sig".into()));
        m[24] = Message::new(Role::Assistant, vec![Content::Thinking(thinking)]);
        assert_eq!(marked(&sent(&m)), vec![8, 23]);
    }

    #[test]
    fn without_caching_every_explicit_breakpoint_is_sent_and_none_is_added() {
        let mut m = conversation(40);
        for i in [1, 2, 3, 4, 38] {
            let mut text = TextContent::new(format!("b{i}"));
            text.cache_control = Some(CacheControl::ephemeral());
            m[i] = Message::new(Role::User, vec![Content::Text(text)]);
        }
        let sent = serde_json::to_value(WireMessages::plan(Cow::Borrowed(&m), true, None, None)).unwrap();
        assert_eq!(marked(&sent), vec![1, 2, 3, 4, 38]);
    }
}
