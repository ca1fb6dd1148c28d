//! [`AgentAsTool`]: any [`Agent`] wrapped as a tool with its own name, description and input
//! schema; each call is one fresh run of the agent.

use std::sync::Arc;

use dive_agent::{Agent, CancellationToken, RunOptions};
use dive_core::{BoxFuture, Tool, ToolContext, ToolError, ToolResult};
use serde_json::{Value, json};

use crate::launch::report_of;

type InputBuilder = dyn Fn(&Value) -> Result<String, String> + Send + Sync;

/// An agent as a tool. By default the tool takes `{"input": "…"}` and the text becomes the
/// agent's prompt; [`with_input`](Self::with_input) gives it a schema of its own and the
/// function that turns a call's input into the prompt.
///
/// ```
/// # tokio::runtime::Runtime::new().unwrap().block_on(async {
/// use dive_agent::Agent;
/// use dive_core::{ModelResponse, Tool, ToolContext};
/// use dive_subagent::AgentAsTool;
/// use dive_test::ScriptedModel;
/// use serde_json::json;
///
/// let model = ScriptedModel::new([ModelResponse::text("Bonjour")]);
/// let translator = Agent::builder().model(model.clone()).build().unwrap();
/// let tool = AgentAsTool::new(translator, "translate", "Translates English text to French.").with_input(
///     json!({"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}),
///     |input| input["text"].as_str().map(|t| format!("Translate to French: {t}")).ok_or("text is missing".into()),
/// );
/// let result = tool.call(json!({"text": "Hello"}), ToolContext::detached("translate")).await.unwrap();
/// # let dive_core::ToolResult::Output(output) = result else { panic!() };
/// assert!(output.text_content().starts_with("Bonjour"));
/// assert_eq!(model.requests().last().unwrap().messages[0].text(), "Translate to French: Hello");
/// # });
/// ```
#[derive(Clone)]
pub struct AgentAsTool {
    agent: Agent,
    name: String,
    description: String,
    schema: Value,
    input: Arc<InputBuilder>,
}

impl std::fmt::Debug for AgentAsTool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AgentAsTool").field("name", &self.name).finish_non_exhaustive()
    }
}

impl AgentAsTool {
    /// `agent` as the tool `name`, taking `{"input": "…"}`.
    #[must_use]
    pub fn new(agent: Agent, name: impl Into<String>, description: impl Into<String>) -> Self {
        let schema = json!({
            "type": "object",
            "properties": {"input": {"type": "string", "description": "The task for the agent"}},
            "required": ["input"],
            "additionalProperties": false
        });
        let input = |v: &Value| {
            v.get("input")
                .and_then(Value::as_str)
                .map(str::to_owned)
                .ok_or_else(|| "`input` is missing".to_owned())
        };
        Self { agent, name: name.into(), description: description.into(), schema, input: Arc::new(input) }
    }

    /// Its own input schema, and how a call's input becomes the agent's prompt (an `Err` is
    /// told to the model as an error it can correct).
    #[must_use]
    pub fn with_input(
        mut self,
        schema: Value,
        prompt: impl Fn(&Value) -> Result<String, String> + Send + Sync + 'static,
    ) -> Self {
        self.schema = schema;
        self.input = Arc::new(prompt);
        self
    }
}

impl Tool for AgentAsTool {
    fn name(&self) -> &str {
        &self.name
    }

    fn description(&self) -> &str {
        &self.description
    }

    fn input_schema(&self) -> &Value {
        &self.schema
    }

    fn call(&self, input: Value, ctx: ToolContext) -> BoxFuture<'_, Result<ToolResult, ToolError>> {
        Box::pin(async move {
            let prompt = match (self.input)(&input) {
                Ok(prompt) => prompt,
                Err(e) => return Ok(ToolResult::error(e)),
            };
            let token = CancellationToken::new();
            let _cancel_on_drop = token.clone().drop_guard();
            let options = RunOptions::text(prompt).with_soft_cancel(ctx.cancel.child()).with_cancel(token);
            let report = report_of(self.agent.run(options).await);
            Ok(ToolResult::Output(report.to_output()))
        })
    }
}
