//! Session stores for Dive for Rust: where conversations live between invocations.
//!
//! | Store | Keeps sessions | Feature |
//! |---|---|---|
//! | [`MemoryStore`] | in process memory | always |
//! | [`FileStore`] | one JSONL file a session in a directory | always |
//! | `SqliteStore` | one SQLite database (WAL, migrations, lease-row claims) | `sqlite` |
//!
//! Every store implements dive-core's [`SessionStore`](dive_core::SessionStore), and its
//! sessions implement [`Session`](dive_core::Session), [`TurnStore`](dive_core::TurnStore)
//! (revision-checked checkpoints), [`SessionClaimer`](dive_core::SessionClaimer) and
//! [`SessionHistory`](dive_core::SessionHistory) (events, compaction, title, metadata). They
//! share one set of write rules, [`SessionLog`] (from the `dive-session-log` crate, re-exported
//! here), declare their [`StoreCapabilities`](dive_core::StoreCapabilities) and pass
//! `dive-test`'s conformance suite.
//!
//! **Invariant:** a store never loses a write it reported as saved and never overwrites data
//! it could not read: corruption is a typed [`SessionError::Corrupt`](dive_core::SessionError)
//! and the stored bytes stay as they were.
//!
//! ```
//! use dive_core::{ForkOptions, Message, SessionEdit, SessionStore, Turn};
//! use dive_session::MemoryStore;
//! # futures::executor::block_on(async {
//! let store = MemoryStore::new();
//! let chat = store.open("chat").await?;
//! chat.save_turn(&Turn::completed("t1", vec![Message::user("hi"), Message::assistant("hello")])).await?;
//! let history = chat.as_history().unwrap();
//! history.edit(None, &SessionEdit::Compact { summary: vec![Message::user("we said hello")] }).await?;
//! assert_eq!(history.document().await?.messages().len(), 1); // the new window
//! assert_eq!(history.document().await?.all_messages().len(), 2); // the full transcript
//! let copy = store.fork("chat", "chat-2", &ForkOptions::default()).await?;
//! assert_eq!(copy.load().await?.history.len(), 1);
//! # Ok::<(), dive_core::SessionError>(())
//! # }).unwrap();
//! ```

// Library code reads no environment variables outside `from_env`-style constructors.
#![cfg_attr(not(test), deny(clippy::disallowed_methods))]
#![deny(missing_docs)]
#![cfg_attr(docsrs, feature(doc_cfg))]

mod claim;
mod file;
mod memory;
mod os_lock;
#[cfg(feature = "sqlite")]
#[cfg_attr(docsrs, doc(cfg(feature = "sqlite")))]
pub mod sqlite;

pub use dive_session_log::{SessionLog, page_of};
pub use file::{FileSession, FileStore};
pub use memory::{MemorySession, MemoryStore};
#[cfg(feature = "sqlite")]
#[cfg_attr(docsrs, doc(cfg(feature = "sqlite")))]
pub use sqlite::{SqliteSession, SqliteStore};
