//! Tools decode input or answer with a correctable error; hooks are plain async closures.

use std::sync::Arc;

use dive_core::{
    FunctionTool, GenerationContext, GenerationEdit, HookError, Hooks, IntoTool, PreToolUseDecision, RunInfo,
    StopDecision, Tool, ToolAnnotations, ToolContext, ToolError, ToolResult, ToolUse, ToolUseContext,
    TypedTool, Verdict,
};
use futures::executor::block_on;
use serde_json::json;

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Input {
    n: u32,
}

struct Double;

impl TypedTool for Double {
    type Input = Input;
    fn name(&self) -> &str {
        "double"
    }
    fn description(&self) -> &str {
        "Doubles n."
    }
    fn annotations(&self) -> ToolAnnotations {
        ToolAnnotations::read_only().with_idempotent(true)
    }
    async fn call(&self, input: Input, _ctx: ToolContext) -> Result<ToolResult, ToolError> {
        Ok(ToolResult::text((input.n * 2).to_string()))
    }
}

fn output(result: ToolResult) -> dive_core::ToolOutput {
    match result {
        ToolResult::Output(o) => o,
        other => panic!("expected output, got {other:?}"),
    }
}

#[test]
fn typed_tool_decodes_or_returns_an_error_result() {
    let tool = Double.into_tool();
    assert!(tool.annotations().is_read_only());
    let ok = block_on(tool.call(json!({"n": 21}), ToolContext::detached("double"))).unwrap();
    assert_eq!(output(ok).text_content(), "42");
    let bad = output(block_on(tool.call(json!({"n": "x"}), ToolContext::detached("double"))).unwrap());
    assert!(bad.is_error);
    assert!(bad.text_content().contains("Invalid input for tool double"), "{}", bad.text_content());
}

#[test]
fn function_tools_and_typed_tools_share_a_vec() {
    let f = FunctionTool::new("fail", "Always fails.", |_: Input, _ctx| async move {
        Err::<String, _>(ToolError::new("nope").fatal())
    });
    let tools: Vec<Arc<dyn Tool>> = vec![Double.into_tool(), Arc::new(f)];
    let err = block_on(tools[1].call(json!({"n": 1}), ToolContext::detached("fail"))).unwrap_err();
    assert!(err.is_fatal());
    assert_eq!(tools[0].definition().input_schema["required"], json!(["n"]));
}

#[test]
fn hooks_are_async_closures_with_typed_decisions() {
    let hooks = Hooks::new()
        .on_pre_tool_use(|ctx: ToolUseContext| async move {
            Ok::<_, HookError>(if ctx.call.name == "rm" {
                PreToolUseDecision::deny("no")
            } else {
                PreToolUseDecision::allow()
            })
        })
        .on_pre_generation(|ctx: GenerationContext| async move {
            Ok::<_, HookError>(GenerationEdit::system_prompt(format!("{} Be brief.", ctx.system_prompt)))
        })
        .on_stop(|_ctx: dive_core::StopContext| async move { Ok::<_, HookError>(StopDecision::Stop) });
    let ctx = ToolUseContext::new(
        RunInfo::detached(),
        0,
        ToolUse::new("c", "rm", json!({})),
        ToolAnnotations::default(),
    );
    let decision = block_on(hooks.pre_tool_use[0].pre_tool_use(ctx)).unwrap();
    assert_eq!(decision.verdict, Verdict::Deny("no".into()));
    let edit = block_on(hooks.pre_generation[0].pre_generation(GenerationContext::new(
        RunInfo::detached(),
        0,
        "Hi.".into(),
        vec![],
    )))
    .unwrap();
    assert_eq!(edit.system_prompt.as_deref(), Some("Hi. Be brief."));
    assert!(!hooks.is_empty());
}
