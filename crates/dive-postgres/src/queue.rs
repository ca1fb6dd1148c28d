//! [`RunQueue`]: runs submitted to the database and taken by workers with
//! `FOR UPDATE SKIP LOCKED`. Taking a run takes its session's lease (a new attempt), so
//! every write the worker makes is fenced; a worker that stops renewing loses the run to
//! [`RunQueue::reap`], which recovers the session's running turn (`process_exit`, running
//! calls `unknown`) and queues the run again for another worker to resume.

use std::time::Duration;

use dive_core::Session;
use serde_json::Value;

use crate::error::{Error, Result};
use crate::lease::{self, Lease, Take};
use crate::rows::as_i64;
use crate::store::PostgresStore;

/// A run to submit.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct NewRun {
    /// The run id (submitting it again changes nothing).
    pub id: String,
    /// The session it runs on.
    pub session_id: String,
    /// What the worker is asked to do (application-defined JSON).
    pub input: Value,
}

impl NewRun {
    /// A run on `session_id` with `input`.
    #[must_use]
    pub fn new(id: impl Into<String>, session_id: impl Into<String>, input: Value) -> Self {
        Self { id: id.into(), session_id: session_id.into(), input }
    }
}

/// A run a worker took, with the lease every write of it carries.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct ClaimedRun {
    /// The run id.
    pub id: String,
    /// Its session.
    pub session_id: String,
    /// Its input.
    pub input: Value,
    /// The session lease taken with it.
    pub lease: Lease,
    /// How many times the run was handed out, this one included (above 1: resumed after a
    /// lost worker).
    pub deliveries: u32,
}

/// A run's state.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum RunStatus {
    /// Waiting for a worker.
    Queued,
    /// Held by a worker.
    Running,
    /// Completed.
    Done,
    /// Failed.
    Failed,
    /// A state this version does not know.
    Other(String),
}

impl RunStatus {
    fn parse(s: &str) -> Self {
        match s {
            "queued" => Self::Queued,
            "running" => Self::Running,
            "done" => Self::Done,
            "failed" => Self::Failed,
            other => Self::Other(other.to_owned()),
        }
    }
}

/// A run as stored.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct RunRecord {
    /// The run id.
    pub id: String,
    /// Its session.
    pub session_id: String,
    /// Its state.
    pub status: RunStatus,
    /// Times handed out.
    pub deliveries: u32,
    /// The result given at completion (or `{"error": …}` on failure).
    pub result: Option<Value>,
}

/// How many runs are in each state.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct QueueCounts {
    /// Waiting.
    pub queued: u64,
    /// Held by a worker.
    pub running: u64,
    /// Completed.
    pub done: u64,
    /// Failed.
    pub failed: u64,
}

impl QueueCounts {
    /// Whether no run is waiting or running.
    #[must_use]
    pub fn is_settled(&self) -> bool {
        self.queued == 0 && self.running == 0
    }
}

/// The run queue of a [`PostgresStore`].
#[derive(Debug, Clone)]
pub struct RunQueue {
    store: PostgresStore,
}

/// Runs whose session has no live lease (never taken, released, or lapsed).
const UNLEASED: &str = "NOT EXISTS (SELECT 1 FROM claims c WHERE c.session_id = r.session_id
    AND c.owner IS NOT NULL AND c.expires_at > clock_timestamp())";

impl RunQueue {
    pub(crate) fn new(store: PostgresStore) -> Self {
        Self { store }
    }

    /// Submits a run; `false` when a run with its id already exists (unchanged).
    ///
    /// # Errors
    /// `SessionError::InvalidId`, [`Error::Pool`], [`Error::Database`].
    pub async fn submit(&self, run: &NewRun) -> Result<bool> {
        dive_core::validate_session_id(&run.session_id)?;
        let client = self.store.client().await?;
        let n = client
            .execute(
                "INSERT INTO runs (id, session_id, input, status) VALUES ($1, $2, $3, 'queued')
                 ON CONFLICT (id) DO NOTHING",
                &[&run.id, &run.session_id, &run.input],
            )
            .await?;
        Ok(n == 1)
    }

