//! Glob and Grep on real temp trees.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::fs;
use std::time::{Duration, SystemTime};

use common::call;
use dive_core::IntoTool;
use dive_toolkit::{GlobTool, GrepTool, Workspace};
use serde_json::json;

fn tree() -> (tempfile::TempDir, Workspace) {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path();
    fs::create_dir_all(p.join("src/nested")).unwrap();
    fs::create_dir_all(p.join("node_modules/pkg")).unwrap();
    fs::create_dir_all(p.join("target")).unwrap();
    fs::write(p.join(".gitignore"), "target/\n").unwrap();
    fs::create_dir(p.join(".git")).unwrap();
    fs::write(p.join("src/main.rs"), "fn main() {\n    println!(\"Hello\");\n}\n").unwrap();
    fs::write(p.join("src/lib.rs"), "pub fn hello() {}\n// TODO one\n// todo two\n").unwrap();
    fs::write(p.join("src/nested/deep.rs"), "a\nb\nneedle\nc\nd\ne\nf\nneedle\n").unwrap();
    fs::write(p.join("src/app.ts"), "const needle = 1;\n").unwrap();
    fs::write(p.join("node_modules/pkg/index.js"), "needle\n").unwrap();
    fs::write(p.join("target/out.rs"), "needle\n").unwrap();
    fs::write(p.join("bin.dat"), b"needle\x00\x01").unwrap();
    let ws = Workspace::new(p).unwrap();
    (dir, ws)
}

fn touch(path: &std::path::Path, secs_ago: u64) {
    let f = fs::File::options().write(true).open(path).unwrap();
    f.set_modified(SystemTime::now() - Duration::from_secs(secs_ago)).unwrap();
}

#[tokio::test]
async fn glob_matches_newest_first_and_skips_ignored() {
    let (dir, ws) = tree();
    touch(&dir.path().join("src/main.rs"), 300);
    touch(&dir.path().join("src/lib.rs"), 10);
    touch(&dir.path().join("src/nested/deep.rs"), 100);
    let glob = GlobTool::new(ws.clone()).into_tool();
    let out = call(&glob, json!({"pattern": "**/*.rs"})).await.text_content();
    assert_eq!(out, "src/lib.rs\nsrc/nested/deep.rs\nsrc/main.rs\n", "gitignored target/ skipped");
    let out = call(&glob, json!({"pattern": "*.rs", "path": "src"})).await.text_content();
    assert_eq!(out, "src/lib.rs\nsrc/main.rs\n", "`*` does not cross directories");
    let out = call(&glob, json!({"pattern": "**/*.js"})).await.text_content();
    assert_eq!(out, "No files found", "node_modules is excluded by default");

    let limited = GlobTool::new(ws).with_limit(2).into_tool();
    let out = call(&limited, json!({"pattern": "**/*.rs"})).await.text_content();
    assert!(out.starts_with("src/lib.rs\nsrc/nested/deep.rs\n[incomplete: 3 files matched"), "{out}");
}

#[tokio::test]
async fn grep_modes() {
    let (_dir, ws) = tree();
    let grep = GrepTool::new(ws).into_tool();
    let out = call(&grep, json!({"pattern": "needle"})).await.text_content();
    assert_eq!(
        out, "node_modules/pkg/index.js\nsrc/app.ts\nsrc/nested/deep.rs\n",
        "like rg: gitignored target/ and the binary file skipped, node_modules (not ignored) searched"
    );
    let out =
        call(&grep, json!({"pattern": "needle", "path": "src", "output_mode": "count"})).await.text_content();
    assert_eq!(out, "src/app.ts:1\nsrc/nested/deep.rs:2\n");
    let out =
        call(&grep, json!({"pattern": "todo", "-i": true, "output_mode": "content"})).await.text_content();
    assert_eq!(out, "src/lib.rs:2:// TODO one\nsrc/lib.rs:3:// todo two\n");
    let out =
        call(&grep, json!({"pattern": "todo", "output_mode": "content", "-n": false})).await.text_content();
    assert_eq!(out, "src/lib.rs:// todo two\n");
}

#[tokio::test]
async fn grep_context_filters_and_multiline() {
    let (_dir, ws) = tree();
    let grep = GrepTool::new(ws).into_tool();
    let out =
        call(&grep, json!({"pattern": "needle", "type": "rust", "output_mode": "content", "-B": 1, "-A": 1}))
            .await
            .text_content();
    assert_eq!(
        out,
        "src/nested/deep.rs-2-b\nsrc/nested/deep.rs:3:needle\nsrc/nested/deep.rs-4-c\n--\n\
         src/nested/deep.rs-7-f\nsrc/nested/deep.rs:8:needle\n"
    );
    let out = call(&grep, json!({"pattern": "needle", "path": "src", "glob": "*.ts"})).await.text_content();
    assert_eq!(out, "src/app.ts\n");
    let out = call(&grep, json!({"pattern": "main\\(\\) \\{\\n\\s+println", "multiline": true}))
        .await
        .text_content();
    assert_eq!(out, "src/main.rs\n");
    let out = call(&grep, json!({"pattern": "main\\(\\) \\{\\n\\s+println"})).await.text_content();
    assert!(out.contains("set multiline: true"), "without multiline a pattern cannot span lines: {out}");
    let out = call(&grep, json!({"pattern": "("})).await;
    assert!(out.is_error && out.text_content().contains("invalid regex"));
}

#[tokio::test]
async fn grep_pages_with_head_limit_and_offset() {
    let dir = tempfile::tempdir().unwrap();
    let text: String = (0..30).map(|i| format!("hit {i}\n")).collect();
    fs::write(dir.path().join("many.txt"), text).unwrap();
    let grep = GrepTool::new(Workspace::new(dir.path()).unwrap()).into_tool();
    let input = json!({"pattern": "hit", "output_mode": "content", "head_limit": 5, "offset": 10});
    let out = call(&grep, input).await.text_content();
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[0], "many.txt:11:hit 10");
    assert_eq!(lines[4], "many.txt:15:hit 14");
    assert_eq!(lines[5], "[showing 11-15 of 30; use offset=15 for more]");
}

#[tokio::test]
async fn grep_stops_at_its_cap_and_says_incomplete() {
    let dir = tempfile::tempdir().unwrap();
    let text: String = (0..dive_toolkit::MAX_COLLECTED_LINES + 10).map(|i| format!("x{i}\n")).collect();
    fs::write(dir.path().join("big.txt"), text).unwrap();
    let grep = GrepTool::new(Workspace::new(dir.path()).unwrap()).into_tool();
    let out = call(&grep, json!({"pattern": "x", "output_mode": "content"})).await.text_content();
    assert!(out.contains("[incomplete:"), "{}", &out[out.len() - 300..]);
}
