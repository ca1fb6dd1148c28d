//! `~/` path rules are anchored to the home directory the configuration is given, never to a
//! `HOME` read behind the caller's back: the library reads the environment only in
//! `PermissionConfig::with_home_from_env`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use dive_core::ToolAnnotations;
use dive_permission::{Decision, PermissionConfig, PermissionManager, Rules, ToolCall};
use dive_test::child::{is_child, rerun_with_env};
use serde_json::json;

fn write_decision(config: PermissionConfig, path: &str) -> Decision {
    let pm = PermissionManager::new(config);
    let none = ToolAnnotations::default();
    pm.evaluate(ToolCall::new("Write", &json!({"file_path": path, "content": "x"}), &none)).decision
}

fn deny_secrets() -> PermissionConfig {
    PermissionConfig::new(Rules::new().deny("Write(~/secrets/**)").unwrap()).with_root("/work/project")
}

#[test]
fn a_home_rule_matches_under_the_home_it_is_given() {
    assert_eq!(
        write_decision(deny_secrets().with_home("/home/ann"), "/home/ann/secrets/key"),
        Decision::Deny
    );
    assert_ne!(
        write_decision(deny_secrets().with_home("/home/ann"), "/home/bob/secrets/key"),
        Decision::Deny
    );
}

#[test]
fn the_manager_reads_no_home_from_the_environment_unless_asked() {
    const TEST: &str = "the_manager_reads_no_home_from_the_environment_unless_asked";
    if !is_child(TEST) {
        rerun_with_env(TEST, &[], &[("HOME", "/home/env-user")]);
        return;
    }
    // In the child, HOME is /home/env-user.
    assert_ne!(write_decision(deny_secrets(), "/home/env-user/secrets/key"), Decision::Deny);
    assert_eq!(
        write_decision(deny_secrets().with_home_from_env(), "/home/env-user/secrets/key"),
        Decision::Deny
    );
}
