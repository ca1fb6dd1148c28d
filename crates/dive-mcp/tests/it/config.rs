//! Configuration files in Claude Code's `mcpServers` shape: `${VAR}` expansion from the
//! variables passed in, per-server switches and tool lists, and errors that name the file and
//! the server.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use dive_mcp::{ConfigErrorKind, McpConfig, Transport, Vars};

#[test]
fn a_file_with_variables_switches_and_tool_lists() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(".mcp.json");
    std::fs::write(
        &path,
        r#"{"mcpServers": {
            "files": {"command": "${BIN_DIR}/fs-server", "args": ["--root", "${ROOT:-/srv}"],
                      "env": {"TOKEN": "${FS_TOKEN}"}, "cwd": "${ROOT:-/srv}",
                      "allowedTools": ["read", "list"], "deniedTools": ["list"], "startupTimeoutMs": 1500},
            "docs": {"type": "http", "url": "https://${HOST}/mcp",
                     "headers": {"Authorization": "Bearer ${DOCS_TOKEN}"}},
            "off": {"command": "x", "disabled": true},
            "extra": {"command": "y", "description": "unknown keys are ignored"}
        }}"#,
    )
    .unwrap();
    let vars = Vars::new([
        ("BIN_DIR", "/opt/bin"),
        ("FS_TOKEN", "fs-secret"),
        ("HOST", "mcp.example.com"),
        ("DOCS_TOKEN", "docs-secret"),
    ]);
    let config = McpConfig::load(&path, &vars).unwrap();
    assert_eq!(config.len(), 4);

    let files = config.server("files").unwrap();
    let Transport::Stdio(stdio) = &files.transport else { panic!("{files:?}") };
    assert_eq!(stdio.command, "/opt/bin/fs-server");
    assert_eq!(stdio.args, ["--root", "/srv"]);
    assert_eq!(stdio.env["TOKEN"], "fs-secret");
    assert_eq!(stdio.cwd.as_deref(), Some(std::path::Path::new("/srv")));
    assert!(files.tools.allows("read") && !files.tools.allows("list") && !files.tools.allows("write"));
    assert_eq!(files.startup_timeout, Some(Duration::from_millis(1500)));
    assert!(files.enabled);

    let docs = config.server("docs").unwrap();
    let Transport::Http(http) = &docs.transport else { panic!("{docs:?}") };
    assert_eq!(http.url, "https://mcp.example.com/mcp");
    assert_eq!(http.headers["Authorization"], "Bearer docs-secret");
    assert!(!config.server("off").unwrap().enabled);

    // Secrets never print.
    let shown = format!("{config:?}");
    assert!(!shown.contains("fs-secret") && !shown.contains("docs-secret"), "{shown}");
    assert!(shown.contains("Authorization") && shown.contains("TOKEN"), "{shown}");

    // Settings files add servers and disable .mcp.json ones.
    let settings = dir.path().join("settings.json");
    std::fs::write(
        &settings,
        r#"{"disabledMcpjsonServers": ["files"], "mcpServers": {"more": {"command": "z"}}}"#,
    )
    .unwrap();
    let (more, disabled) = McpConfig::load_settings(&settings, &vars).unwrap();
    let mut merged = config.clone();
    merged.merge(more);
    merged.disable(&disabled);
    assert!(!merged.server("files").unwrap().enabled);
    assert!(merged.server("more").unwrap().enabled);
    assert_eq!(merged.len(), 5);

    // --mcp-config takes a path or inline JSON.
    assert_eq!(McpConfig::from_arg(path.to_str().unwrap(), &vars).unwrap(), config);
    let inline = McpConfig::from_arg(r#" {"mcpServers": {"a": {"command": "a"}}}"#, &vars).unwrap();
    assert!(inline.server("a").is_some());
}

#[test]
fn bad_configs_name_the_file_and_the_server() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bad.json");
    let vars = Vars::new([("SET", "1")]);
    let check = |text: &str, server: Option<&str>, needle: &str| {
        std::fs::write(&path, text).unwrap();
        let err = McpConfig::load(&path, &vars).unwrap_err();
        let message = err.to_string();
        assert_eq!(err.server.as_deref(), server, "{message}");
        assert!(message.starts_with(&path.display().to_string()), "{message}");
        assert!(message.contains(needle), "`{needle}` not in: {message}");
        err
    };
    let err = check(
        r#"{"mcpServers": {"s": {"command": "x", "args": ["${UNSET_VAR}"]}}}"#,
        Some("s"),
        "${UNSET_VAR} is not set",
    );
    assert!(matches!(err.kind, ConfigErrorKind::Expand(_)));
    check(r#"{"mcpServers": {"s": {"args": ["a"]}}}"#, Some("s"), "needs a `command`");
    check(r#"{"mcpServers": {"h": {"type": "http"}}}"#, Some("h"), "needs a `url`");
    check(r#"{"mcpServers": {"h": {"type": "http", "url": "ftp://x"}}}"#, Some("h"), "must be http");
    check(r#"{"mcpServers": {"h": {"type": "sse", "url": "http://x"}}}"#, Some("h"), "deprecated");
    check(r#"{"mcpServers": {"w": {"type": "websocket", "url": "http://x"}}}"#, Some("w"), "unknown `type`");
    check(r#"{"mcpServers": {"a": {"command": 5}}}"#, Some("a"), "not valid MCP config JSON");
    check(
        r#"{"mcpServers": {"a": {"command": "x", "enabled": true, "disabled": true}}}"#,
        Some("a"),
        "contradict",
    );
    check(r#"{"servers": {}}"#, None, "no `mcpServers`");
    check("{not json", None, "not valid MCP config JSON");

    let missing = McpConfig::load(dir.path().join("absent.json"), &vars).unwrap_err();
    assert!(matches!(missing.kind, ConfigErrorKind::Read(_)), "{missing}");
    let inline = McpConfig::from_arg(r#"{"mcpServers": {"q": {}}}"#, &vars).unwrap_err();
    assert!(inline.to_string().starts_with("inline MCP config: server `q`"), "{inline}");
}
