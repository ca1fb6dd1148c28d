//! Every hook phase with its typed decision, the order of phases, and the
//! values map shared across them.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::sync::{Arc, Mutex};

use common::{agent_with, calls, echo, failing, last_results};
use dive_agent::{AgentError, RunOptions};
use dive_core::{
    GenerationContext, GenerationEdit, HookError, Hooks, IncompleteTurnContext, IncompleteTurnDecision,
    Message, ModelResponse, OutcomeReason, PostGenerationContext, PostToolUseDecision, PreToolUseDecision,
    QueuedReminder, Reminder, SessionStartContext, SessionStartDecision, StopContext, StopDecision,
    SuspendContext, SuspendRequest, ToolOutput, ToolResultContext, ToolUseContext, TurnStatus, Values,
};
use dive_test::ScriptedModel;
use serde_json::{Value, json};

type Log = Arc<Mutex<Vec<String>>>;

fn push(log: &Log, entry: impl Into<String>) {
    log.lock().unwrap().push(entry.into());
}

/// Hooks on every phase that log their name.
fn logging_hooks(log: &Log) -> Hooks {
    let (l1, l2, l3, l4, l5, l6, l7, l8) = (
        log.clone(),
        log.clone(),
        log.clone(),
        log.clone(),
        log.clone(),
        log.clone(),
        log.clone(),
        log.clone(),
    );
    Hooks::new()
        .on_session_start(move |_c: SessionStartContext| {
            let l = l1.clone();
            async move {
                push(&l, "session_start");
                Ok(SessionStartDecision::default())
            }
        })
        .on_pre_generation(move |_c: GenerationContext| {
            let l = l2.clone();
            async move {
                push(&l, "pre_generation");
                Ok(GenerationEdit::unchanged())
            }
        })
        .on_pre_iteration(move |c: GenerationContext| {
            let l = l3.clone();
            async move {
                push(&l, format!("pre_iteration {}", c.iteration));
                Ok(GenerationEdit::unchanged())
            }
        })
        .on_pre_tool_use(move |c: ToolUseContext| {
            let l = l4.clone();
            async move {
                push(&l, format!("pre_tool_use {}", c.call.id));
                Ok(PreToolUseDecision::allow())
            }
        })
        .on_post_tool_use(move |c: ToolResultContext| {
            let l = l5.clone();
            async move {
                push(&l, format!("post_tool_use {}", c.call.id));
                Ok(PostToolUseDecision::keep())
            }
        })
        .on_post_tool_use_failure(move |c: ToolResultContext| {
            let l = l6.clone();
            async move {
                push(&l, format!("post_tool_use_failure {}", c.call.id));
                Ok(PostToolUseDecision::keep())
            }
        })
        .on_stop(move |_c: StopContext| {
            let l = l7.clone();
            async move {
                push(&l, "stop");
                Ok(StopDecision::Stop)
            }
        })
        .on_post_generation(move |c: PostGenerationContext| {
            let l = l8.clone();
            async move {
                push(&l, format!("post_generation {}", c.response.output_messages.len()));
                Ok(())
            }
        })
}

#[tokio::test]
async fn phases_run_in_order() {
    let log: Log = Arc::default();
    let model = ScriptedModel::new([
        calls(&[("ok", "echo", json!({"text": "a"})), ("bad", "fail", json!({}))]),
        ModelResponse::text("done"),
    ]);
    let agent = agent_with(&model)
        .tool(echo("echo", Arc::default()))
        .tool(failing("fail", "nope", false, false))
        .hooks(logging_hooks(&log))
        .build()
        .unwrap();
    agent.run("go").await.unwrap();
    assert_eq!(
        *log.lock().unwrap(),
        [
            "session_start",
            "pre_generation",
            "pre_iteration 0",
            "pre_tool_use ok",
            "post_tool_use ok",
            "pre_tool_use bad",
            "post_tool_use_failure bad",
            "pre_iteration 1",
            "stop",
            "post_generation 3",
        ]
    );
}

