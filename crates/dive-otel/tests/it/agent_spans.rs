//! A real agent on a scripted model, traced by `OtelTracer` into the SDK's in-memory exporters:
//! span names, parentage, attributes in both semconv modes, error status, content capture,
//! metrics, and a subagent's spans under its parent's `execute_tool`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::sync::Arc;

use common::*;
use dive_agent::{Agent, RunOptions};
use dive_core::{FunctionTool, ModelResponse, Tool, ToolError, ToolResult};
use dive_otel::opentelemetry::trace::{SpanKind, Status};
use dive_otel::opentelemetry_sdk::metrics::data::{AggregatedMetrics, MetricData};
use dive_otel::opentelemetry_sdk::trace::SpanData;
use dive_otel::semconv::{self, Semconv};
use dive_otel::{Capture, propagation};
use dive_test::ScriptedModel;
use serde_json::{Value as Json, json};

#[tokio::test]
async fn a_tool_round_makes_one_trace_with_agent_chat_and_tool_spans() {
    let sdk = Sdk::new();
    let model = echo_model();
    let agent = agent(&model, sdk.tracer().build(), vec![echo()]);
    let response = agent.run("ping").await.unwrap();
    assert_eq!(response.output_text(), "done");
    let spans = sdk.finished();

    let run = one(&spans, "invoke_agent helper");
    assert_eq!(run.span_kind, SpanKind::Internal);
    assert_eq!(attr_str(run, semconv::OPERATION_NAME).as_deref(), Some("invoke_agent"));
    assert_eq!(attr_str(run, semconv::AGENT_NAME).as_deref(), Some("helper"));
    assert_eq!(attr_str(run, semconv::DIVE_TURN_STATUS).as_deref(), Some("completed"));
    assert!(attr_str(run, semconv::DIVE_TURN_REASON).is_some(), "the outcome reason is recorded");
    assert_eq!(attr_i64(run, semconv::USAGE_INPUT_TOKENS), Some(10 + 30 + 5 + 7), "cached tokens included");
    assert_eq!(attr_i64(run, semconv::USAGE_OUTPUT_TOKENS), Some(5));
    assert_eq!(run.status, Status::Unset);

    let chats: Vec<_> = spans.iter().filter(|s| s.name.starts_with("chat")).collect();
    assert_eq!(chats.len(), 2, "{:?}", spans.iter().map(|s| &s.name).collect::<Vec<_>>());
    let tool = one(&spans, "execute_tool echo");
    let trace = run.span_context.trace_id();
    for child in chats.iter().copied().chain([tool]) {
        assert_eq!(child.span_context.trace_id(), trace, "{} is in the run's trace", child.name);
        assert_eq!(
            child.parent_span_id,
            run.span_context.span_id(),
            "{} is a child of invoke_agent",
            child.name
        );
    }
    let first =
        chats.iter().find(|s| attr_str(s, semconv::RESPONSE_ID).as_deref() == Some("resp_1")).unwrap();
    assert_eq!(first.span_kind, SpanKind::Client);
    assert_eq!(attr_str(first, semconv::OPERATION_NAME).as_deref(), Some("chat"));
    assert_eq!(
        attr_str(first, semconv::SYSTEM).as_deref(),
        Some("test"),
        "v1.36 names the provider gen_ai.system"
    );
    assert!(attr(first, semconv::PROVIDER_NAME).is_none());
    assert_eq!(attr_str(first, semconv::RESPONSE_MODEL).as_deref(), Some("model-x-2026"));
    assert_eq!(attr_i64(first, semconv::USAGE_INPUT_TOKENS), Some(45));
    assert_eq!(attr_i64(first, semconv::USAGE_OUTPUT_TOKENS), Some(4));
    assert_eq!(attr_i64(first, semconv::DIVE_USAGE_CACHE_READ), Some(30));
    assert_eq!(attr_i64(first, semconv::DIVE_USAGE_CACHE_CREATION), Some(5));
    assert_eq!(attr_i64(first, semconv::DIVE_USAGE_REASONING), Some(2));
    let reasons = attr(first, semconv::RESPONSE_FINISH_REASONS).unwrap();
    assert_eq!(reasons.as_str(), "[\"tool_use\"]");

    assert_eq!(tool.span_kind, SpanKind::Internal);
    assert_eq!(attr_str(tool, semconv::TOOL_NAME).as_deref(), Some("echo"));
    assert_eq!(attr_str(tool, semconv::TOOL_CALL_ID).as_deref(), Some("call_1"));
    assert_eq!(attr_str(tool, semconv::OPERATION_NAME).as_deref(), Some("execute_tool"));
    assert_eq!(tool.status, Status::Unset);
    for span in &spans {
        for key in [
            semconv::INPUT_MESSAGES,
            semconv::OUTPUT_MESSAGES,
            semconv::TOOL_CALL_ARGUMENTS,
            semconv::TOOL_CALL_RESULT,
        ] {
            assert!(attr(span, key).is_none(), "no content by default: {key} on {}", span.name);
        }
    }
}

