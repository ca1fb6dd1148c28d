//! Every facade provider feature compiles its own provider crate and nothing of any other
//! vendor: the normal-dependency tree of `dive` with one provider feature holds exactly the
//! expected `dive-*` crates (`cargo tree`, which resolves from Cargo.lock without compiling),
//! and the table of expectations covers every provider feature in the facade's Cargo.toml.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

/// The `dive-*` crates in `cargo tree -p dive --no-default-features --features <feature> -e normal`.
fn dive_crates(feature: &str) -> BTreeSet<String> {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR")).join("Cargo.toml");
    let out = Command::new(env!("CARGO"))
        .args(["tree", "--locked", "-p", "dive", "--no-default-features", "--features", feature])
        .args(["-e", "normal", "--prefix", "none", "--format", "{p}", "--manifest-path"])
        .arg(&manifest)
        .output()
        .unwrap();
    assert!(out.status.success(), "cargo tree failed: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .filter(|name| *name == "dive" || name.starts_with("dive-"))
        .map(str::to_owned)
        .collect()
}

fn set(names: &[&str]) -> BTreeSet<String> {
    names.iter().map(|s| (*s).to_owned()).collect()
}

const BASE: &[&str] = &["dive", "dive-agent", "dive-core"];

/// Each provider feature and the `dive-*` crates it may add to [`BASE`]: the vendor's crate,
/// the shared plumbing, and `dive-openai-wire` for the vendors speaking an OpenAI wire format
/// (never `dive-openai`, OpenAI's own vendor crate, for another vendor).
const PROVIDERS: &[(&str, &[&str])] = &[
    ("anthropic", &["dive-provider", "dive-anthropic"]),
    ("openai", &["dive-provider", "dive-openai-wire", "dive-openai"]),
    ("google", &["dive-provider", "dive-google"]),
    ("ollama", &["dive-provider", "dive-ollama"]),
    ("mistral", &["dive-provider", "dive-openai-wire", "dive-mistral"]),
    ("openrouter", &["dive-provider", "dive-openai-wire", "dive-openrouter"]),
    ("grok", &["dive-provider", "dive-openai-wire", "dive-grok"]),
    ("openai-compatible", &["dive-provider", "dive-openai-wire"]),
    ("deepinfra", &["dive-provider", "dive-openai-wire", "dive-compatible"]),
    ("groq", &["dive-provider", "dive-openai-wire", "dive-compatible"]),
    ("together", &["dive-provider", "dive-openai-wire", "dive-compatible"]),
];

/// The facade's provider features, read from its Cargo.toml: those that turn on `provider`.
fn provider_features() -> BTreeSet<String> {
    let manifest = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("Cargo.toml")).unwrap();
    let features = manifest.split("[features]").nth(1).unwrap().split("\n[").next().unwrap();
    features
        .lines()
        .filter_map(|l| l.split_once('='))
        .filter(|(_, value)| value.contains("\"provider\""))
        .map(|(name, _)| name.trim().to_owned())
        .collect()
}

#[test]
fn the_table_covers_every_provider_feature() {
    let listed: BTreeSet<String> = PROVIDERS.iter().map(|(f, _)| (*f).to_owned()).collect();
    assert_eq!(provider_features(), listed, "add the new provider feature to PROVIDERS");
}

#[test]
fn each_provider_feature_brings_only_its_own_crates() {
    for (feature, own) in PROVIDERS {
        let expected: Vec<&str> = [BASE, own].concat();
        assert_eq!(dive_crates(feature), set(&expected), "feature {feature}");
    }
}
