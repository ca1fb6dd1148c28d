//! The runtime a run needs: a Tokio runtime with timers (the response timeout, tool timeouts and
//! the save bound are timers). Checked once when a run starts, so a missing runtime is a typed
//! error instead of a panic deep in the turn.

use crate::error::AgentError;

const NO_RUNTIME: &str = "Agent::run needs a Tokio runtime: call it from inside one \
     (#[tokio::main], or Runtime::block_on on a runtime built with enable_all())";
const NO_TIMERS: &str = "Agent::run needs a Tokio runtime with timers: build the runtime with \
     enable_all() (or enable_time())";

/// Checks that the current thread runs inside a Tokio runtime with timers enabled.
///
/// # Errors
/// [`AgentError::Runtime`] saying which is missing and how to build the runtime.
pub(crate) fn check() -> Result<(), AgentError> {
    let handle = tokio::runtime::Handle::try_current().map_err(|_| AgentError::Runtime(NO_RUNTIME))?;
    // Tokio offers no query for its timer driver; creating a timer without one panics at once,
    // before anything is scheduled, so the panic is caught here and nothing else runs in it.
    let _entered = handle.enter();
    let timers = std::panic::catch_unwind(|| drop(tokio::time::sleep(std::time::Duration::ZERO)));
    timers.map_err(|_| AgentError::Runtime(NO_TIMERS))
}