#[tokio::test]
async fn the_latest_names_are_emitted_when_opted_in() {
    let sdk = Sdk::new();
    let model = echo_model().streaming();
    let agent = agent(&model, sdk.tracer().semconv(Semconv::Latest).build(), vec![echo()]);
    agent.run("ping").await.unwrap();
    let spans = sdk.finished();
    let first =
        spans.iter().find(|s| attr_str(s, semconv::RESPONSE_ID).as_deref() == Some("resp_1")).unwrap();
    assert_eq!(attr_str(first, semconv::PROVIDER_NAME).as_deref(), Some("test"));
    assert!(attr(first, semconv::SYSTEM).is_none(), "the old name is not emitted as well");
    assert_eq!(attr_i64(first, semconv::USAGE_CACHE_READ_INPUT_TOKENS), Some(30));
    assert_eq!(attr_i64(first, semconv::USAGE_CACHE_CREATION_INPUT_TOKENS), Some(5));
    assert_eq!(attr_i64(first, semconv::USAGE_REASONING_OUTPUT_TOKENS), Some(2));
    assert!(attr(first, semconv::DIVE_USAGE_CACHE_READ).is_none());
    assert!(matches!(
        attr(first, semconv::REQUEST_STREAM),
        Some(dive_otel::opentelemetry::Value::Bool(true))
    ));
    let ttfc = attr(first, semconv::RESPONSE_TIME_TO_FIRST_CHUNK);
    assert!(matches!(ttfc, Some(dive_otel::opentelemetry::Value::F64(s)) if s >= 0.0), "{ttfc:?}");
}

#[tokio::test]
async fn a_requested_model_names_the_chat_span_and_request_settings_are_recorded() {
    let sdk = Sdk::new();
    let model = ScriptedModel::new([ModelResponse::text("hi")]);
    let mut template = dive_core::ModelRequest::default();
    template.model = Some("req-model".into());
    let settings = dive_agent::ModelSettings::from_template(template).max_tokens(256).temperature(0.5);
    let agent = Agent::builder()
        .name("helper")
        .model(model)
        .model_settings(settings)
        .tracer(sdk.tracer().build())
        .build()
        .unwrap();
    agent.run("hello").await.unwrap();
    let spans = sdk.finished();
    let chat = one(&spans, "chat req-model");
    assert_eq!(attr_str(chat, semconv::REQUEST_MODEL).as_deref(), Some("req-model"));
    assert_eq!(attr_i64(chat, semconv::REQUEST_MAX_TOKENS), Some(256));
    assert!(
        matches!(attr(chat, semconv::REQUEST_TEMPERATURE), Some(dive_otel::opentelemetry::Value::F64(t)) if (t - 0.5).abs() < 1e-9)
    );
}

