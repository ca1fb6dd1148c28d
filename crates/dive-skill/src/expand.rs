//! Argument expansion: `$ARGUMENTS`, `$1`…`$9` and named arguments (`$file`) in a skill's
//! body, after the body is split around `` !`command` `` dynamic context, so text a command
//! prints and text the arguments bring are never read as placeholders or commands.

use crate::dynamic::DynamicContext;
use crate::skill::Skill;

/// The arguments a skill is invoked with: the raw text, and its words split as a shell
/// would (quotes group, backslash escapes), without running anything.
///
/// ```
/// use dive_skill::Arguments;
/// let args = Arguments::parse(r#"src/main.rs "fix the bug" it\'s"#);
/// assert_eq!(args.positional(), ["src/main.rs", "fix the bug", "it's"]);
/// assert_eq!(args.raw(), r#"src/main.rs "fix the bug" it\'s"#);
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Arguments {
    raw: String,
    positional: Vec<String>,
}

impl Arguments {
    /// Reads an argument string.
    #[must_use]
    pub fn parse(raw: &str) -> Self {
        Self { raw: raw.trim().to_owned(), positional: split_words(raw) }
    }

    /// The whole text, trimmed.
    #[must_use]
    pub fn raw(&self) -> &str {
        &self.raw
    }

    /// The words.
    #[must_use]
    pub fn positional(&self) -> &[String] {
        &self.positional
    }

    /// Whether there are none.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.raw.is_empty()
    }
}

fn split_words(raw: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut current: Option<String> = None;
    let mut quote: Option<char> = None;
    let mut chars = raw.chars();
    while let Some(c) = chars.next() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some('"'), '\\') | (None, '\\') => {
                if let Some(next) = chars.next() {
                    current.get_or_insert_default().push(next);
                }
            }
            (Some(_), c) => current.get_or_insert_default().push(c),
            (None, '"' | '\'') => {
                quote = Some(c);
                current.get_or_insert_default();
            }
            (None, c) if c.is_whitespace() => words.extend(current.take()),
            (None, c) => current.get_or_insert_default().push(c),
        }
    }
    words.extend(current);
    words
}

/// A piece of a skill body: text to expand, or a command whose output replaces it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Segment<'a> {
    Text(&'a str),
    Command(&'a str),
}

/// Splits a body around `` !`command` `` (only the raw body: arguments are expanded later,
/// in text segments only).
pub(crate) fn segments(body: &str) -> Vec<Segment<'_>> {
    let mut out = Vec::new();
    let mut rest = body;
    while let Some(start) = rest.find("!`") {
        let after = &rest[start + 2..];
        let Some(end) = after.find('`') else { break };
        if start > 0 {
            out.push(Segment::Text(&rest[..start]));
        }
        out.push(Segment::Command(&after[..end]));
        rest = &after[end + 1..];
    }
    if !rest.is_empty() {
        out.push(Segment::Text(rest));
    }
    out
}

/// Expands the argument placeholders of one text: `$ARGUMENTS` is the whole text, `$1`…`$9`
/// the words, `$name` the word at that name's position in `names`. Unknown placeholders stay.
///
/// ```
/// use dive_skill::{Arguments, expand_arguments};
/// let args = Arguments::parse("42 high");
/// let names = vec!["issue".to_owned(), "priority".to_owned()];
/// assert_eq!(expand_arguments("Fix #$1 ($priority): $ARGUMENTS, $HOME", &args, &names), "Fix #42 (high): 42 high, $HOME");
/// ```
#[must_use]
pub fn expand_arguments(text: &str, args: &Arguments, names: &[String]) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find('$') {
        out.push_str(&rest[..at]);
        let after = &rest[at + 1..];
        let (value, used) = placeholder(after, args, names);
        match value {
            Some(value) => out.push_str(&value),
            None => out.push_str(&rest[at..=at + used]),
        }
        rest = &after[used..];
    }
    out.push_str(rest);
    out
}

/// The value of the placeholder at the start of `after` (the text after a `$`) and how many
/// bytes it takes; `(None, 0)` when it is not one.
fn placeholder(after: &str, args: &Arguments, names: &[String]) -> (Option<String>, usize) {
    let word = |i: usize| args.positional.get(i).cloned().unwrap_or_default();
    if after.starts_with("ARGUMENTS") && !continues_ident(&after[9..]) {
        return (Some(args.raw.clone()), 9);
    }
    if let Some(d) = after.chars().next().and_then(|c| c.to_digit(10)).filter(|d| *d >= 1) {
        return (Some(word(d as usize - 1)), 1);
    }
    let ident_len =
        after.find(|c: char| !(c.is_alphanumeric() || c == '_' || c == '-')).unwrap_or(after.len());
    let ident = after[..ident_len].trim_end_matches('-');
    match names.iter().position(|n| n == ident) {
        Some(i) if !ident.is_empty() => (Some(word(i)), ident.len()),
        _ => (None, 0),
    }
}

