//! What one turn knows about skills: which are loaded in the conversation, which calls are
//! about to deliver content, and which active skills restrict the tools.

use std::collections::{HashMap, HashSet};
use std::path::PathBuf;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use dive_core::Values;

use crate::allowed::ToolRule;

/// A skill whose `allowed-tools` apply.
#[derive(Debug, Clone)]
pub(crate) struct Active {
    pub(crate) name: String,
    pub(crate) rules: Vec<ToolRule>,
    pub(crate) listed: Vec<String>,
    /// The skill's directory, resolved, whose files stay readable.
    pub(crate) dir: Option<PathBuf>,
}

/// Content the Skill tool rendered, waiting for its PostToolUse hook.
#[derive(Debug, Clone)]
pub(crate) struct Pending {
    pub(crate) content: String,
    pub(crate) active: Option<Active>,
}

#[derive(Debug, Default)]
pub(crate) struct Inner {
    /// The content blocks already in the conversation, exactly as delivered.
    pub(crate) loaded: HashSet<String>,
    pub(crate) pending: HashMap<String, Pending>,
    pub(crate) active: Vec<Active>,
}

/// Shared through the run's [`Values`], so the tool and the hooks of one turn see one state.
#[derive(Debug, Clone, Default)]
pub(crate) struct SkillState(Arc<Mutex<Inner>>);

impl SkillState {
    /// A fresh state for a new turn.
    pub(crate) fn reset(values: &Values) -> Self {
        let state = Self::default();
        values.insert(state.clone());
        state
    }

    /// The turn's state (created when a phase before the turn's first did not run).
    pub(crate) fn of(values: &Values) -> Self {
        values.get::<Self>().unwrap_or_else(|| Self::reset(values))
    }

    pub(crate) fn lock(&self) -> MutexGuard<'_, Inner> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }
}
