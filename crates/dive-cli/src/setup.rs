//! Building the agent from the arguments: workspace, tools, permissions, session store and
//! session, model and settings.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use dive::permission::{PermissionDialog, PermissionHook, PermissionManager, PermissionMode, Settings};
use dive::session::SqliteStore;
use dive::toolkit::{Toolkit, Workspace};
use dive::{Agent, Hooks, ListOptions, ModelSettings, Session, SessionStore, new_id};

use crate::args::{Args, PermissionModeArg};
use crate::model::{self, ModelChoice};

/// Everything a run needs.
pub struct Setup {
    pub agent: Agent,
    pub store: Arc<SqliteStore>,
    pub session: Arc<dyn Session>,
    pub manager: Arc<PermissionManager>,
    pub workspace: PathBuf,
    pub model: ModelChoice,
    pub resumed: bool,
}

/// The default system prompt.
pub fn default_system_prompt(workspace: &Path) -> String {
    format!(
        "You are dive, a careful coding agent working in the workspace {}. Use the tools to read, \
         search, edit and run code there; prefer small, verified steps; say what you changed. \
         Be concise.",
        workspace.display()
    )
}

/// Where sessions live: `--session-dir`, else the user's data directory.
pub fn session_dir(args: &Args) -> Result<PathBuf, String> {
    let dir = match &args.session_dir {
        Some(d) => d.clone(),
        None => dirs::data_dir().ok_or("no data directory on this system; pass --session-dir")?.join("dive"),
    };
    std::fs::create_dir_all(&dir)
        .map_err(|e| format!("cannot create the session directory {}: {e}", dir.display()))?;
    Ok(dir)
}

/// Opens the session store.
pub fn open_store(args: &Args) -> Result<Arc<SqliteStore>, String> {
    let path = session_dir(args)?.join("sessions.db");
    SqliteStore::open(&path).map(Arc::new).map_err(|e| format!("cannot open {}: {e}", path.display()))
}

/// How the session was chosen.
pub enum SessionChoice {
    New,
    Id(String),
    MostRecent,
}

/// Picks the session id.
pub async fn session_id(store: &SqliteStore, choice: SessionChoice) -> Result<(String, bool), String> {
    match choice {
        SessionChoice::New => Ok((new_id("session"), false)),
        SessionChoice::Id(id) => {
            let page = store.list(&ListOptions::all()).await.map_err(|e| e.to_string())?;
            if page.sessions.iter().any(|s| s.id == id) {
                Ok((id, true))
            } else {
                Err(format!("no saved session {id:?}; `dive sessions list` shows them"))
            }
        }
        SessionChoice::MostRecent => {
            let page = store.list(&ListOptions::page(0, 1)).await.map_err(|e| e.to_string())?;
            match page.sessions.first() {
                Some(info) => Ok((info.id.clone(), true)),
                None => Ok((new_id("session"), false)),
            }
        }
    }
}

fn permission_mode(args: &Args, settings_default: PermissionMode) -> PermissionMode {
    if args.dangerously_skip_permissions {
        return PermissionMode::BypassPermissions;
    }
    match args.permission_mode {
        Some(PermissionModeArg::Default) => PermissionMode::Default,
        Some(PermissionModeArg::Plan) => PermissionMode::Plan,
        Some(PermissionModeArg::AcceptEdits) => PermissionMode::AcceptEdits,
        Some(PermissionModeArg::BypassPermissions) => PermissionMode::BypassPermissions,
        Some(PermissionModeArg::DontAsk) => PermissionMode::DontAsk,
        None => settings_default,
    }
}

/// Builds the agent for `session_id`.
pub async fn build(
    args: &Args,
    store: Arc<SqliteStore>,
    session_id: &str,
    resumed: bool,
    dialog: Arc<dyn PermissionDialog>,
) -> Result<Setup, String> {
    let cwd = std::env::current_dir().map_err(|e| format!("no current directory: {e}"))?;
    let root = args.workspace.clone().unwrap_or(cwd);
    let workspace = Workspace::new(&root).map_err(|e| format!("bad workspace {}: {e}", root.display()))?;
    let workspace_path = workspace.root().to_path_buf();
    let model = model::choose(args.model.as_deref())?;
    let toolkit = if model.offline { Toolkit::read_only(workspace) } else { Toolkit::new(workspace) };
    let settings = Settings::load(&workspace_path).map_err(|e| e.to_string())?;
    let config = settings.permission_config().map_err(|e| e.to_string())?;
    let mode = permission_mode(args, settings.permissions.default_mode.unwrap_or_default());
    let manager = Arc::new(PermissionManager::new(config.with_mode(mode)));
    let hook = PermissionHook::new(Arc::clone(&manager)).with_dialog(dialog);
    let session = store.open(session_id).await.map_err(|e| e.to_string())?;
    let mut settings_model = ModelSettings::new();
    if let Some(max) = args.max_tokens {
        settings_model = settings_model.max_tokens(max);
    }
    if let Some(t) = args.temperature {
        settings_model = settings_model.temperature(t);
    }
    let system = args.system_prompt.clone().unwrap_or_else(|| default_system_prompt(&workspace_path));
    let agent = Agent::builder()
        .name("dive")
        .system_prompt(system)
        .model(Arc::clone(&model.llm))
        .tools(toolkit.tools())
        .hooks(Hooks::new().on_pre_tool_use(hook))
        .model_settings(settings_model)
        .build()
        .map_err(|e| e.to_string())?;
    Ok(Setup { agent, store, session, manager, workspace: workspace_path, model, resumed })
}
