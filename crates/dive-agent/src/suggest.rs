//! Close-name suggestions for a tool name the model got wrong.

/// The most suggestions offered.
const MAX_SUGGESTIONS: usize = 3;

fn normalise(name: &str) -> String {
    name.chars().filter(|c| c.is_ascii_alphanumeric()).map(|c| c.to_ascii_lowercase()).collect()
}

fn last_segment(name: &str) -> &str {
    name.rsplit(['_', '-', '.', '/', ':']).next().unwrap_or(name)
}

/// Up to three known names close to `wanted`: same name ignoring case and separators, a
/// shared last segment (`read` for `mcp__fs__read`), or a small edit distance.
pub(crate) fn suggest<'a>(wanted: &str, known: impl IntoIterator<Item = &'a str>) -> Vec<String> {
    let wanted_norm = normalise(wanted);
    let wanted_tail = last_segment(wanted).to_ascii_lowercase();
    let mut scored: Vec<(usize, &str)> = known
        .into_iter()
        .filter_map(|name| {
            let norm = normalise(name);
            let tail = last_segment(name).to_ascii_lowercase();
            let score = if norm == wanted_norm {
                0
            } else if !wanted_tail.is_empty() && (tail == wanted_tail || tail == wanted_norm) {
                1
            } else {
                let distance = strsim::levenshtein(&wanted_norm, &norm);
                let allowed = (wanted_norm.len().max(norm.len()) / 3).max(2);
                if distance > allowed {
                    return None;
                }
                1 + distance
            };
            Some((score, name))
        })
        .collect();
    scored.sort_by(|a, b| a.0.cmp(&b.0).then_with(|| a.1.cmp(b.1)));
    scored.into_iter().take(MAX_SUGGESTIONS).map(|(_, n)| n.to_owned()).collect()
}

/// The error text the model gets for an unknown tool.
pub(crate) fn unknown_tool_message(wanted: &str, suggestions: &[String]) -> String {
    if suggestions.is_empty() {
        format!("Unknown tool {wanted:?}. Use one of the tools you were given.")
    } else {
        let list = suggestions.iter().map(|s| format!("{s:?}")).collect::<Vec<_>>().join(", ");
        format!("Unknown tool {wanted:?}. Did you mean {list}?")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn close_names_are_suggested_best_first() {
        let known = ["read_file", "write_file", "mcp__fs__read", "bash", "list_directory"];
        assert_eq!(suggest("Read_File", known), vec!["read_file", "write_file"]);
        assert_eq!(suggest("read", known)[0], "mcp__fs__read");
        assert_eq!(suggest("bsh", known), vec!["bash"]);
        assert!(suggest("completely_unrelated_thing", known).is_empty());
        assert!(suggest("x", ["a", "b", "c", "d", "e"]).len() <= 3);
    }

    #[test]
    fn message_lists_suggestions() {
        let msg = unknown_tool_message("reed", &["read".into()]);
        assert_eq!(msg, "Unknown tool \"reed\". Did you mean \"read\"?");
    }
}
