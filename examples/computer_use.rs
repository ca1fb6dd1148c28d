//! Computer use: Anthropic's computer toolset (`computer_toolset_20260801`) over a desktop of
//! our own — here a pretend settings window in memory — driven offline by a scripted model that
//! plays what Claude sends (member calls carrying `toolset_name: "computer"`).
//!
//! It shows the member tools routed by name (a PreToolUse hook asks before `type`, as a
//! permission rule would), the batch of computer actions running one at a time, the results
//! echoing the toolset name, and the Messages API body a real call would send: one
//! `computer_toolset_20260801` entry in place of the members, the members the desktop cannot
//! perform switched off in `configs`.
//!
//! Run with `cargo run -p dive-examples --example computer_use`. No key, no network, no
//! screen: to drive a real desktop, implement `Computer` over your VM or container.
#![allow(clippy::print_stdout)]

use std::sync::{Arc, Mutex};

use dive::anthropic::{Anthropic, Computer, ComputerAction, ComputerMember, ComputerOutput, ComputerUse};
use dive::{
    Agent, BoxFuture, HookError, Hooks, ModelResponse, PreToolUseDecision, ToolContext, ToolError, ToolUse,
    ToolUseContext,
};
use dive_test::ScriptedModel;
use serde_json::json;

/// A 1×1 PNG standing in for a screenshot.
const PNG: &str =
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";

/// A desktop with one window: clicking the gear at (40, 60) opens the settings, typing there
/// fills the search box.
#[derive(Default)]
struct PretendDesktop {
    settings_open: Mutex<bool>,
    search: Mutex<String>,
}

impl Computer for PretendDesktop {
    fn members(&self) -> Vec<ComputerMember> {
        vec![ComputerMember::Screenshot, ComputerMember::LeftClick, ComputerMember::Type, ComputerMember::Key]
    }

    fn run(
        &self,
        action: ComputerAction,
        _ctx: ToolContext,
    ) -> BoxFuture<'_, Result<ComputerOutput, ToolError>> {
        Box::pin(async move {
            let mut open = self.settings_open.lock().map_err(|_| ToolError::new("desktop lock poisoned"))?;
            match action.member {
                ComputerMember::Screenshot => Ok(ComputerOutput::png(PNG)),
                ComputerMember::LeftClick if action.input.coordinate == Some([40, 60]) => {
                    *open = true;
                    Ok(ComputerOutput::Done(Some("The settings window opened.".into())))
                }
                ComputerMember::LeftClick => Ok(ComputerOutput::done()),
                ComputerMember::Type if *open => {
                    let mut search =
                        self.search.lock().map_err(|_| ToolError::new("desktop lock poisoned"))?;
                    search.push_str(action.input.text.as_deref().unwrap_or_default());
                    Ok(ComputerOutput::done())
                }
                ComputerMember::Type => Err(ToolError::new("nothing has keyboard focus")),
                _ => Ok(ComputerOutput::done()),
            }
        })
    }
}

/// A member call as Claude sends it.
fn member(id: &str, name: &str, input: serde_json::Value) -> ToolUse {
    let mut call = ToolUse::new(id, name, input);
    call.toolset_name = Some("computer".into());
    call
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let desktop = Arc::new(PretendDesktop::default());
    let toolset = ComputerUse::shared(desktop.clone()).build()?;

    let model = ScriptedModel::new([
        ModelResponse::tool_calls(vec![member("toolu_1", "screenshot", json!({}))]),
        ModelResponse::tool_calls(vec![
            member("toolu_2", "left_click", json!({"coordinate": [40, 60]})),
            member("toolu_3", "type", json!({"text": "dark mode"})),
        ]),
        ModelResponse::text("I opened the settings and searched for dark mode."),
    ]);

    // Keystrokes go to whatever has focus: ask before them (a permission rule would do the same).
    let asked = Arc::new(Mutex::new(Vec::new()));
    let log = asked.clone();
    let hooks = Hooks::new().on_pre_tool_use(move |ctx: ToolUseContext| {
        let log = log.clone();
        async move {
            if ctx.call.name == "type" {
                let text = ctx.call.input["text"].as_str().unwrap_or_default().to_owned();
                println!("approval: type {text:?} — approved");
                log.lock().map_err(|_| HookError::new("lock poisoned"))?.push(text);
            }
            Ok::<_, HookError>(PreToolUseDecision::allow())
        }
    });

    let agent = Agent::builder()
        .name("desktop")
        .model(model.clone())
        .toolset(toolset)
        .hooks(hooks)
        .parallel_tool_execution(true) // a computer batch still runs one action at a time
        .build()?;
    let response = agent.run("Turn on dark mode").await?;

    for result in response.tool_call_results() {
        let text = result.output.as_ref().map(|o| o.text_content()).unwrap_or_default();
        let shown = if text.is_empty() { "[image]".to_owned() } else { text.replace('\n', " / ") };
        println!("{} ({}): {shown}", result.name, result.toolset_name.as_deref().unwrap_or("-"));
    }
    println!("answer: {}", response.output_text());

    assert_eq!(*asked.lock().map_err(|_| "lock poisoned")?, ["dark mode"]);
    assert_eq!(*desktop.search.lock().map_err(|_| "lock poisoned")?, "dark mode");
    assert!(response.tool_call_results().all(|r| r.toolset_name.as_deref() == Some("computer")));

    // What the engine asked for: no member among the custom tools, the declaration instead.
    let first = &model.requests().all()[0];
    assert!(first.tools.is_empty());
    println!(
        "declared: {} ({})",
        first.declared_toolsets[0].toolset,
        first.declared_toolsets[0].members.join(", ")
    );

    // And the body Anthropic would receive for it (built offline: nothing is sent).
    let claude = Anthropic::builder().api_key("not-a-key").base_url("http://127.0.0.1:9").build()?;
    let body = claude.request_body(first, false)?;
    println!("tools sent to Anthropic: {}", body["tools"]);
    assert_eq!(body["tools"][0]["type"], "computer_toolset_20260801");
    Ok(())
}
