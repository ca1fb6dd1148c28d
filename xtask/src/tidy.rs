//! Source rules `cargo xtask tidy` checks beyond the opening `//!` line: no comment cites a
//! document outside the repository.
//!
//! A comment that says "see the reference, section 3.8" or points at a file of the planning tree leaves a
//! reader of the published crate with a rule they cannot look up; the comment must state the
//! rule itself (or link to an item or a file of this repository).

/// Marks, in a comment line, of a citation of a document outside the repository: a section
/// sign (as in "reference section x.y" written with the sign), a path into the planning tree, or a named outside
/// design source.
const OUTSIDE_CITATIONS: &[&str] =
    &["\u{a7}", "../shared/", "shared/design/", "shared/reference", "../reference/", "goagent"];

/// Every comment line (`//`, `///`, `//!`) of `text` that cites an outside document, as
/// `(line number, the mark found)`.
pub(crate) fn outside_citations(text: &str) -> Vec<(usize, &'static str)> {
    text.lines()
        .enumerate()
        .filter_map(|(i, line)| {
            let comment = comment_of(line)?;
            let lower = comment.to_lowercase();
            OUTSIDE_CITATIONS.iter().find(|mark| lower.contains(*mark)).map(|mark| (i + 1, *mark))
        })
        .collect()
}

/// The comment part of a line: the whole line when it is a comment line, else what follows a
/// trailing `//` outside a string literal (a rough but conservative cut: a `//` inside a string
/// such as a URL is not a comment).
fn comment_of(line: &str) -> Option<&str> {
    let trimmed = line.trim_start();
    if trimmed.starts_with("//") {
        return Some(trimmed);
    }
    let mut in_string = false;
    let mut escaped = false;
    let bytes = line.as_bytes();
    for (i, &b) in bytes.iter().enumerate() {
        match b {
            _ if escaped => escaped = false,
            b'\\' if in_string => escaped = true,
            b'"' => in_string = !in_string,
            b'/' if !in_string && bytes.get(i + 1) == Some(&b'/') => return Some(&line[i..]),
            _ => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_section_citation_in_rustdoc_is_found_with_its_line() {
        let text = "//! Reminders: typed runtime context.\n\n/// Why a turn ended (reference \u{a7}6.4).\npub enum A {}\n";
        assert_eq!(outside_citations(text), vec![(3, "\u{a7}")]);
    }

    #[test]
    fn paths_into_the_planning_tree_and_named_sources_are_found() {
        let text = "//! See ../shared/design/conventions.md.\nfn f() {} // the GoAgent model\n";
        assert_eq!(outside_citations(text), vec![(1, "../shared/"), (2, "goagent")]);
    }

    #[test]
    fn string_literals_and_plain_comments_pass() {
        let text = "let s = \"\u{a7} in a test string\"; // a plain comment\n/// Borrows by reference.\n";
        assert_eq!(outside_citations(text), vec![]);
    }

    #[test]
    fn the_workspace_has_no_outside_citation() {
        // The real tree: `cargo test -p xtask` enforces what `cargo xtask tidy` checks.
        let found = crate::checks::outside_citation_lines();
        assert!(found.is_empty(), "comments citing outside documents: {found:#?}");
    }
}
