//! Prompt-cache breakpoints: the top-level automatic `cache_control` marks the
//! last cacheable block, and up to three explicit breakpoints are placed so that no two are
//! more than [`SPACING`] blocks apart, counting back from the end of the conversation.
//!
//! Why: the API looks for an earlier cache entry at most 20 blocks back from each breakpoint.
//! When one turn adds more than 20 blocks (many tool calls), the automatic breakpoint alone
//! would miss the previous turn's entry; intermediate breakpoints every 15 blocks extend the
//! look-back to 65 blocks. The API allows four breakpoints a request, so explicit ones set by
//! the application are kept first (the latest three), and the rest are filled in.

use serde_json::Value;

/// The largest gap, in content blocks, between two breakpoints.
pub(crate) const SPACING: usize = 15;

/// Explicit breakpoints allowed next to the automatic one.
const EXPLICIT_SLOTS: usize = 3;

fn cacheable(block: &Value) -> bool {
    !matches!(block.get("type").and_then(Value::as_str), Some("thinking" | "redacted_thinking") | None)
}

/// Adds (and, past the limit, removes) `cache_control` markers on the blocks of `messages`.
pub(crate) fn place_breakpoints(messages: &mut [Value], cache_control: &Value) {
    let mut positions: Vec<(usize, usize)> = Vec::new();
    for (mi, m) in messages.iter().enumerate() {
        if let Some(blocks) = m.get("content").and_then(Value::as_array) {
            positions.extend((0..blocks.len()).map(|bi| (mi, bi)));
        }
    }
    let mut explicit: Vec<(usize, usize)> = positions
        .iter()
        .copied()
        .filter(|&(mi, bi)| messages[mi]["content"][bi].get("cache_control").is_some())
        .collect();
    while explicit.len() > EXPLICIT_SLOTS {
        let (mi, bi) = explicit.remove(0);
        if let Some(obj) = messages[mi]["content"][bi].as_object_mut() {
            obj.remove("cache_control");
        }
    }
    let mut free = EXPLICIT_SLOTS - explicit.len();
    let mut since = 0usize;
    for &(mi, bi) in positions.iter().rev().skip(1) {
        if free == 0 {
            break;
        }
        since += 1;
        let b = &mut messages[mi]["content"][bi];
        if b.get("cache_control").is_some() {
            since = 0;
            continue;
        }
        if since >= SPACING && cacheable(b) {
            b["cache_control"] = cache_control.clone();
            free -= 1;
            since = 0;
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn conversation(blocks: usize) -> Vec<Value> {
        (0..blocks)
            .map(|i| json!({"role": "user", "content": [{"type": "text", "text": format!("b{i}")}]}))
            .collect()
    }

    fn marked(messages: &[Value]) -> Vec<usize> {
        messages
            .iter()
            .enumerate()
            .filter(|(_, m)| m["content"][0].get("cache_control").is_some())
            .map(|(i, _)| i)
            .collect()
    }

    #[test]
    fn short_conversations_get_no_explicit_breakpoints() {
        let mut m = conversation(15);
        place_breakpoints(&mut m, &json!({"type": "ephemeral"}));
        assert!(marked(&m).is_empty());
    }

    #[test]
    fn long_conversations_get_breakpoints_every_fifteen_blocks_at_most_three() {
        let mut m = conversation(100);
        place_breakpoints(&mut m, &json!({"type": "ephemeral"}));
        assert_eq!(marked(&m), vec![54, 69, 84]);
    }

    #[test]
    fn explicit_breakpoints_are_kept_latest_first_and_limited() {
        let mut m = conversation(40);
        for i in [1, 2, 3, 4, 38] {
            m[i]["content"][0]["cache_control"] = json!({"type": "ephemeral", "ttl": "1h"});
        }
        place_breakpoints(&mut m, &json!({"type": "ephemeral"}));
        assert_eq!(marked(&m), vec![3, 4, 38]);
    }
}
