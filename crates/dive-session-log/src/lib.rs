//! The write rules every Dive for Rust session store shares, in one small crate a store —
//! ours or yours — depends on: [`SessionLog`] holds a session's document **privately** and
//! changes it only by the [`Session`](dive_core::Session) contract (open turns, refusals
//! while suspended, closed turns never re-recorded, revisions, recovery of a turn left
//! running, compaction); [`page_of`] is the listing rule.
//!
//! **Invariant:** a session changes only through these rules. A store chooses where the
//! document lives (memory, a file, a database row); it never edits events itself.
//!
//! # Writing a store
//!
//! A store keeps one log per session, calls the rule for each trait method and persists the
//! result. This one keeps them in memory, declares revision-checked checkpoints, and passes
//! `dive-test`'s conformance suite:
//!
//! ```
//! use std::collections::HashMap;
//! use std::sync::{Arc, Mutex};
//!
//! use dive_core::{
//!     BoxFuture, ListOptions, Session, SessionError, SessionPage, SessionSnapshot, SessionStore,
//!     StoreCapabilities, Turn, TurnStore, future::ready, validate_session_id,
//! };
//! use dive_session_log::{SessionLog, page_of};
//!
//! type Logs = Arc<Mutex<HashMap<String, SessionLog>>>;
//!
//! #[derive(Default)]
//! struct MyStore(Logs);
//! struct MySession { id: String, logs: Logs }
//!
//! impl MySession {
//!     /// Runs one rule on this session's log (a real store would also persist here).
//!     fn with<T>(&self, rule: impl FnOnce(&mut SessionLog) -> T) -> T {
//!         let mut logs = self.logs.lock().unwrap_or_else(|e| e.into_inner());
//!         rule(logs.entry(self.id.clone()).or_insert_with(|| SessionLog::new(self.id.clone())))
//!     }
//! }
//!
//! impl Session for MySession {
//!     fn id(&self) -> &str { &self.id }
//!     fn load(&self) -> BoxFuture<'_, Result<SessionSnapshot, SessionError>> {
//!         ready(Ok(self.with(|log| log.load().0)))
//!     }
//!     fn save_turn<'a>(&'a self, turn: &'a Turn) -> BoxFuture<'a, Result<u64, SessionError>> {
//!         ready(self.with(|log| log.record(turn)))
//!     }
//!     fn as_turn_store(&self) -> Option<&dyn TurnStore> { Some(self) }
//! }
//!
//! impl TurnStore for MySession {
//!     fn checkpoint_turn<'a>(&'a self, expected: u64, turn: &'a Turn) -> BoxFuture<'a, Result<u64, SessionError>> {
//!         ready(self.with(|log| log.checkpoint(expected, turn)))
//!     }
//! }
//!
//! impl SessionStore for MyStore {
//!     fn capabilities(&self) -> StoreCapabilities { StoreCapabilities::none().with_turn_store() }
//!     fn open<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Arc<dyn Session>, SessionError>> {
//!         ready(validate_session_id(id)
//!             .map(|()| Arc::new(MySession { id: id.into(), logs: Arc::clone(&self.0) }) as Arc<dyn Session>))
//!     }
//!     fn list<'a>(&'a self, options: &'a ListOptions) -> BoxFuture<'a, Result<SessionPage, SessionError>> {
//!         let logs = self.0.lock().unwrap_or_else(|e| e.into_inner());
//!         ready(Ok(page_of(logs.values().map(|log| log.info().clone()), options)))
//!     }
//!     fn delete<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<(), SessionError>> {
//!         self.0.lock().unwrap_or_else(|e| e.into_inner()).remove(id);
//!         ready(Ok(()))
//!     }
//! }
//!
//! let report = futures::executor::block_on(dive_test::conformance::session_store_conformance(MyStore::default));
//! assert!(report.passed.contains(&"revisions") && report.passed.contains(&"recovery"));
//! ```

// Library code reads no environment variables outside `from_env`-style constructors.
#![cfg_attr(not(test), deny(clippy::disallowed_methods))]
#![deny(missing_docs)]

mod log;

pub use log::{SessionLog, page_of};
