//! Colour on or off: the CLI's styling reaches a stream only when that stream is a terminal,
//! `NO_COLOR` is unset (or empty) and `TERM` is not `dumb` (<https://no-color.org>).

use std::io::IsTerminal;

/// Whether one output stream gets colour, and the styles the CLI uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Style {
    color: bool,
}

impl Style {
    /// The rule itself: colour only on a terminal, never with a non-empty `NO_COLOR`, never
    /// on `TERM=dumb`.
    pub fn decide(is_terminal: bool, no_color: Option<&str>, term: Option<&str>) -> Self {
        let no_color = no_color.is_some_and(|v| !v.is_empty());
        let dumb = term.is_some_and(|t| t.trim() == "dumb");
        Self { color: is_terminal && !no_color && !dumb }
    }

    fn from_env(is_terminal: bool) -> Self {
        let no_color = std::env::var("NO_COLOR").ok();
        let term = std::env::var("TERM").ok();
        Self::decide(is_terminal, no_color.as_deref(), term.as_deref())
    }

    /// The style of stdout (reads `NO_COLOR` and `TERM`).
    pub fn stdout_from_env() -> Self {
        Self::from_env(std::io::stdout().is_terminal())
    }

    /// The style of stderr (reads `NO_COLOR` and `TERM`).
    pub fn stderr_from_env() -> Self {
        Self::from_env(std::io::stderr().is_terminal())
    }

    /// Whether this stream gets colour (and other terminal-only drawing such as a spinner).
    pub fn is_color(self) -> bool {
        self.color
    }

    fn paint(self, code: &str, text: &str) -> String {
        if self.color { format!("\x1b[{code}m{text}\x1b[0m") } else { text.to_owned() }
    }

    /// Starts dim text that runs on until [`reset`](Self::reset) (streamed thinking).
    pub fn start_dim(self, text: &str) -> String {
        if self.color { format!("\x1b[2m{text}") } else { text.to_owned() }
    }

    /// Ends what [`start_dim`](Self::start_dim) started.
    pub fn reset(self) -> &'static str {
        if self.color { "\x1b[0m" } else { "" }
    }

    /// Dim text (usage lines, hints, tool results).
    pub fn dim(self, text: &str) -> String {
        self.paint("2", text)
    }

    /// Cyan text (the tool-call marker).
    pub fn cyan(self, text: &str) -> String {
        self.paint("36", text)
    }

    /// Red text (errors).
    pub fn red(self, text: &str) -> String {
        self.paint("31", text)
    }

    /// Yellow text (warnings).
    pub fn yellow(self, text: &str) -> String {
        self.paint("33", text)
    }

    /// Green text (added diff lines).
    pub fn green(self, text: &str) -> String {
        self.paint("32", text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colour_only_on_a_terminal_without_no_color_or_a_dumb_term() {
        assert!(Style::decide(true, None, Some("xterm-256color")).is_color());
        assert!(Style::decide(true, Some(""), None).is_color(), "an empty NO_COLOR does not count");
        assert!(!Style::decide(false, None, Some("xterm")).is_color(), "a pipe gets no colour");
        assert!(!Style::decide(true, Some("1"), Some("xterm")).is_color());
        assert!(!Style::decide(true, None, Some("dumb")).is_color());
        let plain = Style::decide(false, None, None);
        assert_eq!(plain.cyan("⏺"), "⏺");
        assert_eq!(Style::decide(true, None, None).dim("x"), "\x1b[2mx\x1b[0m");
    }
}
