//! Interop with the official `anthropic` Python SDK for provider-defined toolsets: the bodies
//! with a declared computer toolset, dated computer tool, text editor or bash tool are valid
//! `MessageCreateParams` of the SDK's beta types (and of its GA types where the tool is GA),
//! unknown keys rejected; the member calls we replay are the SDK's own `BetaComputerToolUseBlock`s;
//! and our computer members are exactly the SDK's.
//!
//! Needs the pinned `anthropic` SDK, like `tests/it/interop.rs` (`DIVE_SKIP_PYTHON_INTEROP=1`
//! skips, outside CI only).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;

use dive_anthropic::{
    Anthropic, Computer, ComputerAction, ComputerMember, ComputerOutput, ComputerUse, ComputerVersion,
    Display,
};
use dive_core::{
    BoxFuture, Content, DeclaredToolset, FunctionTool, ImageContent, MediaSource, Message, ModelRequest,
    Role, ToolContext, ToolDefinition, ToolError, ToolResult, ToolResultContent, ToolUse, Toolset,
};
use serde_json::{Value, json};

fn interop_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/interop")
}

struct Desk(Vec<ComputerMember>);
impl Computer for Desk {
    fn members(&self) -> Vec<ComputerMember> {
        self.0.clone()
    }
    fn run(&self, _a: ComputerAction, _c: ToolContext) -> BoxFuture<'_, Result<ComputerOutput, ToolError>> {
        Box::pin(async { Ok(ComputerOutput::done()) })
    }
}

const PNG: &str =
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";

/// A request declaring `toolset`, with a custom tool and a replayed call `name` (`input`) whose
/// result carries a screenshot; `toolset_name` is set on both when the call is a member's.
fn request(toolset: &DeclaredToolset, name: &str, input: Value, toolset_name: Option<&str>) -> ModelRequest {
    let mut call = ToolUse::new("toolu_1", name, input);
    call.toolset_name = toolset_name.map(str::to_owned);
    let mut result = ToolResultContent::new(
        "toolu_1",
        vec![
            Content::text("Clicked."),
            Content::Image(ImageContent::new(MediaSource::base64("image/png", PNG))),
        ],
    );
    result.toolset_name = toolset_name.map(str::to_owned);
    let mut r = ModelRequest::new(vec![
        Message::user("Open the settings"),
        Message::new(Role::Assistant, vec![Content::text("Clicking."), Content::ToolUse(call)]),
        Message::new(Role::User, vec![Content::ToolResult(result)]),
    ])
    .with_tools(vec![ToolDefinition::new(
        "notes",
        "Takes notes.",
        json!({"type": "object", "properties": {"text": {"type": "string"}}}),
    )]);
    r.declared_toolsets.push(toolset.declaration().unwrap());
    r
}

fn plain_tool(name: &str) -> FunctionTool {
    FunctionTool::new(name, "A tool.", |_: Value, _| async { Ok(ToolResult::text("ok")) })
}

/// (name, request, GA as well as beta): every declared-toolset case.
fn cases() -> Vec<(&'static str, ModelRequest, bool)> {
    let all = ComputerUse::new(Desk(ComputerMember::ALL.to_vec())).build().unwrap();
    let some =
        ComputerUse::new(Desk(vec![ComputerMember::Screenshot, ComputerMember::LeftClick])).build().unwrap();
    let dated = |version, display: Display| {
        ComputerUse::new(Desk(ComputerMember::ALL.to_vec()))
            .with_version(version)
            .with_display(display)
            .build()
            .unwrap()
    };
    let nov = dated(ComputerVersion::Computer20251124, Display::new(1280, 800));
    let jan = dated(ComputerVersion::Computer20250124, Display::new(1024, 768).with_number(1));
    let editor = dive_anthropic::text_editor(plain_tool("TextEditor"), Some(10_000)).unwrap();
    let bash = dive_anthropic::bash(plain_tool("Bash")).unwrap();
    let click = json!({"coordinate": [100, 200]});
    vec![
        ("computer_toolset_all_members", request(&all, "left_click", click.clone(), Some("computer")), true),
        ("computer_toolset_some_members", request(&some, "screenshot", json!({}), Some("computer")), true),
        (
            "computer_20251124",
            request(&nov, "computer", json!({"action": "zoom", "region": [0, 0, 640, 400]}), None),
            false,
        ),
        (
            "computer_20250124",
            request(&jan, "computer", json!({"action": "left_click", "coordinate": [5, 5]}), None),
            false,
        ),
        (
            "text_editor_20250728",
            request(
                &editor,
                "str_replace_based_edit_tool",
                json!({"command": "view", "path": "a.txt"}),
                None,
            ),
            true,
        ),
        ("bash_20250124", request(&bash, "bash", json!({"command": "ls"}), None), true),
    ]
}

#[test]
fn declared_toolset_bodies_are_valid_for_the_official_sdk() {
    let client = Anthropic::builder()
        .api_key("sk-ant-interop-not-a-key")
        .base_url("http://127.0.0.1:9")
        .model("claude-sonnet-5-5")
        .build()
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let mut written = 0;
    for (name, request, ga) in cases() {
        for stream in [false, true] {
            let body = client.request_body(&request, stream).unwrap();
            let suffix = if stream { "-stream" } else { "" };
            let mut kinds = vec![format!("anthropic-beta{suffix}")];
            if ga {
                kinds.push(format!("anthropic{suffix}"));
            }
            for kind in kinds {
                let file = dir.path().join(format!("{name}.{kind}.json"));
                std::fs::write(&file, serde_json::to_vec_pretty(&body).unwrap()).unwrap();
                written += 1;
            }
        }
    }
    assert_eq!(written, 20);
    let Some(py) = dive_test::interop::python("anthropic") else { return };
    let report = dive_test::interop::assert_bodies_valid(
        &py,
        &interop_dir().join("validate_requests.py"),
        dir.path(),
        written,
    );
    // The replayed member calls were judged as the SDK's member blocks, not only as tool_use.
    assert!(report.contains("note: member call left_click"), "{report}");
    assert!(report.contains("note: member call screenshot"), "{report}");
}

#[test]
fn our_computer_members_are_the_sdks() {
    let Some(py) = dive_test::interop::python("anthropic") else { return };
    let out = Command::new(py)
        .args([
            "-c",
            "import json; from anthropic.types.beta.beta_computer_member_name import \
             BETA_COMPUTER_MEMBER_NAME_VALUES as v; print(json.dumps(list(v)))",
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let theirs: Vec<String> = serde_json::from_slice(&out.stdout).unwrap();
    let ours: Vec<&str> = ComputerMember::ALL.iter().map(|m| m.as_str()).collect();
    assert_eq!(ours, theirs);
    // And every member the toolset declares is one the SDK's configs accept.
    let toolset = ComputerUse::new(Desk(vec![ComputerMember::Zoom])).build().unwrap();
    let decl = toolset.declaration().map(Arc::unwrap_or_clone).unwrap();
    let configs = decl.payload("anthropic").unwrap()["tools"][0]["configs"].as_object().unwrap().clone();
    assert!(configs.keys().all(|k| theirs.contains(k)));
}