    /// Takes the oldest queued run whose session nobody holds and has no other run running,
    /// with a new lease on its session for `owner` for `ttl`; `None` when there is none. Workers never wait on each
    /// other here (`SKIP LOCKED`).
    ///
    /// # Errors
    /// [`Error::Pool`], [`Error::Database`].
    pub async fn claim(&self, owner: &str, ttl: Duration) -> Result<Option<ClaimedRun>> {
        for _ in 0..3 {
            let mut client = self.store.client().await?;
            let tx = client.transaction().await?;
            // Not while another run of the session is running, even with its lease lapsed: that
            // run is reaped and resumed first, so a session's runs never interleave.
            let sql = format!(
                "SELECT r.id, r.session_id, r.input, r.deliveries FROM runs r
                 WHERE r.status = 'queued' AND {UNLEASED}
                   AND NOT EXISTS (SELECT 1 FROM runs o WHERE o.session_id = r.session_id AND o.status = 'running')
                 ORDER BY r.seq LIMIT 1 FOR UPDATE SKIP LOCKED"
            );
            let Some(row) = tx.query_opt(&tx.prepare_cached(&sql).await?, &[]).await? else {
                return Ok(None);
            };
            let (id, session_id): (String, String) = (row.get(0), row.get(1));
            // Another worker may have just leased this session for another run: try again.
            let Some(lease) = lease::take(&tx, &session_id, owner, ttl, Take::TakeOver).await? else {
                continue;
            };
            tx.execute(
                "UPDATE runs SET status = 'running', owner = $2, attempt = $3, deliveries = deliveries + 1 WHERE id = $1",
                &[&id, &owner, &as_i64(lease.attempt)],
            )
            .await?;
            tx.commit().await?;
            let deliveries = u32::try_from(row.get::<_, i32>(3)).unwrap_or(0).saturating_add(1);
            return Ok(Some(ClaimedRun { id, session_id, input: row.get(2), lease, deliveries }));
        }
        Ok(None)
    }

    /// Extends the run's lease by `ttl`.
    ///
    /// # Errors
    /// [`Error::LeaseLost`] once the run was taken over.
    pub async fn renew(&self, run: &ClaimedRun, ttl: Duration) -> Result<Lease> {
        self.store.renew(&run.lease, ttl).await
    }

    /// Completes the run with `result` and releases its lease, fenced by the lease.
    ///
    /// # Errors
    /// [`Error::LeaseLost`] when a newer attempt holds the run (nothing changes).
    pub async fn complete(&self, run: &ClaimedRun, result: &Value) -> Result<()> {
        self.finish(run, "done", result).await
    }

    /// Marks the run failed with `error` and releases its lease, fenced by the lease.
    ///
    /// # Errors
    /// As for [`complete`](Self::complete).
    pub async fn fail(&self, run: &ClaimedRun, error: &str) -> Result<()> {
        self.finish(run, "failed", &serde_json::json!({ "error": error })).await
    }

    async fn finish(&self, run: &ClaimedRun, status: &str, result: &Value) -> Result<()> {
        let mut client = self.store.client().await?;
        let tx = client.transaction().await?;
        // Lock order everywhere: the run row, then the lease row.
        tx.execute("SELECT 1 FROM runs WHERE id = $1 FOR UPDATE", &[&run.id]).await?;
        lease::check(&tx, &run.lease).await?;
        let n = tx
            .execute(
                "UPDATE runs SET status = $2, result = $3, completed_at = now()
                 WHERE id = $1 AND status = 'running' AND attempt = $4",
                &[&run.id, &status, result, &as_i64(run.lease.attempt)],
            )
            .await?;
        if n != 1 {
            return Err(Error::LeaseLost {
                session_id: run.session_id.clone(),
                attempt: run.lease.attempt,
                holder: String::new(),
            });
        }
        lease::release(&tx, &run.lease).await?;
        tx.commit().await?;
        Ok(())
    }

