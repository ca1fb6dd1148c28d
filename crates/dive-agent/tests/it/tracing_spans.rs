//! `TracingTracer`: a run seen by a `tracing` subscriber (a registry with a recording layer):
//! one `invoke_agent` span with its model calls and tool calls as children, and the fields
//! recorded when the run ends.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use dive_agent::{Agent, TracingTracer};
use dive_core::{FunctionTool, ModelResponse, ToolError, ToolResult, ToolUse};
use dive_test::ScriptedModel;
use serde_json::json;
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing_subscriber::layer::{Context, Layer, SubscriberExt};
use tracing_subscriber::registry::LookupSpan;

#[derive(Debug, Default, Clone)]
struct Seen {
    name: String,
    parent: Option<String>,
    fields: BTreeMap<String, String>,
}

#[derive(Default, Clone)]
struct Recorder(Arc<Mutex<BTreeMap<u64, Seen>>>);

struct Fields<'a>(&'a mut BTreeMap<String, String>);
impl Visit for Fields<'_> {
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        self.0.insert(field.name().to_owned(), format!("{value:?}").trim_matches('"').to_owned());
    }
    fn record_str(&mut self, field: &Field, value: &str) {
        self.0.insert(field.name().to_owned(), value.to_owned());
    }
}

impl<S: tracing::Subscriber + for<'a> LookupSpan<'a>> Layer<S> for Recorder {
    fn on_new_span(&self, attrs: &Attributes<'_>, id: &Id, ctx: Context<'_, S>) {
        let parent = ctx.span(id).and_then(|s| s.parent()).map(|p| p.name().to_owned());
        let mut seen = Seen { name: attrs.metadata().name().to_owned(), parent, ..Seen::default() };
        attrs.record(&mut Fields(&mut seen.fields));
        self.0.lock().unwrap().insert(id.into_u64(), seen);
    }
    fn on_record(&self, id: &Id, values: &Record<'_>, _ctx: Context<'_, S>) {
        if let Some(seen) = self.0.lock().unwrap().get_mut(&id.into_u64()) {
            values.record(&mut Fields(&mut seen.fields));
        }
    }
}

#[tokio::test]
async fn a_run_is_one_span_tree_for_tracing_subscribers() {
    let recorder = Recorder::default();
    let subscriber = tracing_subscriber::registry().with(recorder.clone());
    let _default = tracing::subscriber::set_default(subscriber);

    let model = ScriptedModel::new([
        ModelResponse::tool_calls(vec![ToolUse::new("call_1", "broken", json!({}))]),
        ModelResponse::text("it broke"),
    ]);
    let broken = FunctionTool::new("broken", "Fails.", |_input: serde_json::Value, _ctx| async move {
        Err::<ToolResult, _>(ToolError::new("the disk is on fire"))
    })
    .with_schema(json!({"type": "object"}));
    let agent = Agent::builder()
        .name("helper")
        .model(model)
        .tool(Arc::new(broken))
        .tracer(TracingTracer)
        .build()
        .unwrap();
    agent.run("go").await.unwrap();

    let spans: Vec<Seen> = recorder.0.lock().unwrap().values().cloned().collect();
    let named = |name: &str| spans.iter().filter(|s| s.name == name).collect::<Vec<_>>();
    let [run] = named("invoke_agent")[..] else { panic!("{spans:#?}") };
    assert_eq!(run.fields["agent"], "helper");
    assert_eq!(run.fields["status"], "completed", "{:?}", run.fields);
    let chats = named("chat");
    assert_eq!(chats.len(), 2, "{spans:#?}");
    assert!(chats.iter().all(|c| c.parent.as_deref() == Some("invoke_agent")));
    assert_eq!(chats[1].fields["stop_reason"], "end_turn", "{:?}", chats[1].fields);
    let [tool] = named("execute_tool")[..] else { panic!("{spans:#?}") };
    assert_eq!(tool.parent.as_deref(), Some("invoke_agent"));
    assert_eq!(tool.fields["tool"], "broken");
    assert_eq!(tool.fields["call_id"], "call_1");
    assert!(tool.fields["error"].contains("disk is on fire"), "{:?}", tool.fields);
}