fn continues_ident(rest: &str) -> bool {
    rest.chars().next().is_some_and(|c| c.is_alphanumeric() || c == '_')
}

/// Whether a text holds an argument placeholder.
fn has_placeholder(text: &str, names: &[String]) -> bool {
    let probe = Arguments { raw: "\u{0}".into(), positional: vec!["\u{0}".into(); 9] };
    expand_arguments(text, &probe, names) != text
}

/// A skill's body, ready for the model: commands run (when `dynamic` is given) on the raw
/// body with the arguments passed as data, placeholders in the rest expanded, and, when the
/// body names no placeholder, the arguments appended as `ARGUMENTS: …`.
pub(crate) async fn render(skill: &Skill, args: &Arguments, dynamic: Option<&DynamicContext>) -> String {
    let parts = match dynamic {
        Some(_) => segments(&skill.body),
        None => vec![Segment::Text(&skill.body)],
    };
    let mut out = String::with_capacity(skill.body.len());
    let mut placeholders = false;
    for part in parts {
        match (part, dynamic) {
            (Segment::Text(text), _) => {
                placeholders |= has_placeholder(text, &skill.arguments);
                out.push_str(&expand_arguments(text, args, &skill.arguments));
            }
            (Segment::Command(command), Some(dynamic)) => {
                out.push_str(&dynamic.run(command, skill, args).await);
            }
            (Segment::Command(command), None) => {
                out.push_str("!`");
                out.push_str(command);
                out.push('`');
            }
        }
    }
    if !placeholders && !args.is_empty() {
        if !out.ends_with('\n') {
            out.push('\n');
        }
        out.push_str("\nARGUMENTS: ");
        out.push_str(args.raw());
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_split_like_a_shell_without_running_anything() {
        assert_eq!(
            Arguments::parse("a  'b c' \"d \\\"e\\\"\" $(x)").positional(),
            ["a", "b c", "d \"e\"", "$(x)"]
        );
        assert_eq!(Arguments::parse("''").positional(), [""]);
        assert!(Arguments::parse("   ").is_empty());
    }

    #[test]
    fn placeholders() {
        let args = Arguments::parse("one two");
        let names = vec!["first".to_owned(), "second-arg".to_owned()];
        assert_eq!(expand_arguments("$1/$2/$3/$9", &args, &names), "one/two//");
        assert_eq!(expand_arguments("$first-$second-arg.", &args, &names), "one-two.");
        assert_eq!(
            expand_arguments("$ARGUMENTSX $ARGUMENTS $0 $ $", &args, &names),
            "$ARGUMENTSX one two $0 $ $"
        );
        assert_eq!(expand_arguments("cost: $5", &Arguments::default(), &[]), "cost: ");
    }

    #[test]
    fn arguments_holding_placeholders_are_not_expanded_again() {
        let args = Arguments::parse("$2 $ARGUMENTS");
        assert_eq!(expand_arguments("[$1] [$ARGUMENTS]", &args, &[]), "[$2] [$2 $ARGUMENTS]");
    }

    #[test]
    fn segments_split_commands_from_text() {
        assert_eq!(
            segments("a !`ls -1` b !`date`!`x"),
            [
                Segment::Text("a "),
                Segment::Command("ls -1"),
                Segment::Text(" b "),
                Segment::Command("date"),
                Segment::Text("!`x")
            ]
        );
        assert_eq!(segments("no commands"), [Segment::Text("no commands")]);
    }

    #[tokio::test]
    async fn arguments_are_appended_when_the_body_names_none() {
        let skill = Skill::new("x", "d").with_body("Do the thing.");
        assert_eq!(render(&skill, &Arguments::parse("now"), None).await, "Do the thing.\n\nARGUMENTS: now\n");
        assert_eq!(render(&skill, &Arguments::default(), None).await, "Do the thing.");
        let skill = Skill::new("x", "d").with_body("Run !`rm -rf /` for $1");
        assert_eq!(
            render(&skill, &Arguments::parse("a"), None).await,
            "Run !`rm -rf /` for a",
            "commands need opt-in"
        );
    }
}
