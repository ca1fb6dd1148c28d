//! A short unified diff for edit results (at most 50 lines of at most 200 characters).

use similar::TextDiff;

/// Most diff lines shown.
pub const MAX_DIFF_LINES: usize = 50;
/// Longest diff line shown, in characters.
pub const MAX_DIFF_LINE_CHARS: usize = 200;

/// A unified diff of `before` → `after`, cut to [`MAX_DIFF_LINES`] lines.
pub(crate) fn short_diff(name: &str, before: &str, after: &str) -> String {
    let diff = TextDiff::from_lines(before, after);
    let full = diff.unified_diff().context_radius(2).header(name, name).to_string();
    let mut out = String::new();
    let lines: Vec<&str> = full.lines().collect();
    for line in lines.iter().take(MAX_DIFF_LINES) {
        let mut line = (*line).to_string();
        if crate::util::truncate_chars(&mut line, MAX_DIFF_LINE_CHARS) {
            line.push('…');
        }
        out.push_str(&line);
        out.push('\n');
    }
    if lines.len() > MAX_DIFF_LINES {
        out.push_str(&format!("… {} more diff lines\n", lines.len() - MAX_DIFF_LINES));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn diff_is_cut() {
        let before: String = (0..200).map(|i| format!("{i}\n")).collect();
        let after: String = (0..200).map(|i| format!("x{i}\n")).collect();
        let d = short_diff("f", &before, &after);
        assert_eq!(d.lines().count(), MAX_DIFF_LINES + 1);
        assert!(d.ends_with("more diff lines\n"));
    }
}
