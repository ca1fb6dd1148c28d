//! The escape-attempt table: every file tool refuses paths that leave the workspace.
#![cfg(unix)]
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::fs;
use std::os::unix::fs::symlink;

use common::call;
use dive_core::IntoTool;
use dive_toolkit::{
    Access, BashTool, EditTool, GlobTool, GrepTool, ListDirectoryTool, ReadTool, TextEditorTool, Workspace,
    WriteTool,
};
use serde_json::{Value, json};

struct Fixture {
    _outer: tempfile::TempDir,
    ws: Workspace,
    secret: std::path::PathBuf,
}

/// `outer/ws` is the workspace; `outer/secret.txt` and `outer/outdir/` lie outside it;
/// `outer/docs` is an extra read-only root.
fn fixture() -> Fixture {
    let outer = tempfile::tempdir().unwrap();
    let root = outer.path().join("ws");
    fs::create_dir_all(root.join("sub")).unwrap();
    fs::create_dir_all(outer.path().join("outdir")).unwrap();
    fs::create_dir_all(outer.path().join("docs")).unwrap();
    fs::write(outer.path().join("docs/guide.md"), "guide").unwrap();
    let secret = outer.path().join("secret.txt");
    fs::write(&secret, "TOP SECRET").unwrap();
    fs::write(root.join("inside.txt"), "ok").unwrap();
    symlink(&secret, root.join("link_out")).unwrap();
    symlink(outer.path().join("outdir"), root.join("dir_out")).unwrap();
    symlink(root.join("inside.txt"), root.join("link_in")).unwrap();
    symlink(outer.path().join("missing"), root.join("dangling")).unwrap();
    symlink("../../secret.txt", root.join("sub/rel_out")).unwrap();
    let ws = Workspace::new(&root).unwrap().with_read_only_root(outer.path().join("docs")).unwrap();
    Fixture { _outer: outer, ws, secret }
}

#[tokio::test]
async fn escape_attempts_are_refused() {
    let f = fixture();
    let outer = f.secret.parent().unwrap().to_path_buf();
    let read = ReadTool::new(f.ws.clone()).into_tool();
    let write = WriteTool::new(f.ws.clone()).into_tool();
    let edit = EditTool::new(f.ws.clone()).into_tool();
    let ed = TextEditorTool::new(f.ws.clone()).into_tool();
    let ls = ListDirectoryTool::new(f.ws.clone()).into_tool();
    let grep = GrepTool::new(f.ws.clone()).into_tool();
    let glob = GlobTool::new(f.ws.clone()).into_tool();
    let bash = BashTool::new(f.ws.clone()).into_tool();
    let secret = f.secret.display().to_string();

    // (tool, input, what the attempt is)
    let table: Vec<(&std::sync::Arc<dyn dive_core::Tool>, Value, &str)> = vec![
        (&read, json!({"file_path": "../secret.txt"}), "parent dir"),
        (&read, json!({"file_path": "sub/../../secret.txt"}), "nested parent dir"),
        (&read, json!({"file_path": "./././../secret.txt"}), "dots then parent"),
        (&read, json!({"file_path": secret}), "absolute path outside"),
        (&read, json!({"file_path": "/etc/passwd"}), "absolute system file"),
        (&read, json!({"file_path": "link_out"}), "symlink to a file outside"),
        (&read, json!({"file_path": "dir_out/x.txt"}), "through a symlinked dir outside"),
        (&read, json!({"file_path": "sub/rel_out"}), "relative symlink climbing out"),
        (&read, json!({"file_path": "dangling"}), "dangling symlink to outside"),
        (&write, json!({"file_path": "../evil.txt", "content": "x"}), "write to parent"),
        (&write, json!({"file_path": "dir_out/evil.txt", "content": "x"}), "write through dir symlink"),
        (&write, json!({"file_path": "link_out", "content": "x"}), "overwrite through file symlink"),
        (&write, json!({"file_path": "dangling", "content": "x"}), "create through dangling symlink"),
        (
            &write,
            json!({"file_path": outer.join("docs/guide.md"), "content": "x"}),
            "write to read-only root",
        ),
        (&edit, json!({"file_path": "link_out", "old_string": "TOP", "new_string": "x"}), "edit via symlink"),
        (&edit, json!({"file_path": "/etc/hostname", "old_string": "a", "new_string": "b"}), "edit absolute"),
        (&ed, json!({"command": "view", "path": "../secret.txt"}), "editor view outside"),
        (
            &ed,
            json!({"command": "create", "path": "dir_out/new.txt", "file_text": "x"}),
            "editor create outside",
        ),
        (&ls, json!({"path": ".."}), "list the parent"),
        (&ls, json!({"path": "dir_out"}), "list a symlinked dir outside"),
        (&grep, json!({"pattern": "SECRET", "path": ".."}), "grep the parent"),
        (&grep, json!({"pattern": "SECRET", "path": "link_out"}), "grep through a file symlink"),
        (&glob, json!({"pattern": "*", "path": "dir_out"}), "glob a symlinked dir outside"),
        (&bash, json!({"command": "cat secret.txt", "working_directory": ".."}), "bash in the parent"),
    ];
    assert!(table.len() >= 15);
    for (tool, input, what) in table {
        let out = call(tool, input.clone()).await;
        let text = out.text_content();
        assert!(out.is_error, "{what}: {input} was allowed: {text}");
        assert!(
            text.contains("outside the workspace") || text.contains("dangling symlink"),
            "{what}: unclear refusal: {text}"
        );
    }
    assert_eq!(fs::read_to_string(&f.secret).unwrap(), "TOP SECRET");
    assert!(!outer.join("evil.txt").exists() && !outer.join("outdir/evil.txt").exists());
    assert!(!outer.join("outdir/new.txt").exists());
    assert_eq!(fs::read_to_string(outer.join("docs/guide.md")).unwrap(), "guide");
}

