//! Shared helpers for the toolkit's integration tests.
#![allow(clippy::unwrap_used, clippy::expect_used, dead_code, unreachable_pub)]

use std::sync::Arc;

use dive_core::{Tool, ToolContext, ToolOutput, ToolResult};
use serde_json::Value;

/// Calls a tool and returns its output (panics on a suspension or background task).
pub async fn call(tool: &Arc<dyn Tool>, input: Value) -> ToolOutput {
    match tool.call(input, ToolContext::detached(tool.name())).await.unwrap() {
        ToolResult::Output(out) => out,
        other => panic!("expected output, got {other:?}"),
    }
}