#[tokio::test]
async fn a_failing_tool_marks_its_span_as_an_error() {
    let sdk = Sdk::new();
    let model =
        ScriptedModel::new([calls(&[("call_9", "broken", json!({}))]), ModelResponse::text("it broke")]);
    let agent = agent(&model, sdk.tracer().build(), vec![broken()]);
    agent.run("go").await.unwrap();
    let spans = sdk.finished();
    let tool = one(&spans, "execute_tool broken");
    assert!(
        matches!(&tool.status, Status::Error { description } if description.contains("disk is on fire")),
        "{:?}",
        tool.status
    );
    assert_eq!(attr_str(tool, semconv::ERROR_TYPE).as_deref(), Some("failed"));
    let [event] = tool.events.events.as_slice() else { panic!("{:?}", tool.events) };
    assert_eq!(event.name, semconv::EXCEPTION_EVENT);
    let fields: Vec<(String, String)> =
        event.attributes.iter().map(|kv| (kv.key.to_string(), kv.value.to_string())).collect();
    assert!(fields.contains(&(semconv::EXCEPTION_TYPE.into(), "failed".into())), "{fields:?}");
    assert!(
        fields.iter().any(|(k, v)| k == semconv::EXCEPTION_MESSAGE && v.contains("disk is on fire")),
        "{fields:?}"
    );
    let run = one(&spans, "invoke_agent helper");
    assert_eq!(run.status, Status::Unset, "the turn itself went on and completed");
}

#[tokio::test]
async fn a_failing_model_call_marks_chat_and_run() {
    let sdk = Sdk::new();
    let model = ScriptedModel::new([]);
    let agent = agent(&model, sdk.tracer().build(), vec![]);
    assert!(agent.run("go").await.is_err());
    let spans = sdk.finished();
    let chat = spans.iter().find(|s| s.name.starts_with("chat")).unwrap();
    assert!(
        matches!(&chat.status, Status::Error { description } if description.contains("no step left")),
        "{:?}",
        chat.status
    );
    assert_eq!(attr_str(chat, semconv::ERROR_TYPE).as_deref(), Some("_OTHER"));
    assert!(chat.events.events.iter().any(|e| e.name == semconv::EXCEPTION_EVENT), "{:?}", chat.events);
    let run = one(&spans, "invoke_agent helper");
    assert!(matches!(run.status, Status::Error { .. }));
    assert!(run.events.events.iter().any(|e| e.name == semconv::EXCEPTION_EVENT), "{:?}", run.events);
    assert_eq!(attr_str(run, semconv::DIVE_TURN_STATUS).as_deref(), Some("incomplete"));
}

#[tokio::test]
async fn content_is_captured_only_when_asked_and_capped() {
    let sdk = Sdk::new();
    let long = "x".repeat(500);
    let model = ScriptedModel::new([
        calls(&[("call_1", "echo", json!({"text": long}))]),
        ModelResponse::text("done"),
    ]);
    let capture = Capture::all().with_max_bytes(100);
    let agent = Agent::builder()
        .name("helper")
        .model(model.clone())
        .system_prompt("Be brief.")
        .tools(vec![echo()])
        .tracer(sdk.tracer().capture(capture).build())
        .build()
        .unwrap();
    agent.run("ping").await.unwrap();
    let spans = sdk.finished();
    let tool = one(&spans, "execute_tool echo");
    for key in [semconv::TOOL_CALL_ARGUMENTS, semconv::TOOL_CALL_RESULT] {
        let value = attr_str(tool, key).unwrap();
        assert!(value.ends_with(Capture::TRUNCATED), "{key}: {value}");
        assert!(value.len() <= 100 + Capture::TRUNCATED.len(), "{key} is capped");
    }
    let last = spans
        .iter()
        .filter(|s| s.name.starts_with("chat"))
        .find(|s| attr_str(s, semconv::OUTPUT_MESSAGES).is_some_and(|m| m.contains("done")));
    let last = last.expect("the final answer is captured");
    let output: Json = serde_json::from_str(&attr_str(last, semconv::OUTPUT_MESSAGES).unwrap()).unwrap();
    assert_eq!(output[0]["role"], "assistant");
    assert_eq!(output[0]["parts"][0], json!({"type": "text", "content": "done"}));
    let system = attr_str(last, semconv::SYSTEM_INSTRUCTIONS).unwrap();
    assert!(system.contains("Be brief."), "{system}");
    assert!(attr_str(last, semconv::INPUT_MESSAGES).unwrap().contains("\"role\":\"user\""));
}

