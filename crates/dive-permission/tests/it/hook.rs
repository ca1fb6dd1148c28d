//! The permission hook end to end: dialogs, session grants of the exact specifier, audit,
//! the PreToolUse wiring, and settings files.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::{Arc, Mutex};

use dive_core::{PreToolUseHook, RunInfo, ToolAnnotations, ToolUse, ToolUseContext, Verdict};
use dive_permission::{
    AuditHook, AuditOutcome, DialogAnswer, FnDialog, MemoryAudit, Outcome, PermissionConfig, PermissionHook,
    PermissionManager, PermissionMode, PermissionRequest, Rules, Settings,
};
use serde_json::json;

fn ctx(name: &str, input: serde_json::Value) -> ToolUseContext {
    ToolUseContext::new(
        RunInfo::detached(),
        0,
        ToolUse::new("call-1", name, input),
        ToolAnnotations::default(),
    )
}

#[tokio::test]
async fn session_grant_is_the_exact_approved_command() {
    let manager = Arc::new(PermissionManager::new(PermissionConfig::default()));
    let asked: Arc<Mutex<Vec<PermissionRequest>>> = Arc::default();
    let seen = asked.clone();
    let dialog = FnDialog(move |r: &PermissionRequest| {
        seen.lock().unwrap().push(r.clone());
        DialogAnswer::AllowForSession
    });
    let hook = PermissionHook::new(manager.clone()).with_dialog(Arc::new(dialog));
    let d = hook.pre_tool_use(ctx("Bash", json!({"command": "npm run build"}))).await.unwrap();
    assert_eq!(d.verdict, Verdict::Allow);
    assert_eq!(
        manager.session_grants().iter().map(ToString::to_string).collect::<Vec<_>>(),
        ["Bash(npm run build)"]
    );
    // The same command no longer asks; a different one does.
    hook.pre_tool_use(ctx("Bash", json!({"command": "npm run build"}))).await.unwrap();
    assert_eq!(asked.lock().unwrap().len(), 1);
    hook.pre_tool_use(ctx("Bash", json!({"command": "npm run build && rm -rf ~"}))).await.unwrap();
    assert_eq!(asked.lock().unwrap().len(), 2, "the grant does not extend to a compound command");
    manager.clear_session_grants();
    assert!(manager.session_grants().is_empty());
}

#[tokio::test]
async fn webfetch_grant_is_the_domain_and_deny_answers_reach_the_model() {
    let manager = Arc::new(PermissionManager::new(PermissionConfig::default()));
    let hook = PermissionHook::new(manager.clone())
        .with_dialog(Arc::new(FnDialog(|_: &PermissionRequest| DialogAnswer::AllowForSession)));
    hook.pre_tool_use(ctx("WebFetch", json!({"url": "https://Docs.RS/serde"}))).await.unwrap();
    assert_eq!(manager.session_grants()[0].to_string(), "WebFetch(domain:docs.rs)");

    let refusing = PermissionHook::new(manager).with_dialog(Arc::new(FnDialog(|_: &PermissionRequest| {
        DialogAnswer::Deny(Some("not today".into()))
    })));
    let d = refusing.pre_tool_use(ctx("Bash", json!({"command": "make"}))).await.unwrap();
    assert_eq!(d.verdict, Verdict::Deny("Permission to use Bash was denied: not today.".into()));
}

#[tokio::test]
async fn no_dialog_fails_closed_and_audit_records_decisions() {
    let rules = Rules::new().allow("Read").unwrap().deny("Bash(sudo:*)").unwrap();
    let manager = Arc::new(PermissionManager::new(PermissionConfig::new(rules)));
    let audit = Arc::new(MemoryAudit::new());
    let hook = PermissionHook::new(manager).with_audit(audit.clone());
    let none = ToolAnnotations::default();
    assert!(matches!(
        hook.decide("1", "Read", &json!({"file_path": "x"}), &none, None).await,
        Outcome::Allowed { .. }
    ));
    assert!(matches!(
        hook.decide("2", "Bash", &json!({"command": "sudo ls"}), &none, None).await,
        Outcome::Denied { .. }
    ));
    assert!(matches!(
        hook.decide("3", "Bash", &json!({"command": "ls"}), &none, None).await,
        Outcome::Denied { .. }
    ));
    let entries = audit.entries();
    let summary: Vec<(&str, AuditOutcome, &str)> =
        entries.iter().map(|e| (e.call_id.as_str(), e.outcome, e.source.as_str())).collect();
    assert_eq!(
        summary,
        [
            ("1", AuditOutcome::Allowed, "allow rule Read"),
            ("2", AuditOutcome::Denied, "deny rule Bash(sudo:*)"),
            ("3", AuditOutcome::Denied, "dialog"),
        ]
    );

    let observer = Arc::new(MemoryAudit::new());
    let d =
        AuditHook::new(observer.clone()).pre_tool_use(ctx("Grep", json!({"pattern": "x"}))).await.unwrap();
    assert_eq!(d.verdict, Verdict::Allow);
    assert_eq!(observer.entries()[0].outcome, AuditOutcome::Observed);
}

