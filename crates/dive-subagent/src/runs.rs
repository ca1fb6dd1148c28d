//! [`Runs`]: the one tracker of subagent runs and background commands: their status, their
//! cancellation, their usage, and the notifications waiting for the parent's next model call.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use dive_agent::CancellationToken;
use dive_core::Usage;
use tokio::sync::Notify;

use crate::error::SubagentError;

/// What a run is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum RunKind {
    /// A subagent started by the `Agent` tool.
    Agent,
    /// A command started by the `Monitor` tool.
    Monitor,
}

/// Where a run is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum RunStatus {
    /// Still going.
    Running,
    /// Finished on its own.
    Completed,
    /// Ended early (an error, a limit, a timeout).
    Failed,
    /// Stopped by `TaskStop` or its parent's cancellation.
    Stopped,
}

impl RunStatus {
    /// The snake_case name.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Running => "running",
            Self::Completed => "completed",
            Self::Failed => "failed",
            Self::Stopped => "stopped",
        }
    }
}

/// What is known about one run.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct RunSnapshot {
    /// Its id (`task_id` to the model).
    pub id: String,
    /// What it is.
    pub kind: RunKind,
    /// What it does, as the model described it.
    pub description: String,
    /// Where it is.
    pub status: RunStatus,
    /// Whether it ran in the background.
    pub background: bool,
    /// Usage and cost of a subagent's model calls (zero for commands).
    pub usage: Usage,
    /// Its final result text, once finished.
    pub result: Option<String>,
    /// How many output lines a command produced so far.
    pub lines: usize,
}

#[derive(Debug)]
struct Entry {
    snapshot: RunSnapshot,
    token: CancellationToken,
    pending: Vec<String>,
    delivered: bool,
}

#[derive(Debug, Default)]
struct State {
    next: u64,
    entries: BTreeMap<String, Entry>,
}

/// Every subagent run and background command of one parent agent. Cheap to clone; clones
/// share the runs. Process-local: it does not survive a restart.
///
/// ```
/// use dive_subagent::{RunKind, RunStatus, Runs};
/// let runs = Runs::new();
/// let run = runs.start(RunKind::Monitor, "watch the build", true);
/// run.notify("build started");
/// assert_eq!(runs.take_notifications().len(), 1);
/// runs.stop(run.id()).unwrap();
/// assert!(run.token().is_cancelled());
/// ```
#[derive(Debug, Clone, Default)]
pub struct Runs {
    state: Arc<Mutex<State>>,
    changed: Arc<Notify>,
}

impl Runs {
    /// No runs yet.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Registers a run and returns the handle its worker reports through.
    #[must_use]
    pub fn start(&self, kind: RunKind, description: impl Into<String>, background: bool) -> RunHandle {
        let token = CancellationToken::new();
        let mut state = self.lock();
        state.next += 1;
        let prefix = match kind {
            RunKind::Agent => "agent",
            RunKind::Monitor => "monitor",
        };
        let id = format!("{prefix}-{}", state.next);
        let snapshot = RunSnapshot {
            id: id.clone(),
            kind,
            description: description.into(),
            status: RunStatus::Running,
            background,
            usage: Usage::default(),
            result: None,
            lines: 0,
        };
        state.entries.insert(
            id.clone(),
            Entry { snapshot, token: token.clone(), pending: Vec::new(), delivered: !background },
        );
        drop(state);
        self.changed.notify_waiters();
        RunHandle { id, runs: self.clone(), token }
    }

    /// Cancels a running run (`TaskStop`).
    ///
    /// # Errors
    /// [`SubagentError::UnknownTask`] when no run has the id, [`SubagentError::Finished`]
    /// when it already ended.
    pub fn stop(&self, id: &str) -> Result<(), SubagentError> {
        let state = self.lock();
        let entry = state.entries.get(id).ok_or_else(|| SubagentError::UnknownTask(id.to_owned()))?;
        if entry.snapshot.status != RunStatus::Running {
            return Err(SubagentError::Finished(id.to_owned()));
        }
        entry.token.cancel();
        Ok(())
    }

    /// The run of `id`.
    #[must_use]
    pub fn get(&self, id: &str) -> Option<RunSnapshot> {
        self.lock().entries.get(id).map(|e| e.snapshot.clone())
    }

