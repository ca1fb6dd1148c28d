//! The OpenAI wire formats for Dive for Rust: the Responses API ([`responses`]) and Chat
//! Completions ([`chat`]) — encoders, decoders, stream mappers, the strict-schema sanitiser
//! ([`strict_schema`]) — and what a vendor speaking them declares: a [`Profile`] (name,
//! endpoint, key variables, default model, catalog) and a [`Dialect`] (the small wire
//! differences). [`Client`] is the one `Llm` over them.
//!
//! OpenAI itself (`dive-openai`) and every OpenAI-compatible vendor crate (Mistral,
//! OpenRouter, Grok, DeepInfra, Groq, Together, …) are profiles over this crate; none depends
//! on another vendor's crate. [`CompatibleChat`] calls any OpenAI-compatible endpoint with a
//! base URL and key from the user.
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
#![deny(missing_docs)]
#![allow(clippy::result_large_err)] // ProviderError on cold paths, as in dive-provider.

pub mod chat;
mod client;
mod dialect;
mod events;
mod profile;
pub mod responses;
mod schema;
mod transport;
mod wire;

pub use chat::CompatibleChat;
pub use client::{Api, Client, Compatible, Vendor};
pub use dialect::{BodyHook, Dialect};
pub use events::{Events, Mapper};
pub use profile::{CatalogFn, Profile};
pub use responses::CompatibleResponses;
pub use schema::strict_schema;
pub use transport::Builder;
