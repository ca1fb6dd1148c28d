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

/// A future that is already complete, boxed: for trait methods whose work is synchronous.
pub fn ready<'a, T: Send + 'a>(value: T) -> BoxFuture<'a, T> {
    Box::pin(std::future::ready(value))
}

/// A stream yielding the items of an iterator (futures-core has no `stream::iter`).
///
/// ```
/// let mut stream = dive_core::future::iter_stream(vec![1, 2]);
/// # let _ = &mut stream;
/// ```
pub fn iter_stream<I>(items: I) -> BoxStream<I::Item>
where
    I: IntoIterator,
    I::IntoIter: Send + 'static,
    I::Item: Send + 'static,
{
    Box::pin(Iter(items.into_iter()))
}

struct Iter<I>(I);

impl<I> Unpin for Iter<I> {}

impl<I: Iterator> Stream for Iter<I> {
    type Item = I::Item;
    fn poll_next(
        mut self: Pin<&mut Self>,
        _cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<I::Item>> {
        std::task::Poll::Ready(self.0.next())
    }
}
