//! The store's dedicated thread: it owns the SQLite connection and runs jobs sent over a
//! channel, so no blocking database call ever runs on an async worker thread, and the store
//! needs no particular async runtime. A job's result comes back through a oneshot channel the
//! caller's future awaits.

use std::sync::mpsc;
use std::thread;

use dive_core::{BoxFuture, SessionError};
use futures_channel::oneshot;

use super::backend;
use super::rows::Db;

type Job = Box<dyn FnOnce(&mut Db) + Send>;

/// A handle to the worker thread (cheap to clone; the thread ends when every handle is gone).
#[derive(Debug, Clone)]
pub(crate) struct Worker {
    jobs: mpsc::Sender<Job>,
}

impl Worker {
    /// Starts the thread that owns `db`.
    pub(crate) fn spawn(mut db: Db) -> Result<Self, SessionError> {
        let (jobs, inbox) = mpsc::channel::<Job>();
        thread::Builder::new()
            .name("dive-sqlite".into())
            .spawn(move || {
                while let Ok(job) = inbox.recv() {
                    job(&mut db);
                }
            })
            .map_err(SessionError::Io)?;
        Ok(Self { jobs })
    }

    /// Runs `job` on the worker thread; the future completes with its result.
    pub(crate) fn run<'a, T: Send + 'static>(
        &self,
        job: impl FnOnce(&mut Db) -> Result<T, SessionError> + Send + 'static,
    ) -> BoxFuture<'a, Result<T, SessionError>> {
        let (reply, answer) = oneshot::channel();
        let sent = self.jobs.send(Box::new(move |db: &mut Db| {
            let result = job(db);
            if let Err(e) = &result
                && super::is_file_damage(e)
            {
                db.mark_damaged(e.to_string());
            }
            let _ = reply.send(result);
        }));
        Box::pin(async move {
            sent.map_err(|_| backend(WorkerGone))?;
            answer.await.map_err(|_| backend(WorkerGone))?
        })
    }
}

/// The worker thread stopped (it panicked).
#[derive(Debug)]
struct WorkerGone;

impl std::fmt::Display for WorkerGone {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("the SQLite worker thread stopped")
    }
}

impl std::error::Error for WorkerGone {}
