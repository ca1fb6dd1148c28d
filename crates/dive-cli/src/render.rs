//! Showing a turn on the terminal: text as it streams, thinking on request, each tool call
//! with its preview and a one-line result summary, and a spinner while the model or a tool
//! works (on a terminal only).

use std::io::{IsTerminal, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use dive::{ContentDelta, ResponseItem, Role, StreamEvent, ToolCallResult};

use crate::style::Style;

const FRAMES: [&str; 10] = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];

#[derive(Default)]
struct SpinnerState {
    message: Option<String>,
    drawn: bool,
}

/// A spinner on stderr, drawn by a background task while a status message is set.
#[derive(Clone, Default)]
pub struct Spinner {
    state: Arc<Mutex<SpinnerState>>,
    enabled: Arc<AtomicBool>,
}

impl Spinner {
    /// A spinner that draws only when stderr is a terminal that takes styling (not under
    /// `NO_COLOR` or `TERM=dumb`).
    pub fn start() -> Self {
        let spinner = Self::default();
        let enabled = std::io::stderr().is_terminal() && Style::stderr_from_env().is_color();
        spinner.enabled.store(enabled, Ordering::Relaxed);
        if spinner.enabled.load(Ordering::Relaxed) {
            let state = Arc::clone(&spinner.state);
            tokio::spawn(async move {
                let mut frame = 0usize;
                loop {
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    let mut s = state.lock().unwrap_or_else(PoisonError::into_inner);
                    if let Some(message) = s.message.clone() {
                        frame = (frame + 1) % FRAMES.len();
                        eprint!("\r\x1b[2K\x1b[2m{} {message}\x1b[0m", FRAMES[frame]);
                        let _ = std::io::stderr().flush();
                        s.drawn = true;
                    }
                }
            });
        }
        spinner
    }

    /// Shows `message` until [`pause`](Self::pause).
    pub fn busy(&self, message: impl Into<String>) {
        self.state.lock().unwrap_or_else(PoisonError::into_inner).message = Some(message.into());
    }

    /// Stops drawing and clears the line.
    pub fn pause(&self) {
        let mut s = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        s.message = None;
        if s.drawn {
            eprint!("\r\x1b[2K");
            let _ = std::io::stderr().flush();
            s.drawn = false;
        }
    }
}

#[derive(Default)]
struct RenderState {
    in_text: bool,
    in_thinking: bool,
    /// Text arrived as stream events since the last whole message (when it did not, as with
    /// a model that does not stream, the message's text is printed instead).
    streamed_text: bool,
}

/// Renders a turn's items as they arrive.
#[derive(Clone)]
pub struct Renderer {
    spinner: Spinner,
    show_thinking: bool,
    style: Style,
    state: Arc<Mutex<RenderState>>,
    /// The todo list shown as a checklist after each `TodoWrite`.
    todos: Option<dive::subagent::TodoTracker>,
}

impl Renderer {
    /// A renderer for one turn.
    pub fn new(spinner: Spinner, show_thinking: bool) -> Self {
        Self { spinner, show_thinking, style: Style::stdout_from_env(), state: Arc::default(), todos: None }
    }

    /// Shows `todos` as a checklist each time the model updates it.
    pub fn with_todos(mut self, todos: Option<dive::subagent::TodoTracker>) -> Self {
        self.todos = todos;
        self
    }

    /// Called once per item.
    #[allow(clippy::print_stdout)]
    pub fn item(&self, item: &ResponseItem) {
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        let mut out = std::io::stdout().lock();
        match item {
            ResponseItem::ModelEvent { event } => match event {
                StreamEvent::ContentBlockDelta { delta: ContentDelta::TextDelta { text }, .. } => {
                    self.spinner.pause();
                    if state.in_thinking {
                        let _ = writeln!(out, "{}", self.style.reset());
                        state.in_thinking = false;
                    }
                    state.in_text = true;
                    state.streamed_text = true;
                    let _ = write!(out, "{}", crate::sanitize::visible(text));
                }
                StreamEvent::ContentBlockDelta {
                    delta: ContentDelta::ThinkingDelta { thinking }, ..
                } if self.show_thinking => {
                    self.spinner.pause();
                    if !state.in_thinking {
                        let _ = write!(out, "{}", self.style.start_dim("✻ "));
                        state.in_thinking = true;
                    }
                    let _ = write!(out, "{}", crate::sanitize::visible(thinking));
                }
                StreamEvent::ContentBlockStop { .. } => {
                    if state.in_thinking {
                        let _ = writeln!(out, "{}", self.style.reset());
                        state.in_thinking = false;
                    }
                    if state.in_text {
                        let _ = writeln!(out);
                        state.in_text = false;
                    }
                }
                _ => {}
            },
            ResponseItem::ToolCall { call, preview } => {
                self.spinner.pause();
                let _ = writeln!(out, "{}", crate::tool_line::render(call, preview.as_ref(), self.style));
                self.spinner.busy(format!("running {}…", call.name));
            }
            ResponseItem::ToolCallResult { result } => {
                self.spinner.pause();
                let shown = crate::sanitize::visible(&result_summary(result)).into_owned();
                let _ = writeln!(out, "  {}", self.style.dim(&format!("⎿ {shown}")));
                let updated =
                    result.name == "TodoWrite" && result.output.as_ref().is_some_and(|o| !o.is_error);
                if let Some(todos) = self.todos.as_ref().filter(|_| updated) {
                    for line in crate::progress::checklist(&todos.todos()) {
                        let _ = writeln!(out, "    {line}");
                    }
                }
                self.spinner.busy("thinking…");
            }
            ResponseItem::Message { message, .. } => {
                let streamed = std::mem::take(&mut state.streamed_text);
                let text = message.answer_text();
                if !streamed && message.role == Role::Assistant && !text.trim().is_empty() {
                    self.spinner.pause();
                    let _ = writeln!(out, "{}", crate::sanitize::visible(&text));
                }
            }
            _ => {}
        }
        let _ = out.flush();
    }
}

/// The first line of a result, with how many more lines there were.
pub fn result_summary(result: &ToolCallResult) -> String {
    if let Some(request) = &result.suspended {
        return format!("waiting: {}", request.prompt);
    }
    let Some(output) = &result.output else { return "no result".into() };
    let text = output.text_content();
    let mut lines = text.lines();
    let first = lines.next().unwrap_or_default();
    let first: String = first.chars().take(100).collect();
    let more = lines.count();
    let prefix = if output.is_error { "error: " } else { "" };
    if more == 0 { format!("{prefix}{first}") } else { format!("{prefix}{first} (+{more} lines)") }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tool_line::call_summary;
    use dive::{ToolOutput, ToolUse};
    use serde_json::json;

    #[test]
    fn summaries_are_one_line() {
        let call = ToolUse::new("c1", "Read", json!({"file_path": "a.rs"}));
        assert_eq!(call_summary(&call), "Read({\"file_path\":\"a.rs\"})");
        let result = ToolCallResult::new(&call, ToolOutput::text("line 1\nline 2\nline 3"));
        assert_eq!(result_summary(&result), "line 1 (+2 lines)");
        let failed = ToolCallResult::new(&call, ToolOutput::error("no such file"));
        assert_eq!(result_summary(&failed), "error: no such file");
    }
}
