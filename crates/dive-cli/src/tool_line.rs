//! The lines shown for a tool call: what actually runs (the Bash command, the path, the URL),
//! never the model's description of it, then a few lines of the preview's details (the diff
//! of an edit, the content a write puts in the file).
//!
//! Every piece of text from the model or a file passes through [`crate::sanitize::visible`]
//! before the CLI's own styling is added.

use dive::{ToolPreview, ToolUse};
use serde_json::Value;

use crate::sanitize::visible;
use crate::style::Style;

/// Detail lines shown under a tool call before the rest is counted.
pub const MAX_DETAIL_LINES: usize = 12;
/// Longest headline, in characters.
const MAX_HEADLINE_CHARS: usize = 160;

fn cut(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_owned();
    }
    let kept: String = text.chars().take(max.saturating_sub(1)).collect();
    format!("{kept}…")
}

/// `Name(input)` shortened to one line: the fallback for tools without a preview.
pub fn call_summary(call: &ToolUse) -> String {
    format!("{}({})", call.name, cut(&call.input.to_string(), 80))
}

/// What runs, in one line: `Bash(cargo test)`, `Read src/main.rs`, `Fetch https://…`.
pub fn headline(call: &ToolUse, preview: Option<&ToolPreview>) -> String {
    let field = |key: &str| call.input.get(key).and_then(Value::as_str);
    let line = match (call.name.as_str(), field("command"), field("url")) {
        ("Bash", Some(command), _) => {
            let mut lines = command.trim().lines();
            let first = lines.next().unwrap_or_default();
            let more = lines.count();
            if more == 0 { format!("Bash({first})") } else { format!("Bash({first} … +{more} lines)") }
        }
        ("WebFetch", _, Some(url)) => format!("Fetch {url}"),
        ("Monitor", Some(command), _) => {
            format!("Monitor({})", command.trim().lines().next().unwrap_or_default())
        }
        ("Agent", _, _) => {
            let kind = field("subagent_type").unwrap_or("general-purpose");
            let background = if call.input.get("run_in_background") == Some(&Value::Bool(true)) {
                ", in the background"
            } else {
                ""
            };
            format!("Agent({kind}{background}: {})", field("description").unwrap_or_default())
        }
        ("Skill", _, _) => match field("args").filter(|a| !a.is_empty()) {
            Some(args) => format!("Skill({} {args})", field("skill").unwrap_or_default()),
            None => format!("Skill({})", field("skill").unwrap_or_default()),
        },
        ("TaskStop", _, _) => format!("TaskStop({})", field("task_id").unwrap_or_default()),
        ("TodoWrite", _, _) => "TodoWrite".to_owned(),
        _ => preview.map_or_else(|| call_summary(call), |p| p.summary.clone()),
    };
    cut(&line, MAX_HEADLINE_CHARS)
}

/// The detail lines under the headline: the preview's details without Markdown fences (for
/// Bash, the rest of a multi-line command), at most [`MAX_DETAIL_LINES`], then how many more
/// there were.
pub fn details(call: &ToolUse, preview: Option<&ToolPreview>) -> Vec<String> {
    let lines: Vec<&str> = if call.name == "Bash" {
        let command = call.input.get("command").and_then(Value::as_str).unwrap_or_default();
        command.trim().lines().skip(1).collect()
    } else {
        let Some(text) = preview.and_then(|p| p.details.as_deref()) else { return Vec::new() };
        text.lines().filter(|l| !l.trim_start().starts_with("```")).collect()
    };
    let mut out: Vec<String> = lines.iter().take(MAX_DETAIL_LINES).map(|l| cut(l, 200)).collect();
    if lines.len() > MAX_DETAIL_LINES {
        out.push(format!("… {} more lines", lines.len() - MAX_DETAIL_LINES));
    }
    out
}

/// The whole block as printed: `⏺ headline` and the indented, styled detail lines.
pub fn render(call: &ToolUse, preview: Option<&ToolPreview>, style: Style) -> String {
    let mut out = format!("{} {}", style.cyan("⏺"), visible(&headline(call, preview)));
    let diff = call.name != "Bash";
    for line in details(call, preview) {
        let shown = visible(&line);
        let styled = if diff && line.starts_with('+') && !line.starts_with("+++") {
            style.green(&shown)
        } else if diff && line.starts_with('-') && !line.starts_with("---") {
            style.red(&shown)
        } else {
            style.dim(&shown)
        };
        out.push_str("\n    ");
        out.push_str(&styled);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn bash_shows_the_command_not_the_description() {
        let call = ToolUse::new(
            "c1",
            "Bash",
            json!({"command": "rm -rf build && make", "description": "Rebuild the project"}),
        );
        let preview =
            ToolPreview::new("Rebuild the project").with_details("```bash\nrm -rf build && make\n```");
        assert_eq!(headline(&call, Some(&preview)), "Bash(rm -rf build && make)");
        assert!(details(&call, Some(&preview)).is_empty());
        let long = ToolUse::new("c2", "Bash", json!({"command": "set -e\ncargo build\ncargo test"}));
        assert_eq!(headline(&long, None), "Bash(set -e … +2 lines)");
        assert_eq!(details(&long, None), ["cargo build", "cargo test"], "the whole command is shown");
    }

    #[test]
    fn paths_and_urls_are_shown_and_details_are_cut() {
        let fetch = ToolUse::new("c1", "WebFetch", json!({"url": "https://example.com/a", "prompt": "x"}));
        assert_eq!(headline(&fetch, None), "Fetch https://example.com/a");
        let read = ToolUse::new("c2", "Read", json!({"file_path": "src/main.rs"}));
        assert_eq!(headline(&read, Some(&ToolPreview::new("Read src/main.rs"))), "Read src/main.rs");
        assert_eq!(headline(&read, None), "Read({\"file_path\":\"src/main.rs\"})");
        let body: String = (1..=20).map(|i| format!("line {i}\n")).collect();
        let write = ToolUse::new("c3", "Write", json!({"file_path": "a.txt", "content": body}));
        let preview = ToolPreview::new("Write a.txt").with_details(body.clone());
        let shown = details(&write, Some(&preview));
        assert_eq!(shown.len(), MAX_DETAIL_LINES + 1);
        assert_eq!(shown[0], "line 1");
        assert_eq!(shown[MAX_DETAIL_LINES], "… 8 more lines");
    }

    #[test]
    fn model_text_cannot_style_the_terminal() {
        let call = ToolUse::new("c1", "Bash", json!({"command": "echo \u{1b}]0;pwned\u{7}"}));
        let plain = render(&call, None, Style::decide(false, None, None));
        assert!(!plain.contains('\u{1b}'), "{plain:?}");
        let coloured = render(&call, None, Style::decide(true, None, None));
        assert_eq!(coloured.matches('\u{1b}').count(), 2, "only the marker's own colour: {coloured:?}");
    }
}
