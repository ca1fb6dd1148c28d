//! The `<skill_content name="…">` block a loaded skill arrives in: its base directory, its
//! instructions and the list of its bundled files (listed, never read), and how a block is
//! recognised in a conversation again.

use std::path::{Path, PathBuf};

/// How far into a skill directory bundled files are listed, and how many.
const LIST_DEPTH: usize = 4;
const LIST_MAX: usize = 200;

/// The opening of a content block, up to the name.
pub(crate) const OPEN: &str = "<skill_content name=\"";

/// Wraps rendered instructions.
pub(crate) fn wrap(name: &str, dir: Option<&Path>, instructions: &str, files: &[String]) -> String {
    let mut out = format!("{OPEN}{}\">\n", name.replace('"', "&quot;"));
    if let Some(dir) = dir {
        out.push_str(&format!(
            "Base directory of this skill: {}\nPaths in these instructions are relative to it.\n\n",
            dir.display()
        ));
    }
    out.push_str(instructions.trim_end());
    out.push('\n');
    if !files.is_empty() {
        out.push_str("\n<skill_files>\n");
        for f in files {
            out.push_str(f);
            out.push('\n');
        }
        out.push_str("</skill_files>\n");
    }
    out.push_str("</skill_content>");
    out
}

/// The closing of a content block.
const CLOSE: &str = "</skill_content>";

/// The whole content blocks a text holds.
pub(crate) fn blocks(text: &str) -> impl Iterator<Item = &str> {
    text.match_indices(OPEN).filter_map(move |(at, _)| {
        let rest = &text[at..];
        rest.find(CLOSE).map(|end| &rest[..end + CLOSE.len()])
    })
}

/// The files of a skill directory (relative paths, sorted), without `SKILL.md`, hidden
/// entries or `node_modules`; bounded in depth and count. Blocking.
pub(crate) fn bundled_files(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack: Vec<(PathBuf, usize)> = vec![(dir.to_owned(), 0)];
    while let Some((current, depth)) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&current) else { continue };
        let mut entries: Vec<_> = entries.filter_map(Result::ok).map(|e| e.path()).collect();
        entries.sort();
        for path in entries {
            let name = path.file_name().and_then(|n| n.to_str()).unwrap_or_default();
            if name.starts_with('.') || name == "node_modules" || (depth == 0 && name == "SKILL.md") {
                continue;
            }
            // symlink_metadata: a linked directory is listed, not followed (no loops).
            let Ok(meta) = std::fs::symlink_metadata(&path) else { continue };
            if meta.is_dir() {
                if depth + 1 < LIST_DEPTH {
                    stack.push((path, depth + 1));
                }
            } else if let Ok(rel) = path.strip_prefix(dir) {
                out.push(rel.to_string_lossy().replace('\\', "/"));
                if out.len() >= LIST_MAX {
                    out.sort();
                    return out;
                }
            }
        }
    }
    out.sort();
    out
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn blocks_are_found_again_by_name() {
        let a = wrap("pdf", Some(Path::new("/s/pdf")), "Do it.\n", &["scripts/x.py".into()]);
        assert!(a.starts_with("<skill_content name=\"pdf\">\nBase directory of this skill: /s/pdf\n"));
        assert!(a.contains("<skill_files>\nscripts/x.py\n</skill_files>\n</skill_content>"));
        let b = wrap("review", None, "R", &[]);
        let text = format!("before {a} and {b} after");
        assert_eq!(blocks(&text).collect::<Vec<_>>(), [a.as_str(), b.as_str()]);
    }

    #[test]
    fn bundled_files_are_listed_not_read() {
        let dir = tempfile::tempdir().unwrap();
        for f in ["SKILL.md", "scripts/run.sh", "references/api.md", ".hidden", "node_modules/x.js"] {
            let p = dir.path().join(f);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, "x").unwrap();
        }
        assert_eq!(bundled_files(dir.path()), ["references/api.md", "scripts/run.sh"]);
    }
}