#[tokio::test]
async fn pre_tool_use_denies_rewrites_and_adds_context() {
    let log: Log = Arc::default();
    let model = ScriptedModel::new([
        calls(&[("c1", "echo", json!({"text": "rm -rf /"})), ("c2", "echo", json!({"text": "hello"}))]),
        ModelResponse::text("ok"),
    ]);
    let hooks = Hooks::new()
        .on_pre_tool_use(|c: ToolUseContext| async move {
            if c.call.input["text"] == "rm -rf /" {
                return Ok(PreToolUseDecision::deny("Destructive commands are not allowed."));
            }
            Ok(PreToolUseDecision::rewrite(json!({"text": "HELLO"})).with_context("Input was upper-cased."))
        })
        .on_pre_tool_use(|c: ToolUseContext| async move {
            // All hooks run, even after a denial.
            Ok(PreToolUseDecision::allow().with_reminder(QueuedReminder::recorded(
                Reminder::new("audit", format!("checked {}", c.call.id)).unwrap(),
            )))
        });
    let agent = agent_with(&model).tool(echo("echo", log.clone())).hooks(hooks).build().unwrap();
    let response = agent.run("go").await.unwrap();
    let results = last_results(&response.output_messages);
    assert_eq!(results[0], ("c1".into(), "Destructive commands are not allowed.".into(), true));
    assert_eq!(results[1], ("c2".into(), "HELLO".into(), false));
    assert_eq!(*log.lock().unwrap(), ["start echo HELLO", "end echo HELLO"]);
    let message = response.output_messages.iter().find(|m| m.tool_results_iter().next().is_some()).unwrap();
    let texts: Vec<&str> = message.content.iter().filter_map(|c| c.as_text()).collect();
    assert_eq!(texts, ["Input was upper-cased."]);
    let audits = message.content.iter().filter(|c| c.as_reminder().is_some()).count();
    assert_eq!(audits, 2, "tool-scoped recorded reminders ride on the results message");
}

#[tokio::test]
async fn post_tool_use_hooks_replace_results() {
    let model = ScriptedModel::new([
        calls(&[("c1", "echo", json!({"text": "secret-token"})), ("c2", "fail", json!({}))]),
        ModelResponse::text("ok"),
    ]);
    let hooks = Hooks::new()
        .on_post_tool_use(|c: ToolResultContext| async move {
            let redacted = c.output.text_content().replace("secret-token", "[redacted]");
            Ok(PostToolUseDecision::replace(ToolOutput::text(redacted)))
        })
        .on_post_tool_use_failure(|_c: ToolResultContext| async move {
            Ok(PostToolUseDecision::replace(ToolOutput::error("The tool failed; try another approach.")))
        });
    let agent = agent_with(&model)
        .tool(echo("echo", Arc::default()))
        .tool(failing("fail", "stack trace…", false, false))
        .hooks(hooks)
        .build()
        .unwrap();
    let response = agent.run("go").await.unwrap();
    let results = last_results(&response.output_messages);
    assert_eq!(results[0].1, "[redacted]");
    assert_eq!(results[1], ("c2".into(), "The tool failed; try another approach.".into(), true));
}

#[tokio::test]
async fn stop_hooks_continue_the_loop_once_with_a_recorded_reminder() {
    let model = ScriptedModel::new([ModelResponse::text("draft"), ModelResponse::text("final")]);
    let hooks = Hooks::new().on_stop(|c: StopContext| async move {
        if c.stop_hook_active {
            Ok(StopDecision::Stop)
        } else {
            Ok(StopDecision::continue_with("Please also add tests."))
        }
    });
    let agent = agent_with(&model).hooks(hooks).build().unwrap();
    let response = agent.run("write code").await.unwrap();
    assert_eq!(response.output_text(), "final");
    let sent = model.requests().last().unwrap();
    let reminder = sent.messages.last().unwrap().content[0].as_reminder().unwrap().clone();
    assert_eq!(reminder.name, "stop-continuation");
    assert!(reminder.content.ends_with("Please also add tests."));
    assert_eq!(response.output_messages.len(), 3, "draft, the continuation reminder, final");
}

