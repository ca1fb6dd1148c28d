//! The testing kit for Dive for Rust, and for crates built on it.
//!
//! Use it as a dev-dependency to test agents, tools, hooks or your own provider-facing code
//! without a network:
//!
//! - [`ScriptedModel`] plays a script of responses (or raw event streams, or errors) and
//!   records every request;
//! - [`TestModel`] needs no script: it calls each available tool once with arguments
//!   generated from the tool's schema, then answers with a text summarising the results;
//! - [`FunctionModel`] lets a closure decide each response;
//! - [`text_in_deltas`] (and [`ScriptStep::text_in_deltas`]) streams a response's text in
//!   several deltas, as real providers do;
//! - [`RecordedRequests`] has assertion helpers over what a model was sent;
//! - [`conformance::session_store_conformance`] checks a session store against the rules
//!   every store must follow;
//! - [`vector_store::vector_store_conformance`] does the same for a vector store, and
//!   [`HashEmbedder`] is a deterministic offline embedder (similar texts score closer);
//! - `provider::provider_conformance` (feature `provider`) checks an HTTP provider against
//!   the rules every provider must follow (retries, cuts, interruptions, error events,
//!   usage, cancellation, secrets) on a real misbehaving local server;
//! - [`child::rerun_with_env`] runs a test again in a child process without (say) the
//!   developer's real API keys;
//! - [`interop::python`] finds the Python interpreter with the pinned official SDKs that
//!   judge the providers' wire formats.
//!
//! ```
//! use dive_core::{Llm, Message, ModelRequest, ModelResponse};
//! use dive_test::ScriptedModel;
//!
//! let model = ScriptedModel::new([ModelResponse::text("Hello!")]);
//! let response = futures::executor::block_on(model.generate(ModelRequest::new(vec![Message::user("hi")])))
//!     .unwrap();
//! assert_eq!(response.text_content(), "Hello!");
//! model.requests().assert_count(1).assert_last_user_text("hi");
//! ```

// Library code reads no environment variables outside `from_env`-style constructors.
#![cfg_attr(not(test), deny(clippy::disallowed_methods))]
#![deny(missing_docs)]

pub mod child;
pub mod conformance;
mod deltas;
mod embedder;
mod function;
pub mod interop;
mod json_text;
pub mod otlp;
pub mod process;
#[cfg(feature = "provider")]
pub mod provider;
mod recorded;
mod schema_args;
mod scripted;
mod test_model;
mod transcript;
pub mod vector_store;

pub use deltas::text_in_deltas;
pub use embedder::{HashEmbedder, cosine};
pub use function::FunctionModel;
pub use json_text::json_string_escaping;
pub use recorded::RecordedRequests;
pub use schema_args::arguments_for_schema;
pub use scripted::{ScriptStep, ScriptedModel};
pub use test_model::TestModel;
pub use transcript::assert_transcript_kept;