#[tokio::test]
async fn searches_do_not_follow_symlinks_out() {
    let f = fixture();
    let grep = GrepTool::new(f.ws.clone()).into_tool();
    let out = call(&grep, json!({"pattern": "TOP SECRET", "output_mode": "content"})).await;
    assert_eq!(out.text_content(), "No matches found", "link_out and dir_out are not followed");
    let glob = GlobTool::new(f.ws.clone()).into_tool();
    let out = call(&glob, json!({"pattern": "**/*"})).await.text_content();
    assert!(!out.contains("link_out") && !out.contains("dir_out"), "{out}");
}

#[tokio::test]
async fn allowed_paths_still_work() {
    let f = fixture();
    let read = ReadTool::new(f.ws.clone()).into_tool();
    assert!(!call(&read, json!({"file_path": "link_in"})).await.is_error, "symlink inside is fine");
    assert!(!call(&read, json!({"file_path": "sub/../inside.txt"})).await.is_error);
    let guide = f.ws.read_only_roots()[0].join("guide.md");
    assert_eq!(call(&read, json!({"file_path": guide})).await.text_content(), "     1\tguide\n");
}

#[test]
fn file_swapped_for_symlink_after_check_is_refused() {
    let f = fixture();
    let checked = f.ws.resolve("inside.txt", Access::Read).unwrap();
    fs::remove_file(&checked).unwrap();
    symlink(&f.secret, &checked).unwrap();
    let err = f.ws.open_read(&checked).unwrap_err();
    assert!(err.to_string().contains("inside.txt"), "{err}");
}

#[test]
fn directory_swapped_for_symlink_after_check_is_refused() {
    let f = fixture();
    let outer = f.secret.parent().unwrap();
    fs::write(outer.join("outdir/target.txt"), "outside").unwrap();
    let dir = f.ws.root().join("swap");
    fs::create_dir(&dir).unwrap();
    fs::write(dir.join("target.txt"), "inside").unwrap();
    let checked = f.ws.resolve("swap/target.txt", Access::Write).unwrap();
    // Between the check and the use, the directory becomes a symlink out.
    fs::remove_dir_all(&dir).unwrap();
    symlink(outer.join("outdir"), &dir).unwrap();
    let err = f.ws.open_read(&checked).unwrap_err();
    assert!(err.is_escape(), "{err}");
    let err = f.ws.write_atomic(&checked, b"pwned").unwrap_err();
    assert!(err.is_escape(), "{err}");
    assert_eq!(fs::read_to_string(outer.join("outdir/target.txt")).unwrap(), "outside");
}