#[tokio::test]
async fn generation_hooks_edit_prompt_and_working_messages() {
    let model = ScriptedModel::new([ModelResponse::text("ok")]);
    let hooks = Hooks::new()
        .on_pre_generation(|_c: GenerationContext| async move {
            Ok(GenerationEdit::system_prompt("Edited prompt."))
        })
        .on_pre_iteration(|c: GenerationContext| async move {
            let mut messages = vec![Message::user("(summary of earlier turns)")];
            messages.extend(c.messages.into_iter().rev().take(1));
            Ok(GenerationEdit::messages(messages))
        });
    let agent = agent_with(&model).hooks(hooks).build().unwrap();
    let response = agent
        .run(vec![Message::user("old"), Message::assistant("older"), Message::user("new")])
        .await
        .unwrap();
    let sent = model.requests().last().unwrap();
    assert_eq!(sent.system.as_deref(), Some("Edited prompt."));
    assert_eq!(
        sent.messages.iter().map(Message::text).collect::<Vec<_>>(),
        ["(summary of earlier turns)", "new"]
    );
    assert_eq!(response.turn.unwrap().messages.len(), 4, "the saved turn is untouched by working-set edits");
}

#[tokio::test]
async fn the_saved_turn_keeps_the_output_when_a_hook_rewrote_it_in_the_working_set() {
    let model =
        ScriptedModel::new([calls(&[("c1", "echo", json!({"text": "a"}))]), ModelResponse::text("done")]);
    // From the second iteration on, the model sees the tool exchange summarised: the working
    // set no longer ends with the turn's output.
    let hooks = Hooks::new().on_pre_iteration(|c: GenerationContext| async move {
        if c.iteration == 0 {
            return Ok(GenerationEdit::unchanged());
        }
        Ok(GenerationEdit::messages(vec![Message::user("go"), Message::assistant("(echoed a)")]))
    });
    let agent = agent_with(&model).tool(echo("echo", Arc::default())).hooks(hooks).build().unwrap();
    let response = agent.run("go").await.unwrap();
    assert_eq!(
        model.requests().last().unwrap().messages.iter().map(Message::text).collect::<Vec<_>>(),
        ["go", "(echoed a)"]
    );
    assert_eq!(response.output_messages.len(), 3, "the call, its result, the answer");
    let turn = response.turn.as_ref().unwrap();
    assert_eq!(turn.messages[0].text(), "go");
    assert_eq!(turn.messages[1..], response.output_messages[..], "the saved turn holds the real output");
    assert_eq!(last_results(&turn.messages)[0].1, "a");
}

#[tokio::test]
async fn an_abort_from_a_hook_ends_the_turn_as_hook_abort() {
    let model = ScriptedModel::new([calls(&[
        ("c1", "echo", json!({"text": "a"})),
        ("c2", "echo", json!({"text": "b"})),
    ])]);
    let hooks = Hooks::new().on_pre_tool_use(|c: ToolUseContext| async move {
        if c.call.id == "c2" {
            Err(HookError::abort("budget exhausted").with_hook("budget"))
        } else {
            Ok(PreToolUseDecision::allow())
        }
    });
    let agent = agent_with(&model).tool(echo("echo", Arc::default())).hooks(hooks).build().unwrap();
    let err = agent.run("go").await.unwrap_err();
    assert_eq!(err.reason(), Some(&OutcomeReason::HookAbort));
    let response = err.into_response().unwrap();
    let outcome = response.turn.as_ref().unwrap().outcome.clone().unwrap();
    assert_eq!(outcome.hook.as_deref(), Some("budget"));
    let results = last_results(&response.output_messages);
    assert_eq!(results[0].1, "a");
    assert!(results[1].1.starts_with("Not run"));
}

#[tokio::test]
async fn session_start_errors_change_nothing() {
    let model = ScriptedModel::new([ModelResponse::text("never")]);
    let hooks = Hooks::new().on_session_start(|_c: SessionStartContext| async move {
        Err::<SessionStartDecision, _>(HookError::new("profile service down"))
    });
    let agent = agent_with(&model).hooks(hooks).build().unwrap();
    assert!(matches!(agent.run("hi").await, Err(AgentError::SessionStart(_))));
    assert_eq!(model.requests().len(), 0);
}

