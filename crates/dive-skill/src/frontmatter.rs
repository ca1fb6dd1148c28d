//! A lenient reader of the YAML subset skill frontmatter uses: `key: value` scalars (plain,
//! quoted, `|`/`>` blocks), lists (block or `[a, b]`) and one level of nested map
//! (`metadata:`), each entry with its line.
//!
//! Lenient where authors commonly slip: a plain value holding `: ` (strict YAML refuses it)
//! is read as text with a warning, a repeated key keeps its last value with a warning, tabs
//! count as indentation. Anything else it cannot read is an error naming the line.

use crate::diagnostic::Problem;

/// A frontmatter value.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Value {
    /// Nothing after the colon and nothing nested.
    Null,
    /// Text.
    Scalar(String),
    /// A sequence of texts.
    List(Vec<String>),
    /// One level of `key: text` pairs.
    Map(Vec<(String, String)>),
}

/// One top-level key.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Entry {
    /// The key.
    pub key: String,
    /// Its value.
    pub value: Value,
    /// 1-based line of the key in the file.
    pub line: usize,
}

/// A file split into its frontmatter entries and its body.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct Document {
    /// `None` when the file has no frontmatter block.
    pub entries: Option<Vec<Entry>>,
    /// Everything after the frontmatter block (the whole file when there is none).
    pub body: String,
    /// Problems the lenient reading got past, with their lines.
    pub warnings: Vec<(usize, Problem)>,
}

impl Document {
    /// The entry of `key` (the last one when the key is repeated).
    #[must_use]
    pub fn get(&self, key: &str) -> Option<&Entry> {
        self.entries.as_ref()?.iter().rev().find(|e| e.key == key)
    }
}

/// Splits and reads a file. `Err` is the line and the problem that stop it being read.
pub fn parse(text: &str) -> Result<Document, (usize, Problem)> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let lines: Vec<&str> = text.split('\n').map(|l| l.strip_suffix('\r').unwrap_or(l)).collect();
    if lines.first().map(|l| l.trim_end()) != Some("---") {
        return Ok(Document { entries: None, body: text.to_owned(), warnings: Vec::new() });
    }
    let Some(end) = lines.iter().skip(1).position(|l| matches!(l.trim_end(), "---" | "...")).map(|p| p + 1)
    else {
        return Err((1, Problem::UnclosedFrontmatter));
    };
    let mut warnings = Vec::new();
    let entries = read_entries(&lines[1..end], 2, &mut warnings)?;
    let body = lines[end + 1..].join("\n");
    let body = body.strip_prefix('\n').unwrap_or(&body).to_owned();
    Ok(Document { entries: Some(entries), body, warnings })
}

fn indented(line: &str) -> bool {
    line.starts_with([' ', '\t'])
}

fn blank_or_comment(line: &str) -> bool {
    let t = line.trim();
    t.is_empty() || t.starts_with('#')
}

/// Where `key: value` splits: the first `:` followed by whitespace or the end of the line.
fn key_colon(line: &str) -> Option<usize> {
    let bytes = line.as_bytes();
    let mut quote = None;
    for (i, &b) in bytes.iter().enumerate() {
        match (quote, b) {
            (None, b'"' | b'\'') if i == 0 => quote = Some(b),
            (Some(q), _) if b == q => quote = None,
            (None, b':') if bytes.get(i + 1).is_none_or(|n| matches!(n, b' ' | b'\t')) => return Some(i),
            _ => {}
        }
    }
    None
}

fn unquote_key(key: &str) -> String {
    let key = key.trim();
    for q in ['"', '\''] {
        if let Some(inner) = key.strip_prefix(q).and_then(|k| k.strip_suffix(q)) {
            return inner.to_owned();
        }
    }
    key.to_owned()
}

fn read_entries(
    lines: &[&str],
    first_line: usize,
    warnings: &mut Vec<(usize, Problem)>,
) -> Result<Vec<Entry>, (usize, Problem)> {
    let mut entries: Vec<Entry> = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        let number = first_line + i;
        if blank_or_comment(line) {
            i += 1;
            continue;
        }
        if indented(line) {
            return Err((
                number,
                Problem::Syntax("this line is indented but no key above it takes a nested value".into()),
            ));
        }
        let Some(colon) = key_colon(line) else {
            return Err((number, Problem::Syntax(format!("expected `key: value`, found {:?}", line.trim()))));
        };
        let key = unquote_key(&line[..colon]);
        if key.is_empty() {
            return Err((number, Problem::Syntax("a line starts with `:` and has no key".into())));
        }
        let rest = line[colon + 1..].trim();
        let mut end = i + 1;
        while end < lines.len()
            && (indented(lines[end]) || lines[end].trim().is_empty() || is_item(lines[end]))
        {
            end += 1;
        }
        while end > i + 1 && lines[end - 1].trim().is_empty() {
            end -= 1;
        }
        let value = read_value(&key, rest, &lines[i + 1..end], number, warnings)?;
        if entries.iter().any(|e| e.key == key) {
            warnings.push((number, Problem::DuplicateKey { key: key.clone() }));
        }
        entries.push(Entry { key, value, line: number });
        i = end;
    }
    Ok(entries)
}

