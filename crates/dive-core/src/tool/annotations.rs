//! [`ToolAnnotations`]: hints about a tool's behaviour, tri-state.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Hints about what a tool does. Every hint is tri-state: `None` means "not said", which
/// matters for MCP tools whose servers omit hints (MCP's own defaults then apply).
///
/// JSON uses MCP's camelCase keys (`readOnlyHint`, …); unknown keys round-trip in
/// [`extra`](Self::extra).
///
/// ```
/// use dive_core::ToolAnnotations;
/// let a = ToolAnnotations::read_only();
/// assert!(a.is_read_only());
/// assert_eq!(serde_json::to_string(&a).unwrap(), r#"{"readOnlyHint":true}"#);
/// assert!(ToolAnnotations::default().is_destructive(), "MCP default: destructive unless read-only");
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ToolAnnotations {
    /// Human-readable title.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// The tool does not change its environment.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_only_hint: Option<bool>,
    /// The tool may destroy or overwrite (meaningful when not read-only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub destructive_hint: Option<bool>,
    /// Calling it twice with the same input has no further effect.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub idempotent_hint: Option<bool>,
    /// The tool reaches outside (web, other systems).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub open_world_hint: Option<bool>,
    /// The tool edits files (permission mode `accept_edits` allows it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub edit_hint: Option<bool>,
    /// A batch containing this tool runs sequentially.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sequential_only_hint: Option<bool>,
    /// Calls run in order and a failure stops the later halting calls of the batch.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub halts_batch: Option<bool>,
    /// Unknown keys, kept for round trips.
    #[serde(flatten)]
    pub extra: BTreeMap<String, Value>,
}

impl ToolAnnotations {
    /// No hints.
    pub const EMPTY: ToolAnnotations = ToolAnnotations {
        title: None,
        read_only_hint: None,
        destructive_hint: None,
        idempotent_hint: None,
        open_world_hint: None,
        edit_hint: None,
        sequential_only_hint: None,
        halts_batch: None,
        extra: BTreeMap::new(),
    };

    /// Annotations for a read-only tool.
    #[must_use]
    pub fn read_only() -> Self {
        Self { read_only_hint: Some(true), ..Self::default() }
    }

    /// Annotations for a file-editing tool.
    #[must_use]
    pub fn edit() -> Self {
        Self { read_only_hint: Some(false), edit_hint: Some(true), ..Self::default() }
    }

    /// Sets the title.
    #[must_use]
    pub fn with_title(mut self, title: impl Into<String>) -> Self {
        self.title = Some(title.into());
        self
    }

    /// Sets the read-only hint.
    #[must_use]
    pub fn with_read_only(mut self, value: bool) -> Self {
        self.read_only_hint = Some(value);
        self
    }

    /// Sets the destructive hint.
    #[must_use]
    pub fn with_destructive(mut self, value: bool) -> Self {
        self.destructive_hint = Some(value);
        self
    }

    /// Sets the idempotent hint.
    #[must_use]
    pub fn with_idempotent(mut self, value: bool) -> Self {
        self.idempotent_hint = Some(value);
        self
    }

    /// Sets the open-world hint.
    #[must_use]
    pub fn with_open_world(mut self, value: bool) -> Self {
        self.open_world_hint = Some(value);
        self
    }

    /// Sets the sequential-only hint.
    #[must_use]
    pub fn with_sequential_only(mut self, value: bool) -> Self {
        self.sequential_only_hint = Some(value);
        self
    }

    /// Sets the halts-batch hint.
    #[must_use]
    pub fn with_halts_batch(mut self, value: bool) -> Self {
        self.halts_batch = Some(value);
        self
    }

    /// Read-only (unset: false).
    #[must_use]
    pub fn is_read_only(&self) -> bool {
        self.read_only_hint.unwrap_or(false)
    }

    /// Destructive (unset: true unless read-only, as in MCP).
    #[must_use]
    pub fn is_destructive(&self) -> bool {
        !self.is_read_only() && self.destructive_hint.unwrap_or(true)
    }

    /// Idempotent (unset: false).
    #[must_use]
    pub fn is_idempotent(&self) -> bool {
        self.idempotent_hint.unwrap_or(false)
    }

    /// Open world (unset: true, as in MCP).
    #[must_use]
    pub fn is_open_world(&self) -> bool {
        self.open_world_hint.unwrap_or(true)
    }

    /// Edits files (unset: false).
    #[must_use]
    pub fn is_edit(&self) -> bool {
        self.edit_hint.unwrap_or(false)
    }

    /// Forces sequential batches (unset: false).
    #[must_use]
    pub fn is_sequential_only(&self) -> bool {
        self.sequential_only_hint.unwrap_or(false)
    }

    /// Halts its batch on failure (unset: false).
    #[must_use]
    pub fn halts_batch(&self) -> bool {
        self.halts_batch.unwrap_or(false)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unset_false_and_true_are_distinct_and_round_trip() {
        let json = r#"{"readOnlyHint":false,"destructiveHint":true,"x-vendor":{"a":1}}"#;
        let a: ToolAnnotations = serde_json::from_str(json).unwrap();
        assert_eq!(a.read_only_hint, Some(false));
        assert_eq!(a.idempotent_hint, None);
        assert_eq!(a.extra["x-vendor"], serde_json::json!({"a": 1}));
        let back: serde_json::Value = serde_json::to_value(&a).unwrap();
        assert_eq!(back, serde_json::from_str::<serde_json::Value>(json).unwrap());
    }
}
