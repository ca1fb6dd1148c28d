//! Memory for Dive for Rust agents: short-term read windows, long-term memory, vector stores,
//! embedders and an agent-edited memory directory.
//!
//! - **Short-term**: read policies over a stored history — [`NoWindow`], [`MessageWindow`]
//!   (a message count), [`TokenWindow`] (a token budget: [`HeuristicEstimator`] with image
//!   costing, `TiktokenEstimator` with feature `tiktoken`, or any [`TokenEstimator`]) — that
//!   cut only between tool groups ([`groups`]): a window never separates a tool call from its
//!   result, and never starts on a tool result. They filter when history is read, never when
//!   it is written ([`ShortTerm`]).
//! - **Long-term**: [`LongTerm`] chunks ([`Chunker`]: [`WholeText`], [`FixedSize`],
//!   [`Sentences`], [`Recursive`]), embeds and stores messages with their roles and every
//!   block, and recalls them by similarity with a threshold, a token budget and a metadata
//!   filter ([`Retrieval`]), optionally fused with keywords by reciprocal rank fusion and
//!   decayed by age ([`Hybrid`]).
//! - **In an agent**: [`MemoryExtension`] windows the history and puts recalled memories in
//!   a model-only `memory` reminder before the new input (the cached prefix is untouched, the
//!   system prompt never rewritten), and after the run stores what the write policy keeps
//!   (dive-core's `StoreAlways`, `MinLength`, a closure, or an [`LlmJudge`]).
//! - **Stores**: [`InMemoryVectorStore`] (cosine scan, BM25) and [`SqliteVectorStore`]
//!   (feature `sqlite`: f32 blobs, brute-force cosine, FTS5); `dive_test::vector_store`
//!   is the conformance suite for your own.
//! - **Embedders** (feature `embedders`): [`embed`] — OpenAI, Gemini, Ollama and Voyage over
//!   dive-provider's client, retry policy and typed errors, with batching.
//! - **Agent-edited memory**: [`MemoryTool`], Anthropic's `memory` tool shape over a
//!   confined directory, usable with any provider.
//!
//! **Invariant:** memory never rewrites the system prompt or a stored message, and a memory
//! failure never fails a run.
//!
//! ```
//! use dive_agent::{Agent, RunOptions};
//! use dive_core::{MinLength, ModelResponse};
//! use dive_memory::{InMemoryVectorStore, LongTerm, MemoryExtension, TokenWindow};
//! use dive_test::{HashEmbedder, ScriptedModel};
//!
//! # #[tokio::main(flavor = "current_thread")] async fn main() {
//! let memory = MemoryExtension::new()
//!     .with_window(TokenWindow::new(8_000))
//!     .with_long_term(LongTerm::new(HashEmbedder::new(256), InMemoryVectorStore::new()))
//!     .with_write_policy(MinLength(10));
//! let model = ScriptedModel::new([ModelResponse::text("Noted: Miso."), ModelResponse::text("Miso.")]);
//! let agent = Agent::builder().model(model.clone()).extension(memory).build().unwrap();
//! agent.run(RunOptions::text("My cat is called Miso.")).await.unwrap();
//! agent.run(RunOptions::text("What is my cat called?")).await.unwrap();
//! // The second request carried the first exchange as a memory reminder.
//! let sent = &model.requests().all()[1];
//! assert!(format!("{:?}", sent.messages).contains("My cat is called Miso."));
//! # }
//! ```

// Library code reads no environment variables outside `from_env`-style constructors.
#![cfg_attr(not(test), deny(clippy::disallowed_methods))]
#![deny(missing_docs)]

mod bm25;
mod chunk;
#[cfg(feature = "embedders")]
pub mod embed;
mod extension;
mod group;
mod hooks;
mod hybrid;
mod image_size;
mod long_term;
mod short_term;
mod similarity;
mod store;
mod text;
#[cfg(feature = "tiktoken")]
mod tiktoken;
mod tokens;
mod tool;
mod window;
mod write;

pub use chunk::{Chunker, FixedSize, Recursive, Sentences, WholeText};
pub use extension::{MEMORY_REMINDER, MemoryExtension};
pub use group::{groups, is_tool_result};
pub use hooks::{MemoryEvent, MemoryHooks};
pub use hybrid::{CREATED_AT_KEY, Hybrid};
pub use long_term::{CHUNK_KEY, LongTerm, MESSAGE_KEY, ROLE_KEY, Retrieval};
pub use short_term::ShortTerm;
pub use similarity::{cosine, dot, norm};
pub use store::InMemoryVectorStore;
#[cfg(feature = "sqlite")]
pub use store::SqliteVectorStore;
pub use text::embeddable_text;
#[cfg(feature = "tiktoken")]
pub use tiktoken::TiktokenEstimator;
pub use tokens::{HeuristicEstimator, TokenEstimator, UNKNOWN_IMAGE_TOKENS};
pub use tool::{MEMORY_ROOT, MemoryTool, MemoryToolError};
pub use window::{MessageWindow, NoWindow, ReadPolicy, TokenWindow};
pub use write::{AsyncWritePolicy, JudgeError, LlmJudge};
