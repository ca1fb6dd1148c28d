//! Building the agent from the arguments: workspace, tools, permissions, session store and
//! session, model and settings.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use dive::permission::{PermissionDialog, PermissionHook, PermissionManager, PermissionMode};
use dive::session::SqliteStore;
use dive::toolkit::{Toolkit, Workspace};
use dive::{Agent, CompactionPolicy, Hooks, ListOptions, Llm, ModelSettings, Session, SessionStore, new_id};

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
    /// Signals, the session claim, unsaved turns (see `guard.rs`).
    pub guard: crate::guard::Guard,
    /// Retries and timeouts for models built later (`/model`).
    pub transport: dive::ModelOptions,
    /// Skills, subagents and background work.
    pub capabilities: crate::capabilities::Capabilities,
    /// The MCP servers, when any are configured.
    pub mcp: Option<dive::mcp::McpManager>,
    /// Whether the workspace is trusted (its own settings, skills, agents and servers apply).
    pub trusted: bool,
    /// OpenTelemetry export, when the `OTEL_EXPORTER_OTLP_*` variables ask for it.
    pub otel: Option<dive::otel::otlp::OtelGuard>,
}

/// The terminal in interactive mode: questions are asked there and retries shown around the
/// spinner.
pub struct Terminal {
    pub input: crate::input::Input,
    pub spinner: crate::render::Spinner,
    /// The running turn (Ctrl-C at a question cancels it).
    pub turn: crate::interrupt::TurnState,
}

/// The workspace root: `--workspace`, else the current directory.
pub fn workspace_root(args: &Args) -> Result<PathBuf, String> {
    let root = match &args.workspace {
        Some(w) => w.clone(),
        None => std::env::current_dir().map_err(|e| format!("no current directory: {e}"))?,
    };
    Workspace::new(&root)
        .map(|w| w.root().to_path_buf())
        .map_err(|e| format!("bad workspace {}: {e}", root.display()))
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
    SqliteStore::open(&path).map(Arc::new).map_err(|e| crate::save::open_error(&path, &e))
}

/// How the session was chosen.
pub enum SessionChoice {
    New,
    Id(String),
    MostRecent,
}

