//! dive's side: an [`Agent`] with a real typed `add` tool, no session, on
//! [`ChatCompletions`] or [`Anthropic`] pointed at the mock through their base-URL builders.

use std::sync::Arc;

use dive::anthropic::Anthropic;
use dive::openai::ChatCompletions;
use dive::{Agent, IntoTool, Llm, ModelSettings, RunOptions, ToolContext, ToolError, ToolResult, TypedTool};

use crate::BenchError;
use crate::client::Provider;
use crate::problem::{TOOL_DESCRIPTION, TOOL_NAME};
use crate::raw::API_KEY;

/// The `add` tool's input.
#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
pub struct AddInput {
    /// The first number.
    pub a: i64,
    /// The second number.
    pub b: i64,
}

/// The `add` tool: returns the sum as text.
#[derive(Debug, Clone, Copy)]
pub struct Add;

impl TypedTool for Add {
    type Input = AddInput;
    fn name(&self) -> &str {
        TOOL_NAME
    }
    fn description(&self) -> &str {
        TOOL_DESCRIPTION
    }
    async fn call(&self, input: AddInput, _ctx: ToolContext) -> Result<ToolResult, ToolError> {
        Ok(ToolResult::text((input.a + input.b).to_string()))
    }
}

/// A dive agent for the benchmark turn.
#[derive(Debug, Clone)]
pub struct DiveClient {
    agent: Arc<Agent>,
}

impl DiveClient {
    /// An agent on `provider` at the mock's `base` URL (`http://host:port`), streaming or not.
    ///
    /// # Errors
    /// When the provider or the agent cannot be built.
    pub fn new(provider: Provider, base: &str, model: &str, stream: bool) -> Result<Self, BenchError> {
        let agent = match provider {
            Provider::Chat => {
                let llm = ChatCompletions::builder()
                    .api_key(API_KEY)
                    .base_url(format!("{base}/v1"))
                    .model(model)
                    .build()?;
                agent(llm, stream)?
            }
            Provider::Messages => {
                let llm = Anthropic::builder().api_key(API_KEY).base_url(base).model(model).build()?;
                agent(llm, stream)?
            }
        };
        Ok(Self { agent: Arc::new(agent) })
    }

    /// One turn through `Agent::run`; the final answer's text.
    ///
    /// # Errors
    /// Whatever the agent returns.
    pub async fn turn(&self, question: &str) -> Result<String, BenchError> {
        Ok(self.agent.run(RunOptions::text(question)).await?.output_text())
    }
}

fn agent(llm: impl Llm + 'static, stream: bool) -> Result<Agent, BenchError> {
    Ok(Agent::builder()
        .model(llm)
        .tool(Add.into_tool())
        .model_settings(ModelSettings::new().stream(stream))
        .build()?)
}
