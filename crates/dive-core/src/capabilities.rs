//! [`StoreCapabilities`]: what a session store declares it can do, so an agent refuses a
//! configuration its session cannot honour when it is built and the conformance suite checks
//! exactly what the store claims.

/// The optional abilities of a session store and its sessions. A store declares them with
/// [`SessionStore::capabilities`](crate::SessionStore::capabilities); a session reports its
/// own with [`Session::capabilities`](crate::Session::capabilities).
///
/// ```
/// use dive_core::StoreCapabilities;
/// let declared = StoreCapabilities::none().with_turn_store().with_claims();
/// assert!(declared.turn_store && declared.claims && !declared.history);
/// assert!(StoreCapabilities::all().fork);
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct StoreCapabilities {
    /// Revision-checked turn records and step checkpoints
    /// ([`Session::as_turn_store`](crate::Session::as_turn_store)).
    pub turn_store: bool,
    /// Execution claims with a lease ([`Session::as_claimer`](crate::Session::as_claimer)).
    pub claims: bool,
    /// The full record: events, title, metadata, removing the last turn
    /// ([`Session::as_history`](crate::Session::as_history)).
    pub history: bool,
    /// Compaction edits ([`SessionEdit::Compact`](crate::SessionEdit::Compact)).
    pub compaction: bool,
    /// Forking a session ([`SessionStore::fork`](crate::SessionStore::fork)).
    pub fork: bool,
    /// Importing an exported document ([`SessionStore::import`](crate::SessionStore::import)).
    pub import: bool,
}

impl StoreCapabilities {
    /// No optional ability: only the rules every store follows.
    #[must_use]
    pub const fn none() -> Self {
        Self {
            turn_store: false,
            claims: false,
            history: false,
            compaction: false,
            fork: false,
            import: false,
        }
    }

    /// Every ability (what the stores of `dive-session` offer).
    #[must_use]
    pub const fn all() -> Self {
        Self { turn_store: true, claims: true, history: true, compaction: true, fork: true, import: true }
    }

    /// Declares revision-checked checkpoints.
    #[must_use]
    pub const fn with_turn_store(mut self) -> Self {
        self.turn_store = true;
        self
    }

    /// Declares session claims.
    #[must_use]
    pub const fn with_claims(mut self) -> Self {
        self.claims = true;
        self
    }

    /// Declares the full record (events, title, metadata, removal).
    #[must_use]
    pub const fn with_history(mut self) -> Self {
        self.history = true;
        self
    }

    /// Declares compaction.
    #[must_use]
    pub const fn with_compaction(mut self) -> Self {
        self.compaction = true;
        self
    }

    /// Declares forking.
    #[must_use]
    pub const fn with_fork(mut self) -> Self {
        self.fork = true;
        self
    }

    /// Declares importing.
    #[must_use]
    pub const fn with_import(mut self) -> Self {
        self.import = true;
        self
    }
}
