//! The Python interpreter that holds the official SDKs judging our wire formats in the
//! provider interop tests: found, checked against the one pinned list
//! (`crates/dive-test/interop/requirements.txt`), and skipped only where skipping is allowed.
//!
//! Every provider's interop tests start with [`python`]:
//!
//! ```no_run
//! let Some(py) = dive_test::interop::python("anthropic") else { return };
//! // run `py` on the SDK's types ...
//! # let _ = py;
//! ```

use std::path::{Path, PathBuf};
use std::process::Command;

/// The pinned SDKs, in pip's requirements format (`name==version` a line).
pub const REQUIREMENTS: &str = include_str!("../interop/requirements.txt");

/// The directory of the pinned list and the checking script.
fn interop_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("interop")
}

/// The checking script (`check_sdks.py`), shared with `cargo xtask`.
#[must_use]
pub fn check_script() -> PathBuf {
    interop_dir().join("check_sdks.py")
}

/// Where the interop tests look for the interpreter, and whether they may be skipped.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct InteropSettings {
    /// The interpreter to run.
    pub python: String,
    /// `DIVE_SKIP_PYTHON_INTEROP=1`: skip when the SDK is missing (never under CI).
    pub skip: bool,
    /// Running under CI (`CI` set to anything but empty, `0` or `false`).
    pub ci: bool,
}

impl InteropSettings {
    /// Settings for this interpreter: no skipping, not CI.
    #[must_use]
    pub fn new(python: impl Into<String>) -> Self {
        Self { python: python.into(), skip: false, ci: false }
    }

    /// Reads `DIVE_PYTHON` (else the virtualenv `cargo xtask` builds under `target/` when it
    /// exists, else `python3`), `DIVE_SKIP_PYTHON_INTEROP` and `CI`.
    #[must_use]
    #[allow(clippy::disallowed_methods)] // the from_env constructor
    pub fn from_env() -> Self {
        let venv = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/interop-venv/bin/python");
        let python = std::env::var("DIVE_PYTHON").ok().filter(|p| !p.is_empty()).unwrap_or_else(|| {
            if venv.is_file() { venv.display().to_string() } else { "python3".to_string() }
        });
        let ci =
            std::env::var("CI").is_ok_and(|v| !matches!(v.trim(), "" | "0" | "false" | "FALSE" | "False"));
        let skip = std::env::var("DIVE_SKIP_PYTHON_INTEROP").is_ok_and(|v| !v.is_empty() && v != "0");
        Self { python, skip, ci }
    }

    /// Allows skipping (what `DIVE_SKIP_PYTHON_INTEROP=1` sets).
    #[must_use]
    pub fn with_skip(mut self, skip: bool) -> Self {
        self.skip = skip;
        self
    }

    /// Marks the run as CI (what `CI=true` sets).
    #[must_use]
    pub fn with_ci(mut self, ci: bool) -> Self {
        self.ci = ci;
        self
    }

    /// The interpreter when it has `distribution` at its pinned version; `Ok(None)` when it
    /// does not and skipping is allowed (locally, with `DIVE_SKIP_PYTHON_INTEROP=1`).
    ///
    /// # Errors
    /// [`InteropError::SkipInCi`] when skipping is asked for under CI, whatever is installed;
    /// [`InteropError::Interpreter`] when the interpreter does not start;
    /// [`InteropError::Sdk`] when the SDK is missing, at another version or not pinned.
    pub fn locate(&self, distribution: &str) -> Result<Option<String>, InteropError> {
        if self.ci && self.skip {
            return Err(InteropError::SkipInCi);
        }
        let out = Command::new(&self.python)
            .arg(check_script())
            .arg(distribution)
            .output()
            .map_err(|source| InteropError::Interpreter { python: self.python.clone(), source });
        let report = match out {
            Ok(out) if out.status.success() => return Ok(Some(self.python.clone())),
            Ok(out) => {
                let text = String::from_utf8_lossy(&out.stdout).trim().to_string();
                let stderr = String::from_utf8_lossy(&out.stderr).trim().to_string();
                Err(InteropError::Sdk {
                    python: self.python.clone(),
                    report: if text.is_empty() { stderr } else { text },
                })
            }
            Err(e) => Err(e),
        };
        match report {
            Err(e) if self.skip => {
                eprintln!("DIVE_SKIP_PYTHON_INTEROP=1: skipping the {distribution} SDK interop check: {e}");
                Ok(None)
            }
            other => other,
        }
    }
}

