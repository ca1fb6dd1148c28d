//! The files a simple command's output redirections write (`>`, `>>`, `>|`, `&>`, `&>>`,
//! `n>`, `<>`, `>&file`), found quote-aware; descriptor duplications (`2>&1`, `>&-`) write
//! no file and are not listed.

/// A file an output redirection writes.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct WriteTarget {
    /// The operator as written (`>`, `2>>`, `&>`, `>|`, `<>`, `>&`).
    pub operator: String,
    /// The target word with quotes and backslash escapes removed.
    pub path: String,
    /// `false` when the shell would expand the word (`$VAR`, `~`, globs, braces, command
    /// substitution) or the word is missing, so the file written is not known before the
    /// command runs.
    pub literal: bool,
}

/// The output redirections of one simple command (a segment of [`split_command`](crate::split_command)).
///
/// ```
/// let w = dive_permission::output_redirections("echo hi > out.txt 2>&1");
/// assert_eq!(w.len(), 1);
/// assert_eq!((w[0].operator.as_str(), w[0].path.as_str()), (">", "out.txt"));
/// assert!(dive_permission::output_redirections("echo 'a > b' 2>&1 >&2").is_empty());
/// ```
#[must_use]
pub fn output_redirections(segment: &str) -> Vec<WriteTarget> {
    let chars: Vec<char> = segment.chars().collect();
    let mut out = Vec::new();
    let (mut i, mut single, mut double) = (0, false, false);
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        if single {
            single = c != '\'';
            i += 1;
            continue;
        }
        if double {
            match c {
                '\\' => i += 1,
                '"' => double = false,
                _ => {}
            }
            i += 1;
            continue;
        }
        match c {
            '\\' => i += 2,
            '\'' => {
                single = true;
                i += 1;
            }
            '"' => {
                double = true;
                i += 1;
            }
            // `<(…)` / `>(…)` are process substitutions, not redirections.
            '<' | '>' if next == Some('(') => i += 2,
            '<' if next == Some('>') => {
                let (word, end) = read_word(&chars, i + 2);
                out.push(target(format!("{}<>", fd_prefix(&chars, i)), word));
                i = end;
            }
            // Input redirections and here-documents / here-strings read; they write nothing.
            '<' => i += 1,
            '>' => {
                let mut operator = format!("{}>", fd_prefix(&chars, i));
                let mut j = i + 1;
                let duplicates = next == Some('&');
                if matches!(next, Some('>' | '|' | '&')) {
                    operator.extend(next);
                    j += 1;
                }
                let (word, end) = read_word(&chars, j);
                i = end;
                // `>&2`, `2>&1`, `>&-`, `3>&1-`: a descriptor, not a file.
                let descriptor = word.as_ref().is_some_and(|(w, literal)| {
                    *literal && !w.is_empty() && w.trim_end_matches('-').chars().all(|d| d.is_ascii_digit())
                });
                if !(duplicates && descriptor) {
                    out.push(target(operator, word));
                }
            }
            _ => i += 1,
        }
    }
    out
}

fn target(operator: String, word: Option<(String, bool)>) -> WriteTarget {
    let (path, literal) = word.unwrap_or_default();
    WriteTarget { operator, path, literal }
}

/// The descriptor number or `&` written right before a redirection operator at `at`.
fn fd_prefix(chars: &[char], at: usize) -> String {
    let mut start = at;
    while start > 0 && chars[start - 1].is_ascii_digit() {
        start -= 1;
    }
    if start == at && at > 0 && chars[at - 1] == '&' {
        start -= 1;
    }
    let at_word_start = start == 0 || chars[start - 1].is_whitespace();
    if at_word_start { chars[start..at].iter().collect() } else { String::new() }
}

