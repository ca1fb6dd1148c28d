//! OpenTelemetry for Dive for Rust: [`OtelTracer`], a `dive_core::Tracer` that emits the GenAI
//! semantic conventions' `invoke_agent`, `chat` and `execute_tool` spans and client metrics
//! through the `opentelemetry` API; W3C trace-context helpers ([`propagation`]) for subagents,
//! MCP and A2A; and an opt-in OTLP/HTTP set-up from the standard variables ([`otlp`], feature
//! `otlp`). It never installs a global provider, and it captures no message or tool content
//! unless asked ([`Capture`]).
//!
//! ```
//! use dive_otel::OtelTracer;
//! use opentelemetry_sdk::trace::{InMemorySpanExporter, SdkTracerProvider};
//!
//! let exporter = InMemorySpanExporter::default();
//! let provider = SdkTracerProvider::builder().with_simple_exporter(exporter.clone()).build();
//! let tracer = OtelTracer::builder(&provider).build();
//! // dive_agent::Agent::builder().tracer(tracer) …
//! # let _ = tracer;
//! ```

// Library code reads no environment variables outside `from_env`-style constructors.
#![cfg_attr(not(test), deny(clippy::disallowed_methods))]

mod content;
mod metrics;
#[cfg(feature = "otlp")]
pub mod otlp;
pub mod propagation;
pub mod semconv;
mod tracer;
mod workflow;

pub use content::Capture;
pub use opentelemetry;
pub use opentelemetry_sdk;
pub use tracer::{CAPTURE_CONTENT_VAR, OtelTracer, OtelTracerBuilder, ParentContext, SCOPE};
pub use workflow::WorkflowSpan;
