//! Command-line arguments.

use std::path::PathBuf;

use clap::{Parser, Subcommand, ValueEnum};

/// dive — a terminal agent that reads, edits and runs code in your workspace.
///
/// Run `dive` for an interactive session, or `dive -p "prompt"` to print one answer.
/// Without an API key it runs offline on a test model and says so.
#[derive(Debug, Parser)]
#[command(name = "dive", version, after_help = AFTER_HELP)]
pub struct Args {
    /// Print mode: answer this prompt and exit (`-` or no value with piped input: read stdin).
    #[arg(short = 'p', long = "print", value_name = "PROMPT", num_args = 0..=1, default_missing_value = "-")]
    pub print: Option<String>,

    /// Output format of print mode.
    #[arg(long, value_enum, default_value_t = OutputFormat::Text)]
    pub output_format: OutputFormat,

    /// Model as vendor/model (e.g. anthropic/claude-sonnet-5-5) or a bare model name.
    #[arg(short = 'm', long, env = "DIVE_MODEL")]
    pub model: Option<String>,

    /// System prompt (replaces the default).
    #[arg(long)]
    pub system_prompt: Option<String>,

    /// Maximum output tokens a model call.
    #[arg(long, env = "DIVE_MAX_TOKENS")]
    pub max_tokens: Option<u32>,

    /// Sampling temperature.
    #[arg(long, env = "DIVE_TEMPERATURE")]
    pub temperature: Option<f64>,

    /// Get each answer whole instead of streamed (e.g. behind a proxy that breaks streams).
    /// Also `"stream": false` in settings.json.
    #[arg(long)]
    pub no_stream: bool,

    /// Seconds a streamed answer may stay silent before dive gives up on it (default 120;
    /// also `"streamIdleTimeout"` in settings.json).
    #[arg(long, value_name = "SECS", env = "DIVE_STREAM_IDLE_TIMEOUT", value_parser = parse_seconds)]
    pub stream_idle_timeout: Option<std::time::Duration>,

    /// Show the model's thinking as it streams.
    #[arg(long, env = "DIVE_SHOW_THINKING")]
    pub show_thinking: bool,

    /// The directory the tools may read and change (default: the current directory).
    #[arg(short = 'w', long, global = true)]
    pub workspace: Option<PathBuf>,

    /// Where sessions are stored (default: the user's data directory).
    #[arg(long, env = "DIVE_SESSION_DIR", global = true)]
    pub session_dir: Option<PathBuf>,

    /// Resume a saved session (a picker lists recent sessions when no id is given).
    #[arg(short = 'r', long, value_name = "ID", num_args = 0..=1, default_missing_value = "")]
    pub resume: Option<String>,

    /// Continue the most recent session.
    #[arg(short = 'c', long = "continue")]
    pub continue_last: bool,

    /// With --resume or --continue: continue in a new session copied from that one (the
    /// original stays as it was; use it when another dive process holds the session).
    #[arg(long)]
    pub fork_session: bool,

    /// How tool calls that no rule decides are handled.
    #[arg(long, value_enum, global = true)]
    pub permission_mode: Option<PermissionModeArg>,

    /// Run every tool call without asking (deny rules still apply). Use in sandboxes only.
    #[arg(long, global = true)]
    pub dangerously_skip_permissions: bool,

    /// MCP servers to start, in Claude Code's `mcpServers` JSON shape: a file, or the JSON
    /// itself (repeatable; the project's `.mcp.json` is read too in a trusted workspace).
    #[arg(long, value_name = "FILE|JSON")]
    pub mcp_config: Vec<String>,

    /// A remote A2A agent the model may delegate to with the `Agent` tool, as NAME=URL
    /// (repeatable; its card's description tells the model what it is for).
    #[arg(long, value_name = "NAME=URL")]
    pub a2a_agent: Vec<String>,

    /// Subcommands.
    #[command(subcommand)]
    pub command: Option<Command>,
}

const AFTER_HELP: &str = "\
Examples:
  dive                                  interactive session in the current directory
  dive -p \"summarise README.md\"         one answer, printed
  git diff | dive -p \"review this\"      the prompt from stdin
  dive -m openai/gpt-5.5 -w ~/project   another model and workspace
  dive --continue                       pick up the most recent session
  dive sessions list                    saved sessions