    /// Finds running runs whose lease lapsed (their worker died, hung or was cut off), takes
    /// each one's lease as `reaper`, recovers its session (a turn left `running` is closed
    /// as `process_exit`, its running calls `unknown`: stored once), and queues it again.
    /// Returns the ids re-queued. Any worker may call it; two reapers never take one run.
    ///
    /// # Errors
    /// [`Error::Pool`], [`Error::Database`], or the session's recovery error.
    pub async fn reap(&self, reaper: &str, ttl: Duration) -> Result<Vec<String>> {
        let mut requeued = Vec::new();
        while let Some(run) = self.take_lapsed(reaper, ttl).await? {
            let session = self.store.open_leased(run.lease.clone())?;
            session.load().await?; // recovery, fenced by the reaper's lease
            let mut client = self.store.client().await?;
            let tx = client.transaction().await?;
            tx.execute("SELECT 1 FROM runs WHERE id = $1 FOR UPDATE", &[&run.id]).await?;
            let n = tx
                .execute(
                    "UPDATE runs SET status = 'queued', owner = NULL WHERE id = $1 AND status = 'running' AND attempt = $2",
                    &[&run.id, &as_i64(run.lease.attempt)],
                )
                .await?;
            lease::release(&tx, &run.lease).await?;
            tx.commit().await?;
            if n == 1 {
                requeued.push(run.id);
            }
        }
        Ok(requeued)
    }

    async fn take_lapsed(&self, reaper: &str, ttl: Duration) -> Result<Option<ClaimedRun>> {
        let mut client = self.store.client().await?;
        let tx = client.transaction().await?;
        let sql = format!(
            "SELECT r.id, r.session_id, r.input, r.deliveries FROM runs r
             WHERE r.status = 'running' AND {UNLEASED}
             ORDER BY r.seq LIMIT 1 FOR UPDATE SKIP LOCKED"
        );
        let Some(row) = tx.query_opt(&tx.prepare_cached(&sql).await?, &[]).await? else { return Ok(None) };
        let (id, session_id): (String, String) = (row.get(0), row.get(1));
        let Some(lease) = lease::take(&tx, &session_id, reaper, ttl, Take::TakeOver).await? else {
            return Ok(None);
        };
        tx.execute(
            "UPDATE runs SET owner = $2, attempt = $3 WHERE id = $1",
            &[&id, &reaper, &as_i64(lease.attempt)],
        )
        .await?;
        tx.commit().await?;
        let deliveries = u32::try_from(row.get::<_, i32>(3)).unwrap_or(0);
        Ok(Some(ClaimedRun { id, session_id, input: row.get(2), lease, deliveries }))
    }

    /// A run as stored, `None` when unknown.
    ///
    /// # Errors
    /// [`Error::Pool`], [`Error::Database`].
    pub async fn run(&self, id: &str) -> Result<Option<RunRecord>> {
        let client = self.store.client().await?;
        let row = client
            .query_opt("SELECT id, session_id, status, deliveries, result FROM runs WHERE id = $1", &[&id])
            .await?;
        Ok(row.map(|r| RunRecord {
            id: r.get(0),
            session_id: r.get(1),
            status: RunStatus::parse(r.get(2)),
            deliveries: u32::try_from(r.get::<_, i32>(3)).unwrap_or(0),
            result: r.get(4),
        }))
    }

    /// How many runs are in each state.
    ///
    /// # Errors
    /// [`Error::Pool`], [`Error::Database`].
    pub async fn counts(&self) -> Result<QueueCounts> {
        let client = self.store.client().await?;
        let mut counts = QueueCounts::default();
        for row in client.query("SELECT status, COUNT(*) FROM runs GROUP BY status", &[]).await? {
            let n = u64::try_from(row.get::<_, i64>(1)).unwrap_or(0);
            match row.get::<_, &str>(0) {
                "queued" => counts.queued = n,
                "running" => counts.running = n,
                "done" => counts.done = n,
                "failed" => counts.failed = n,
                _ => {}
            }
        }
        Ok(counts)
    }
}
