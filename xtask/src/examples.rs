//! Runs every example of the `dive-examples` and `downstream-example` packages offline: no provider key or endpoint in
//! its environment, `CI=true`, stdin closed, and a time limit each.

use std::io::Read;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::checks::{metadata, root, run, target_dir};

/// How long one example may run.
const TIME_LIMIT: Duration = Duration::from_secs(120);

/// Whether a variable can point an example at a real provider (a key or an endpoint).
fn is_provider_variable(name: &str) -> bool {
    ["_API_KEY", "_AUTH_TOKEN", "_BASE_URL", "_API_BASE"].iter().any(|s| name.ends_with(s))
        || name.starts_with("OLLAMA_")
}

/// The package a downstream author would write (`examples/downstream/`): its examples run too.
const DOWNSTREAM: &str = "downstream-example";

/// The example names a package declares.
fn declared_examples(meta: &serde_json::Value, name: &str) -> Result<Vec<(String, PathBuf)>, String> {
    let package = meta["packages"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|p| p["name"] == name)
        .ok_or_else(|| format!("no {name} package"))?;
    let mut declared: Vec<(String, PathBuf)> = package["targets"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|t| t["kind"].as_array().is_some_and(|k| k.iter().any(|k| k == "example")))
        .filter_map(|t| Some((t["name"].as_str()?.to_owned(), PathBuf::from(t["src_path"].as_str()?))))
        .collect();
    declared.sort();
    Ok(declared)
}

/// The example names declared by `dive-examples`, checked against the files in `examples/`.
fn examples() -> Result<Vec<String>, String> {
    let meta = metadata()?;
    let declared = declared_examples(&meta, "dive-examples")?;
    let dir = root().join("examples");
    let entries = std::fs::read_dir(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let mut undeclared = Vec::new();
    for entry in entries.flatten() {
        let path = entry.path();
        if path.extension().is_some_and(|e| e == "rs") {
            let real = path.canonicalize().unwrap_or(path.clone());
            if !declared.iter().any(|(_, src)| src.canonicalize().unwrap_or(src.clone()) == real) {
                undeclared.push(path.display().to_string());
            }
        }
    }
    if !undeclared.is_empty() {
        return Err(format!(
            "not declared as an [[example]] in examples/Cargo.toml: {}",
            undeclared.join(", ")
        ));
    }
    Ok(declared.into_iter().map(|(name, _)| name).collect())
}

/// Builds every example, then runs each offline within [`TIME_LIMIT`].
pub fn run_all() -> Result<(), String> {
    let mut names = examples()?;
    names.extend(declared_examples(&metadata()?, DOWNSTREAM)?.into_iter().map(|(name, _)| name));
    // Every workspace example is built (the test build has built them already), so the
    // dependencies resolve with the test build's features and its binaries are reused: built
    // for these two packages alone, the dependency tree would be compiled again.
    run("cargo", &["build", "--locked", "--workspace", "--examples"], &[])?;
    let bin_dir = target_dir()?.join("debug").join("examples");
    let mut failed = Vec::new();
    for name in &names {
        let started = Instant::now();
        match run_one(&bin_dir.join(name)) {
            Ok(()) => eprintln!("xtask examples: {name} ok ({:.1} s)", started.elapsed().as_secs_f64()),
            Err(e) => {
                eprintln!("xtask examples: {name} FAILED: {e}");
                failed.push(name.clone());
            }
        }
    }
    if failed.is_empty() {
        eprintln!("xtask examples: all {} examples ran offline", names.len());
        Ok(())
    } else {
        Err(format!("examples failed offline: {}", failed.join(", ")))
    }
}

fn run_one(binary: &std::path::Path) -> Result<(), String> {
    let mut command = Command::new(binary);
    for (name, _) in std::env::vars_os() {
        if name.to_str().is_some_and(is_provider_variable) {
            command.env_remove(&name);
        }
    }
    // Nothing listens on the discard port: the Ollama example falls back to its mock.
    command.env("OLLAMA_HOST", "http://127.0.0.1:9").env("CI", "true");
    let mut child = command
        .current_dir(root())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("could not start {}: {e}", binary.display()))?;
    // Drain both pipes while waiting, so a chatty example never blocks on a full pipe.
    let drain = |pipe: Option<Box<dyn Read + Send>>| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            if let Some(mut pipe) = pipe {
                let _ = pipe.read_to_end(&mut bytes);
            }
            String::from_utf8_lossy(&bytes).into_owned()
        })
    };
    let stdout = drain(child.stdout.take().map(|p| Box::new(p) as Box<dyn Read + Send>));
    let stderr = drain(child.stderr.take().map(|p| Box::new(p) as Box<dyn Read + Send>));
    let deadline = Instant::now() + TIME_LIMIT;
    let status = loop {
        if let Some(status) = child.try_wait().map_err(|e| e.to_string())? {
            break Some(status);
        }
        if Instant::now() >= deadline {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let (stdout, stderr) = (stdout.join().unwrap_or_default(), stderr.join().unwrap_or_default());
    match status {
        Some(status) if status.success() => Ok(()),
        Some(status) => Err(format!("{status}\n--- stdout\n{stdout}\n--- stderr\n{stderr}")),
        None => Err(format!(
            "still running after {} s (killed)\n--- stdout\n{stdout}\n--- stderr\n{stderr}",
            TIME_LIMIT.as_secs()
        )),
    }
}
