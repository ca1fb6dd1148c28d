//! Quote-aware splitting of a shell command into the segments `;` `&&` `||` `|` `&` and
//! newlines separate, noting command substitution and the files output redirections write.

use crate::redirect::{WriteTarget, output_redirections};

/// A command split for matching.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct ShellCommand {
    /// The simple commands, trimmed, in order.
    pub segments: Vec<String>,
    /// `$(…)`, backticks or `<(…)`/`>(…)` appear outside single quotes; such a command is
    /// never allowed by a rule (its inner commands are not visible to segment matching).
    pub has_substitution: bool,
    /// The bodies of substitutions (checked against deny rules too).
    pub substitutions: Vec<String>,
    /// The files the segments' output redirections write (`> f`, `2>> log`, `&> f`, …), in
    /// order; `2>&1`-style descriptor duplications are not files and are not listed.
    pub writes: Vec<WriteTarget>,
}

/// Splits `command` into segments, honouring quotes and backslash escapes.
///
/// ```
/// let c = dive_permission::split_command("cargo fmt && echo 'a;b' | wc -l; ls");
/// assert_eq!(c.segments, ["cargo fmt", "echo 'a;b'", "wc -l", "ls"]);
/// assert!(!c.has_substitution);
/// assert!(dive_permission::split_command("echo $(rm -rf /)").has_substitution);
/// ```
#[must_use]
pub fn split_command(command: &str) -> ShellCommand {
    let chars: Vec<char> = command.chars().collect();
    let mut out = ShellCommand::default();
    let mut cur = String::new();
    let mut i = 0;
    let (mut single, mut double) = (false, false);
    let flush = |cur: &mut String, out: &mut ShellCommand| {
        let seg = cur.trim();
        if !seg.is_empty() {
            out.segments.push(seg.to_string());
        }
        cur.clear();
    };
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        if single {
            if c == '\'' {
                single = false;
            }
            cur.push(c);
            i += 1;
            continue;
        }
        match c {
            '\\' => {
                cur.push(c);
                if let Some(n) = next {
                    cur.push(n);
                }
                i += 2;
                continue;
            }
            '\'' if !double => single = true,
            '"' => double = !double,
            '`' => {
                out.has_substitution = true;
                let end = chars[i + 1..].iter().position(|&x| x == '`').map_or(chars.len(), |p| i + 1 + p);
                out.substitutions.push(chars[i + 1..end].iter().collect());
                // Keep the whole `…` in this segment; its inside never splits the outer command.
                cur.extend(&chars[i..(end + 1).min(chars.len())]);
                i = end + 1;
                continue;
            }
            '$' | '<' | '>' if next == Some('(') => {
                out.has_substitution = true;
                let body = balanced(&chars, i + 2);
                let end = (i + 2 + body.chars().count() + 1).min(chars.len());
                out.substitutions.push(body);
                cur.extend(&chars[i..end]);
                i = end;
                continue;
            }
            ';' | '\n' if !double => {
                flush(&mut cur, &mut out);
                i += 1;
                continue;
            }
            '&' | '|' if !double => {
                // `&&`, `||`, `|`, `&` all separate; `>&`/`&>`/`>|` redirections stay put.
                let prev = cur.chars().last();
                let redirect = match c {
                    '&' => prev == Some('>') || prev == Some('<') || next == Some('>'),
                    _ => prev == Some('>'),
                };
                if redirect {
                    cur.push(c);
                    i += 1;
                    continue;
                }
                flush(&mut cur, &mut out);
                i += if next == Some(c) || (c == '|' && next == Some('&')) { 2 } else { 1 };
                continue;
            }
            _ => {}
        }
        cur.push(c);
        i += 1;
    }
    flush(&mut cur, &mut out);
    out.writes = out.segments.iter().flat_map(|s| output_redirections(s)).collect();
    out
}

/// Commands that run their arguments as another command.
const WRAPPERS: &[&str] =
    &["sudo", "doas", "env", "nohup", "time", "nice", "command", "exec", "xargs", "timeout", "stdbuf"];

/// The commands a segment may really run, for deny matching: the segment itself, the
/// segment without leading `VAR=value` assignments and wrappers (`sudo`, `env`, `xargs`,
/// `timeout 5`, …), and the script of `bash -c '…'` / `sh -c '…'` (split again, recursively).
///
/// ```
/// let views = dive_permission::effective_commands("sudo -E env X=1 rm -rf /tmp/x");
/// assert!(views.iter().any(|v| v == "rm -rf /tmp/x"));
/// let views = dive_permission::effective_commands("bash -c 'ls; rm -rf ~'");
/// assert!(views.iter().any(|v| v == "rm -rf ~"));
/// ```
#[must_use]
pub fn effective_commands(segment: &str) -> Vec<String> {
    let mut out = vec![segment.trim().to_string()];
    let words: Vec<&str> = segment.split_whitespace().collect();
    let mut i = 0;
    while i < words.len() {
        let w = words[i];
        let is_assignment = w.contains('=') && !w.starts_with('=') && !w.starts_with('-');
        if is_assignment || WRAPPERS.contains(&w) {
            i += 1;
            // Flags and numeric arguments of the wrapper (`sudo -E`, `timeout 5`, `nice -n 10`).
            while i < words.len() && (words[i].starts_with('-') || words[i].parse::<f64>().is_ok()) {
                i += 1;
            }
            continue;
        }
        break;
    }
    if i > 0 && i < words.len() {
        out.push(words[i..].join(" "));
    }
    let rest = &words[i.min(words.len())..];
    if rest.len() >= 3 && matches!(rest[0], "bash" | "sh" | "zsh" | "dash") && rest[1] == "-c" {
        let script = rest[2..].join(" ");
        let script = script.trim_matches(|c| c == '\'' || c == '"');
        for inner in split_command(script).segments {
            out.extend(effective_commands(&inner));
        }
    }
    out
}

/// The text up to the parenthesis that closes one opened just before `start`.
fn balanced(chars: &[char], start: usize) -> String {
    let mut depth = 1usize;
    let mut out = String::new();
    for &c in chars.iter().skip(start) {
        match c {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth == 0 {
                    break;
                }
            }
            _ => {}
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_and_detects() {
        assert_eq!(split_command("a || b & c").segments, ["a", "b", "c"]);
        assert_eq!(split_command("make 2>&1 | tee log").segments, ["make 2>&1", "tee log"]);
        assert_eq!(split_command("echo a >| f | wc").segments, ["echo a >| f", "wc"]);
        assert_eq!(split_command("echo \"x && y\"").segments, ["echo \"x && y\""]);
        assert_eq!(split_command("echo a\\;b").segments, ["echo a\\;b"]);
        let c = split_command("ls `whoami`; echo $(id -u)");
        assert!(c.has_substitution);
        assert_eq!(c.substitutions, ["whoami", "id -u"]);
        assert!(!split_command("echo '$(safe)'").has_substitution);
        assert!(split_command("echo \"$(unsafe)\"").has_substitution);
        assert!(split_command("diff <(ls a) <(ls b)").has_substitution);
        let nested = split_command("echo $(a; $(b)) && c");
        assert_eq!(nested.segments, ["echo $(a; $(b))", "c"]);
        assert_eq!(nested.substitutions, ["a; $(b)"]);
        let writes = split_command("echo a > one; make 2>&1 | tee log && ls &>> two");
        let paths: Vec<&str> = writes.writes.iter().map(|w| w.path.as_str()).collect();
        assert_eq!(paths, ["one", "two"]);
    }
}
