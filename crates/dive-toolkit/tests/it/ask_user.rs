//! AskUserQuestion: synchronous answers through a dialog, and suspension for async answers.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::sync::Arc;

use common::call;
use dive_core::{BoxFuture, IntoTool, ToolContext, ToolResult};
use dive_toolkit::{AskUserInput, AskUserOutput, AskUserTool, QuestionType, UserDialog};
use serde_json::json;

/// Answers select questions with the second option, confirms with yes, input with "blue".
struct Scripted;

impl UserDialog for Scripted {
    fn ask<'a>(&'a self, q: &'a AskUserInput) -> BoxFuture<'a, AskUserOutput> {
        let answer = match q.kind {
            QuestionType::Confirm => AskUserOutput::confirmed(true),
            QuestionType::Select => AskUserOutput::selected(vec![q.options[1].label().to_string()]),
            QuestionType::Multiselect => AskUserOutput::selected(vec!["nope".into()]),
            _ => AskUserOutput::text("blue"),
        };
        Box::pin(async move { answer })
    }
}

#[tokio::test]
async fn dialog_answers_come_back_as_json() {
    let tool = AskUserTool::with_dialog(Arc::new(Scripted)).into_tool();
    let out = call(&tool, json!({"question": "Proceed?", "type": "confirm"})).await;
    assert_eq!(out.text_content(), r#"{"confirmed":true}"#);
    let out = call(
        &tool,
        json!({"question": "Which DB?", "type": "select", "options": ["sqlite", {"label": "postgres", "description": "server"}]}),
    )
    .await;
    assert_eq!(out.text_content(), r#"{"selected":["postgres"]}"#);
    let out = call(&tool, json!({"question": "Favourite colour?"})).await;
    assert_eq!(out.text_content(), r#"{"text":"blue"}"#);
    let out = call(&tool, json!({"question": "Pick", "type": "multiselect", "options": ["a", "b"]})).await;
    assert!(out.is_error && out.text_content().contains("not one of the options"));
    let out = call(&tool, json!({"question": "Pick", "type": "select", "options": ["only"]})).await;
    assert!(out.is_error && out.text_content().contains("at least two options"));
}

#[tokio::test]
async fn suspending_mode_returns_the_question_as_metadata() {
    let tool = AskUserTool::suspending().into_tool();
    let input = json!({"question": "Deploy now?", "type": "confirm", "default": false});
    let result = tool.call(input, ToolContext::detached("AskUserQuestion")).await.unwrap();
    let ToolResult::Suspend(request) = result else { panic!("expected a suspension") };
    assert_eq!(request.prompt, "Deploy now?");
    assert_eq!(request.metadata["type"], "confirm");
    assert_eq!(request.metadata["default"], false);
}
