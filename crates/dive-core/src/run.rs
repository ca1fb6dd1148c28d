//! [`RunInfo`]: who is running and for which session and turn, shared by hooks, toolsets and
//! tools; [`Values`]: typed state shared across every phase of one invocation.

use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

/// Typed values shared across all hooks and tools of one invocation (a type map).
///
/// ```
/// use dive_core::Values;
/// #[derive(Clone, Debug, PartialEq)]
/// struct UserId(u64);
/// let values = Values::new();
/// values.insert(UserId(7));
/// assert_eq!(values.get::<UserId>(), Some(UserId(7)));
/// ```
#[derive(Clone, Default)]
pub struct Values(Arc<Mutex<HashMap<TypeId, Box<dyn Any + Send + Sync>>>>);

impl std::fmt::Debug for Values {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let len = self.0.lock().unwrap_or_else(PoisonError::into_inner).len();
        f.debug_struct("Values").field("len", &len).finish()
    }
}

impl Values {
    /// An empty map.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Stores a value, replacing any value of the same type.
    pub fn insert<T: Any + Send + Sync>(&self, value: T) {
        self.0.lock().unwrap_or_else(PoisonError::into_inner).insert(TypeId::of::<T>(), Box::new(value));
    }

    /// A clone of the stored value of type `T`.
    #[must_use]
    pub fn get<T: Any + Send + Sync + Clone>(&self) -> Option<T> {
        let map = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        map.get(&TypeId::of::<T>()).and_then(|b| b.downcast_ref::<T>()).cloned()
    }

    /// Removes and returns the value of type `T`.
    pub fn remove<T: Any + Send + Sync>(&self) -> Option<T> {
        let mut map = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        map.remove(&TypeId::of::<T>()).and_then(|b| b.downcast::<T>().ok()).map(|b| *b)
    }
}

/// Identity of the current invocation. Cheap to clone.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct RunInfo {
    /// Agent name.
    pub agent_name: Arc<str>,
    /// Agent id.
    pub agent_id: Option<Arc<str>>,
    /// Session id, for session-backed calls.
    pub session_id: Option<Arc<str>>,
    /// The turn id, once the turn boundary is passed.
    pub turn_id: Option<Arc<str>>,
    /// Shared values.
    pub values: Values,
}

impl RunInfo {
    /// Run info for an agent.
    #[must_use]
    pub fn new(agent_name: impl Into<Arc<str>>) -> Self {
        Self::sharing(agent_name, Values::new())
    }

    /// Run info for an agent whose values are `values`, shared with whoever passed them (a
    /// run shares the values its caller passed this way, without making a map of
    /// its own first).
    ///
    /// ```
    /// use dive_core::{RunInfo, Values};
    /// let values = Values::new();
    /// let run = RunInfo::sharing("agent", values.clone());
    /// values.insert(7_u32);
    /// assert_eq!(run.values.get::<u32>(), Some(7));
    /// ```
    #[must_use]
    pub fn sharing(agent_name: impl Into<Arc<str>>, values: Values) -> Self {
        Self { agent_name: agent_name.into(), agent_id: None, session_id: None, turn_id: None, values }
    }

    /// Run info outside any agent (tests, scripts).
    #[must_use]
    pub fn detached() -> Self {
        Self::new("detached")
    }

    /// Sets the session id.
    #[must_use]
    pub fn with_session(mut self, session_id: impl Into<Arc<str>>) -> Self {
        self.session_id = Some(session_id.into());
        self
    }

    /// Sets the turn id.
    #[must_use]
    pub fn with_turn(mut self, turn_id: impl Into<Arc<str>>) -> Self {
        self.turn_id = Some(turn_id.into());
        self
    }

    /// Sets the agent id.
    #[must_use]
    pub fn with_agent_id(mut self, agent_id: impl Into<Arc<str>>) -> Self {
        self.agent_id = Some(agent_id.into());
        self
    }

    /// Sets the shared values.
    #[must_use]
    pub fn with_values(mut self, values: Values) -> Self {
        self.values = values;
        self
    }
}
