//! A ready-made event stream over a list of results (futures-core has no `stream::iter`).

use std::pin::Pin;
use std::task::{Context, Poll};

use dive_core::{EventStream, LlmError, StreamEvent};

struct Iter<I>(I);

impl<I: Iterator<Item = Result<StreamEvent, LlmError>> + Unpin> futures_core::Stream for Iter<I> {
    type Item = Result<StreamEvent, LlmError>;
    fn poll_next(mut self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        Poll::Ready(self.0.next())
    }
}

/// An event stream yielding these results in order.
pub(crate) fn event_stream(items: Vec<Result<StreamEvent, LlmError>>) -> EventStream {
    Box::pin(Iter(items.into_iter()))
}
