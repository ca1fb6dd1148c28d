//! Read, Write, Edit, TextEditor and ListDirectory on real temp directories.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::fs;

use common::call;
use dive_core::{Content, IntoTool};
use dive_toolkit::{EditTool, ListDirectoryTool, ReadTool, TextEditorTool, Workspace, WriteTool};
use serde_json::json;

fn ws() -> (tempfile::TempDir, Workspace) {
    let dir = tempfile::tempdir().unwrap();
    let ws = Workspace::new(dir.path()).unwrap();
    (dir, ws)
}

#[tokio::test]
async fn read_numbers_pages_and_caps() {
    let (dir, ws) = ws();
    let text: String = (1..=10).map(|i| format!("line {i}\n")).collect();
    fs::write(dir.path().join("f.txt"), &text).unwrap();
    let read = ReadTool::new(ws.clone()).into_tool();
    let out = call(&read, json!({"file_path": "f.txt"})).await;
    assert!(!out.is_error);
    assert!(out.text_content().starts_with("     1\tline 1\n"));
    assert!(out.text_content().contains("    10\tline 10\n"));

    let out = call(&read, json!({"file_path": dir.path().join("f.txt"), "offset": 4, "limit": 2})).await;
    assert!(out.text_content().starts_with("     4\tline 4\n     5\tline 5\n"));
    assert!(out.text_content().contains("[lines 4-5 of 10"));

    let small = ReadTool::new(ws).with_max_text_bytes(10).into_tool();
    let out = call(&small, json!({"file_path": "f.txt"})).await;
    assert!(out.is_error);
    assert!(out.text_content().contains("offset and limit"));
    let out = call(&small, json!({"file_path": "f.txt", "offset": 9})).await;
    assert!(!out.is_error, "paging bypasses the whole-file cap: {}", out.text_content());
}

#[tokio::test]
async fn read_returns_images_and_pdfs_as_blocks() {
    let (dir, ws) = ws();
    fs::write(dir.path().join("pic.PNG"), b"\x89PNG\r\n\x1a\nrest").unwrap();
    fs::write(dir.path().join("doc.pdf"), b"%PDF-1.4 ...").unwrap();
    let read = ReadTool::new(ws).into_tool();
    let out = call(&read, json!({"file_path": "pic.PNG"})).await;
    assert!(matches!(&out.content[0], Content::Image(i) if i.source.media_type() == Some("image/png")));
    let out = call(&read, json!({"file_path": "doc.pdf"})).await;
    assert!(
        matches!(&out.content[0], Content::Document(d) if d.source.media_type() == Some("application/pdf"))
    );
}

#[tokio::test]
async fn read_refuses_binary_missing_and_directories() {
    let (dir, ws) = ws();
    fs::write(dir.path().join("bin"), [0u8, 1, 2, 0]).unwrap();
    fs::create_dir(dir.path().join("sub")).unwrap();
    let read = ReadTool::new(ws).into_tool();
    assert!(call(&read, json!({"file_path": "bin"})).await.text_content().contains("binary"));
    assert!(call(&read, json!({"file_path": "sub"})).await.text_content().contains("directory"));
    assert!(call(&read, json!({"file_path": "nope"})).await.is_error);
}

#[tokio::test]
async fn write_creates_dirs_replaces_and_leaves_no_temp_files() {
    let (dir, ws) = ws();
    let write = WriteTool::new(ws).into_tool();
    let out = call(&write, json!({"file_path": "a/b/c.txt", "content": "one\n"})).await;
    assert!(out.text_content().starts_with("Created a/b/c.txt"), "{}", out.text_content());
    let out = call(&write, json!({"file_path": "a/b/c.txt", "content": "two\n"})).await;
    assert!(out.text_content().starts_with("Updated"));
    assert_eq!(fs::read_to_string(dir.path().join("a/b/c.txt")).unwrap(), "two\n");
    let names: Vec<_> =
        fs::read_dir(dir.path().join("a/b")).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(names, vec!["c.txt"], "the temp file was renamed, not left behind");
}