/// Why the interop tests cannot run.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum InteropError {
    /// `DIVE_SKIP_PYTHON_INTEROP` is set under CI.
    #[error(
        "DIVE_SKIP_PYTHON_INTEROP is set under CI: the interop tests may not be skipped in CI \
         (unset it; `cargo xtask ci` installs the pinned SDKs into target/interop-venv)"
    )]
    SkipInCi,
    /// The interpreter did not start.
    #[error(
        "could not run `{python}`: install Python 3, or set DIVE_PYTHON to an interpreter \
         (DIVE_SKIP_PYTHON_INTEROP=1 skips these tests outside CI)"
    )]
    Interpreter {
        /// The interpreter.
        python: String,
        /// Why it did not start.
        #[source]
        source: std::io::Error,
    },
    /// The SDK is missing, at another version than pinned, or not pinned.
    #[error(
        "`{python}` is not ready for the interop tests: {report}. Run `cargo xtask interop-venv` \
         (a virtualenv with the pinned SDKs under target/) or `{python} -m pip install -r \
         crates/dive-test/interop/requirements.txt`; DIVE_PYTHON picks another interpreter, \
         DIVE_SKIP_PYTHON_INTEROP=1 skips these tests outside CI"
    )]
    Sdk {
        /// The interpreter.
        python: String,
        /// What the check found (`missing anthropic==2.14.0 (…)`, `wrong openai 3.1.0, pinned …`).
        report: String,
    },
}

/// For tests: the interpreter that has `distribution` at its pinned version, from
/// [`InteropSettings::from_env`]; `None` when the test is skipped (locally only).
///
/// # Panics
/// When the interop tests cannot run and may not be skipped, with what to do.
#[must_use]
pub fn python(distribution: &str) -> Option<String> {
    match InteropSettings::from_env().locate(distribution) {
        Ok(python) => python,
        Err(e) => panic!("{e}"),
    }
}

/// For tests: runs a provider's request validator (`script DIR`, a script built on
/// `interop/sdk_checks.py`) over the bodies written to `dir`, and checks that the official SDK
/// accepted exactly `expected` of them and rejected none. Returns the validator's report.
///
/// # Panics
/// When the interpreter does not start, the validator fails its self-check, any body is
/// rejected, or the count differs — with the validator's report.
pub fn assert_bodies_valid(python: &str, script: &Path, dir: &Path, expected: usize) -> String {
    let out = Command::new(python)
        .arg(script)
        .arg(dir)
        .output()
        .unwrap_or_else(|e| panic!("could not run {python} {}: {e}", script.display()));
    let report = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "the official SDK rejected some request bodies:\n{report}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(report.contains(&format!("\n{expected} valid, 0 invalid")), "{report}");
    report
}

/// For tests: [`assert_bodies_valid`] over request bodies as sent, each with its validator
/// kind (`anthropic-beta`, `openai-compact`, …): they are written to a temporary directory as
/// `call{i}.{kind}.json` and every one must be valid.
///
/// # Panics
/// As [`assert_bodies_valid`], and when the temporary directory cannot be written.
pub fn assert_sent_bodies_valid<'a>(
    python: &str,
    script: &Path,
    bodies: impl IntoIterator<Item = (&'a [u8], &'a str)>,
) -> String {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("temporary directory: {e}"));
    let mut count = 0;
    for (i, (body, kind)) in bodies.into_iter().enumerate() {
        let path = dir.path().join(format!("call{i}.{kind}.json"));
        std::fs::write(&path, body).unwrap_or_else(|e| panic!("write {}: {e}", path.display()));
        count += 1;
    }
    assert_bodies_valid(python, script, dir.path(), count)
}

