//! Dive for Rust: build AI agents on the leading LLMs.
//!
//! This facade re-exports the vocabulary crate [`dive_core`] and the engine [`dive_agent`]
//! ([`Agent`], [`RunOptions`], [`ResponseStream`]…) at its root. The providers (one feature
//! each), the session stores and the toolkit join it as their crates land; `Cargo.toml` lists
//! the features available in this version.
//!
//! ```
//! use dive::{Message, Role};
//! let m = Message::user("Hello");
//! assert_eq!(m.role, Role::User);
//! ```
#![deny(missing_docs)]
#![cfg_attr(docsrs, feature(doc_cfg))]

pub use dive_agent::*;
pub use dive_core::*;

/// Session stores (feature `session`; `SqliteStore` with feature `sqlite`).
#[cfg(feature = "session")]
#[cfg_attr(docsrs, doc(cfg(feature = "session")))]
pub use dive_session as session;

/// Built-in tools (feature `toolkit`): [`dive_toolkit`].
#[cfg(feature = "toolkit")]
#[cfg_attr(docsrs, doc(cfg(feature = "toolkit")))]
pub use dive_toolkit as toolkit;

/// Permissions (feature `permission`): [`dive_permission`].
#[cfg(feature = "permission")]
#[cfg_attr(docsrs, doc(cfg(feature = "permission")))]
pub use dive_permission as permission;
