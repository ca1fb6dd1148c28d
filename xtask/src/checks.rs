//! The checks behind `cargo xtask`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

type Result = std::result::Result<(), String>;

/// Third-party crates dive-core may pull in (its normal dependency tree).
const CORE_ALLOWLIST: &[&str] = &[
    "dive-core",
    "dyn-clone",
    "futures-core",
    "itoa",
    "memchr",
    "proc-macro2",
    "quote",
    "ref-cast",
    "ref-cast-impl",
    "ryu",
    "schemars",
    "schemars_derive",
    "serde",
    "serde_core",
    "serde_derive",
    "serde_derive_internals",
    "serde_json",
    "syn",
    "thiserror",
    "thiserror-impl",
    "unicode-ident",
    "zmij",
];

/// The layer of each workspace crate (crates.md). A crate may depend only on lower layers.
/// `dive-test` sits above the engine (it depends on core and agent) and is only ever a
/// dev-dependency, which this check skips — except in `dive-cli`, whose offline mode runs on
/// `TestModel`.
/// The one sanctioned edge inside layer 2: OpenAI-compatible vendor crates are thin profiles
/// over `dive-openai`'s wire code (see docs/ARCHITECTURE.md), so they may depend on it. No
/// other same-layer edge is allowed, and `dive-openai` itself depends on no layer-2 crate.
const SAME_LAYER_ALLOWED: &[(&str, &str)] =
    &[("dive-grok", "dive-openai"), ("dive-mistral", "dive-openai"), ("dive-openrouter", "dive-openai")];

fn layer(name: &str) -> Option<u8> {
    Some(match name {
        "dive-core" => 0,
        "dive-agent" | "dive-provider" => 1,
        "dive" => 3,
        "dive-cli" => 4,
        n if n.starts_with("dive-") => 2,
        _ => return None,
    })
}

pub(crate) fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().map_or_else(|| PathBuf::from("."), Path::to_path_buf)
}

pub(crate) fn run(program: &str, args: &[&str], env: &[(&str, &str)]) -> Result {
    eprintln!("xtask: $ {program} {}", args.join(" "));
    let status = Command::new(program)
        .args(args)
        .envs(env.iter().copied())
        .current_dir(root())
        .status()
        .map_err(|e| format!("could not start {program}: {e}"))?;
    if status.success() { Ok(()) } else { Err(format!("`{program} {}` failed ({status})", args.join(" "))) }
}

