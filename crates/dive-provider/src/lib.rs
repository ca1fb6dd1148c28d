//! Shared HTTP plumbing for Dive for Rust providers.
//!
//! Every HTTP provider crate (`dive-anthropic`, …) builds on this one: a reqwest client on
//! rustls whose timeouts never cut a long stream ([`HttpOptions`]), API keys held as
//! [`Secret`](dive_core::Secret)s, **one** retry policy ([`RetryPolicy`]), streams retried
//! only before their first event ([`open_stream`]), SSE framed by the event-stream rules of
//! the HTML standard in time linear in the stream whatever the read sizes ([`decode_sse`]) and
//! one typed error ([`ProviderError`]) that converts into
//! [`dive_core::LlmError`].
//!
//! On top of the plumbing sits the provider framework: a provider crate implements
//! [`WireFormat`] (typed request body, response decoder, [`StreamMapper`], endpoint, auth,
//! error refinement) and declares its [`Vendor`] facts as a `const`; [`HttpProvider`] is the
//! one [`dive_core::Llm`] implementation, and [`ProviderBuilder`] the one builder, for all of
//! them. Stream events are accumulated, priced and checked once, in [`Events`]. `build()`
//! never reads the environment; `from_env()` does, through the vendor facts.
//!
//! **Invariant:** nothing here knows a vendor's wire format beyond the common JSON error
//! shape, and no secret ever reaches a `Debug`, `Display`, log line or error.
//!
//! ```
//! use std::time::Duration;
//! use dive_provider::{HttpOptions, RetryPolicy};
//! let client = HttpOptions::default().build_client().unwrap();
//! let retry = RetryPolicy::default().with_max_retries(2).with_base_delay(Duration::from_millis(200));
//! # drop((client, retry));
//! ```

// Library code reads no environment variables outside `from_env`-style constructors.
#![cfg_attr(not(test), deny(clippy::disallowed_methods))]
#![deny(missing_docs)]
// ProviderError, like dive-core's LlmError, is returned by value on every cold error path;
// boxing it would only move the allocation.
#![allow(clippy::result_large_err)]

mod body_sizes;
pub mod borrowed;
mod builder;
mod client;
mod error;
mod events;
mod http;
pub mod lenient;
mod ndjson;
mod provider;
mod retry;
mod silence;
mod sse;
mod stream;
mod tls;
mod tools;
mod urls;
mod vendor;
mod wire;

pub use builder::ProviderBuilder;
pub use events::{END_OF_BODY_GRACE, Events, price};
pub use ndjson::{NdjsonLine, decode_ndjson, decode_ndjson_lines};
pub use provider::HttpProvider;
pub use tls::LazyPlatformVerifier;
pub use tools::{EncodedTools, ToolCache};
pub use vendor::Vendor;
pub use wire::{
    CallContext, Encoded, Frame, StreamMapper, WireFormat, map_by_last, model_cannot_take,
    no_native_compaction, refuse_foreign_options, refuse_unsupported_content, secret_header,
};

pub use client::{HttpOptions, api_key_from_env};
pub use error::{ProviderError, classify};
pub use http::{check_status, check_status_with, request_id, retry_after};
pub use retry::{RetryAttempt, RetryHook, RetryPolicy};
pub use sse::{
    EventName, ExactJson, ExactShape, ExactStr, ShapeHoles, ShapeValue, SseEvent, decode_sse, decode_text,
    response_sse,
};
pub use stream::{body_read_error, open_stream};

/// The HTTP client crate, re-exported whole so users never hold two copies.
pub use reqwest;
