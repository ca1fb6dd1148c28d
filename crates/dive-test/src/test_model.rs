//! [`TestModel`]: calls every tool once with schema-generated arguments, then summarises.

use dive_core::{
    BoxFuture, Content, Llm, LlmError, Message, ModelRequest, ModelResponse, Role, ToolUse, Usage,
};

use crate::recorded::RecordedRequests;
use crate::schema_args::arguments_for_schema;

/// A model that needs no script.
///
/// For each user input, it first calls every function tool offered (in order, one call a
/// response) with arguments generated from the tool's input schema; once each has been called,
/// it answers with a text listing each tool and the start of its result. Without tools it
/// answers `Test response to: <input>`. Usage counts are derived from text lengths, so
/// usage accounting can be tested too.
#[derive(Debug, Clone, Default)]
pub struct TestModel {
    requests: RecordedRequests,
}

impl TestModel {
    /// A test model.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// The requests received so far.
    #[must_use]
    pub fn requests(&self) -> RecordedRequests {
        self.requests.clone()
    }

    fn respond(request: &ModelRequest, call_number: usize) -> ModelResponse {
        // The current exchange starts after the last user message that is not tool results.
        let start = request
            .messages
            .iter()
            .rposition(|m| m.role == Role::User && m.tool_results_iter().next().is_none())
            .unwrap_or(0);
        let exchange = &request.messages[start..];
        let called: Vec<&str> =
            exchange.iter().flat_map(Message::tool_uses).map(|t| t.name.as_str()).collect();
        let input_tokens = request.messages.iter().map(|m| m.text().len() as u64 / 4 + 1).sum();
        let next_tool = request.tools.iter().find(|t| !t.is_native() && !called.contains(&t.name.as_str()));
        let mut response = if let Some(tool) = next_tool {
            let input = arguments_for_schema(&tool.input_schema);
            ModelResponse::tool_calls(vec![ToolUse::new(format!("call_{call_number}"), &tool.name, input)])
        } else if called.is_empty() {
            let input = exchange.first().map(Message::text).unwrap_or_default();
            ModelResponse::text(format!("Test response to: {input}"))
        } else {
            let mut lines = vec![format!("Called {} tool(s):", called.len())];
            for m in exchange {
                for r in m.tool_results_iter() {
                    let name = exchange
                        .iter()
                        .flat_map(Message::tool_uses)
                        .find(|t| t.id == r.tool_use_id)
                        .map_or("?", |t| t.name.as_str());
                    let text: String = r.text_content().chars().take(200).collect();
                    let status = if r.is_error { "error" } else { "ok" };
                    lines.push(format!("- {name} ({status}): {text}"));
                }
            }
            ModelResponse::text(lines.join("\n"))
        };
        let output_tokens =
            response.content.iter().filter_map(Content::as_text).map(|t| t.len() as u64 / 4 + 1).sum();
        response.model = "test".into();
        response.id = format!("test_{call_number}");
        response.with_usage(Usage::new(input_tokens, output_tokens))
    }
}

impl Llm for TestModel {
    fn provider(&self) -> &str {
        "test"
    }

    fn model(&self) -> &str {
        "test"
    }

    fn generate(&self, request: ModelRequest) -> BoxFuture<'_, Result<ModelResponse, LlmError>> {
        let response = Self::respond(&request, self.requests.len());
        self.requests.push(request);
        Box::pin(async move { Ok(response) })
    }
}