fn output(program: &str, args: &[&str]) -> std::result::Result<String, String> {
    let out = Command::new(program)
        .args(args)
        .current_dir(root())
        .output()
        .map_err(|e| format!("could not start {program}: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "`{program} {}` failed: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    String::from_utf8(out.stdout).map_err(|e| e.to_string())
}

/// The directory cargo builds into (`target/` unless `CARGO_TARGET_DIR` says otherwise).
pub(crate) fn target_dir() -> std::result::Result<PathBuf, String> {
    let meta = metadata()?;
    meta["target_directory"]
        .as_str()
        .map(PathBuf::from)
        .ok_or_else(|| "cargo metadata: no target_directory".into())
}

pub fn ci() -> Result {
    fmt()?;
    tidy()?;
    check_layers()?;
    clippy()?;
    test()?;
    examples()?;
    doc()?;
    check_features()?;
    eprintln!("xtask ci: all checks passed");
    Ok(())
}

pub fn fmt() -> Result {
    run("cargo", &["fmt", "--all", "--check"], &[])
}

pub fn clippy() -> Result {
    run("cargo", &["clippy", "--workspace", "--all-targets", "--locked", "--", "-D", "warnings"], &[])
}

pub fn test() -> Result {
    // The interop tests' interpreter: one with the pinned SDKs, else target/interop-venv.
    let python = crate::interop::interop_python()?.map(|p| p.display().to_string());
    let env: Vec<(&str, &str)> = python.as_deref().map(|p| ("DIVE_PYTHON", p)).into_iter().collect();
    let nextest =
        Command::new("cargo").args(["nextest", "--version"]).output().is_ok_and(|o| o.status.success());
    if nextest {
        run("cargo", &["nextest", "run", "--workspace", "--locked", "--no-tests=pass"], &env)?;
        run("cargo", &["test", "--workspace", "--locked", "--doc"], &env)
    } else {
        run("cargo", &["test", "--workspace", "--locked"], &env)
    }
}

/// Builds `target/interop-venv` with the pinned SDKs (what `test` falls back to).
pub fn interop_venv() -> Result {
    let python = crate::interop::venv()?;
    eprintln!("xtask interop-venv: {} has the pinned SDKs (DIVE_PYTHON={0})", python.display());
    Ok(())
}

/// Prints the interpreter `test` gives the interop tests, building target/interop-venv when
/// no interpreter has the pinned SDKs.
pub fn interop_python() -> Result {
    match crate::interop::interop_python()? {
        Some(python) => eprintln!("xtask interop-python: DIVE_PYTHON={}", python.display()),
        None => eprintln!("xtask interop-python: the interop tests are skipped (DIVE_SKIP_PYTHON_INTEROP=1)"),
    }
    Ok(())
}

/// Runs every example offline.
pub fn examples() -> Result {
    crate::examples::run_all()
}

pub fn doc() -> Result {
    run("cargo", &["doc", "--workspace", "--no-deps", "--locked"], &[("RUSTDOCFLAGS", "-D warnings")])
}

pub(crate) fn metadata() -> std::result::Result<Value, String> {
    let text = output("cargo", &["metadata", "--format-version", "1", "--no-deps", "--locked"])?;
    serde_json::from_str(&text).map_err(|e| format!("cargo metadata: {e}"))
}

pub fn check_layers() -> Result {
    let tree =
        output("cargo", &["tree", "-p", "dive-core", "-e", "normal", "--prefix", "none", "--format", "{p}"])?;
    let mut outside: Vec<&str> = tree
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .filter(|name| !CORE_ALLOWLIST.contains(name))
        .collect();
    outside.sort_unstable();
    outside.dedup();
    if !outside.is_empty() {
        return Err(format!(
            "dive-core depends on crates outside its allowlist: {} (see docs/ARCHITECTURE.md)",
            outside.join(", ")
        ));
    }
    let meta = metadata()?;
    let mut problems = Vec::new();
    for package in meta["packages"].as_array().into_iter().flatten() {
        let name = package["name"].as_str().unwrap_or_default();
        let Some(own) = layer(name) else { continue };
        for dep in package["dependencies"].as_array().into_iter().flatten() {
            if dep["kind"].as_str() == Some("dev") {
                continue;
            }
            let dep_name = dep["name"].as_str().unwrap_or_default();
            let Some(theirs) = layer(dep_name) else { continue };
            // The `dive` binary runs offline on `TestModel`, the one product use of the kit.
            if dep_name == "dive-test" && name != "dive-cli" {
                problems.push(format!("{name} depends on dive-test outside [dev-dependencies]"));
            } else if theirs >= own && !SAME_LAYER_ALLOWED.contains(&(name, dep_name)) {
                problems.push(format!("{name} (layer {own}) depends on {dep_name} (layer {theirs})"));
            }
        }
    }
    if problems.is_empty() {
        eprintln!("xtask check-layers: dive-core allowlist and layering hold");
        Ok(())
    } else {
        Err(problems.join("; "))
    }
}

pub fn check_features() -> Result {
    let meta = metadata()?;
    let mut facade_features: Vec<String> = Vec::new();
    let mut crates: Vec<String> = Vec::new();
    for package in meta["packages"].as_array().into_iter().flatten() {
        let name = package["name"].as_str().unwrap_or_default().to_owned();
        if name == "xtask" {
            continue;
        }
        if name == "dive" {
            let features: BTreeMap<String, Value> =
                serde_json::from_value(package["features"].clone()).unwrap_or_default();
            facade_features = features.into_keys().filter(|f| f != "default").collect();
        }
        crates.push(name);
    }
    for name in &crates {
        run("cargo", &["check", "--locked", "-p", name], &[])?;
    }
    run("cargo", &["check", "--locked", "-p", "dive", "--no-default-features"], &[])?;
    for feature in &facade_features {
        run(
            "cargo",
            &["check", "--locked", "-p", "dive", "--no-default-features", "--features", feature],
            &[],
        )?;
    }
    Ok(())
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            if path.file_name().is_some_and(|n| n == "target") {
                continue;
            }
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

pub fn tidy() -> Result {
    let mut files = Vec::new();
    for dir in ["crates", "examples", "xtask"] {
        rust_files(&root().join(dir), &mut files);
    }
    let missing: Vec<String> = files
        .iter()
        .filter(|f| std::fs::read_to_string(f).map_or(true, |text| !text.starts_with("//!")))
        .map(|f| f.strip_prefix(root()).unwrap_or(f).display().to_string())
        .collect();
    if missing.is_empty() {
        eprintln!("xtask tidy: {} Rust files open with a //! line", files.len());
        Ok(())
    } else {
        Err(format!("files without an opening //! line: {}", missing.join(", ")))
    }
}