#[cfg(unix)]
#[tokio::test]
async fn write_keeps_file_permissions() {
    use std::os::unix::fs::PermissionsExt as _;
    let (dir, ws) = ws();
    let path = dir.path().join("run.sh");
    fs::write(&path, "old").unwrap();
    fs::set_permissions(&path, fs::Permissions::from_mode(0o755)).unwrap();
    call(&WriteTool::new(ws).into_tool(), json!({"file_path": "run.sh", "content": "new"})).await;
    assert_eq!(fs::metadata(&path).unwrap().permissions().mode() & 0o777, 0o755);
}

/// The mode bits (`rwx` for user, group, other) of a file.
#[cfg(unix)]
fn mode(path: &std::path::Path) -> u32 {
    use std::os::unix::fs::PermissionsExt as _;
    fs::metadata(path).unwrap().permissions().mode() & 0o777
}

#[cfg(unix)]
#[tokio::test]
async fn new_files_get_the_umask_mode_not_a_private_one() {
    let (dir, ws) = ws();
    // What a plain create gets under this process's umask (0644 under the usual 022).
    let reference = dir.path().join("reference");
    fs::File::create(&reference).unwrap();
    let expected = mode(&reference);
    let umask = fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| s.lines().find_map(|l| l.strip_prefix("Umask:").map(|v| v.trim().to_string())))
        .and_then(|v| u32::from_str_radix(&v, 8).ok());
    if let Some(umask) = umask {
        assert_eq!(expected, 0o666 & !umask, "a plain create follows the umask");
    }
    assert_ne!(expected, 0o600, "this test needs a umask that leaves group or other some access");

    let out =
        call(&WriteTool::new(ws.clone()).into_tool(), json!({"file_path": "sub/new.txt", "content": "x"}))
            .await;
    assert!(!out.is_error, "{}", out.text_content());
    assert_eq!(mode(&dir.path().join("sub/new.txt")), expected, "Write");
    let ed = TextEditorTool::new(ws).into_tool();
    let out = call(&ed, json!({"command": "create", "path": "made.txt", "file_text": "a\n"})).await;
    assert!(!out.is_error, "{}", out.text_content());
    assert_eq!(mode(&dir.path().join("made.txt")), expected, "TextEditor create");
}

#[cfg(unix)]
#[tokio::test]
async fn edits_keep_the_existing_mode() {
    use std::os::unix::fs::PermissionsExt as _;
    let (dir, ws) = ws();
    for (name, bits) in [("script.sh", 0o755), ("private.env", 0o600), ("shared.txt", 0o664)] {
        fs::write(dir.path().join(name), "old line\n").unwrap();
        fs::set_permissions(dir.path().join(name), fs::Permissions::from_mode(bits)).unwrap();
    }
    let edit = EditTool::new(ws.clone()).into_tool();
    let out = call(&edit, json!({"file_path": "script.sh", "old_string": "old", "new_string": "new"})).await;
    assert!(!out.is_error, "{}", out.text_content());
    assert_eq!(mode(&dir.path().join("script.sh")), 0o755, "Edit");
    let write = WriteTool::new(ws.clone()).into_tool();
    let out = call(&write, json!({"file_path": "private.env", "content": "KEY=1\n"})).await;
    assert!(!out.is_error, "{}", out.text_content());
    assert_eq!(mode(&dir.path().join("private.env")), 0o600, "Write over a private file");
    let ed = TextEditorTool::new(ws).into_tool();
    let out = call(
        &ed,
        json!({"command": "str_replace", "path": "shared.txt", "old_str": "old", "new_str": "new"}),
    )
    .await;
    assert!(!out.is_error, "{}", out.text_content());
    assert_eq!(mode(&dir.path().join("shared.txt")), 0o664, "TextEditor str_replace");
    assert_eq!(fs::read_to_string(dir.path().join("shared.txt")).unwrap(), "new line\n");
}

