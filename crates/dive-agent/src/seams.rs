//! The engine's [`Seams`]: the clock, the id generator and the spawner it uses, set on the
//! builder ([`AgentBuilder::clock`](crate::AgentBuilder::clock),
//! [`id_generator`](crate::AgentBuilder::id_generator),
//! [`spawner`](crate::AgentBuilder::spawner)); by default the system clock, random ids and
//! the tokio runtime.

use std::sync::Arc;

use dive_core::{BoxFuture, Clock, IdGenerator, RandomIds, Spawner, SystemClock, Timestamp};

/// Spawns on the current tokio runtime (the default [`Spawner`]).
#[derive(Debug, Clone, Copy, Default)]
pub struct TokioSpawner;

impl Spawner for TokioSpawner {
    fn spawn(&self, work: BoxFuture<'static, ()>) {
        tokio::spawn(work);
    }
}

/// What the engine reads the time from, makes ids with and spawns on.
#[derive(Clone, Debug)]
pub(crate) struct Seams {
    pub(crate) clock: Arc<dyn Clock>,
    pub(crate) ids: Arc<dyn IdGenerator>,
    pub(crate) spawner: Arc<dyn Spawner>,
}

impl Default for Seams {
    fn default() -> Self {
        Self { clock: Arc::new(SystemClock), ids: Arc::new(RandomIds), spawner: Arc::new(TokioSpawner) }
    }
}

impl Seams {
    pub(crate) fn now(&self) -> Timestamp {
        self.clock.now()
    }

    pub(crate) fn new_id(&self, prefix: &str) -> String {
        self.ids.new_id(prefix)
    }
}
