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

/// Runs the current test binary again with only `test` selected (`--exact`, by its
/// [`full_test_name`]), the `remove` variables taken out of its environment and `set` added.
///
/// # Panics
/// Unless the child ran exactly that one test and it passed; the panic carries the child's
/// output.
pub fn rerun_with_env(test: &str, remove: &[&str], set: &[(&str, &str)]) {
    let exe = std::env::current_exe().unwrap_or_else(|e| panic!("no test binary to rerun: {e}"));
    let mut command = Command::new(exe);
    command
        .args([&full_test_name(test), "--exact", "--nocapture", "--test-threads", "1"])
        .env(CHILD_VAR, test);
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

/// The name the current test binary lists `test` under: the one test named `test`, or whose
/// module path ends in `::test` (a crate's integration tests are modules of one binary). What
/// `--exact` needs to run that test alone in a child process.
///
/// # Panics
/// When the binary cannot list its tests, or lists no test or several tests of that name.
#[must_use]
pub fn full_test_name(test: &str) -> String {
    let exe = std::env::current_exe().unwrap_or_else(|e| panic!("no test binary to list: {e}"));
    let out = Command::new(exe)
        .args(["--list", "--format", "terse"])
        .output()
        .unwrap_or_else(|e| panic!("could not list the tests to find {test}: {e}"));
    let listed = String::from_utf8_lossy(&out.stdout);
    let in_module = format!("::{test}");
    let found: Vec<&str> = listed
        .lines()
        .filter_map(|line| line.strip_suffix(": test"))
        .filter(|name| *name == test || name.ends_with(&in_module))
        .collect();
    match found.as_slice() {
        [name] => (*name).to_owned(),
        _ => panic!("the test binary lists {} tests named {test}: {found:?}", found.len()),
    }
}

#[cfg(test)]
mod tests {
    use super::full_test_name;

    #[test]
    fn a_test_is_found_under_its_module_path() {
        assert_eq!(
            full_test_name("a_test_is_found_under_its_module_path"),
            "child::tests::a_test_is_found_under_its_module_path"
        );
    }

    #[test]
    #[should_panic(expected = "lists 0 tests named no_such_test")]
    fn a_name_the_binary_does_not_list_is_an_error() {
        let _ = full_test_name("no_such_test");
    }
}