    /// Every run, oldest first.
    #[must_use]
    pub fn list(&self) -> Vec<RunSnapshot> {
        let mut all: Vec<RunSnapshot> = self.lock().entries.values().map(|e| e.snapshot.clone()).collect();
        all.sort_by_key(|s| s.id.rsplit('-').next().and_then(|n| n.parse::<u64>().ok()));
        all
    }

    /// The summed usage and cost of every subagent run so far (the engine counts only the
    /// parent's own model calls in its response).
    #[must_use]
    pub fn usage(&self) -> Usage {
        let mut total = Usage::default();
        for e in self.lock().entries.values() {
            total += &e.snapshot.usage;
        }
        total
    }

    /// Takes what the parent's model has not seen yet: new command output and finished
    /// background results, one text each run.
    #[must_use]
    pub fn take_notifications(&self) -> Vec<String> {
        let mut state = self.lock();
        let mut out = Vec::new();
        for entry in state.entries.values_mut() {
            let finished = entry.snapshot.status != RunStatus::Running;
            if entry.pending.is_empty() && (entry.delivered || !finished) {
                continue;
            }
            let s = &entry.snapshot;
            let mut text = format!("<task-notification>\n<task-id>{}</task-id>\n", s.id);
            text.push_str(&format!("<description>{}</description>\n", s.description));
            if !entry.pending.is_empty() {
                text.push_str(&format!("<output>\n{}\n</output>\n", entry.pending.join("\n")));
                entry.pending.clear();
            }
            if finished && !entry.delivered {
                text.push_str(&format!("<status>{}</status>\n", s.status.as_str()));
                if let Some(result) = &s.result {
                    text.push_str(&format!("<result>\n{result}\n</result>\n"));
                }
                entry.delivered = true;
            } else {
                text.push_str("<status>running</status>\n");
            }
            text.push_str("</task-notification>");
            out.push(text);
        }
        out
    }

    /// Waits until the run of `id` is no longer running (at once if there is no such run).
    pub async fn wait(&self, id: &str) -> Option<RunSnapshot> {
        loop {
            let changed = self.changed.notified();
            tokio::pin!(changed);
            changed.as_mut().enable();
            match self.get(id) {
                Some(s) if s.status == RunStatus::Running => {}
                other => return other,
            }
            changed.await;
        }
    }

    /// Waits until `check` holds for the run of `id` (re-checked on every change).
    pub async fn wait_until(&self, id: &str, check: impl Fn(&RunSnapshot) -> bool) -> Option<RunSnapshot> {
        loop {
            let changed = self.changed.notified();
            tokio::pin!(changed);
            changed.as_mut().enable();
            match self.get(id) {
                Some(s) if !check(&s) => {}
                other => return other,
            }
            changed.await;
        }
    }

    fn update(&self, id: &str, f: impl FnOnce(&mut Entry)) {
        if let Some(entry) = self.lock().entries.get_mut(id) {
            f(entry);
        }
        self.changed.notify_waiters();
    }
}

/// The worker's side of one run: its id, its cancellation, and how it reports.
#[derive(Debug, Clone)]
pub struct RunHandle {
    id: String,
    runs: Runs,
    token: CancellationToken,
}

impl RunHandle {
    /// The run's id.
    #[must_use]
    pub fn id(&self) -> &str {
        &self.id
    }

    /// Cancelled by `TaskStop` (or by whoever else stops the run).
    #[must_use]
    pub fn token(&self) -> &CancellationToken {
        &self.token
    }

    /// Queues a line of output for the parent's next model call.
    pub fn notify(&self, line: impl Into<String>) {
        let line = line.into();
        self.runs.update(&self.id, |e| {
            e.pending.push(line);
            e.snapshot.lines += 1;
        });
    }

    /// Adds a subagent's usage.
    pub fn add_usage(&self, usage: &Usage) {
        self.runs.update(&self.id, |e| e.snapshot.usage += usage);
    }

    /// Ends the run with its result text.
    pub fn finish(&self, status: RunStatus, result: impl Into<String>) {
        let result = result.into();
        self.runs.update(&self.id, |e| {
            e.snapshot.status = status;
            e.snapshot.result = Some(result);
        });
    }
}