Keys come from the environment or a .env file: ANTHROPIC_API_KEY, OPENAI_API_KEY, GEMINI_API_KEY, …
(and ANTHROPIC_BASE_URL, OPENAI_BASE_URL, … for other endpoints; a base URL in a project .env is
used only when that file also sets the provider's key). `dive models` lists the providers this
build includes; /status shows where each setting came from.";

/// Print-mode output formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum OutputFormat {
    /// The answer's text.
    Text,
    /// One JSON object: the whole response, its `session_id`, and an `error` object on failure.
    Json,
    /// One JSON object a line for every item as it happens, then a result line (with
    /// `session_id`, and `error` on failure).
    StreamJson,
}

/// Permission modes (Claude Code's spellings `acceptEdits`, `bypassPermissions` and
/// `dontAsk` work too).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum PermissionModeArg {
    /// Ask for anything that is not read-only or allowed by a rule.
    Default,
    /// Read-only tools only.
    Plan,
    /// File edits are allowed; other changes ask.
    #[value(alias = "acceptEdits")]
    AcceptEdits,
    /// Everything is allowed except deny rules.
    #[value(alias = "bypassPermissions")]
    BypassPermissions,
    /// Never ask: what would ask is denied.
    #[value(alias = "dontAsk")]
    DontAsk,
}

/// Parses a positive number of seconds.
fn parse_seconds(text: &str) -> Result<std::time::Duration, String> {
    match text.trim().parse::<f64>() {
        Ok(s) if s > 0.0 && s.is_finite() => Ok(std::time::Duration::from_secs_f64(s)),
        _ => Err(format!("{text:?} is not a number of seconds above 0")),
    }
}

/// Subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// List the providers and models this build includes.
    Models,
    /// Manage saved sessions.
    #[command(subcommand)]
    Sessions(SessionsCommand),
    /// MCP: serve the workspace tools to another MCP client, or log in to an MCP server.
    #[command(subcommand)]
    Mcp(McpCommand),
    /// A2A: serve this agent to other agents, or call a remote one.
    #[command(subcommand)]
    A2a(A2aCommand),
    /// Trust the workspace, so its own skills, commands (`.claude/commands`) and agent files
    /// load; interactive mode asks once when it finds them.
    Trust {
        /// Take the trust back instead.
        #[arg(long)]
        revoke: bool,
    },
}

/// `dive sessions …`
#[derive(Debug, Subcommand)]
pub enum SessionsCommand {
    /// Recent sessions, newest first.
    List {
        /// How many to show.
        #[arg(short = 'n', long, default_value_t = 20)]
        limit: usize,
    },
    /// A session's conversation.
    Show {
        /// The session id.
        id: String,
    },
    /// A session as a JSON document (importable into any store).
    Export {
        /// The session id.
        id: String,
    },
    /// Deletes a session.
    Delete {
        /// The session id.
        id: String,
    },
}

/// `dive mcp …`
#[derive(Debug, Subcommand)]
pub enum McpCommand {
    /// Serves the workspace tools (Read, Write, Edit, Glob, Grep, Bash, …) over MCP, through the
    /// permission rules and mode: a call that would ask is refused. Stdio by default.
    Serve {
        /// Serve streamable HTTP on this address (e.g. 127.0.0.1:8765) instead of stdio.
        #[arg(long, value_name = "ADDR")]
        http: Option<std::net::SocketAddr>,
    },
    /// Authorizes an HTTP MCP server that asks for OAuth: prints the URL to open, waits for
    /// the browser to come back to a loopback address and keeps the tokens (owner-only files
    /// in the session directory, refreshed when they expire).
    Login {
        /// The server's name in the MCP configuration.
        server: String,
        /// How long to wait for the browser, in seconds.
        #[arg(long, default_value_t = 300)]
        timeout: u64,
    },
    /// Forgets the tokens kept for an MCP server.
    Logout {
        /// The server's name in the MCP configuration.
        server: String,
    },
}

/// `dive a2a …` (`DIVE_A2A_TOKEN`, when set, is the bearer token served and sent).
#[derive(Debug, Subcommand)]
pub enum A2aCommand {
    /// Serves the configured agent (model, tools, permission mode, skills, MCP servers) over
    /// A2A 1.0 (JSON-RPC and HTTP+JSON); tasks are kept in the session directory.
    Serve {
        /// The address to listen on.
        #[arg(long, default_value = "127.0.0.1:8080")]
        addr: String,
        /// The public URL the agent card announces (default: the bound address).
        #[arg(long)]
        url: Option<String>,
    },
    /// Sends a prompt to a remote A2A agent and prints its answer (exit 3 when it asks a
    /// question: answer with --task).
    Call {
        /// The agent's base URL (its card is read from /.well-known/agent-card.json).
        url: String,
        /// The prompt.
        prompt: String,
        /// Continue this task (answer the question it asked).
        #[arg(long)]
        task: Option<String>,
    },
}