#[tokio::test]
async fn suspension_and_incomplete_hooks_fire_and_can_edit() {
    let events: Log = Arc::default();
    let (e1, e2) = (events.clone(), events.clone());
    let ask = dive_core::FunctionTool::new("ask", "Asks.", |_i: Value, _c| async move {
        Ok::<_, dive_core::ToolError>(dive_core::ToolResult::suspend(SuspendRequest::new("Which branch?")))
    });
    let hooks = Hooks::new()
        .on_suspend(move |c: SuspendContext| {
            let e = e1.clone();
            async move {
                push(&e, format!("suspended {}", c.suspension.pending[0].prompt));
                Ok(())
            }
        })
        .on_incomplete_turn(move |c: IncompleteTurnContext| {
            let e = e2.clone();
            async move {
                push(&e, format!("incomplete {:?}", c.turn.outcome.unwrap().reason));
                let mut decision = IncompleteTurnDecision::keep();
                decision.error = Some("edited by hook".into());
                Ok(decision)
            }
        });
    let model = ScriptedModel::new([
        calls(&[("c1", "ask", json!({}))]),
        ModelResponse::text("cut").with_stop_reason("max_tokens"),
    ]);
    let agent = agent_with(&model).tool(Arc::new(ask)).hooks(hooks).build().unwrap();
    let suspended = agent.run("go").await.unwrap();
    assert_eq!(suspended.status, TurnStatus::Suspended);
    let limited = agent.run("again").await.unwrap();
    assert_eq!(limited.status, TurnStatus::Incomplete);
    assert_eq!(limited.turn.unwrap().outcome.unwrap().error.as_deref(), Some("edited by hook"));
    assert_eq!(*events.lock().unwrap(), ["suspended Which branch?", "incomplete OutputLimit"]);
}

#[derive(Clone, Debug, PartialEq)]
struct RequestId(String);

#[tokio::test]
async fn values_are_shared_across_phases() {
    let model =
        ScriptedModel::new([calls(&[("c1", "echo", json!({"text": "a"}))]), ModelResponse::text("ok")]);
    let seen: Log = Arc::default();
    let s = seen.clone();
    let hooks = Hooks::new()
        .on_pre_generation(|c: GenerationContext| async move {
            let id = c.run.values.get::<RequestId>().unwrap();
            c.run.values.insert(RequestId(format!("{}-checked", id.0)));
            Ok(GenerationEdit::unchanged())
        })
        .on_post_tool_use(move |c: ToolResultContext| {
            let s = s.clone();
            async move {
                push(&s, c.run.values.get::<RequestId>().unwrap().0);
                Ok(PostToolUseDecision::keep())
            }
        });
    let agent = agent_with(&model).tool(echo("echo", Arc::default())).hooks(hooks).build().unwrap();
    let values = Values::new();
    values.insert(RequestId("req-7".into()));
    agent.run(RunOptions::text("go").with_values(values)).await.unwrap();
    assert_eq!(*seen.lock().unwrap(), ["req-7-checked"]);
}

/// A struct hook with plain state (no inner `Arc<Mutex<..>>`): shared through an `Arc`, its
/// state is read after the run.
#[derive(Default)]
struct ToolCounter {
    seen: Mutex<Vec<String>>,
}

impl dive_core::PostToolUseHook for ToolCounter {
    fn name(&self) -> &str {
        "tool-counter"
    }

    fn post_tool_use(
        &self,
        ctx: ToolResultContext,
    ) -> dive_core::BoxFuture<'_, Result<PostToolUseDecision, HookError>> {
        self.seen.lock().unwrap().push(ctx.call.name.clone());
        Box::pin(async { Ok(PostToolUseDecision::keep()) })
    }
}

#[tokio::test]
async fn a_struct_hook_shared_through_an_arc_is_read_after_the_run() {
    let model = ScriptedModel::new([
        calls(&[("c1", "echo", json!({"text": "a"})), ("c2", "echo", json!({"text": "b"}))]),
        ModelResponse::text("ok"),
    ]);
    let counter = Arc::new(ToolCounter::default());
    let hooks = Hooks::new().on_post_tool_use(Arc::clone(&counter));
    assert_eq!(hooks.post_tool_use[0].name(), "tool-counter", "the Arc forwards the hook's name");
    let agent = agent_with(&model).tool(echo("echo", Arc::default())).hooks(hooks).build().unwrap();
    agent.run("go").await.unwrap();
    assert_eq!(*counter.seen.lock().unwrap(), ["echo", "echo"]);
}
