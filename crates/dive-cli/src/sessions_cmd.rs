//! `dive sessions list | show | export | delete`.

use dive::{ListOptions, SessionStore};

use crate::args::SessionsCommand;
use crate::transcript;
use crate::workspace_sessions::workspace_of;

/// Runs a sessions subcommand; returns the exit code.
pub async fn run(store: &dyn SessionStore, command: SessionsCommand) -> Result<(), String> {
    match command {
        SessionsCommand::List { limit } => {
            let page = store.list(&ListOptions::page(0, limit)).await.map_err(|e| e.to_string())?;
            if page.sessions.is_empty() {
                say!("no saved sessions");
            }
            for info in &page.sessions {
                let title = info.title.clone().unwrap_or_else(|| "(untitled)".into());
                let flag = if info.suspended { " [suspended]" } else { "" };
                let place = workspace_of(info).map_or_else(String::new, |w| format!("  [{w}]"));
                say!("{}  {}  {} events  {title}{flag}{place}", info.id, info.updated_at, info.event_count);
            }
            if page.total > page.sessions.len() {
                say!("… {} more (use -n)", page.total - page.sessions.len());
            }
        }
        SessionsCommand::Show { id } => {
            let session = existing(store, &id).await?;
            let snapshot = session.load().await.map_err(|e| e.to_string())?;
            // The whole transcript: turns a compaction replaced are shown too.
            let lines = match session.as_history() {
                Some(history) => {
                    transcript::document_lines(&history.document().await.map_err(|e| e.to_string())?)
                }
                None => snapshot.messages().iter().flat_map(transcript::message_lines).collect(),
            };
            for line in lines {
                say!("{line}");
            }
            if let Some(turn) = &snapshot.open_turn {
                say!("(open turn {}: {})", turn.id, turn.status.as_str());
            }
        }
        SessionsCommand::Export { id } => {
            let session = existing(store, &id).await?;
            let history = session.as_history().ok_or("this store cannot export")?;
            let document = history.document().await.map_err(|e| e.to_string())?;
            say!("{}", serde_json::to_string_pretty(&document).map_err(|e| e.to_string())?);
        }
        SessionsCommand::Delete { id } => {
            existing(store, &id).await?;
            store.delete(&id).await.map_err(|e| e.to_string())?;
            say!("deleted {id}");
        }
    }
    Ok(())
}

async fn existing(store: &dyn SessionStore, id: &str) -> Result<std::sync::Arc<dyn dive::Session>, String> {
    let page = store.list(&ListOptions::all()).await.map_err(|e| e.to_string())?;
    if !page.sessions.iter().any(|s| s.id == id) {
        return Err(format!("no saved session {id:?}; `dive sessions list` shows them"));
    }
    store.open(id).await.map_err(|e| e.to_string())
}
