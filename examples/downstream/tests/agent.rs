//! The downstream pieces in a real agent: the extension's tool, hook and rule, the struct hook
//! read after the run, the store holding the saved turn, and streamed text in several deltas.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;

use dive_agent::{Agent, RunOptions, StreamExt};
use dive_core::{
    ContentDelta, Hooks, ModelResponse, ResponseItem, SessionStore, StreamEvent, serde_json::json,
};
use dive_test::{ScriptStep, ScriptedModel};
use downstream_example::extension::TEXT_TOOLS_RULE;
use downstream_example::{KvStore, TextTools, ToolBudget};

fn script() -> ScriptedModel {
    ScriptedModel::from_steps([
        ScriptStep::Response(ModelResponse::tool_use("c1", "word_count", json!({"text": "one two three"}))),
        ScriptStep::Response(ModelResponse::tool_use("c2", "word_count", json!({"text": "four five"}))),
        ScriptStep::text_in_deltas(ModelResponse::text("The text has three words."), 4),
    ])
    .streaming()
}

#[tokio::test]
async fn the_extension_and_the_struct_hook_run_in_an_agent_and_the_turn_is_stored() {
    let model = script();
    let budget = Arc::new(ToolBudget::new(1));
    let store = KvStore::new();
    let session = store.open("chat").await.unwrap();
    let agent = Agent::builder()
        .model(model.clone())
        .extension(Arc::new(TextTools))
        .hooks(Hooks::new().on_pre_tool_use(Arc::clone(&budget)))
        .session(session)
        .build()
        .unwrap();

    let mut stream = agent.stream(RunOptions::text("How many words in: one two three?"));
    let mut text_deltas = 0;
    while let Some(item) = stream.next().await {
        if let ResponseItem::ModelEvent {
            event: StreamEvent::ContentBlockDelta { delta: ContentDelta::TextDelta { .. }, .. },
        } = item
        {
            text_deltas += 1;
        }
    }
    let response = stream.finish().await.unwrap();

    assert_eq!(response.output_text(), "The text has three words.");
    assert_eq!(text_deltas, 4, "the scripted text arrived in four deltas");
    let results: Vec<_> = response.tool_call_results().collect();
    assert_eq!(results[0].output.as_ref().unwrap().text_content(), "3", "the extension's typed tool ran");
    assert!(results[1].is_error(), "the second call was over the budget: {:?}", results[1]);
    assert_eq!((budget.allowed(), budget.denied()), (1, 1), "the hook's state, read through the Arc");
    let system = model.requests().last().unwrap().system.unwrap_or_default();
    assert!(system.contains(TEXT_TOOLS_RULE), "the extension's rule is in the system prompt: {system}");
    assert!(store.raw("chat").is_some_and(|bytes| !bytes.is_empty()), "the turn was saved in the store");
}
