//! The Python interpreter for the provider interop tests: one that already has the pinned
//! official SDKs, or a virtualenv under `target/` that `cargo xtask` builds with them, so
//! `cargo xtask ci` needs no extra step on a fresh machine.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::checks::{root, run, target_dir};

/// The pinned list and the check both sides share (dive-test reads them too).
const INTEROP_DIR: &str = "crates/dive-test/interop";

fn truthy(name: &str) -> bool {
    std::env::var(name).is_ok_and(|v| !matches!(v.trim(), "" | "0" | "false" | "FALSE" | "False"))
}

/// Whether `python` has every pinned SDK at its pinned version; the check's report.
fn has_pinned_sdks(python: &Path) -> (bool, String) {
    match Command::new(python).arg(root().join(INTEROP_DIR).join("check_sdks.py")).output() {
        Ok(out) => (out.status.success(), String::from_utf8_lossy(&out.stdout).trim().replace('\n', "; ")),
        Err(e) => (false, format!("could not run {}: {e}", python.display())),
    }
}

/// The interpreter the interop tests are to use (`DIVE_PYTHON` for them), or `None` when they
/// are skipped locally.
///
/// `DIVE_PYTHON`, when set, must have the pinned SDKs; otherwise `python3` is used when it
/// has them, and failing that `target/interop-venv` (created and filled with
/// `pip install -r crates/dive-test/interop/requirements.txt` when needed).
pub fn interop_python() -> Result<Option<PathBuf>, String> {
    let (ci, skip) = (truthy("CI"), truthy("DIVE_SKIP_PYTHON_INTEROP"));
    if ci && skip {
        return Err("DIVE_SKIP_PYTHON_INTEROP is set under CI=true: the interop tests may not be skipped \
                    in CI (unset it; the pinned SDKs are installed into target/interop-venv)"
            .into());
    }
    if let Some(chosen) = std::env::var_os("DIVE_PYTHON").filter(|p| !p.is_empty()).map(PathBuf::from) {
        let (ok, report) = has_pinned_sdks(&chosen);
        return match (ok, skip) {
            (true, _) => Ok(Some(chosen)),
            (false, true) => {
                eprintln!("xtask: DIVE_SKIP_PYTHON_INTEROP=1: the interop tests are skipped ({report})");
                Ok(None)
            }
            (false, false) => {
                Err(format!("DIVE_PYTHON={} lacks the pinned SDKs: {report}", chosen.display()))
            }
        };
    }
    let system = PathBuf::from("python3");
    let (ok, report) = has_pinned_sdks(&system);
    if ok {
        eprintln!("xtask: python3 has the pinned SDKs");
        return Ok(Some(system));
    }
    if skip {
        eprintln!("xtask: DIVE_SKIP_PYTHON_INTEROP=1: the interop tests are skipped ({report})");
        return Ok(None);
    }
    eprintln!("xtask: python3 lacks the pinned SDKs ({report}); using target/interop-venv");
    venv().map(Some)
}

/// `target/interop-venv` with the pinned SDKs, created or completed as needed.
pub fn venv() -> Result<PathBuf, String> {
    let dir = target_dir()?.join("interop-venv");
    let python = dir.join("bin").join("python");
    if !python.is_file() {
        let dir_text = dir.display().to_string();
        run("python3", &["-m", "venv", &dir_text], &[])
            .map_err(|e| format!("{e}: Python 3 with the venv module is needed for the interop tests"))?;
    }
    if has_pinned_sdks(&python).0 {
        eprintln!("xtask: {} has the pinned SDKs", dir.display());
        return Ok(python);
    }
    let requirements = root().join(INTEROP_DIR).join("requirements.txt").display().to_string();
    let python_text = python.display().to_string();
    run(
        &python_text,
        &["-m", "pip", "install", "--quiet", "--disable-pip-version-check", "-r", &requirements],
        &[],
    )
    .map_err(|e| format!("{e}: could not install the pinned SDKs into {}", dir.display()))?;
    match has_pinned_sdks(&python) {
        (true, _) => Ok(python),
        (false, report) => {
            Err(format!("{} still lacks the pinned SDKs after pip install: {report}", dir.display()))
        }
    }
}
