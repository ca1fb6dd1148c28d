//! Dive for Rust: build AI agents on the leading LLMs.
//!
//! This facade re-exports the vocabulary crate [`dive_core`] and the engine [`dive_agent`]
//! ([`Agent`], [`RunOptions`], [`ResponseStream`]…) at its root, and each optional crate as a
//! module behind a feature:
//!
//! | Feature | Module | What it adds |
//! |---|---|---|
//! | `anthropic` | `dive::anthropic` | the Anthropic Messages API provider (enables `provider`) |
//! | `google` | `dive::google` | the Google Gemini API provider (enables `provider`) |
//! | `provider` | `dive::provider` | shared HTTP plumbing: client, retry policy, SSE, `ProviderError` |
//! | `session`, `sqlite` | `dive::session` | session stores: memory, JSONL files, SQLite |
//! | `toolkit` | `dive::toolkit` | built-in tools confined to a workspace |
//! | `permission` | `dive::permission` | permission modes, rules, dialogs, the permission hook |
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

mod registry;
pub use registry::{ModelError, Vendor, catalog, model, resolve_model, vendors};

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

/// Shared HTTP plumbing for providers (crate `dive-provider`).
#[cfg(feature = "provider")]
#[cfg_attr(docsrs, doc(cfg(feature = "provider")))]
pub use dive_provider as provider;

/// The Anthropic Messages API provider (crate `dive-anthropic`).
#[cfg(feature = "anthropic")]
#[cfg_attr(docsrs, doc(cfg(feature = "anthropic")))]
pub use dive_anthropic as anthropic;

/// The Google Gemini API provider (crate `dive-google`).
#[cfg(feature = "google")]
#[cfg_attr(docsrs, doc(cfg(feature = "google")))]
pub use dive_google as google;
