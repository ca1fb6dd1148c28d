//! A2A 1.0 for Dive for Rust: serve an [`Agent`](dive_agent::Agent) as an A2A endpoint
//! ([`A2aServer`]) and call remote A2A agents ([`RemoteAgent`], or [`RemoteAgentTool`] as a
//! tool of another agent).
//!
//! The wire types in [`types`] are our own serde types, written and tested against the
//! official Python SDK (`a2a-sdk` 1.3.0): A2A 1.0 over the JSON-RPC and HTTP+JSON bindings (`SendMessage`,
//! `SendStreamingMessage` over SSE, `GetTask`, `ListTasks`, `CancelTask`, `SubscribeToTask`,
//! header `A2A-Version: 1.0`, the card at `/.well-known/agent-card.json`).
//!
//! ```
//! # tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap().block_on(async {
//! use std::sync::Arc;
//! use dive_a2a::{A2aServer, RemoteAgent};
//!
//! let agent = dive_agent::Agent::builder().name("helper").model(dive_test::TestModel::new()).build()?;
//! let store = Arc::new(dive_session::MemoryStore::new());
//! let server = A2aServer::builder(Arc::new(agent)).store(store).build()?.bind("127.0.0.1:0").await?;
//!
//! let remote = RemoteAgent::from_url(&server.url()).await?;
//! let result = remote.send_text("hello").await?;
//! assert!(result.is_completed());
//! assert_eq!(result.text, "Test response to: hello");
//! assert_eq!(remote.get_task(&result.id).await?.status.state, dive_a2a::types::TaskState::Completed);
//! server.shutdown().await;
//! # Ok::<_, Box<dyn std::error::Error>>(())
//! # }).unwrap();
//! ```
//!
//! Invariant: a task's record lives in the session store the server was given, never only in
//! memory: a server restarted on the same store loses no finished task.
//!
//! | Item | What it is |
//! |---|---|
//! | [`A2aServer`], [`A2aServerBuilder`], [`RunningServer`] | an agent served over A2A |
//! | [`Auth`] | bearer token, API key or a check of your own |
//! | [`RemoteAgent`], [`TaskResult`] | a client of a remote agent |
//! | [`RemoteAgentTool`] | a remote agent as a dive tool |
//! | [`types`] | the A2A 1.0 wire types |
//! | [`ServerError`], [`ClientError`] | typed errors |

// Library code reads no environment variables outside `from_env`-style constructors.
#![cfg_attr(not(test), deny(clippy::disallowed_methods))]

mod client;
mod error;
mod server;
mod store;
mod tool;
pub mod types;

/// The axum this crate serves on, re-exported because [`A2aServer::router`] returns its
/// `Router`: mount it in your app with this copy, never a second one.
pub use axum;
pub use client::{RemoteAgent, TaskResult};
pub use error::{ClientError, ServerError};
pub use server::{
    A2aServer, A2aServerBuilder, ANSWER_ARTIFACT, Auth, AuthCheck, DEFAULT_BODY_LIMIT, RunValues,
    RunningServer, SUSPENSION_KEY,
};
pub use tool::{RemoteAgentTool, TraceparentSource};