#[tokio::test]
async fn metrics_record_duration_tokens_and_tool_time() {
    let sdk = Sdk::new();
    let model = echo_model().streaming();
    let agent = agent(&model, sdk.tracer().semconv(Semconv::Latest).build(), vec![echo()]);
    agent.run("ping").await.unwrap();
    sdk.meter_provider.force_flush().unwrap();
    let exported = sdk.metrics.get_finished_metrics().unwrap();
    let mut seen = std::collections::BTreeMap::new();
    for rm in &exported {
        for sm in rm.scope_metrics() {
            for m in sm.metrics() {
                let (count, sum_tokens) = match m.data() {
                    AggregatedMetrics::F64(MetricData::Histogram(h)) => {
                        (h.data_points().map(|p| p.count()).sum::<u64>(), 0)
                    }
                    AggregatedMetrics::U64(MetricData::Histogram(h)) => (
                        h.data_points().map(|p| p.count()).sum::<u64>(),
                        h.data_points().map(|p| p.sum()).sum::<u64>(),
                    ),
                    other => panic!("{} is not a histogram: {other:?}", m.name()),
                };
                seen.insert(m.name().to_owned(), (m.unit().to_owned(), count, sum_tokens));
            }
        }
    }
    assert_eq!(seen[semconv::metric::CLIENT_OPERATION_DURATION], ("s".into(), 2, 0), "{seen:?}");
    // input 45 + 7, output 4 + 1, one data point each per call and type
    assert_eq!(seen[semconv::metric::CLIENT_TOKEN_USAGE], ("{token}".into(), 4, 45 + 7 + 4 + 1));
    assert_eq!(seen[semconv::metric::CLIENT_TIME_TO_FIRST_CHUNK].1, 2);
    assert_eq!(seen[semconv::metric::EXECUTE_TOOL_DURATION].1, 1);
}

/// A tool that runs a whole child agent, its run's values from `propagation::child_values`:
/// the way a subagent launcher hands the parent's trace to the subagent.
fn delegate(child: Agent) -> Arc<dyn Tool> {
    Arc::new(
        FunctionTool::new("delegate", "Runs the child agent.", move |input: Json, ctx| {
            let child = child.clone();
            async move {
                assert!(propagation::tool_traceparent(&ctx).is_some_and(|t| t.starts_with("00-")));
                let options = RunOptions::text(input["task"].as_str().unwrap_or_default())
                    .with_values(propagation::child_values(&ctx));
                let response = child.run(options).await.map_err(|e| ToolError::new(e.to_string()))?;
                Ok::<_, ToolError>(ToolResult::text(response.output_text()))
            }
        })
        .with_schema(json!({"type": "object", "properties": {"task": {"type": "string"}}})),
    )
}

