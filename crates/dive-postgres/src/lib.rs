//! The scale-out store of Dive for Rust: many worker machines share sessions, leases, an
//! intent-before-effect journal and a run queue in one PostgreSQL database. The embedded
//! default stays SQLite (`dive-session`); this is the path past one machine.
//!
//! | Item | What it is |
//! |---|---|
//! | [`PostgresStore`] | a `SessionStore` with every capability (turn store, claims, history, compaction, fork, import), pooled, migrated on connect |
//! | [`PostgresConfig`] | connection string, schema, pool size, TLS (feature `tls`), migrations on open or out of band ([`migrate`]) |
//! | [`Lease`] | a session lease: owner, a fencing attempt that only grows, an expiry on the database's clock |
//! | [`EffectJournal`] | intent before effect: `pending` before a tool acts, results delivered idempotently |
//! | [`RunQueue`] | runs taken with `FOR UPDATE SKIP LOCKED`, lapsed leases reaped and their turns recovered |
//!
//! **Invariant:** the database is the execution authority. A write made under a lease lands
//! only while its attempt is the current one: once another worker took the session over, no
//! write from a paused or partitioned worker lands. Sessions change only through
//! `dive-session-log`'s rules.
//!
//! ```no_run
//! # async fn demo() -> Result<(), dive_postgres::Error> {
//! use std::time::Duration;
//! use dive_core::{Message, Session, Turn};
//! use dive_postgres::{NewRun, PostgresConfig, PostgresStore};
//!
//! let store = PostgresStore::connect(&PostgresConfig::new("host=127.0.0.1 user=postgres dbname=test")?).await?;
//! let queue = store.queue();
//! queue.submit(&NewRun::new("run-1", "chat-1", serde_json::json!({"prompt": "hi"}))).await?;
//! // On any worker:
//! if let Some(run) = queue.claim("worker-a", Duration::from_secs(30)).await? {
//!     let session = store.open_leased(run.lease.clone())?; // every write fenced by the lease
//!     session.save_turn(&Turn::completed("t1", vec![Message::user("hi")])).await?;
//!     queue.complete(&run, &serde_json::json!({"answer": "hello"})).await?;
//! }
//! # Ok(()) }
//! ```
//!
//! Its futures need a Tokio runtime. `docs/guides/scale-out.md` has the deployment picture.

// Library code reads no environment variables outside `from_env`-style constructors.
#![cfg_attr(not(test), deny(clippy::disallowed_methods))]
#![deny(missing_docs)]
#![cfg_attr(docsrs, feature(doc_cfg))]

mod config;
mod effects;
mod error;
mod lease;
mod queue;
mod rows;
mod schema;
mod session;
mod store;

pub use config::{PostgresConfig, URL_VAR};
pub use effects::{Delivery, EffectJournal, Intent};
pub use error::{Cause, Error, Result};
pub use lease::Lease;
pub use queue::{ClaimedRun, NewRun, QueueCounts, RunQueue, RunRecord, RunStatus};
#[cfg(feature = "tls")]
#[cfg_attr(docsrs, doc(cfg(feature = "tls")))]
pub use rustls;
pub use schema::latest_version;
pub use session::PostgresSession;
pub use store::{PostgresStore, drop_schema, migrate};