/// Picks the session id; `--continue` takes the most recent session of `workspace` (the most
/// recent of any workspace when it has none).
pub async fn session_id(
    store: &SqliteStore,
    choice: SessionChoice,
    workspace: &Path,
) -> Result<(String, bool), String> {
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
            match crate::workspace_sessions::recent(store, workspace, 1).await?.first() {
                Some(info) => {
                    let place = crate::workspace_sessions::where_label(info, workspace);
                    if place != "here" {
                        eprintln!("no saved session in this workspace; continuing {} ({place})", info.id);
                    }
                    Ok((info.id.clone(), true))
                }
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

/// The permission manager: the settings files' rules and mode, the CLI's own rules, and the
/// mode the arguments ask for.
pub fn permissions(
    args: &Args,
    mut settings: dive::permission::Settings,
) -> Result<Arc<PermissionManager>, String> {
    settings.permissions.ask.push(crate::extra_tools::WEB_FETCH_ASK_RULE.into());
    settings.permissions.allow.extend(crate::capabilities::ALLOWED_WITHOUT_ASKING.map(String::from));
    let config = settings.permission_config().map_err(|e| e.to_string())?;
    let mode = permission_mode(args, settings.permissions.default_mode.unwrap_or_default());
    Ok(Arc::new(PermissionManager::new(config.with_mode(mode).with_home_from_env())))
}

/// The tools `dive mcp serve` offers, and the permission rules they are served under.
pub struct Served {
    pub tools: Vec<Arc<dyn dive::Tool>>,
    pub permissions: Arc<PermissionManager>,
}

/// `dive mcp serve`: the workspace tools and their permission rules.
pub fn served_tools(args: &Args) -> Result<Served, String> {
    let root = workspace_root(args)?;
    let workspace = Workspace::new(&root).map_err(|e| format!("bad workspace {}: {e}", root.display()))?;
    let trusted = crate::trust::for_workspace(&session_dir(args)?, workspace.root());
    let cli = crate::cli_settings::load_from_env(workspace.root(), trusted)?;
    for warning in &cli.warnings {
        eprintln!("dive: warning: {warning}");
    }
    Ok(Served { tools: Toolkit::new(workspace).tools(), permissions: permissions(args, cli.settings)? })
}

/// The MCP servers this workspace would start (see [`crate::mcp::config`]), for `dive mcp
/// login` and `logout`; empty when there are none.
pub fn mcp_config(args: &Args) -> Result<dive::mcp::McpConfig, String> {
    let root = workspace_root(args)?;
    let trusted = crate::trust::for_workspace(&session_dir(args)?, &root);
    let cli = crate::cli_settings::load_from_env(&root, trusted)?;
    Ok(crate::mcp::config(&root, trusted, &cli.settings.files, &args.mcp_config)?.unwrap_or_default())
}

/// Exports what is left of the traces and metrics and stops the exporters (off the async
/// threads: shutting down blocks up to the export timeout); an export failure is a warning.
pub async fn flush_otel(otel: Option<dive::otel::otlp::OtelGuard>) {
    let Some(otel) = otel else { return };
    if let Ok(Err(e)) = tokio::task::spawn_blocking(move || otel.shutdown()).await {
        eprintln!("dive: warning: exporting the last traces failed: {e}");
    }
}

/// Builds the agent for `session_id`.
pub async fn build(
    args: &Args,
    store: Arc<SqliteStore>,
    session_id: &str,
    resumed: bool,
    dialog: Arc<dyn PermissionDialog>,
    terminal: Option<Terminal>,
) -> Result<Setup, String> {
    let root = workspace_root(args)?;
    let mut workspace =
        Workspace::new(&root).map_err(|e| format!("bad workspace {}: {e}", root.display()))?;
    let workspace_path = workspace.root().to_path_buf();
    let trusted = crate::trust::for_workspace(&session_dir(args)?, &workspace_path);
    let skills = crate::capabilities::Capabilities::discover_skills(&workspace_path, trusted);
    // A skill's bundled files stay readable wherever the skill lives.
    for dir in skills.iter().filter_map(|s| s.dir()) {
        if !dir.starts_with(&workspace_path) {
            workspace = workspace.clone().with_read_only_root(dir).unwrap_or(workspace);
        }
    }
    let cli = crate::cli_settings::load_from_env(&workspace_path, trusted)?;
    for warning in &cli.warnings {
        eprintln!("dive: warning: {warning}");
    }
    let streaming = !args.no_stream && cli.stream != Some(false);
    let notice: crate::transport::Notice = match &terminal {
        Some(t) => {
            let spinner = t.spinner.clone();
            Arc::new(move |line: &str| {
                spinner.pause();
                eprintln!("({line})");
                spinner.busy("thinking…");
            })
        }
        None => Arc::new(|line: &str| eprintln!("dive: {line}")),
    };
    let transport =
        crate::transport::options(args.stream_idle_timeout.or(cli.stream_idle), streaming, notice);
    let model = model::choose(args.model.as_deref().or(cli.model.as_deref()), &transport)?;
    let mut toolkit = if model.offline { Toolkit::read_only(workspace) } else { Toolkit::new(workspace) };
    // An MCP server's request for input is asked on the terminal, when there is one.
    let elicitation = terminal.as_ref().map(|t| {
        crate::elicit_form::handler(crate::extra_tools::terminal_dialog(
            t.input.clone(),
            t.spinner.clone(),
            t.turn.clone(),
        ))
    });
    if !model.offline {
        for tool in crate::extra_tools::tools(terminal.map(|t| (t.input, t.spinner, t.turn))) {
            toolkit = toolkit.with_tool(tool);
        }
    }
    let settings_files = cli.settings.files.clone();
    let manager = permissions(args, cli.settings)?;
    let hook = PermissionHook::new(Arc::clone(&manager)).with_dialog(dialog);
    let otel = dive::otel::otlp::init_from_env()
        .map_err(|e| format!("cannot start OpenTelemetry export from the OTEL_* variables: {e}"))?;
    let tracer = otel.as_ref().map(dive::otel::otlp::OtelGuard::tracer);
    let externals = if model.offline || args.a2a_agent.is_empty() {
        Vec::new()
    } else {
        crate::a2a::remote_subagents(&args.a2a_agent, crate::a2a::token_from_env()).await?
    };
    let parts = (!model.offline).then(|| crate::capabilities::Parts {
        model: Arc::clone(&model.llm),
        parent_tools: toolkit.tools().into_iter().filter(|t| t.name() != "AskUserQuestion").collect(),
        hooks: Hooks::new().on_pre_tool_use(hook.clone()),
        tracer: tracer.clone(),
        externals,
    });
    let capabilities = crate::capabilities::Capabilities::build(&workspace_path, trusted, skills, parts);
    let session = store.open(session_id).await.map_err(|e| e.to_string())?;
    let mut settings_model = ModelSettings::new();
    if let Some(max) = args.max_tokens {
        settings_model = settings_model.max_tokens(max);
    }
    if let Some(t) = args.temperature {
        settings_model = settings_model.temperature(t);
    }
    if !streaming {
        settings_model = settings_model.stream(false);
    }
    let system = args.system_prompt.clone().unwrap_or_else(|| default_system_prompt(&workspace_path));
    let mut builder = Agent::builder()
        .name("dive")
        .system_prompt(system)
        .model(Arc::clone(&model.llm))
        .tools(toolkit.tools())
        .hooks(Hooks::new().on_pre_tool_use(hook))
        .model_settings(settings_model)
        .compaction(auto_compaction(Arc::clone(&model.llm)))
        .extension(capabilities.skills.clone());
    if let Some(orchestration) = &capabilities.orchestration {
        builder = builder.extension(orchestration.clone());
    }
    let mcp = match crate::mcp::config(&workspace_path, trusted, &settings_files, &args.mcp_config)? {
        Some(config) => {
            Some(crate::mcp::start(&config, otel.is_some(), &session_dir(args)?, elicitation).await)
        }
        None => None,
    };
    if let Some(manager) = &mcp {
        builder = builder.toolset(manager.clone());
    }
    if let Some(tracer) = tracer {
        builder = builder.tracer(tracer);
    }
    let agent = builder.build().map_err(|e| e.to_string())?;
    let guard = crate::guard::Guard::new(session_dir(args)?);
    Ok(Setup {
        agent,
        store,
        session,
        manager,
        workspace: workspace_path,
        model,
        resumed,
        guard,
        transport,
        capabilities,
        mcp,
        trusted,
        otel,
    })
}

/// The compaction the agent applies by itself: the provider's own compaction (a summary by the
/// session's model where it has none) when the context passes 80% of the model's window (or
/// of a 200k-token window when the model's is not known), and on a context overflow; loaded
/// skills survive word for word.
fn auto_compaction(llm: Arc<dyn Llm>) -> CompactionPolicy {
    CompactionPolicy::new(dive::Auto::shared(llm))
        .context_limit(AUTO_CONTEXT_LIMIT)
        .keep(dive::skill::carry_over)
}

/// The window assumed when the model does not report one.
const AUTO_CONTEXT_LIMIT: u64 = 200_000;
