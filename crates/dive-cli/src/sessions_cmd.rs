//! `dive sessions list | show | export | delete`.

use dive::{Content, ListOptions, Role, SessionStore};

use crate::args::SessionsCommand;
use crate::render::call_summary;

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
                say!("{}  {}  {} events  {title}{flag}", info.id, info.updated_at, info.event_count);
            }
            if page.total > page.sessions.len() {
                say!("… {} more (use -n)", page.total - page.sessions.len());
            }
        }
        SessionsCommand::Show { id } => {
            let session = existing(store, &id).await?;
            let snapshot = session.load().await.map_err(|e| e.to_string())?;
            for message in snapshot.messages() {
                let who = match message.role {
                    Role::User => "you",
                    Role::Assistant => "dive",
                    _ => "system",
                };
                for block in &message.content {
                    match block {
                        Content::Text(t) => say!("{who}: {}", t.text),
                        Content::ToolUse(call) => say!("{who}: ⏺ {}", call_summary(call)),
                        Content::ToolResult(r) => {
                            let text = r.text_content();
                            let first = text.lines().next().unwrap_or_default();
                            say!("  ⎿ {first}");
                        }
                        Content::Reminder(r) => say!("  [{}]", r.name),
                        _ => {}
                    }
                }
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
