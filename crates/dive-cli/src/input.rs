//! Reading lines: a line editor with history on a terminal, plain lines when stdin is piped.
//! Permission prompts read through the same source, so answers are never swallowed.

use std::io::{BufRead, IsTerminal, Write};
use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError};

use dive::permission::{DialogAnswer, PermissionDialog, PermissionRequest, parse_answer, render_request};
use rustyline::DefaultEditor;
use rustyline::error::ReadlineError;

use crate::render::Spinner;

/// What reading a line gave.
pub enum Line {
    /// A line (without its newline).
    Text(String),
    /// Ctrl-C at the prompt.
    Interrupted,
    /// End of input.
    Eof,
}

enum Source {
    Editor(Box<DefaultEditor>),
    Lines(std::io::BufReader<std::io::Stdin>),
}

/// The line source, shared by the prompt loop and permission prompts.
#[derive(Clone)]
pub struct Input {
    source: Arc<Mutex<Source>>,
    history: Option<PathBuf>,
}

impl Input {
    /// A line editor when stdin is a terminal, else plain lines.
    pub fn new(history: Option<PathBuf>) -> Self {
        let source = if std::io::stdin().is_terminal() {
            match DefaultEditor::new() {
                Ok(mut editor) => {
                    if let Some(path) = &history {
                        let _ = editor.load_history(path);
                    }
                    Source::Editor(Box::new(editor))
                }
                Err(_) => Source::Lines(std::io::BufReader::new(std::io::stdin())),
            }
        } else {
            Source::Lines(std::io::BufReader::new(std::io::stdin()))
        };
        Self { source: Arc::new(Mutex::new(source)), history }
    }

    /// Reads one line after `prompt` (blocking) and keeps it in the prompt history.
    pub fn read_line(&self, prompt: &str) -> Line {
        self.read(prompt, true)
    }

    /// Reads an answer to a permission prompt or a question: never kept in the history, so
    /// `y` and `n` do not crowd out what the user typed.
    pub fn read_answer(&self, prompt: &str) -> Line {
        self.read(prompt, false)
    }

    fn read(&self, prompt: &str, remember: bool) -> Line {
        let mut source = self.source.lock().unwrap_or_else(PoisonError::into_inner);
        match &mut *source {
            Source::Editor(editor) => match editor.readline(prompt) {
                Ok(line) => {
                    if remember && !line.trim().is_empty() {
                        let _ = editor.add_history_entry(line.as_str());
                        if let Some(path) = &self.history {
                            let _ = editor.save_history(path);
                        }
                    }
                    Line::Text(line)
                }
                Err(ReadlineError::Interrupted) => Line::Interrupted,
                Err(_) => Line::Eof,
            },
            Source::Lines(reader) => {
                // Bytes, not `read_line`: a line that is not UTF-8 is decoded lossily instead
                // of ending the input.
                let mut bytes = Vec::new();
                match reader.read_until(b'\n', &mut bytes) {
                    Ok(0) | Err(_) => Line::Eof,
                    Ok(_) => {
                        let (line, _) = crate::print_mode::decode_lossy(bytes);
                        Line::Text(line.trim_end_matches(['\n', '\r']).to_owned())
                    }
                }
            }
        }
    }
}

/// Permission prompts on the terminal: allow once, always for this session, or deny.
/// Ctrl-C at the prompt cancels the turn.
pub struct CliDialog {
    input: Input,
    spinner: Spinner,
    turn: crate::interrupt::TurnState,
}

impl CliDialog {
    /// A dialog reading answers from `input`.
    pub fn new(input: Input, spinner: Spinner) -> Self {
        Self { input, spinner, turn: crate::interrupt::TurnState::default() }
    }

    /// Cancels this turn when the user presses Ctrl-C at the prompt.
    pub fn with_turn(mut self, turn: crate::interrupt::TurnState) -> Self {
        self.turn = turn;
        self
    }
}

impl PermissionDialog for CliDialog {
    fn ask<'a>(&'a self, request: &'a PermissionRequest) -> dive::BoxFuture<'a, DialogAnswer> {
        let text = render_request(request);
        let input = self.input.clone();
        let turn = self.turn.clone();
        self.spinner.pause();
        Box::pin(async move {
            let answer = tokio::task::spawn_blocking(move || {
                let (body, prompt) = match text.rfind('\n') {
                    Some(i) => (text[..=i].to_owned(), text[i + 1..].to_owned()),
                    None => (String::new(), text),
                };
                let (body, prompt) = (
                    crate::sanitize::visible(&body).into_owned(),
                    crate::sanitize::visible(&prompt).into_owned(),
                );
                let mut err = std::io::stderr().lock();
                let _ = err.write_all(body.as_bytes());
                let _ = err.flush();
                drop(err);
                match input.read_answer(&prompt) {
                    Line::Text(line) => parse_answer(&line),
                    Line::Interrupted => {
                        turn.cancel();
                        DialogAnswer::Deny(Some("the user cancelled the turn".into()))
                    }
                    Line::Eof => DialogAnswer::Deny(Some("the user did not answer".into())),
                }
            })
            .await;
            answer.unwrap_or(DialogAnswer::Deny(Some("the prompt failed".into())))
        })
    }
}

/// The dialog of print mode: nobody can answer, so calls that would ask are denied with a hint.
pub struct NoDialog;

impl PermissionDialog for NoDialog {
    fn ask<'a>(&'a self, request: &'a PermissionRequest) -> dive::BoxFuture<'a, DialogAnswer> {
        let message = format!(
            "{} needs permission and print mode cannot ask: allow it with a rule in .dive/settings.json or run with --permission-mode",
            request.tool
        );
        Box::pin(async move { DialogAnswer::Deny(Some(message)) })
    }
}
