//! The tools beyond the workspace ones: `WebFetch` (public addresses only, and a permission
//! prompt per domain: the CLI adds an ask rule for it, so a session grant or an allow rule
//! names the domains that run without asking), `WebSearch` when a search key is set, and
//! `AskUserQuestion` in interactive mode, answered on the terminal.

use std::io::Write;
use std::sync::Arc;

use dive::toolkit::{
    AskUserInput, AskUserOutput, AskUserTool, QuestionType, UserDialog, WebFetchTool, WebSearchTool,
};
use dive::{BoxFuture, IntoTool, Tool};

use crate::input::{Input, Line};
use crate::interrupt::TurnState;
use crate::render::Spinner;
use crate::sanitize::visible;

/// The ask rule that makes every fetch ask unless its domain is allowed.
pub const WEB_FETCH_ASK_RULE: &str = "WebFetch";

/// The network and question tools; `dialog` is the terminal in interactive mode.
pub fn tools(dialog: Option<(Input, Spinner, TurnState)>) -> Vec<Arc<dyn Tool>> {
    let mut tools = Vec::new();
    if let Ok(fetch) = WebFetchTool::new() {
        tools.push(fetch.into_tool());
    }
    if let Ok(search) = WebSearchTool::from_env() {
        tools.push(search.into_tool());
    }
    if let Some((input, spinner, turn)) = dialog {
        tools.push(AskUserTool::with_dialog(terminal_dialog(input, spinner, turn)).into_tool());
    }
    tools
}

/// Questions asked on the terminal: the model's (`AskUserQuestion`) and MCP servers'.
pub fn terminal_dialog(input: Input, spinner: Spinner, turn: TurnState) -> Arc<dyn UserDialog> {
    Arc::new(TerminalQuestions { input, spinner, turn })
}

/// Asks the model's questions on stderr and reads the answer from the prompt's input
/// (answers are not kept in the prompt history); Ctrl-C cancels the turn.
struct TerminalQuestions {
    input: Input,
    spinner: Spinner,
    turn: TurnState,
}

/// The question as shown, and the prompt that reads its answer.
fn render(question: &AskUserInput) -> (String, &'static str) {
    let mut text = format!("\n? {}\n", visible(&question.question));
    for (i, option) in question.options.iter().enumerate() {
        text.push_str(&format!("  {}. {}\n", i + 1, visible(option.label())));
    }
    let prompt = match question.kind {
        QuestionType::Confirm => "[y/n] ",
        QuestionType::Select => "number: ",
        QuestionType::Multiselect => "numbers, comma-separated: ",
        _ => "answer: ",
    };
    (text, prompt)
}

/// Reads an answer line; an empty or unreadable answer cancels.
pub fn parse(question: &AskUserInput, line: &str) -> AskUserOutput {
    let line = line.trim();
    if line.is_empty() {
        return AskUserOutput::canceled();
    }
    let label = |token: &str| {
        let token = token.trim();
        match token.parse::<usize>() {
            Ok(n) if (1..=question.options.len()).contains(&n) => {
                Some(question.options[n - 1].label().to_owned())
            }
            _ => question
                .options
                .iter()
                .find(|o| o.label().eq_ignore_ascii_case(token))
                .map(|o| o.label().to_owned()),
        }
    };
    match question.kind {
        QuestionType::Confirm => match line.to_ascii_lowercase().as_str() {
            "y" | "yes" => AskUserOutput::confirmed(true),
            "n" | "no" => AskUserOutput::confirmed(false),
            _ => AskUserOutput::canceled(),
        },
        QuestionType::Select => {
            label(line).map_or_else(AskUserOutput::canceled, |l| AskUserOutput::selected(vec![l]))
        }
        QuestionType::Multiselect => {
            let chosen: Option<Vec<String>> = line.split(',').map(label).collect();
            chosen.map_or_else(AskUserOutput::canceled, AskUserOutput::selected)
        }
        _ => AskUserOutput::text(line),
    }
}

impl UserDialog for TerminalQuestions {
    fn ask<'a>(&'a self, question: &'a AskUserInput) -> BoxFuture<'a, AskUserOutput> {
        let input = self.input.clone();
        let turn = self.turn.clone();
        let question = question.clone();
        self.spinner.pause();
        Box::pin(async move {
            tokio::task::spawn_blocking(move || {
                let (text, prompt) = render(&question);
                let mut err = std::io::stderr().lock();
                let _ = err.write_all(text.as_bytes());
                let _ = err.flush();
                drop(err);
                match input.read_answer(prompt) {
                    Line::Text(line) => parse(&question, &line),
                    Line::Interrupted => {
                        turn.cancel();
                        AskUserOutput::canceled()
                    }
                    Line::Eof => AskUserOutput::canceled(),
                }
            })
            .await
            .unwrap_or_else(|_| AskUserOutput::canceled())
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn question(value: serde_json::Value) -> AskUserInput {
        serde_json::from_value(value).unwrap()
    }

    #[test]
    fn answers_by_number_or_label() {
        let select = question(json!({"question": "Colour?", "type": "select", "options": ["red", "blue"]}));
        assert_eq!(parse(&select, "2"), AskUserOutput::selected(vec!["blue".into()]));
        assert_eq!(parse(&select, "Red"), AskUserOutput::selected(vec!["red".into()]));
        assert_eq!(parse(&select, "7"), AskUserOutput::canceled());
        let multi =
            question(json!({"question": "Which?", "type": "multiselect", "options": ["a", "b", "c"]}));
        assert_eq!(parse(&multi, "1, 3"), AskUserOutput::selected(vec!["a".into(), "c".into()]));
        let confirm = question(json!({"question": "Go?", "type": "confirm"}));
        assert_eq!(parse(&confirm, "y"), AskUserOutput::confirmed(true));
        let free = question(json!({"question": "Name?"}));
        assert_eq!(parse(&free, " dive "), AskUserOutput::text("dive"));
        assert_eq!(parse(&free, ""), AskUserOutput::canceled());
    }
}
