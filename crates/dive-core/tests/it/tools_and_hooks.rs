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
fn a_typed_tool_reads_a_shared_input_in_place_and_answers_as_call_does() {
    let tool = Double.into_tool();
    let input = dive_core::Input::from(json!({"n": 4}));
    let ok = block_on(tool.call_shared(input.clone(), ToolContext::detached("double"))).unwrap();
    assert_eq!(output(ok).text_content(), "8");
    assert_eq!(input, json!({"n": 4}), "the caller's input is untouched");
    for bad in [json!({"n": "x"}), json!({}), json!({"n": -1}), json!("n")] {
        let shared =
            output(block_on(tool.call_shared(bad.clone().into(), ToolContext::detached("double"))).unwrap());
        let owned = output(block_on(tool.call(bad.clone(), ToolContext::detached("double"))).unwrap());
        assert!(shared.is_error, "{bad}");
        assert_eq!(shared.text_content(), owned.text_content(), "{bad}");
    }
    let missing =
        output(block_on(tool.call_shared(json!({}).into(), ToolContext::detached("double"))).unwrap());
    assert_eq!(
        missing.text_content(),
        "Invalid input for tool double: missing field `n`. Fix the input and call the tool again."
    );
    // No input at all is an empty object: the same missing field, not a type error.
    let null =
        output(block_on(tool.call_shared(json!(null).into(), ToolContext::detached("double"))).unwrap());
    assert_eq!(null.text_content(), missing.text_content());
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
