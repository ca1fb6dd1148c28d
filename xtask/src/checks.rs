//! The checks behind `cargo xtask`.

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

/// The layer of each workspace crate (crates.md), in tenths so a half layer fits: a crate may
/// depend only on strictly lower layers, with no exception. `dive-test` sits above the engine
/// (it depends on core and agent) and is only ever a dev-dependency, which this check skips —
/// except in `dive-cli`, whose offline mode runs on `TestModel`. Wire-format crates
/// (`dive-openai-wire`) sit at layer 1.5, between the shared provider plumbing they build on
/// and the vendor crates that use them, so an OpenAI-compatible vendor never depends on
/// another vendor's crate.
fn layer(name: &str) -> Option<u8> {
    Some(match name {
        "dive-core" => 0,
        "dive-agent" | "dive-provider" | "dive-session-log" | "dive-process" => 10,
        n if n.ends_with("-wire") && n.starts_with("dive-") => 15,
        // Subagents read skill-style frontmatter and preload skills, so they sit above skills.
        "dive-subagent" => 25,
        "dive" => 30,
        "dive-cli" => 40,
        n if n.starts_with("dive-") => 20,
        _ => return None,
    })
}

/// A layer as the docs write it (`1.5`, `2`).
fn layer_name(layer: u8) -> String {
    if layer.is_multiple_of(10) { (layer / 10).to_string() } else { format!("{}.{}", layer / 10, layer % 10) }
}

pub(crate) fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().map_or_else(|| PathBuf::from("."), Path::to_path_buf)
}

