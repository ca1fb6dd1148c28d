//! An MCP server's request for input, answered on the terminal in interactive mode: each
//! field of the requested schema is one question (a yes/no for a boolean, a choice for an
//! enum, a line of text otherwise), asked through the same terminal dialog as the model's
//! questions. An empty answer or Ctrl-C cancels; print mode has no terminal, so a 2025-11-25
//! server is declined and a 2026-07-28 server's request suspends the turn.

use std::sync::Arc;

use dive::mcp::{Elicitation, ElicitationHandler};
use dive::toolkit::{AskUserInput, AskUserOutput, UserDialog};
use serde_json::{Map, Value, json};

/// The handler MCP connections get in interactive mode.
pub fn handler(dialog: Arc<dyn UserDialog>) -> ElicitationHandler {
    ElicitationHandler::new(move |ask: Elicitation| {
        let dialog = Arc::clone(&dialog);
        async move { answer(&*dialog, &ask).await }
    })
}

/// Asks every field of `ask` and returns the MCP result (`accept` with the content, or
/// `cancel`).
pub async fn answer(dialog: &dyn UserDialog, ask: &Elicitation) -> Value {
    if let Some(url) = &ask.url {
        // A URL elicitation: the person completes it in a browser, then confirms.
        let text = format!("{} (MCP server {})\nOpen {url}, then confirm", ask.message, ask.server);
        let Some(question) = question(&text, "confirm", &[]) else { return cancel() };
        let done = dialog.ask(&question).await;
        return if done.confirmed == Some(true) {
            json!({"action": "accept"})
        } else {
            json!({"action": "cancel"})
        };
    }
    let empty = Map::new();
    let properties = ask.schema.as_ref().and_then(|s| s["properties"].as_object()).unwrap_or(&empty);
    let mut content = Map::new();
    for (i, (name, schema)) in properties.iter().enumerate() {
        let label = schema["title"].as_str().or(schema["description"].as_str()).unwrap_or(name);
        let heading =
            if i == 0 { format!("{} (MCP server {})\n", ask.message, ask.server) } else { String::new() };
        let text = format!("{heading}{label}");
        let choices: Vec<String> = schema["enum"]
            .as_array()
            .map(|e| e.iter().filter_map(|v| v.as_str().map(str::to_owned)).collect())
            .unwrap_or_default();
        let kind = match schema["type"].as_str() {
            Some("boolean") => "confirm",
            _ if !choices.is_empty() => "select",
            _ => "input",
        };
        let Some(question) = question(&text, kind, &choices) else { return cancel() };
        let reply = dialog.ask(&question).await;
        let Some(value) = value_of(&reply, schema) else { return cancel() };
        content.insert(name.clone(), value);
    }
    json!({"action": "accept", "content": content})
}

/// A question of the toolkit's shape (`kind`: `input`, `confirm` or `select`).
fn question(text: &str, kind: &str, options: &[String]) -> Option<AskUserInput> {
    serde_json::from_value(json!({"question": text, "type": kind, "options": options})).ok()
}

fn cancel() -> Value {
    json!({"action": "cancel"})
}

/// The answer as the field's JSON type; `None` when the person cancelled or the text is not
/// a number where one is asked.
fn value_of(reply: &AskUserOutput, schema: &Value) -> Option<Value> {
    if reply.canceled {
        return None;
    }
    if let Some(yes) = reply.confirmed {
        return Some(Value::Bool(yes));
    }
    if let Some(choice) = reply.selected.first() {
        return Some(Value::String(choice.clone()));
    }
    let text = reply.text.clone()?;
    match schema["type"].as_str() {
        Some("integer") => text.trim().parse::<i64>().ok().map(Value::from),
        Some("number") => text.trim().parse::<f64>().ok().map(Value::from),
        _ => Some(Value::String(text)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use dive::BoxFuture;
    use std::sync::Mutex;

    /// Answers by the field a question ends with, and keeps the questions.
    struct Scripted(Vec<(&'static str, AskUserOutput)>, Mutex<Vec<AskUserInput>>);
    impl UserDialog for Scripted {
        fn ask<'a>(&'a self, question: &'a AskUserInput) -> BoxFuture<'a, AskUserOutput> {
            self.1.lock().unwrap().push(question.clone());
            let reply =
                self.0.iter().find(|(end, _)| question.question.ends_with(end)).map(|(_, r)| r.clone());
            Box::pin(async move { reply.unwrap_or_else(AskUserOutput::canceled) })
        }
    }

    #[tokio::test]
    async fn each_field_is_a_question_of_its_type() {
        let dialog = Scripted(
            vec![
                ("Your name", AskUserOutput::text("Ada")),
                ("age", AskUserOutput::text("36")),
                ("subscribe", AskUserOutput::confirmed(true)),
            ],
            Mutex::new(Vec::new()),
        );
        let schema = json!({"type": "object", "properties": {
            "name": {"type": "string", "title": "Your name"},
            "age": {"type": "integer"},
            "subscribe": {"type": "boolean"}
        }});
        let request = Elicitation::new("srv", "Tell me about you").with_schema(schema);
        let out = answer(&dialog, &request).await;
        assert_eq!(
            out,
            json!({"action": "accept", "content": {"name": "Ada", "age": 36, "subscribe": true}})
        );
        let asked = dialog.1.lock().unwrap();
        assert!(
            asked[0].question.starts_with("Tell me about you (MCP server srv)"),
            "{:?}",
            asked[0].question
        );
    }
}

#[cfg(test)]
mod more_tests {
    use super::*;
    use dive::BoxFuture;

    struct Cancels;
    impl UserDialog for Cancels {
        fn ask<'a>(&'a self, _question: &'a AskUserInput) -> BoxFuture<'a, AskUserOutput> {
            Box::pin(async { AskUserOutput::canceled() })
        }
    }

    #[tokio::test]
    async fn a_cancelled_question_cancels_the_request_and_a_bad_number_too() {
        let schema = json!({"type": "object", "properties": {"name": {"type": "string"}}});
        let request = Elicitation::new("srv", "Name?").with_schema(schema);
        assert_eq!(answer(&Cancels, &request).await, json!({"action": "cancel"}));
        assert_eq!(value_of(&AskUserOutput::text("many"), &json!({"type": "integer"})), None);
        assert_eq!(value_of(&AskUserOutput::text("2.5"), &json!({"type": "number"})), Some(json!(2.5)));
    }
}
