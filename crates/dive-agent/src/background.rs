//! Waiting for background work started by tools, whose results the next run delivers to the
//! model.

use dive_core::BackgroundTaskHandle;
use futures_util::future::join_all;

/// Waits until every handle's task has finished. Pass the handles to the next run with
/// [`RunOptions::with_background_results`](crate::RunOptions::with_background_results) to
/// deliver their results to the model.
///
/// ```
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// use dive_core::{BackgroundTaskHandle, ToolOutput};
/// let (handle, done) = BackgroundTaskHandle::new("t1", "call-1", "build", "build the project");
/// done.complete(ToolOutput::text("ok"));
/// let finished = dive_agent::await_background_tasks(&[handle]).await;
/// assert!(finished[0].is_done());
/// # });
/// ```
pub async fn await_background_tasks(handles: &[BackgroundTaskHandle]) -> Vec<BackgroundTaskHandle> {
    join_all(handles.iter().map(BackgroundTaskHandle::wait)).await;
    handles.to_vec()
}
