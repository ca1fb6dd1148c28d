//! [`Calls`]: the client tool calls of one assistant message, read where they are.

use std::ops::Index;

use dive_core::{Blocks, Content, ToolUse};

/// The client tool calls of one assistant message, in order. They are read in place from the
/// message's blocks, which the recorded message shares, so a batch copies no call to know
/// what it runs.
#[derive(Clone, Default)]
pub(crate) struct Calls {
    blocks: Blocks,
    /// Where each call sits in `blocks`.
    at: Vec<usize>,
}

impl Calls {
    /// The calls among `blocks` (its `tool_use` blocks).
    pub(crate) fn of(blocks: Blocks) -> Self {
        let at = blocks
            .iter()
            .enumerate()
            .filter(|(_, c)| matches!(c, Content::ToolUse(_)))
            .map(|(i, _)| i)
            .collect();
        Self { blocks, at }
    }

    pub(crate) fn len(&self) -> usize {
        self.at.len()
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.at.is_empty()
    }

    pub(crate) fn iter(&self) -> impl Iterator<Item = &ToolUse> {
        (0..self.len()).map(|i| &self[i])
    }
}

impl Index<usize> for Calls {
    type Output = ToolUse;

    fn index(&self, i: usize) -> &ToolUse {
        match &self.blocks[self.at[i]] {
            Content::ToolUse(call) => call,
            _ => unreachable!("`at` holds the places of tool_use blocks only"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_tool_use_blocks_are_calls_in_their_order() {
        let blocks: Blocks = vec![
            Content::text("thinking aloud"),
            Content::ToolUse(ToolUse::new("a", "x", serde_json::json!({}))),
            Content::text("more"),
            Content::ToolUse(ToolUse::new("b", "y", serde_json::json!({}))),
        ]
        .into();
        let calls = Calls::of(blocks);
        assert_eq!(calls.len(), 2);
        assert_eq!(calls.iter().map(|c| c.id.as_str()).collect::<Vec<_>>(), ["a", "b"]);
        assert_eq!(calls[1].name, "y");
        assert!(Calls::of(vec![Content::text("no calls")].into()).is_empty());
    }
}