#[tokio::test]
async fn edit_replaces_unique_or_all_and_shows_a_diff() {
    let (dir, ws) = ws();
    fs::write(dir.path().join("m.rs"), "fn a() {}\nfn b() {}\nfn a2() {}\n").unwrap();
    let edit = EditTool::new(ws).into_tool();
    let out = call(&edit, json!({"file_path": "m.rs", "old_string": "fn a", "new_string": "fn z"})).await;
    assert!(out.is_error && out.text_content().contains("2 times"));
    let out = call(&edit, json!({"file_path": "m.rs", "old_string": "fn b()", "new_string": "fn c()"})).await;
    assert!(!out.is_error);
    assert!(out.text_content().contains("-fn b() {}") && out.text_content().contains("+fn c() {}"));
    let out = call(
        &edit,
        json!({"file_path": "m.rs", "old_string": "fn a", "new_string": "fn z", "replace_all": true}),
    )
    .await;
    assert!(out.text_content().contains("replaced 2 occurrences"));
    assert_eq!(fs::read_to_string(dir.path().join("m.rs")).unwrap(), "fn z() {}\nfn c() {}\nfn z2() {}\n");
    let out = call(&edit, json!({"file_path": "new.rs", "old_string": "x", "new_string": "y"})).await;
    assert!(out.text_content().contains("use Write"));
}

#[tokio::test]
async fn text_editor_commands() {
    let (dir, ws) = ws();
    let ed = TextEditorTool::new(ws).into_tool();
    assert_eq!(ed.name(), "str_replace_based_edit_tool");
    call(&ed, json!({"command": "create", "path": "t.txt", "file_text": "a\nb\nc\n"})).await;
    let out = call(&ed, json!({"command": "view", "path": "t.txt", "view_range": [2, -1]})).await;
    assert_eq!(out.text_content(), "     2\tb\n     3\tc\n");
    let out =
        call(&ed, json!({"command": "str_replace", "path": "t.txt", "old_str": "b", "new_str": "B"})).await;
    assert!(out.text_content().contains("     2\tB"), "{}", out.text_content());
    call(&ed, json!({"command": "insert", "path": "t.txt", "insert_line": 0, "new_str": "top"})).await;
    assert_eq!(fs::read_to_string(dir.path().join("t.txt")).unwrap(), "top\na\nB\nc\n");
    let out = call(&ed, json!({"command": "view", "path": "."})).await;
    assert!(out.text_content().contains("t.txt"));
    let out =
        call(&ed, json!({"command": "insert", "path": "t.txt", "insert_line": 99, "new_str": "x"})).await;
    assert!(out.is_error);
}

#[tokio::test]
async fn list_directory_sorts_and_limits() {
    let (dir, ws) = ws();
    fs::create_dir(dir.path().join("zdir")).unwrap();
    for i in 0..5 {
        fs::write(dir.path().join(format!("f{i}")), "x").unwrap();
    }
    let ls = ListDirectoryTool::new(ws).into_tool();
    let out = call(&ls, json!({"limit": 3})).await.text_content();
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[1], "  zdir/", "directories first");
    assert_eq!(lines[2], "  f0 (1 bytes)");
    assert!(out.contains("[3 more entries"));
}

#[test]
fn annotations_are_truthful() {
    let (_dir, ws) = ws();
    let read = ReadTool::new(ws.clone()).into_tool();
    assert!(read.annotations().is_read_only() && !read.annotations().is_open_world());
    let write = WriteTool::new(ws.clone()).into_tool();
    assert!(write.annotations().is_edit() && write.annotations().is_destructive());
    let edit = EditTool::new(ws.clone()).into_tool();
    assert!(edit.annotations().is_edit() && !edit.annotations().is_idempotent());
    for tool in [
        dive_toolkit::GlobTool::new(ws.clone()).into_tool(),
        dive_toolkit::GrepTool::new(ws.clone()).into_tool(),
        ListDirectoryTool::new(ws.clone()).into_tool(),
    ] {
        let a = tool.annotations();
        assert!(a.is_read_only() && !a.is_open_world() && a.is_idempotent(), "{}", tool.name());
    }
    let bash = dive_toolkit::BashTool::new(ws.clone()).into_tool();
    assert!(!bash.annotations().is_read_only() && bash.annotations().is_destructive());
    assert!(bash.annotations().is_open_world(), "a shell can reach anything");
    let fetch = dive_toolkit::WebFetchTool::new().unwrap().into_tool();
    assert!(fetch.annotations().is_read_only() && fetch.annotations().is_open_world());
    let editor = TextEditorTool::new(ws).into_tool();
    assert!(editor.annotations().is_edit());
}
