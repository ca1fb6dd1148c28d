//! Dive for Rust: build AI agents on the leading LLMs.
//!
//! This facade re-exports the vocabulary crate [`dive_core`] at its root, and each optional
//! crate as a module behind a feature of the same name:
//!
//! | Feature | Module | What it adds |
//! |---|---|---|
//! | `anthropic` | `dive::anthropic` | the Anthropic Messages API provider (enables `provider`) |
//! | `provider` | `dive::provider` | shared HTTP plumbing: client, retry policy, SSE, `ProviderError` |
//!
//! ```
//! use dive::{Message, Role};
//! let m = Message::user("Hello");
//! assert_eq!(m.role, Role::User);
//! ```
#![deny(missing_docs)]

pub use dive_core::*;

/// Shared HTTP plumbing for providers (crate `dive-provider`).
#[cfg(feature = "provider")]
pub use dive_provider as provider;

/// The Anthropic Messages API provider (crate `dive-anthropic`).
#[cfg(feature = "anthropic")]
pub use dive_anthropic as anthropic;