pub(crate) fn run(program: &str, args: &[&str], env: &[(&str, &str)]) -> Result {
    eprintln!("xtask: $ {program} {}", args.join(" "));
    let started = std::time::Instant::now();
    let status = Command::new(program)
        .args(args)
        .envs(env.iter().copied())
        .current_dir(root())
        .status()
        .map_err(|e| format!("could not start {program}: {e}"))?;
    // Each step's wall time, so a slow CI run shows which step to trim.
    eprintln!("xtask: {:.0} s for `{program} {}`", started.elapsed().as_secs_f64(), args.join(" "));
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

/// Packages whose library reads its environment by design: the `dive` binary's crate (no
/// library) and the automation.
const ENV_READING_PACKAGES: &[&str] = &["dive-cli", "xtask"];

/// The attribute every other library crate's root carries, so the one clippy pass denies
/// environment reads (clippy.toml's `disallowed-methods`) in library code, and only there:
/// tests, benches, examples and binaries read their environment freely, and a library's
/// `from_env` constructors carry an `#[allow]`.
const ENV_READS_DENIED: &str = "#![cfg_attr(not(test), deny(clippy::disallowed_methods))]";

/// Clippy on every target with `-D warnings` (environment reads in library code denied by
/// [`ENV_READS_DENIED`], which `tidy` checks is in place).
pub fn clippy() -> Result {
    run("cargo", &["clippy", "--workspace", "--all-targets", "--locked", "--", "-D", "warnings"], &[])
}

/// The library roots of the workspace that lack [`ENV_READS_DENIED`] (those of
/// [`ENV_READING_PACKAGES`] excepted).
fn library_roots_without_env_rule() -> std::result::Result<Vec<String>, String> {
    let meta = metadata()?;
    let mut missing = Vec::new();
    for package in meta["packages"].as_array().into_iter().flatten() {
        let name = package["name"].as_str().unwrap_or_default();
        if ENV_READING_PACKAGES.contains(&name) {
            continue;
        }
        let libraries =
            package["targets"].as_array().into_iter().flatten().filter(|t| {
                t["kind"].as_array().is_some_and(|k| k.iter().any(|k| k == "lib" || k == "rlib"))
            });
        for target in libraries {
            let path = PathBuf::from(target["src_path"].as_str().unwrap_or_default());
            let text = std::fs::read_to_string(&path).unwrap_or_default();
            if !text.lines().any(|l| l.trim() == ENV_READS_DENIED) {
                missing.push(path.strip_prefix(root()).unwrap_or(&path).display().to_string());
            }
        }
    }
    Ok(missing)
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

/// Rustdoc on the workspace with `-D warnings`, after checking that no two documented targets
/// share a directory of `target/doc` (their rustdoc runs would race on it).
pub fn doc() -> Result {
    let clashes = crate::doc_names::doc_name_clashes(&metadata()?);
    if !clashes.is_empty() {
        return Err(format!(
            "targets documented under one crate name, so two rustdoc runs would race on one directory \
             (set `doc = false` on a binary, or rename one): {}",
            clashes.join("; ")
        ));
    }
    run("cargo", &["doc", "--workspace", "--no-deps", "--locked"], &[("RUSTDOCFLAGS", "-D warnings")])
}

pub(crate) fn metadata() -> std::result::Result<Value, String> {
    let text = output("cargo", &["metadata", "--format-version", "1", "--no-deps", "--locked"])?;
    serde_json::from_str(&text).map_err(|e| format!("cargo metadata: {e}"))
}

/// The Dive crates the downstream example package (`examples/downstream/`) may build on
/// outside its dev-dependencies: the vocabulary and the store write rules. Its provider and
/// store prove that a third-party crate needs nothing else.
const DOWNSTREAM_ALLOWED: &[&str] = &["dive-core", "dive-session-log"];

/// The Dive crates in `downstream-example`'s normal dependency tree outside
/// [`DOWNSTREAM_ALLOWED`].
fn downstream_extra_dive_crates(tree: &str) -> Vec<String> {
    let mut extra: Vec<String> = tree
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .filter(|name| name.starts_with("dive") && !DOWNSTREAM_ALLOWED.contains(name))
        .map(str::to_owned)
        .collect();
    extra.sort_unstable();
    extra.dedup();
    extra
}

/// Fails when the downstream example package builds on a Dive crate besides
/// [`DOWNSTREAM_ALLOWED`].
fn check_downstream() -> Result {
    let tree = output(
        "cargo",
        &["tree", "-p", "downstream-example", "-e", "normal", "--prefix", "none", "--format", "{p}"],
    )?;
    let extra = downstream_extra_dive_crates(&tree);
    if extra.is_empty() {
        return Ok(());
    }
    Err(format!(
        "examples/downstream builds on {} besides {}: a downstream provider and store must need only \
         dive-core and the store rules (move the rest to [dev-dependencies])",
        extra.join(", "),
        DOWNSTREAM_ALLOWED.join(" and ")
    ))
}

pub fn check_layers() -> Result {
    check_downstream()?;
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
        for dep in package["dependencies"].as_array().into_iter().flatten() {
            if dep["kind"].as_str() == Some("dev") {
                continue;
            }
            problems.extend(edge_problem(name, dep["name"].as_str().unwrap_or_default()));
        }
    }
    if problems.is_empty() {
        eprintln!("xtask check-layers: dive-core allowlist and layering hold");
        Ok(())
    } else {
        Err(problems.join("; "))
    }
}

/// What is wrong with a normal dependency of `name` on `dep`, if anything.
fn edge_problem(name: &str, dep: &str) -> Option<String> {
    let (own, theirs) = (layer(name)?, layer(dep)?);
    // The `dive` binary runs offline on `TestModel`, the one product use of the kit.
    if dep == "dive-test" && name != "dive-cli" {
        Some(format!("{name} depends on dive-test outside [dev-dependencies]"))
    } else if theirs >= own {
        let (own, theirs) = (layer_name(own), layer_name(theirs));
        Some(format!("{name} (layer {own}) depends on {dep} (layer {theirs})"))
    } else {
        None
    }
}

/// The cargo-hack `check-features` runs (installed at this version when missing).
const CARGO_HACK_VERSION: &str = "0.6.46";

/// Packages `check-features` skips: automation and the example runner have no features and
/// are built by `clippy` and `examples` already.
const FEATURELESS_TOOLS: &[&str] = &["xtask", "dive-examples"];

/// Every crate built alone with each of its features alone, with no features, with its
/// defaults and with all of them (`cargo hack clippy --each-feature -- -D warnings`): a feature
/// that only compiles, or only compiles without warnings, next to another one fails here.
pub fn check_features() -> Result {
    ensure_cargo_hack()?;
    // Clippy rather than check, so a warning that shows with one feature alone (an unused
    // import, dead code) fails the build: `-D warnings` as the workspace-wide clippy step has.
    let mut args = vec!["hack", "clippy", "--workspace", "--each-feature", "--locked"];
    for package in FEATURELESS_TOOLS {
        args.extend(["--exclude", package]);
    }
    args.extend(["--", "-D", "warnings"]);
    run("cargo", &args, &[])
}

/// Installs cargo-hack (pinned, `--locked`) when `cargo hack` is not there, the way `test`
/// builds its Python virtualenv: `cargo xtask ci` needs nothing installed by hand.
fn ensure_cargo_hack() -> Result {
    let installed =
        Command::new("cargo").args(["hack", "--version"]).output().is_ok_and(|o| o.status.success());
    if installed {
        return Ok(());
    }
    eprintln!("xtask check-features: cargo-hack is missing; installing cargo-hack {CARGO_HACK_VERSION}");
    run("cargo", &["install", "cargo-hack", "--locked", "--version", CARGO_HACK_VERSION], &[])
        .map_err(|e| format!("{e}; install it by hand with `cargo install cargo-hack --locked`"))
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

/// Every Rust file of the workspace (`crates/`, `examples/`, `xtask/`).
fn workspace_rust_files() -> Vec<PathBuf> {
    let mut files = Vec::new();
    for dir in ["crates", "examples", "xtask"] {
        rust_files(&root().join(dir), &mut files);
    }
    files
}

/// Every comment line of a workspace Rust file that cites a document outside the repository,
/// as `path:line: mark` (this check's own file, which names the marks, excepted).
pub(crate) fn outside_citation_lines() -> Vec<String> {
    let own = root().join("xtask").join("src").join("tidy.rs");
    let mut found = Vec::new();
    for file in workspace_rust_files().into_iter().filter(|f| *f != own) {
        let Ok(text) = std::fs::read_to_string(&file) else { continue };
        for (line, mark) in crate::tidy::outside_citations(&text) {
            let shown = file.strip_prefix(root()).unwrap_or(&file).display().to_string();
            found.push(format!("{shown}:{line}: cites {mark:?}"));
        }
    }
    found
}

pub fn tidy() -> Result {
    let citations = outside_citation_lines();
    if !citations.is_empty() {
        return Err(format!(
            "comments cite documents outside the repository (state the rule itself): {}",
            citations.join("; ")
        ));
    }
    if !crate::codemap::is_current()? {
        return Err("the code map of docs/ARCHITECTURE.md is not current (a module was added, moved or \
             renamed): run `cargo xtask codemap`"
            .into());
    }
    let unguarded = library_roots_without_env_rule()?;
    if !unguarded.is_empty() {
        return Err(format!(
            "library roots without `{ENV_READS_DENIED}` (environment reads are denied in library code): {}",
            unguarded.join(", ")
        ));
    }
    let files = workspace_rust_files();
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

#[cfg(test)]
mod tests {
    use super::{downstream_extra_dive_crates, edge_problem};

    #[test]
    fn the_downstream_package_may_build_on_core_and_the_store_rules_only() {
        let tree = "downstream-example v0.0.0 (/w/examples/downstream)\ndive-core v0.1.0 (/w/crates/dive-core)\n\
                    dive-session-log v0.1.0\ntokio v1.48.0\ndive-provider v0.1.0 (/w/crates/dive-provider)\n";
        assert_eq!(downstream_extra_dive_crates(tree), ["dive-provider"]);
        assert!(downstream_extra_dive_crates("dive-core v0.1.0\ndive-session-log v0.1.0\n").is_empty());
    }

    #[test]
    fn a_vendor_crate_may_not_depend_on_another_vendor_crate() {
        // The edge issue 16 removed: an OpenAI-compatible vendor on OpenAI's own crate.
        assert_eq!(
            edge_problem("dive-mistral", "dive-openai").as_deref(),
            Some("dive-mistral (layer 2) depends on dive-openai (layer 2)")
        );
        assert_eq!(edge_problem("dive-mistral", "dive-openai-wire"), None);
        assert_eq!(edge_problem("dive-openai-wire", "dive-provider"), None);
        assert_eq!(
            edge_problem("dive-openai-wire", "dive-openai").as_deref(),
            Some("dive-openai-wire (layer 1.5) depends on dive-openai (layer 2)")
        );
        assert!(edge_problem("dive-provider", "dive-openai-wire").is_some());
        assert!(edge_problem("dive-session", "dive-test").is_some());
        assert_eq!(edge_problem("dive-cli", "dive-test"), None);
    }

    #[test]
    fn every_store_builds_on_the_write_rules_never_the_reverse() {
        assert_eq!(edge_problem("dive-session", "dive-session-log"), None);
        assert_eq!(
            edge_problem("dive-session-log", "dive-session").as_deref(),
            Some("dive-session-log (layer 1) depends on dive-session (layer 2)")
        );
        assert!(edge_problem("dive-session-log", "dive-agent").is_some(), "the rules sit beside the engine");
    }
}