#[tokio::test]
async fn a_subagent_run_is_a_child_of_the_parents_execute_tool() {
    let sdk = Sdk::new();
    let tracer = sdk.tracer().build();
    let child_model = ScriptedModel::new([ModelResponse::text("child answer")]);
    let child = Agent::builder().name("child").model(child_model).tracer(tracer.clone()).build().unwrap();
    let model = ScriptedModel::new([
        calls(&[("call_d", "delegate", json!({"task": "look"}))]),
        ModelResponse::text("parent done"),
    ]);
    let parent = agent(&model, tracer, vec![delegate(child)]);
    assert_eq!(parent.run("go").await.unwrap().output_text(), "parent done");
    let spans = sdk.finished();
    let root = one(&spans, "invoke_agent helper");
    let tool = one(&spans, "execute_tool delegate");
    let sub = one(&spans, "invoke_agent child");
    assert_eq!(tool.parent_span_id, root.span_context.span_id());
    assert_eq!(sub.parent_span_id, tool.span_context.span_id(), "the subagent hangs under execute_tool");
    assert_eq!(sub.span_context.trace_id(), root.span_context.trace_id());
    let sub_chat = spans
        .iter()
        .find(|s| s.name.starts_with("chat") && s.parent_span_id == sub.span_context.span_id())
        .expect("the subagent's chat span is under its own invoke_agent");
    assert_eq!(sub_chat.span_context.trace_id(), root.span_context.trace_id());
}

#[tokio::test]
async fn a_run_continues_an_incoming_traceparent() {
    let sdk = Sdk::new();
    let model = ScriptedModel::new([ModelResponse::text("hi")]);
    let agent = agent(&model, sdk.tracer().build(), vec![]);
    let incoming = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
    let options = RunOptions::text("hello").with_values(propagation::values_from_traceparent(incoming, None));
    agent.run(options).await.unwrap();
    let spans = sdk.finished();
    let run = one(&spans, "invoke_agent helper");
    assert_eq!(format!("{}", run.span_context.trace_id()), "4bf92f3577b34da6a3ce929d0e0e4736");
    assert_eq!(format!("{}", run.parent_span_id), "00f067aa0ba902b7");
    assert!(run.parent_span_is_remote);
}

#[tokio::test]
async fn runs_of_a_workflow_hang_under_its_invoke_workflow_span() {
    let sdk = Sdk::new();
    let tracer = sdk.tracer().build();
    let first = agent(&ScriptedModel::new([ModelResponse::text("draft")]), tracer.clone(), vec![]);
    let second = Agent::builder()
        .name("editor")
        .model(ScriptedModel::new([ModelResponse::text("final")]))
        .tracer(tracer.clone())
        .build()
        .unwrap();
    let workflow = tracer.start_workflow("write_and_edit", None);
    let draft = first.run(RunOptions::text("write").with_values(workflow.values())).await.unwrap();
    second.run(RunOptions::text(draft.output_text()).with_values(workflow.values())).await.unwrap();
    workflow.end();
    let spans = sdk.finished();
    let root = one(&spans, "invoke_workflow write_and_edit");
    assert_eq!(attr_str(root, semconv::OPERATION_NAME).as_deref(), Some("invoke_workflow"));
    assert_eq!(attr_str(root, semconv::WORKFLOW_NAME).as_deref(), Some("write_and_edit"));
    for name in ["invoke_agent helper", "invoke_agent editor"] {
        let run = one(&spans, name);
        assert_eq!(run.parent_span_id, root.span_context.span_id(), "{name} under the workflow");
        assert_eq!(run.span_context.trace_id(), root.span_context.trace_id());
    }
    sdk.meter_provider.force_flush().unwrap();
    let exported = sdk.metrics.get_finished_metrics().unwrap();
    let workflow_points: u64 = exported
        .iter()
        .flat_map(|rm| rm.scope_metrics())
        .flat_map(|sm| sm.metrics())
        .filter(|m| m.name() == semconv::metric::WORKFLOW_DURATION)
        .map(|m| match m.data() {
            AggregatedMetrics::F64(MetricData::Histogram(h)) => h.data_points().map(|p| p.count()).sum(),
            _ => 0,
        })
        .sum();
    assert_eq!(workflow_points, 1, "gen_ai.workflow.duration recorded once");
}

