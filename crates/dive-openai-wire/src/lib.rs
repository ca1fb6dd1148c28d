//! The OpenAI wire formats for Dive for Rust: the Responses API ([`responses`]) and Chat
//! Completions ([`chat`]) — encoders, decoders, stream mappers, the strict-schema sanitiser
//! ([`strict_schema`]) — and what a vendor speaking them declares: a [`Profile`] (name,
//! endpoint, key variables, default model, catalog) and a [`Dialect`] (the small wire
//! differences). [`Wire`] is both formats as a `dive_provider::WireFormat`, so every vendor's
//! provider is `dive_provider::HttpProvider<Wire<Chat, TheVendor>>`.
//!
//! OpenAI itself (`dive-openai`) and every OpenAI-compatible vendor crate (Mistral,
//! OpenRouter, Grok, DeepInfra, Groq, Together, …) are profiles over this crate; none depends
//! on another vendor's crate. [`compatible`] builds a provider for any OpenAI-compatible
//! endpoint with a base URL and key from the user.
//!
//! **Invariant:** the request sent is derived from the [`ModelRequest`](dive_core::ModelRequest)
//! alone; the caller's history is never modified (unanswered tool calls are answered and
//! reminders rendered on a copy), and the API key appears only in the `Authorization` header.
//! This crate holds no vendor's facts: key variables, endpoints and catalogs live in the vendor
//! crates.
//!
//! ```
//! use dive_core::{Message, ModelRequest};
//! use dive_openai_wire::{Dialect, chat::{ChatOptions, encode_request}};
//! let dialect = Dialect::compatible();
//! let body = encode_request(&ModelRequest::new(vec![Message::user("Hi")]), &ChatOptions::new("m", &dialect));
//! assert_eq!(body["messages"][0]["content"], "Hi");
//! ```

// Library code reads no environment variables outside `from_env`-style constructors.
#![cfg_attr(not(test), deny(clippy::disallowed_methods))]
#![deny(missing_docs)]
#![allow(clippy::result_large_err)] // ProviderError on cold paths, as in dive-provider.

mod body;
pub mod chat;
mod dialect;
mod format;
mod options;
mod profile;
pub mod responses;
mod schema;
mod stream_error;
mod wire;

pub use body::Body;
pub use dialect::{BodyHook, Dialect};
/// The shared tool-list cache every provider of these formats holds.
pub use dive_provider::ToolCache;
pub use format::{Api, Chat, CompatibleChat, CompatibleResponses, Responses, Wire, builder_for, compatible};
pub use options::OpenAiOptions;
pub use profile::{COMPATIBLE, Compatible, Profile, Speaks};
pub use schema::strict_schema;
pub use wire::EncodeOptions;

/// The generic provider every OpenAI-format vendor is (re-exported for [`vendor!`]).
pub use dive_provider::HttpProvider;
