//! A facade feature compiles its own provider crate and nothing of any other vendor: the
//! normal-dependency tree of `dive` with one provider feature holds exactly the expected
//! `dive-*` crates (`cargo tree`, which resolves from Cargo.lock without compiling).
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

#[test]
fn openrouter_alone_builds_only_openrouter_and_the_openai_wire_crate_it_is_built_on() {
    let expected: Vec<&str> = [BASE, &["dive-provider", "dive-openai", "dive-openrouter"]].concat();
    assert_eq!(dive_crates("openrouter"), set(&expected));
}

#[test]
fn each_provider_feature_brings_only_its_own_crates() {
    let cases: &[(&str, &[&str])] = &[
        ("ollama", &["dive-provider", "dive-ollama"]),
        ("mistral", &["dive-provider", "dive-openai", "dive-mistral"]),
        ("anthropic", &["dive-provider", "dive-anthropic"]),
        ("grok", &["dive-provider", "dive-openai", "dive-grok"]),
    ];
    for (feature, own) in cases {
        let expected: Vec<&str> = [BASE, own].concat();
        assert_eq!(dive_crates(feature), set(&expected), "feature {feature}");
    }
}
