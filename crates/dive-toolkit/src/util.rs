//! Small helpers shared by the tools: running blocking work off the async workers and
//! cutting long text.

use dive_core::{ToolError, ToolResult};

/// Runs blocking file-system work on tokio's blocking pool.
pub(crate) async fn blocking<T, F>(f: F) -> Result<T, ToolError>
where
    F: FnOnce() -> T + Send + 'static,
    T: Send + 'static,
{
    tokio::task::spawn_blocking(f).await.map_err(|e| ToolError::new(format!("tool task failed: {e}")))
}

/// Flattens a blocking result whose error is already a model-facing message.
pub(crate) fn into_result(result: Result<ToolResult, String>) -> ToolResult {
    result.unwrap_or_else(ToolResult::error)
}

/// Cuts `text` to at most `max` characters at a char boundary; returns whether it was cut.
pub(crate) fn truncate_chars(text: &mut String, max: usize) -> bool {
    if let Some((index, _)) = text.char_indices().nth(max) {
        text.truncate(index);
        true
    } else {
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn truncates_on_char_boundaries() {
        let mut s = "héllo".to_string();
        assert!(truncate_chars(&mut s, 2));
        assert_eq!(s, "hé");
        let mut t = "ok".to_string();
        assert!(!truncate_chars(&mut t, 2));
        assert_eq!(t, "ok");
    }
}
