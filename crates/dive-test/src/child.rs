//! Running one test again in a child process with a changed environment, for code that reads
//! the environment (`from_env` constructors): the test then never depends on — or sends — the
//! developer's real keys, and asserts in every environment.
//!
//! ```no_run
//! #[test]
//! fn a_missing_key_is_an_authentication_error() {
//!     const NAME: &str = "a_missing_key_is_an_authentication_error";
//!     if !dive_test::child::is_child(NAME) {
//!         return dive_test::child::rerun_with_env(NAME, &["ACME_API_KEY"], &[]);
//!     }
//!     assert!(std::env::var_os("ACME_API_KEY").is_none());
//!     // ... the assertions, which now always run
//! }
//! ```

use std::process::Command;

/// The variable that marks the child and names the test it runs.
pub const CHILD_VAR: &str = "DIVE_TEST_CHILD";

/// Whether this process is the child [`rerun_with_env`] started for `test`.
#[must_use]
#[allow(clippy::disallowed_methods)] // the marker `rerun_with_env` sets for its child
pub fn is_child(test: &str) -> bool {
    std::env::var(CHILD_VAR).is_ok_and(|t| t == test)
}

/// Runs the current test binary again with only `test` selected (`--exact`), the `remove`
/// variables taken out of its environment and `set` added.
///
/// # Panics
/// Unless the child ran exactly that one test and it passed; the panic carries the child's
/// output.
pub fn rerun_with_env(test: &str, remove: &[&str], set: &[(&str, &str)]) {
    let exe = std::env::current_exe().unwrap_or_else(|e| panic!("no test binary to rerun: {e}"));
    let mut command = Command::new(exe);
    command.args([test, "--exact", "--nocapture", "--test-threads", "1"]).env(CHILD_VAR, test);
    for name in remove {
        command.env_remove(name);
    }
    command.envs(set.iter().copied());
    let out = command.output().unwrap_or_else(|e| panic!("could not rerun {test}: {e}"));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success() && stdout.contains("1 passed"),
        "{test} in a child process without {remove:?} failed ({}):\n{stdout}\n{stderr}",
        out.status
    );
}