/// Reads the shell word starting at `start` (after blanks): quotes and escapes removed, and
/// whether it is literal (nothing the shell would expand). `None` when there is no word.
fn read_word(chars: &[char], start: usize) -> (Option<(String, bool)>, usize) {
    let mut i = start;
    while i < chars.len() && matches!(chars[i], ' ' | '\t') {
        i += 1;
    }
    let (mut word, mut literal, mut any) = (String::new(), true, false);
    let (mut single, mut double) = (false, false);
    while i < chars.len() {
        let c = chars[i];
        if single {
            if c == '\'' {
                single = false;
            } else {
                word.push(c);
            }
            i += 1;
            continue;
        }
        if !double && (c.is_whitespace() || matches!(c, ';' | '&' | '|' | '<' | '>' | '(' | ')')) {
            break;
        }
        any = true;
        match c {
            '\'' if !double => single = true,
            '"' => double = !double,
            '\\' => {
                i += 1;
                word.extend(chars.get(i));
            }
            '$' | '`' => {
                literal = false;
                word.push(c);
            }
            '*' | '?' | '[' | '{' if !double => {
                literal = false;
                word.push(c);
            }
            '~' if !double && word.is_empty() => {
                literal = false;
                word.push(c);
            }
            _ => word.push(c),
        }
        i += 1;
    }
    if single || double {
        literal = false;
    }
    ((any || single).then_some((word, literal)), i)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn targets(segment: &str) -> Vec<(String, String, bool)> {
        output_redirections(segment).into_iter().map(|t| (t.operator, t.path, t.literal)).collect()
    }

    fn t(op: &str, path: &str, literal: bool) -> (String, String, bool) {
        (op.to_string(), path.to_string(), literal)
    }

    #[test]
    fn operators() {
        assert_eq!(targets("echo a > f"), [t(">", "f", true)]);
        assert_eq!(targets("echo a>f"), [t(">", "f", true)]);
        assert_eq!(targets("echo a >> f"), [t(">>", "f", true)]);
        assert_eq!(targets("echo a >| f"), [t(">|", "f", true)]);
        assert_eq!(targets("echo a &> f"), [t("&>", "f", true)]);
        assert_eq!(targets("echo a &>> f"), [t("&>>", "f", true)]);
        assert_eq!(targets("make 2> err.log"), [t("2>", "err.log", true)]);
        assert_eq!(targets("make 2>>err.log"), [t("2>>", "err.log", true)]);
        assert_eq!(targets("exec 3<> f"), [t("3<>", "f", true)]);
        assert_eq!(targets("echo a >& f"), [t(">&", "f", true)]);
        assert_eq!(targets("cat <<< text > f"), [t(">", "f", true)]);
        assert_eq!(targets("cat <<EOF >f"), [t(">", "f", true)]);
        assert_eq!(targets("cat < in > out"), [t(">", "out", true)]);
    }

    #[test]
    fn descriptors_quotes_and_expansions() {
        assert!(targets("make 2>&1").is_empty());
        assert!(targets("echo x >&2").is_empty());
        assert!(targets("echo x 1>&- 3>&1-").is_empty());
        assert!(targets("echo 'a > b' \"c > d\" e\\>f").is_empty());
        assert!(targets("diff <(ls) >(cat)").is_empty());
        assert_eq!(targets("echo > 'my file'"), [t(">", "my file", true)]);
        assert_eq!(targets("echo > \"a b\"c"), [t(">", "a bc", true)]);
        assert_eq!(targets("echo > a\\ b"), [t(">", "a b", true)]);
        assert_eq!(targets("echo > $HOME/x"), [t(">", "$HOME/x", false)]);
        assert_eq!(targets("echo > \"$HOME/x\""), [t(">", "$HOME/x", false)]);
        assert_eq!(targets("echo > ~/.bashrc"), [t(">", "~/.bashrc", false)]);
        assert_eq!(targets("echo > *.txt"), [t(">", "*.txt", false)]);
        assert_eq!(targets("echo > '*.txt'"), [t(">", "*.txt", true)]);
        assert_eq!(targets("echo >"), [t(">", "", false)]);
        assert_eq!(targets("echo >&"), [t(">&", "", false)]);
        assert_eq!(targets("echo > 'open"), [t(">", "open", false)]);
    }
}
