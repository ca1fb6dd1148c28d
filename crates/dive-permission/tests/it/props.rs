//! Property tests: the parsers never panic, and an allowed command is never widened by
//! appending another segment or an output redirection to a file outside the workspace,
//! while descriptor duplication and `/dev/null` keep it allowed.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use dive_core::ToolAnnotations;
use dive_permission::{
    Decision, PermissionConfig, PermissionManager, Rule, Rules, ToolCall, effective_commands, split_command,
};
use proptest::prelude::*;

proptest! {
    #[test]
    fn parsers_never_panic(text in "\\PC{0,80}") {
        let parsed = split_command(&text);
        for segment in &parsed.segments {
            let _ = effective_commands(segment);
        }
        let _ = Rule::parse(&text);
    }

    #[test]
    fn appending_a_segment_never_keeps_an_allow(
        cmd in "[a-z]{1,8}( [a-z0-9./-]{1,8}){0,3}",
        sep in prop::sample::select(vec![";", "&&", "||", "|", "&", "\n"]),
        extra in "[a-z]{1,8}( [a-z0-9./-]{1,8}){0,2}",
    ) {
        let first = cmd.split_whitespace().next().unwrap().to_string();
        prop_assume!(!extra.starts_with(&first));
        let rules = Rules::parse(&[format!("Bash({first}:*)")], &[], &[]).unwrap();
        let pm = PermissionManager::new(PermissionConfig::new(rules));
        let none = ToolAnnotations::default();
        let alone = serde_json::json!({"command": cmd});
        prop_assert_eq!(pm.evaluate(ToolCall::new("Bash", &alone, &none)).decision, Decision::Allow);
        let joined = serde_json::json!({"command": format!("{cmd} {sep} {extra}")});
        prop_assert_eq!(pm.evaluate(ToolCall::new("Bash", &joined, &none)).decision, Decision::Ask);
    }

    #[test]
    fn an_output_redirect_out_of_the_workspace_never_keeps_an_allow(
        cmd in "[a-z]{1,8}( [a-z0-9./-]{1,8}){0,3}",
        op in prop::sample::select(vec![">", ">>", ">|", "&>", "&>>", "2>", "1>>", ">&"]),
        blank in prop::sample::select(vec!["", " "]),
        target in prop::sample::select(vec!["/tmp/", "../", "/etc/", "$HOME/", "~/"]),
        name in "[a-z]{1,8}",
    ) {
        let root = tempfile::tempdir().unwrap();
        let first = cmd.split_whitespace().next().unwrap().to_string();
        // After `cd` a relative target names no known path; the table covers that case.
        prop_assume!(!["cd", "pushd", "popd"].contains(&first.as_str()));
        let rules = Rules::parse(&[format!("Bash({first}:*)"), "Edit(/**)".to_string()], &[], &[]).unwrap();
        let pm = PermissionManager::new(PermissionConfig::new(rules).with_root(root.path()));
        let none = ToolAnnotations::default();
        let inside = serde_json::json!({"command": format!("{cmd} {op}{blank}{name}.txt")});
        prop_assert_eq!(pm.evaluate(ToolCall::new("Bash", &inside, &none)).decision, Decision::Allow);
        let outside = serde_json::json!({"command": format!("{cmd} {op}{blank}{target}{name}")});
        prop_assert_eq!(pm.evaluate(ToolCall::new("Bash", &outside, &none)).decision, Decision::Ask);
    }

    #[test]
    fn descriptor_duplication_and_dev_null_keep_an_allow(
        cmd in "[a-z]{1,8}( [a-z0-9./-]{1,8}){0,3}",
        tail in prop::sample::select(vec!["2>&1", ">&2", "1>&-", "> /dev/null", "2>/dev/null", "&>/dev/null", ">>/dev/stderr"]),
    ) {
        let first = cmd.split_whitespace().next().unwrap().to_string();
        let rules = Rules::parse(&[format!("Bash({first}:*)")], &[], &[]).unwrap();
        let pm = PermissionManager::new(PermissionConfig::new(rules));
        let none = ToolAnnotations::default();
        let input = serde_json::json!({"command": format!("{cmd} {tail}")});
        prop_assert_eq!(pm.evaluate(ToolCall::new("Bash", &input, &none)).decision, Decision::Allow);
    }
}
