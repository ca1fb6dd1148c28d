//! The check `cargo xtask doc` makes before rustdoc runs: no two targets that
//! `cargo doc --workspace` documents share a crate name.
//!
//! Two such targets (say a library `dive` and another package's binary `dive`) are documented
//! into one directory, `target/doc/dive`, by two rustdoc runs at the same time. Cargo does not
//! refuse it; the runs race, and now and then one fails to remove the other's files. Found here,
//! the clash fails every time, with the targets named.

use serde_json::Value;

/// The target kinds of a library (`cargo metadata` lists its crate types): each is documented.
const LIBRARY_KINDS: &[&str] = &["lib", "rlib", "dylib", "cdylib", "staticlib", "proc-macro"];

/// Each crate name that more than one documented target of `metadata` (the JSON of `cargo
/// metadata --no-deps`) would be documented under, with the targets, as `package/kind`.
///
/// Documented: every library, and every binary with `doc` on whose package has no library of
/// the same name (cargo leaves that binary out itself). Names compare as rustdoc writes them,
/// with `-` as `_`.
pub(crate) fn doc_name_clashes(metadata: &Value) -> Vec<String> {
    let mut documented: Vec<(String, String)> = Vec::new();
    for package in metadata["packages"].as_array().into_iter().flatten() {
        let package_name = package["name"].as_str().unwrap_or_default();
        let targets: Vec<&Value> = package["targets"].as_array().into_iter().flatten().collect();
        let library_names: Vec<String> =
            targets.iter().filter(|t| is_kind(t, LIBRARY_KINDS)).map(|t| crate_name(t)).collect();
        for target in &targets {
            let name = crate_name(target);
            let entry = if is_kind(target, LIBRARY_KINDS) {
                format!("{package_name}/lib")
            } else if is_kind(target, &["bin"])
                && target["doc"].as_bool().unwrap_or(true)
                && !library_names.contains(&name)
            {
                format!("{package_name}/bin")
            } else {
                continue;
            };
            documented.push((name, entry));
        }
    }
    documented.sort();
    let mut clashes = Vec::new();
    for group in documented.chunk_by(|a, b| a.0 == b.0).filter(|g| g.len() > 1) {
        let targets: Vec<&str> = group.iter().map(|(_, t)| t.as_str()).collect();
        clashes.push(format!("`{}` ({})", group[0].0, targets.join(", ")));
    }
    clashes
}

fn is_kind(target: &Value, kinds: &[&str]) -> bool {
    target["kind"].as_array().into_iter().flatten().any(|k| k.as_str().is_some_and(|k| kinds.contains(&k)))
}

fn crate_name(target: &Value) -> String {
    target["name"].as_str().unwrap_or_default().replace('-', "_")
}

#[cfg(test)]
mod tests {
    use super::doc_name_clashes;
    use serde_json::json;

    fn target(name: &str, kind: &str, doc: bool) -> serde_json::Value {
        json!({ "name": name, "kind": [kind], "doc": doc })
    }

    #[test]
    fn a_binary_named_like_another_packages_library_clashes_until_it_is_left_out() {
        let with = |doc| {
            json!({ "packages": [
                { "name": "dive", "targets": [target("dive", "lib", true)] },
                { "name": "dive-cli", "targets": [target("dive", "bin", doc)] },
            ]})
        };
        assert_eq!(doc_name_clashes(&with(true)), vec!["`dive` (dive-cli/bin, dive/lib)".to_owned()]);
        assert!(doc_name_clashes(&with(false)).is_empty());
    }

    #[test]
    fn a_packages_own_binary_of_its_librarys_name_and_dashes_against_underscores() {
        let metadata = json!({ "packages": [
            { "name": "bench-clients", "targets": [
                target("bench_clients", "lib", true), target("bench-clients", "bin", true),
            ]},
            { "name": "a-b", "targets": [target("a-b", "lib", true)] },
            { "name": "other", "targets": [target("a_b", "bin", true), target("t", "test", true)] },
        ]});
        assert_eq!(doc_name_clashes(&metadata), vec!["`a_b` (a-b/lib, other/bin)".to_owned()]);
    }
}
