//! Text from outside (model replies, tool output, file contents, error messages) made safe
//! for a terminal: every control character but `\n` and `\t` is shown as visible text, so a
//! file cannot clear the screen, recolour the output or set the window title. The CLI adds
//! its own styling after this, so only its escape sequences reach the terminal.

use std::borrow::Cow;
use std::fmt::Write;
use std::io::IsTerminal;

/// Whether `c` must not reach a terminal raw: C0 controls but newline and tab, DEL, and the
/// C1 controls (U+0080–U+009F, which some terminals read as CSI, OSC, …).
fn is_unsafe(c: char) -> bool {
    (c.is_control() && c != '\n' && c != '\t') || matches!(c, '\u{80}'..='\u{9f}')
}

/// `text` with each unsafe control character replaced by a visible form: caret notation for
/// C0 and DEL (`ESC` → `^[`, `BEL` → `^G`, DEL → `^?`), `<U+009B>` for C1. Each character is
/// replaced on its own, so a sequence split across streamed pieces is neutralised as well.
///
/// A carriage return is escaped too (`^M`), since it lets text overwrite what was printed
/// before it on the line; a `\r\n` pair keeps its newline.
pub fn visible(text: &str) -> Cow<'_, str> {
    if !text.chars().any(is_unsafe) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\r' && chars.peek() == Some(&'\n') {
            continue;
        }
        if !is_unsafe(c) {
            out.push(c);
            continue;
        }
        let code = u32::from(c);
        match code {
            0x00..=0x1f => {
                out.push('^');
                out.push(char::from_u32(code + 0x40).unwrap_or('?'));
            }
            0x7f => out.push_str("^?"),
            _ => {
                let _ = write!(out, "<U+{code:04X}>");
            }
        }
    }
    Cow::Owned(out)
}

/// `text` made safe when stdout is a terminal, unchanged when it is a pipe or a file.
pub fn for_stdout(text: &str) -> Cow<'_, str> {
    if std::io::stdout().is_terminal() { visible(text) } else { Cow::Borrowed(text) }
}

/// `text` made safe when stderr is a terminal, unchanged otherwise.
pub fn for_stderr(text: &str) -> Cow<'_, str> {
    if std::io::stderr().is_terminal() { visible(text) } else { Cow::Borrowed(text) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_text_is_borrowed_unchanged() {
        let text = "fn main() {\n\tprintln!(\"hé ✓\");\n}\n";
        assert!(matches!(visible(text), Cow::Borrowed(t) if t == text));
    }

    #[test]
    fn escape_sequences_become_visible_text() {
        // Clear screen, set the window title (OSC 2, BEL-terminated), red text, reset.
        let hostile = "a\x1b[2J\x1b]2;pwned\x07\x1b[31mred\x1b[0m";
        assert_eq!(visible(hostile), "a^[[2J^[]2;pwned^G^[[31mred^[[0m");
        assert!(!visible(hostile).contains('\x1b'));
    }

    #[test]
    fn c1_controls_del_and_lone_carriage_returns_are_escaped() {
        assert_eq!(visible("x\u{9b}2Jy\u{9d}0;t\u{9c}"), "x<U+009B>2Jy<U+009D>0;t<U+009C>");
        assert_eq!(visible("a\x7fb\x08c\x00"), "a^?b^Hc^@");
        assert_eq!(visible("secret\rpublic"), "secret^Mpublic");
        assert_eq!(visible("line one\r\nline two\r\n"), "line one\nline two\n");
    }

    #[test]
    fn a_sequence_split_across_pieces_is_still_neutralised() {
        let pieces = ["start \x1b", "]0;title\x1b", "\\ end"];
        let shown: String = pieces.iter().map(|p| visible(p).into_owned()).collect();
        assert_eq!(shown, "start ^[]0;title^[\\ end");
    }
}