fn is_item(line: &str) -> bool {
    let t = line.trim_start();
    t == "-" || t.starts_with("- ") || t.starts_with("-\t")
}

fn read_value(
    key: &str,
    rest: &str,
    nested: &[&str],
    line: usize,
    warnings: &mut Vec<(usize, Problem)>,
) -> Result<Value, (usize, Problem)> {
    if let Some(chomp) = rest.strip_prefix(['|', '>'])
        && matches!(chomp, "" | "-" | "+")
    {
        return Ok(Value::Scalar(block_scalar(nested, rest.starts_with('|'))));
    }
    if rest.is_empty() || rest.starts_with('#') {
        let content: Vec<(usize, &str)> = nested
            .iter()
            .enumerate()
            .filter(|(_, l)| !blank_or_comment(l))
            .map(|(n, l)| (line + 1 + n, *l))
            .collect();
        let Some(&(_, first)) = content.first() else { return Ok(Value::Null) };
        if is_item(first) {
            return block_list(&content).map(Value::List);
        }
        if key_colon(first.trim()).is_some() {
            return block_map(&content, warnings).map(Value::Map);
        }
        let text = content.iter().map(|(_, l)| l.trim()).collect::<Vec<_>>().join(" ");
        return plain(key, &text, line, warnings).map(Value::Scalar);
    }
    let joined = std::iter::once(rest).chain(nested.iter().map(|l| l.trim())).collect::<Vec<_>>().join(" ");
    let joined = joined.trim();
    // Claude Code's argument hints are written unquoted, `[file] [line]`: text, not a list.
    if key == "argument-hint" && rest.starts_with('[') {
        return Ok(Value::Scalar(joined.to_owned()));
    }
    if rest.starts_with('[') {
        return flow(joined, '[', ']', line).map(Value::List);
    }
    if rest.starts_with('{') {
        let items = flow(joined, '{', '}', line)?;
        let mut pairs = Vec::new();
        for item in items {
            let Some(colon) = key_colon(&item) else {
                return Err((
                    line,
                    Problem::Syntax(format!("expected `key: value` inside `{{…}}`, found {item:?}")),
                ));
            };
            pairs.push((unquote_key(&item[..colon]), scalar(item[colon + 1..].trim(), line)?));
        }
        return Ok(Value::Map(pairs));
    }
    if rest.starts_with(['"', '\'']) {
        return scalar(joined, line).map(Value::Scalar);
    }
    plain(key, joined, line, warnings).map(Value::Scalar)
}

/// A plain (unquoted) scalar: a trailing ` # comment` dropped; `: ` inside kept, with a warning.
fn plain(
    key: &str,
    text: &str,
    line: usize,
    warnings: &mut Vec<(usize, Problem)>,
) -> Result<String, (usize, Problem)> {
    let text = strip_comment(text);
    if text.contains(": ") || text.contains(":\t") {
        warnings.push((line, Problem::UnquotedColon { key: key.to_owned() }));
    }
    Ok(text.to_owned())
}

fn strip_comment(text: &str) -> &str {
    let cut = text.find(" #").or_else(|| text.find("\t#")).unwrap_or(text.len());
    text[..cut].trim()
}

/// One scalar inside a list or map: quoted (escapes read) or plain.
fn scalar(text: &str, line: usize) -> Result<String, (usize, Problem)> {
    let text = text.trim();
    if let Some(inner) = text.strip_prefix('"') {
        return double_quoted(inner, line);
    }
    if let Some(inner) = text.strip_prefix('\'') {
        let mut out = String::new();
        let mut chars = inner.chars().peekable();
        while let Some(c) = chars.next() {
            if c == '\'' {
                if chars.peek() == Some(&'\'') {
                    chars.next();
                    out.push('\'');
                    continue;
                }
                return trailing(chars.collect::<String>().as_str(), line).map(|()| out);
            }
            out.push(c);
        }
        return Err((
            line,
            Problem::Syntax("a single-quoted value is never closed: add the closing `'`".into()),
        ));
    }
    Ok(strip_comment(text).to_owned())
}

