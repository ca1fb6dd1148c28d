//! Boxed future and stream aliases used by every dyn-compatible trait in the workspace.
//!
//! Plug-in points the engine holds as trait objects (`Arc<dyn Llm>`, `Arc<dyn Tool>`, hooks,
//! sessions) return one of these aliases: a box per call is nothing next to a model or tool
//! call, and it keeps the traits object-safe.

use std::future::Future;
use std::pin::Pin;

use futures_core::Stream;

/// A boxed, `Send` future borrowing from `'a`.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// A boxed, `Send` stream with a `'static` lifetime.
pub type BoxStream<T> = Pin<Box<dyn Stream<Item = T> + Send + 'static>>;
