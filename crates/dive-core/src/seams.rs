//! The engine's seams to the outside world: where it reads the time ([`Clock`]), makes ids
//! ([`IdGenerator`]) and starts work that outlives a tool batch ([`Spawner`]). The defaults
//! are the system clock, random ids and the async runtime; a durable-execution engine
//! (Temporal, Restate, DBOS) replaces them with its own deterministic versions, so a replayed
//! run sees the same timestamps and ids and its background work runs where the engine says,
//! without the loop knowing.

use std::fmt;

use crate::future::BoxFuture;
use crate::time::Timestamp;

/// Where the engine reads the wall-clock time it records (turns, responses).
///
/// ```
/// use dive_core::{Clock, Timestamp};
/// struct Fixed;
/// impl Clock for Fixed {
///     fn now(&self) -> Timestamp { Timestamp::from_millis(1_700_000_000_000) }
/// }
/// assert_eq!(Fixed.now().as_millis(), 1_700_000_000_000);
/// ```
pub trait Clock: Send + Sync {
    /// The current time.
    fn now(&self) -> Timestamp;
}

/// The system clock (the default).
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> Timestamp {
        Timestamp::now()
    }
}

/// Where the engine gets the ids it makes (turns, responses, background tasks).
pub trait IdGenerator: Send + Sync {
    /// A new id starting with `prefix` and an underscore (`turn_…`).
    fn new_id(&self, prefix: &str) -> String;
}

/// Random ids (the default): [`new_id`](crate::new_id).
#[derive(Debug, Clone, Copy, Default)]
pub struct RandomIds;

impl IdGenerator for RandomIds {
    fn new_id(&self, prefix: &str) -> String {
        crate::id::new_id(prefix)
    }
}

/// Starts work that outlives the tool batch that began it (a tool's background task).
pub trait Spawner: Send + Sync {
    /// Runs `work` to completion on its own.
    fn spawn(&self, work: BoxFuture<'static, ()>);
}

impl fmt::Debug for dyn Clock {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Clock")
    }
}

impl fmt::Debug for dyn IdGenerator {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("IdGenerator")
    }
}

impl fmt::Debug for dyn Spawner {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Spawner")
    }
}