fn double_quoted(inner: &str, line: usize) -> Result<String, (usize, Problem)> {
    let mut out = String::new();
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        match c {
            '"' => return trailing(chars.as_str(), line).map(|()| out),
            '\\' => match chars.next() {
                Some('n') => out.push('\n'),
                Some('t') => out.push('\t'),
                Some('r') => out.push('\r'),
                Some('0') => out.push('\0'),
                Some('u') => {
                    let hex: String = chars.by_ref().take(4).collect();
                    let code = u32::from_str_radix(&hex, 16).ok().and_then(char::from_u32);
                    let Some(code) = code else {
                        return Err((line, Problem::Syntax(format!("`\\u{hex}` is not a character escape"))));
                    };
                    out.push(code);
                }
                Some(other) => out.push(other),
                None => break,
            },
            c => out.push(c),
        }
    }
    Err((line, Problem::Syntax("a double-quoted value is never closed: add the closing `\"`".into())))
}

/// What follows a closing quote may only be a comment.
fn trailing(rest: &str, line: usize) -> Result<(), (usize, Problem)> {
    let rest = rest.trim();
    if rest.is_empty() || rest.starts_with('#') {
        Ok(())
    } else {
        Err((line, Problem::Syntax(format!("unexpected {rest:?} after a quoted value"))))
    }
}

/// `[a, "b, c", d]` (or `{…}`), split on commas outside quotes.
fn flow(text: &str, open: char, close: char, line: usize) -> Result<Vec<String>, (usize, Problem)> {
    let text = strip_comment_after(text, close);
    let Some(inner) = text.strip_prefix(open).and_then(|t| t.strip_suffix(close)) else {
        return Err((
            line,
            Problem::Syntax(format!("a `{open}` list is never closed: end it with `{close}`")),
        ));
    };
    let mut items = Vec::new();
    let mut current = String::new();
    let mut quote: Option<char> = None;
    for c in inner.chars() {
        match (quote, c) {
            (None, '"' | '\'') => {
                quote = Some(c);
                current.push(c);
            }
            (Some(q), _) if c == q => {
                quote = None;
                current.push(c);
            }
            (None, ',') => items.push(std::mem::take(&mut current)),
            _ => current.push(c),
        }
    }
    items.push(current);
    let mut out = Vec::new();
    for item in items {
        let item = item.trim();
        if item.is_empty() {
            continue;
        }
        if open == '{' {
            out.push(item.to_owned());
        } else {
            out.push(scalar(item, line)?);
        }
    }
    Ok(out)
}

/// Drops a `# comment` after the closing bracket of a flow collection.
fn strip_comment_after(text: &str, close: char) -> &str {
    match text.rfind(close) {
        Some(at) if text[at + 1..].trim().starts_with('#') => &text[..=at],
        _ => text,
    }
}

fn block_list(content: &[(usize, &str)]) -> Result<Vec<String>, (usize, Problem)> {
    let mut items: Vec<String> = Vec::new();
    for &(line, raw) in content {
        let t = raw.trim();
        if is_item(raw) {
            items.push(scalar(t[1..].trim(), line)?);
        } else if let Some(last) = items.last_mut() {
            last.push(' ');
            last.push_str(t);
        }
    }
    Ok(items)
}

fn block_map(
    content: &[(usize, &str)],
    warnings: &mut Vec<(usize, Problem)>,
) -> Result<Vec<(String, String)>, (usize, Problem)> {
    let mut pairs: Vec<(String, String)> = Vec::new();
    for &(line, raw) in content {
        let t = raw.trim();
        let Some(colon) = key_colon(t) else {
            return Err((
                line,
                Problem::Syntax(format!("expected `key: value` in the nested map, found {t:?}")),
            ));
        };
        let key = unquote_key(&t[..colon]);
        let rest = t[colon + 1..].trim();
        let value = if rest.starts_with(['"', '\'']) {
            scalar(rest, line)?
        } else {
            plain(&key, rest, line, warnings)?
        };
        pairs.push((key, value));
    }
    Ok(pairs)
}