#[tokio::test]
async fn two_tracers_behind_a_multi_tracer_keep_their_own_trees() {
    let (a, b) = (Sdk::new(), Sdk::new());
    let multi = dive_core::trace::MultiTracer::new(vec![
        std::sync::Arc::new(a.tracer().build()),
        std::sync::Arc::new(b.tracer().build()),
    ]);
    let model = echo_model();
    let agent =
        Agent::builder().name("helper").model(model).tools(vec![echo()]).tracer(multi).build().unwrap();
    agent.run("ping").await.unwrap();
    for sdk in [&a, &b] {
        let spans = sdk.finished();
        let run = one(&spans, "invoke_agent helper");
        assert_eq!(spans.len(), 4, "each provider gets the whole tree");
        for s in spans.iter().filter(|s| s.name != "invoke_agent helper") {
            assert_eq!(s.parent_span_id, run.span_context.span_id(), "{} under its own tracer's run", s.name);
        }
    }
}

#[tokio::test]
async fn attributes_a_tool_reports_land_on_its_execute_tool_span() {
    let sdk = Sdk::new();
    let skill = Arc::new(
        FunctionTool::new("Skill", "Loads a skill.", |_input: Json, _ctx| async move {
            Ok::<_, ToolError>(ToolResult::Output(
                dive_core::ToolOutput::text("Launching skill: pdf")
                    .with_span_attribute(semconv::SKILL_NAME, "pdf")
                    .with_span_attribute(semconv::PROCESS_EXIT_CODE, 3),
            ))
        })
        .with_schema(json!({"type": "object"})),
    ) as Arc<dyn Tool>;
    let model = ScriptedModel::new([calls(&[("c1", "Skill", json!({}))]), ModelResponse::text("done")]);
    agent(&model, sdk.tracer().build(), vec![skill]).run("go").await.unwrap();
    let spans = sdk.finished();
    let tool = one(&spans, "execute_tool Skill");
    assert_eq!(attr_str(tool, semconv::SKILL_NAME).as_deref(), Some("pdf"));
    assert_eq!(attr_i64(tool, semconv::PROCESS_EXIT_CODE), Some(3));
}

#[tokio::test]
async fn memory_searches_and_writes_are_spans_under_the_run() {
    use dive_memory::{InMemoryVectorStore, LongTerm, MemoryExtension};
    let sdk = Sdk::new();
    let memory = MemoryExtension::new()
        .with_long_term(LongTerm::new(dive_test::HashEmbedder::new(64), InMemoryVectorStore::new()));
    let model = ScriptedModel::new([ModelResponse::text("Noted: Miso."), ModelResponse::text("Miso.")]);
    let agent = Agent::builder()
        .name("helper")
        .model(model.clone())
        .extension(memory)
        .tracer(sdk.tracer().build())
        .build()
        .unwrap();
    agent.run("My cat is called Miso.").await.unwrap();
    agent.run("What is my cat called?").await.unwrap();
    let spans = sdk.finished();
    let runs = named(&spans, "invoke_agent helper");
    assert_eq!(runs.len(), 2);
    let searches = named(&spans, "search_memory memory");
    let writes = named(&spans, "upsert_memory memory");
    assert_eq!((searches.len(), writes.len()), (2, 2), "a recall before and a write after each run");
    for span in searches.iter().chain(&writes) {
        assert_eq!(attr_str(span, semconv::DATA_SOURCE_ID).as_deref(), Some("memory"));
        assert!(runs.iter().any(|r| r.span_context.span_id() == span.parent_span_id), "under a run");
    }
    let op = |s: &SpanData| attr_str(s, semconv::OPERATION_NAME);
    assert_eq!(op(searches[0]).as_deref(), Some("search_memory"));
    assert_eq!(op(writes[0]).as_deref(), Some("upsert_memory"));
    // The first recall found nothing, the second found the first exchange.
    let mut found: Vec<i64> =
        searches.iter().map(|s| attr_i64(s, semconv::DIVE_OPERATION_COUNT).unwrap()).collect();
    found.sort_unstable();
    assert_eq!(found[0], 0);
    assert!(found[1] >= 1, "{found:?}");
    assert!(writes.iter().all(|s| attr_i64(s, semconv::DIVE_OPERATION_COUNT).unwrap() >= 1));
}
