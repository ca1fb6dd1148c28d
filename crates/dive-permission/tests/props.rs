//! Property tests: the parsers never panic, and an allowed command is never widened by
//! appending another segment.
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
}