#[tokio::test]
async fn mode_changes_take_effect() {
    let manager =
        Arc::new(PermissionManager::new(PermissionConfig::default().with_mode(PermissionMode::Plan)));
    let hook = PermissionHook::new(manager.clone());
    let d = hook.pre_tool_use(ctx("Write", json!({"file_path": "a", "content": ""}))).await.unwrap();
    assert!(matches!(d.verdict, Verdict::Deny(ref r) if r.contains("plan mode")));
    manager.set_mode(PermissionMode::AcceptEdits);
    let d = hook.pre_tool_use(ctx("Write", json!({"file_path": "a", "content": ""}))).await.unwrap();
    assert_eq!(d.verdict, Verdict::Allow);
}

#[tokio::test]
async fn settings_merge_local_over_project() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join(".dive")).unwrap();
    std::fs::write(
        dir.path().join(".dive/settings.json"),
        r#"{"permissions": {"allow": ["Bash(cargo test:*)"], "deny": ["Read(.env)"], "defaultMode": "acceptEdits"},
            "model": {"name": "a", "temperature": 0.2}}"#,
    )
    .unwrap();
    std::fs::write(
        dir.path().join(".dive/settings.local.json"),
        r#"{"permissions": {"allow": ["Bash(make:*)"]}, "model": {"name": "b"}}"#,
    )
    .unwrap();
    let settings = Settings::load(dir.path()).unwrap();
    assert_eq!(settings.permissions.allow, ["Bash(make:*)"], "arrays replace");
    assert_eq!(settings.permissions.deny, ["Read(.env)"], "objects merge per key");
    assert_eq!(settings.raw["model"], json!({"name": "b", "temperature": 0.2}));
    let manager = PermissionManager::new(settings.permission_config().unwrap());
    assert_eq!(manager.mode(), PermissionMode::AcceptEdits);
    let hook = PermissionHook::new(Arc::new(manager));
    let none = ToolAnnotations::default();
    let env = dir.path().join(".env").display().to_string();
    assert!(matches!(
        hook.decide("1", "Read", &json!({"file_path": env}), &none, None).await,
        Outcome::Denied { .. }
    ));
    assert!(matches!(
        hook.decide("2", "Bash", &json!({"command": "make all"}), &none, None).await,
        Outcome::Allowed { .. }
    ));

    std::fs::write(
        dir.path().join(".dive/settings.local.json"),
        r#"{"permissions": {"allow": ["Bash(oops"]}}"#,
    )
    .unwrap();
    assert!(Settings::load(dir.path()).unwrap().permission_config().is_err());
    std::fs::write(dir.path().join(".dive/settings.local.json"), "{not json").unwrap();
    assert!(Settings::load(dir.path()).is_err());
    let empty = tempfile::tempdir().unwrap();
    assert_eq!(Settings::load(empty.path()).unwrap().permissions, Default::default());
}

#[test]
fn terminal_dialog_rendering_and_answers() {
    let request = PermissionRequestBuilder::bash("cargo publish");
    let text = dive_permission::render_request(&request);
    assert!(text.contains("Permission needed: Bash") && text.contains("[a]lways allow Bash(cargo publish)"));
    assert_eq!(dive_permission::parse_answer("Y\n"), DialogAnswer::AllowOnce);
    assert_eq!(dive_permission::parse_answer("always"), DialogAnswer::AllowForSession);
    assert!(matches!(dive_permission::parse_answer(""), DialogAnswer::Deny(_)));
}

/// Builds a request the way the hook does, by asking a capturing dialog.
struct PermissionRequestBuilder;

impl PermissionRequestBuilder {
    fn bash(cmd: &str) -> PermissionRequest {
        let captured: Arc<Mutex<Option<PermissionRequest>>> = Arc::default();
        let c = captured.clone();
        let hook = PermissionHook::new(Arc::new(PermissionManager::new(PermissionConfig::default())))
            .with_dialog(Arc::new(FnDialog(move |r: &PermissionRequest| {
                *c.lock().unwrap() = Some(r.clone());
                DialogAnswer::AllowOnce
            })));
        let rt = tokio::runtime::Builder::new_current_thread().build().unwrap();
        rt.block_on(hook.decide("x", "Bash", &json!({"command": cmd}), &ToolAnnotations::default(), None));
        captured.lock().unwrap().take().unwrap()
    }
}

#[tokio::test]
async fn without_a_dialog_a_redirect_past_an_allow_rule_is_refused() {
    // Print mode has no dialog: what needs asking is refused, so `Bash(echo:*)` cannot write
    // a file outside the workspace through `>`.
    let root = tempfile::tempdir().unwrap();
    let rules = Rules::parse(&["Bash(echo:*)"], &[], &[]).unwrap();
    let manager = Arc::new(PermissionManager::new(PermissionConfig::new(rules).with_root(root.path())));
    let hook = PermissionHook::new(manager);
    let none = ToolAnnotations::default();
    let plain = hook.decide("c1", "Bash", &json!({"command": "echo hi"}), &none, None).await;
    assert!(matches!(plain, Outcome::Allowed { .. }), "{plain:?}");
    let redirect = json!({"command": "echo text > /tmp/dive-redirect-probe"});
    let out = hook.decide("c2", "Bash", &redirect, &none, None).await;
    let Outcome::Denied { reason, .. } = out else { panic!("allowed: {out:?}") };
    assert!(reason.contains("Bash"), "{reason}");
}