/// The shared response-model check (`interop/sdk_response.py`).
#[must_use]
pub fn response_script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("interop/sdk_response.py")
}

/// For tests: parses `file` with an official SDK's response model `model` (`module:Class`,
/// e.g. `anthropic.types.beta:BetaMessage`), strictly, and returns what the SDK read as JSON
/// (fields that were set only), for the test to compare with what it expects.
///
/// # Panics
/// When the interpreter does not start or the SDK rejects the file, with its errors.
pub fn sdk_read(python: &str, model: &str, file: &Path) -> serde_json::Value {
    let script = response_script();
    let out = Command::new(python)
        .arg(&script)
        .arg(model)
        .arg(file)
        .output()
        .unwrap_or_else(|e| panic!("could not run {python} {}: {e}", script.display()));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "the official SDK rejected {} as {model}:\n{stdout}\n{}",
        file.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_str(stdout.trim())
        .unwrap_or_else(|e| panic!("the SDK check printed no JSON ({e}): {stdout}"))
}

/// The pinned version of `distribution`.
#[must_use]
pub fn pinned_version(distribution: &str) -> Option<&'static str> {
    REQUIREMENTS
        .lines()
        .filter_map(|l| l.split('#').next()?.trim().split_once("=="))
        .find_map(|(name, version)| (name.trim() == distribution).then_some(version.trim()))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn skipping_under_ci_fails_whatever_is_installed() {
        let settings = InteropSettings::new("python3").with_skip(true).with_ci(true);
        assert!(matches!(settings.locate("anthropic"), Err(InteropError::SkipInCi)));
    }

    #[test]
    fn a_missing_interpreter_is_an_error_unless_skipped_locally() {
        let settings = InteropSettings::new("/nonexistent/python3");
        let err = settings.locate("anthropic").unwrap_err();
        assert!(matches!(err, InteropError::Interpreter { .. }), "{err}");
        assert!(err.to_string().contains("DIVE_PYTHON"), "{err}");
        assert_eq!(settings.with_skip(true).locate("anthropic").unwrap(), None);
    }

    #[cfg(unix)]
    #[test]
    fn a_version_other_than_the_pinned_one_is_refused() {
        use std::os::unix::fs::PermissionsExt as _;
        // An interpreter whose `ollama` is 0.0.1: a fake package first on PYTHONPATH.
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("ollama")).unwrap();
        std::fs::write(dir.path().join("ollama/__init__.py"), "").unwrap();
        std::fs::create_dir(dir.path().join("ollama-0.0.1.dist-info")).unwrap();
        std::fs::write(
            dir.path().join("ollama-0.0.1.dist-info/METADATA"),
            "Metadata-Version: 2.1\nName: ollama\nVersion: 0.0.1\n",
        )
        .unwrap();
        let base = InteropSettings::from_env().python;
        let wrapper = dir.path().join("python");
        let script = format!("#!/bin/sh\nPYTHONPATH='{}' exec '{base}' \"$@\"\n", dir.path().display());
        std::fs::write(&wrapper, script).unwrap();
        std::fs::set_permissions(&wrapper, std::fs::Permissions::from_mode(0o755)).unwrap();
        let err = InteropSettings::new(wrapper.display().to_string()).locate("ollama").unwrap_err();
        let InteropError::Sdk { report, .. } = &err else { panic!("{err}") };
        let pinned = pinned_version("ollama").unwrap();
        assert_eq!(report, &format!("wrong ollama 0.0.1, pinned {pinned}"), "{err}");
        assert!(err.to_string().contains("cargo xtask interop-venv"), "{err}");
    }

    #[test]
    fn every_sdk_is_pinned_once() {
        for sdk in ["anthropic", "openai", "google-genai", "mistralai", "ollama"] {
            assert!(pinned_version(sdk).is_some_and(|v| !v.is_empty()), "{sdk}");
        }
        assert_eq!(pinned_version("pydantic"), None);
    }
}
