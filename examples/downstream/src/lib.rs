//! A crate written the way a downstream author writes one: on dive-core alone (plus the
//! store write rules every store shares), it brings its own pieces to a Dive agent. CI builds
//! it, tests it and runs its example offline; `cargo tree -p downstream-example -e normal`
//! shows that no other Dive crate is needed.
//!
//! | Module | What it shows |
//! |---|---|
//! | [`provider`] | [`LineModel`]: an [`Llm`](dive_core::Llm) over a model server's own HTTP + NDJSON protocol, following the provider contract |
//! | [`store`] | [`KvStore`]: a session store keeping JSON documents in a key-value backend, through `SessionLog` |
//! | [`extension`] | [`TextTools`]: an [`Extension`](dive_core::Extension) with a typed tool, a hook and a rule |
//! | [`hook`] | [`ToolBudget`]: a hook written as a struct, whose state the application reads after the run |

// Library code reads no environment variables outside `from_env`-style constructors.
#![cfg_attr(not(test), deny(clippy::disallowed_methods))]
// `LlmError` is what the `Llm` trait returns, by value; a provider's helpers return it too.
#![allow(clippy::result_large_err)]

pub mod extension;
pub mod hook;
pub mod provider;
pub mod store;

pub use extension::{TextTools, WordCount, WordCountInput};
pub use hook::ToolBudget;
pub use provider::LineModel;
pub use store::{KvSession, KvStore};
