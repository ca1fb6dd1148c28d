//! [`TextTools`]: an [`Extension`] bundling a typed tool, a hook and a rule for the system
//! prompt, added to an agent in one call.
//!
//! The tool's input derives `Deserialize` and `JsonSchema` through dive-core's re-exports
//! ([`dive_core::serde`], [`dive_core::schemars`]), so this crate names no serde or schemars of
//! its own and can never pull in a second major of either.

use std::sync::Arc;

use dive_core::{
    Extension, HookError, Hooks, IntoTool, PreToolUseDecision, Tool, ToolAnnotations, ToolContext, ToolError,
    ToolResult, ToolUseContext, TypedTool, schemars, serde,
};

/// The input of `word_count`.
#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
#[serde(crate = "dive_core::serde")]
#[schemars(crate = "dive_core::schemars")]
pub struct WordCountInput {
    /// The text whose words to count.
    pub text: String,
}

/// `word_count`: how many whitespace-separated words a text has.
#[derive(Debug, Clone, Copy, Default)]
pub struct WordCount;

impl TypedTool for WordCount {
    type Input = WordCountInput;

    fn name(&self) -> &str {
        "word_count"
    }

    fn description(&self) -> &str {
        "Counts the whitespace-separated words of a text."
    }

    fn annotations(&self) -> ToolAnnotations {
        ToolAnnotations::read_only()
    }

    async fn call(&self, input: WordCountInput, _ctx: ToolContext) -> Result<ToolResult, ToolError> {
        Ok(ToolResult::text(input.text.split_whitespace().count().to_string()))
    }
}

/// The rule [`TextTools`] appends to the system prompt.
pub const TEXT_TOOLS_RULE: &str = "Count words with the word_count tool; never estimate a count.";

/// Text tools as one extension: the `word_count` tool, a hook that refuses to count an empty
/// text (the model is told to ask for the text instead), and [`TEXT_TOOLS_RULE`].
#[derive(Debug, Clone, Copy, Default)]
pub struct TextTools;

impl Extension for TextTools {
    fn name(&self) -> &str {
        "text_tools"
    }

    fn tools(&self) -> Vec<Arc<dyn Tool>> {
        vec![WordCount.into_tool()]
    }

    fn hooks(&self) -> Hooks {
        Hooks::new().on_pre_tool_use(|ctx: ToolUseContext| async move {
            let empty = ctx.call.name == "word_count"
                && ctx.call.input["text"].as_str().is_some_and(|text| text.trim().is_empty());
            Ok::<_, HookError>(if empty {
                PreToolUseDecision::deny("there is no text to count: ask the user for it")
            } else {
                PreToolUseDecision::allow()
            })
        })
    }

    fn rules(&self) -> Option<String> {
        Some(TEXT_TOOLS_RULE.to_owned())
    }
}
