//! MCP (the Model Context Protocol) for Dive, on the official Rust SDK [`rmcp`] (one pinned
//! version, re-exported as [`dive_mcp::rmcp`](rmcp)).
//!
//! - **Client**: [`McpClient::connect`] reaches a server over stdio (a child process in its
//!   own process group, killed with its whole tree when the client is dropped or start-up
//!   times out) or streamable HTTP, offering the 2026-07-28 protocol and falling back to
//!   2025-11-25. Its tools are a dive [`Toolset`](dive_core::Toolset) named
//!   `mcp__<server>__<tool>`: schemas passed through untouched, annotations mapped, text,
//!   image, audio, resource and structured results mapped to content blocks, `isError` as an
//!   error result, the list refreshed when the server says it changed. A server that needs
//!   input first (an elicitation, `input_required`) suspends the turn; the answer finishes
//!   the call ([`McpClient::answer_input`]). Resources and prompts are read with
//!   [`McpClient::read_resource`] and [`McpClient::get_prompt`].
//! - **Configuration**: [`McpConfig`] reads Claude Code's `mcpServers` JSON (`.mcp.json`,
//!   settings files, a path or inline JSON) with `${VAR}` / `${VAR:-default}` expanded from
//!   [`Vars`] passed in explicitly.
//! - **OAuth 2.1** for HTTP servers ([`oauth`]): discovery, dynamic registration, PKCE,
//!   tokens in owner-only files, refresh, and a suspendable flow the application completes
//!   out of band.
//! - **Many servers**: [`McpManager`] starts them in parallel, each within its time limit,
//!   reports a status per server, skips the ones that fail and reconnects with backoff.
//! - **Server**: [`McpServer`] serves any dive tools over stdio or streamable HTTP.
//!
//! It never reads the environment except in [`Vars::from_env`], and never prints secrets:
//! header values and environment values are redacted in `Debug`.
//!
//! ```no_run
//! # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
//! use dive_mcp::{ConnectOptions, McpClient, ServerConfig, StdioConfig};
//! let server = ServerConfig::stdio("files", StdioConfig::new("npx").with_args(["-y", "@modelcontextprotocol/server-filesystem", "."]));
//! let client = McpClient::connect(&server, &ConnectOptions::default()).await?;
//! for tool in client.tools().await? {
//!     println!("{}", tool.name()); // mcp__files__read_file, …
//! }
//! # Ok(()) }
//! ```

// Library code reads no environment variables outside `from_env`-style constructors.
#![cfg_attr(not(test), deny(clippy::disallowed_methods))]

pub use rmcp;

mod client;
mod config;
mod convert;
mod elicit;
mod error;
mod expand;
mod handler;
mod manager;
pub mod oauth;
mod process;
mod server;
mod task;
mod tool;

pub use client::{CallOutcome, ConnectOptions, McpClient, ProtocolChoice, TraceparentSource};
pub use config::{HttpConfig, McpConfig, ServerConfig, StdioConfig, ToolFilter, Transport};
pub use elicit::{Elicitation, ElicitationHandler};
pub use error::{ConfigError, ConfigErrorKind, ConfigSource, McpError};
pub use expand::{ExpandError, Vars};
pub use manager::{ManagerOptions, McpManager, ServerState, ServerStatus};
pub use server::{HttpServerHandle, McpServer};
pub use task::McpTask;
pub use tool::{McpTool, qualified_tool_name, split_qualified_name};
