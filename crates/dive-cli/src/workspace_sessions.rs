//! Sessions belong to a workspace: the workspace is stored in each session's metadata after
//! its first turn, `--continue` and the picker prefer the sessions of the current workspace,
//! and every listing shows where a session was run.

use std::path::Path;

use dive::{ListOptions, Session, SessionEdit, SessionInfo, SessionStore};
use serde_json::Value;

/// The metadata key holding the workspace path.
pub const WORKSPACE_KEY: &str = "workspace";

/// The workspace a session was run in, if recorded.
pub fn workspace_of(info: &SessionInfo) -> Option<&str> {
    info.metadata.get(WORKSPACE_KEY).and_then(Value::as_str)
}

/// Records `workspace` in the session's metadata unless it is already there.
pub async fn tag(session: &dyn Session, workspace: &Path) {
    let Some(history) = session.as_history() else { return };
    let Ok(document) = history.document().await else { return };
    let path = workspace.display().to_string();
    if workspace_of(&document.info) == Some(path.as_str()) {
        return;
    }
    let mut metadata = document.info.metadata.clone();
    metadata.insert(WORKSPACE_KEY.into(), Value::String(path));
    let _ = history.edit(None, &SessionEdit::SetMetadata(metadata)).await;
}

/// Sessions newest first, those of `workspace` before the others (each group keeps its order).
pub fn prefer_workspace(mut sessions: Vec<SessionInfo>, workspace: &Path) -> Vec<SessionInfo> {
    let here = workspace.display().to_string();
    sessions.sort_by_key(|s| workspace_of(s) != Some(here.as_str()));
    sessions
}

/// The recent sessions, this workspace's first, at most `limit`.
///
/// # Errors
/// The store's error, as text.
pub async fn recent(
    store: &dyn SessionStore,
    workspace: &Path,
    limit: usize,
) -> Result<Vec<SessionInfo>, String> {
    let page = store.list(&ListOptions::all()).await.map_err(|e| e.to_string())?;
    let mut sessions = prefer_workspace(page.sessions, workspace);
    sessions.truncate(limit);
    Ok(sessions)
}

/// Where a session was run, for listings: the path, or `(here)` for the current workspace.
pub fn where_label(info: &SessionInfo, workspace: &Path) -> String {
    match workspace_of(info) {
        Some(w) if w == workspace.display().to_string() => "here".into(),
        Some(w) => w.to_owned(),
        None => "workspace unknown".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn info(id: &str, workspace: Option<&str>) -> SessionInfo {
        let mut info = SessionInfo::new(id);
        if let Some(w) = workspace {
            info.metadata.insert(WORKSPACE_KEY.into(), Value::String(w.into()));
        }
        info
    }

    #[test]
    fn sessions_of_this_workspace_come_first_in_their_order() {
        let sessions = vec![
            info("a", Some("/other")),
            info("b", Some("/here")),
            info("c", None),
            info("d", Some("/here")),
        ];
        let ids: Vec<String> =
            prefer_workspace(sessions, Path::new("/here")).into_iter().map(|s| s.id).collect();
        assert_eq!(ids, ["b", "d", "a", "c"]);
        assert_eq!(where_label(&info("x", Some("/here")), Path::new("/here")), "here");
        assert_eq!(where_label(&info("x", Some("/other")), Path::new("/here")), "/other");
    }
}
