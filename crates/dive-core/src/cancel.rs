//! Soft cancellation: "stop at the next step boundary, let running calls finish".
//!
//! A [`SoftCancel`] is a shared flag. A child created with [`SoftCancel::child`] is cancelled
//! when it or any ancestor is, so a subagent run inside a tool inherits its parent's soft
//! cancel. Hard cancellation is ordinary Rust: drop the future (or use a cancellation token in
//! the engine).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

#[derive(Debug, Default)]
struct Inner {
    flag: AtomicBool,
    parent: Option<SoftCancel>,
}

/// A cloneable soft-cancel flag, chained to its ancestors.
///
/// ```
/// use dive_core::SoftCancel;
/// let parent = SoftCancel::new();
/// let child = parent.child();
/// assert!(!child.is_cancelled());
/// parent.cancel();
/// assert!(child.is_cancelled());
/// ```
#[derive(Debug, Clone, Default)]
pub struct SoftCancel(Arc<Inner>);

impl SoftCancel {
    /// A new flag, not cancelled.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// A flag that is cancelled when `self` is.
    #[must_use]
    pub fn child(&self) -> Self {
        Self(Arc::new(Inner { flag: AtomicBool::new(false), parent: Some(self.clone()) }))
    }

    /// Requests a soft cancel.
    pub fn cancel(&self) {
        self.0.flag.store(true, Ordering::SeqCst);
    }

    /// True when this flag or an ancestor was cancelled.
    #[must_use]
    pub fn is_cancelled(&self) -> bool {
        let mut cur = Some(self);
        while let Some(c) = cur {
            if c.0.flag.load(Ordering::SeqCst) {
                return true;
            }
            cur = c.0.parent.as_ref();
        }
        false
    }
}