/// `|` keeps line breaks, `>` folds them into spaces (a blank line stays a break).
fn block_scalar(nested: &[&str], literal: bool) -> String {
    let indent = nested
        .iter()
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.len() - l.trim_start_matches([' ', '\t']).len())
        .min()
        .unwrap_or(0);
    let lines: Vec<&str> =
        nested.iter().map(|l| if l.trim().is_empty() { "" } else { &l[indent.min(l.len())..] }).collect();
    if literal {
        return lines.join("\n").trim_end().to_owned();
    }
    let mut out = String::new();
    for line in lines {
        if line.is_empty() {
            out.push('\n');
        } else {
            if !out.is_empty() && !out.ends_with('\n') {
                out.push(' ');
            }
            out.push_str(line);
        }
    }
    out.trim_end().to_owned()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn entries(text: &str) -> Vec<Entry> {
        parse(text).unwrap().entries.unwrap()
    }

    #[test]
    fn scalars_lists_maps_and_blocks() {
        let doc = parse(
            "---\nname: pdf\ndescription: \"Reads PDFs.\\nWell.\"\nlicense: 'It''s MIT'\nallowed-tools: [Read, \"Bash(git status)\"]\n\
             paths:\n  - src/**\n  - \"docs/*.md\"\nmetadata:\n  author: ada\n  version: \"1.0\"\nwhen_to_use: |\n  line one\n\n  line two\n\
             folded: >-\n  a\n  b\n\n  c\nempty:\n---\nBody line\n",
        )
        .unwrap();
        let e = doc.entries.as_ref().unwrap();
        assert_eq!(e[0], Entry { key: "name".into(), value: Value::Scalar("pdf".into()), line: 2 });
        assert_eq!(e[1].value, Value::Scalar("Reads PDFs.\nWell.".into()));
        assert_eq!(e[2].value, Value::Scalar("It's MIT".into()));
        assert_eq!(e[3].value, Value::List(vec!["Read".into(), "Bash(git status)".into()]));
        assert_eq!(e[4].value, Value::List(vec!["src/**".into(), "docs/*.md".into()]));
        assert_eq!(e[4].line, 6);
        assert_eq!(
            e[5].value,
            Value::Map(vec![("author".into(), "ada".into()), ("version".into(), "1.0".into())])
        );
        assert_eq!(e[6].value, Value::Scalar("line one\n\nline two".into()));
        assert_eq!(e[7].value, Value::Scalar("a b\nc".into()));
        assert_eq!(e[8].value, Value::Null);
        assert_eq!(doc.body, "Body line\n");
        assert!(doc.warnings.is_empty(), "{:?}", doc.warnings);
    }

    #[test]
    fn unquoted_colon_is_read_as_text_with_a_warning() {
        let doc = parse("---\nname: x\ndescription: Use when: the user asks # a comment\n---\n").unwrap();
        assert_eq!(doc.get("description").unwrap().value, Value::Scalar("Use when: the user asks".into()));
        assert_eq!(doc.warnings, vec![(3, Problem::UnquotedColon { key: "description".into() })]);
    }

    #[test]
    fn compact_lists_continuations_and_crlf() {
        let e = entries("---\r\nallowed-tools:\r\n- Read\r\n- Grep\r\ndescription: one\r\n  two\r\n---\r\n");
        assert_eq!(e[0].value, Value::List(vec!["Read".into(), "Grep".into()]));
        assert_eq!(e[1].value, Value::Scalar("one two".into()));
    }

    #[test]
    fn errors_name_the_line() {
        assert_eq!(parse("---\nname: x\n").unwrap_err().0, 1);
        let (line, problem) = parse("---\nname: x\njust words\n---\n").unwrap_err();
        assert_eq!(line, 3);
        assert!(matches!(problem, Problem::Syntax(m) if m.contains("key: value")));
        assert_eq!(parse("---\nname: x\ndescription: \"open\n---\n").unwrap_err().0, 3);
        assert_eq!(parse("---\nname: x\ntools: [a, b\n---\n").unwrap_err().0, 3);
        assert_eq!(parse("---\n  name: x\n---\n").unwrap_err().0, 2);
    }

    #[test]
    fn no_frontmatter_is_all_body() {
        let doc = parse("Just do it.\n").unwrap();
        assert!(doc.entries.is_none());
        assert_eq!(doc.body, "Just do it.\n");
    }

    #[test]
    fn duplicate_keys_warn_and_the_last_wins() {
        let doc = parse("---\nname: a\nname: b\n---\n").unwrap();
        assert_eq!(doc.get("name").unwrap().value, Value::Scalar("b".into()));
        assert_eq!(doc.warnings, vec![(3, Problem::DuplicateKey { key: "name".into() })]);
    }

    #[test]
    fn block_indentation_counts_spaces_and_tabs_only() {
        let e = entries("---\nd: |\n \u{3000}x\n  y\n---\n");
        assert_eq!(e[0].value, Value::Scalar("\u{3000}x\n y".into()));
    }

    #[test]
    fn urls_and_times_are_not_keys() {
        let e = entries("---\nhomepage: https://example.com/a:b\n---\n");
        assert_eq!(e[0].value, Value::Scalar("https://example.com/a:b".into()));
    }

    #[test]
    fn unquoted_argument_hints_in_brackets_are_text() {
        let e = entries("---\nargument-hint: [goal]\n---\n");
        assert_eq!(e[0].value, Value::Scalar("[goal]".into()));
        let e = entries("---\nargument-hint: [pr-number] [priority] [assignee]\n---\n");
        assert_eq!(e[0].value, Value::Scalar("[pr-number] [priority] [assignee]".into()));
        let e = entries("---\ntools: [Read, Grep]\n---\n");
        assert_eq!(
            e[0].value,
            Value::List(vec!["Read".into(), "Grep".into()]),
            "other keys keep their lists"
        );
    }
}
