//! [`ResponseStream`]: a run as a [`Stream`] of [`ResponseItem`]s, driven by the consumer (no
//! spawned task: dropping the stream drops, and so cancels, the run).

use std::pin::Pin;
use std::task::{Context, Poll};

use dive_core::{BoxFuture, Response, ResponseItem};
use futures_core::Stream;
use tokio::sync::mpsc::{UnboundedReceiver, unbounded_channel};

use crate::agent::Agent;
use crate::error::AgentError;
use crate::options::RunOptions;

/// Every item of one run as it happens (raw model events, messages, tool calls, results,
/// tool output and progress, and the final `turn_ended`). After the stream ends,
/// [`finish`](Self::finish) returns the run's result.
///
/// ```
/// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
/// use futures::StreamExt;
/// use dive_agent::Agent;
/// use dive_core::{ModelResponse, ResponseItem};
/// use dive_test::ScriptedModel;
///
/// let model = ScriptedModel::new([ModelResponse::text("Hi there")]).streaming();
/// let agent = Agent::builder().model(model).build().unwrap();
/// let mut stream = agent.stream("Hello");
/// let mut text = String::new();
/// while let Some(item) = stream.next().await {
///     if let ResponseItem::Message { message, .. } = item {
///         text = message.text();
///     }
/// }
/// let response = stream.finish().await.unwrap();
/// assert_eq!(text, response.output_text());
/// # });
/// ```
pub struct ResponseStream {
    run: Option<BoxFuture<'static, crate::run::Finished>>,
    result: Option<crate::run::Finished>,
    items: UnboundedReceiver<ResponseItem>,
}

impl std::fmt::Debug for ResponseStream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ResponseStream").field("running", &self.run.is_some()).finish_non_exhaustive()
    }
}

impl ResponseStream {
    pub(crate) fn start(agent: Agent, options: RunOptions) -> Self {
        let (tx, rx) = unbounded_channel();
        let run = Box::pin(crate::run::run(agent, options, Some(tx)));
        Self { run: Some(run), result: None, items: rx }
    }

    /// Drives the run to its end (discarding items not yet read) and returns its result.
    ///
    /// # Errors
    /// As [`Agent::run`].
    pub async fn finish(mut self) -> Result<Response, AgentError> {
        if let Some(run) = self.run.take() {
            return run.await.map(|response| *response);
        }
        match self.result.take() {
            Some(result) => result.map(|response| *response),
            None => Err(AgentError::Config("the stream's result was already taken".into())),
        }
    }
}

impl Stream for ResponseStream {
    type Item = ResponseItem;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<ResponseItem>> {
        let this = &mut *self;
        loop {
            if let Poll::Ready(Some(item)) = this.items.poll_recv(cx) {
                return Poll::Ready(Some(item));
            }
            let Some(run) = this.run.as_mut() else {
                return Poll::Ready(None);
            };
            match run.as_mut().poll(cx) {
                Poll::Ready(result) => {
                    this.result = Some(result);
                    this.run = None;
                    // The run's sender is gone now: drain what it left, then end.
                }
                Poll::Pending => {
                    return match this.items.poll_recv(cx) {
                        Poll::Ready(Some(item)) => Poll::Ready(Some(item)),
                        _ => Poll::Pending,
                    };
                }
            }
        }
    }
}
