//! MemoryExtension in a real agent: recalled memories reach the model as a model-only
//! reminder before the new input (system prompt and history untouched, nothing saved), the
//! window filters what the model sees while the session keeps everything, and write policies
//! decide what is stored.
#![allow(clippy::unwrap_used)]

use std::sync::Arc;

use dive_agent::{Agent, RunOptions};
use dive_core::{
    BoxFuture, Content, Embedder, MemoryError, Message, MinLength, ModelRequest, ModelResponse, Role, Session,
};
#[cfg(feature = "sqlite")]
use dive_memory::SqliteVectorStore;
use dive_memory::{
    InMemoryVectorStore, LlmJudge, LongTerm, MEMORY_REMINDER, MemoryExtension, MessageWindow, Retrieval,
};
use dive_session::MemorySession;
use dive_test::{HashEmbedder, ScriptedModel};

fn long_term(store: &InMemoryVectorStore) -> LongTerm {
    LongTerm::new(HashEmbedder::new(512), store.clone())
}

fn memory_reminder(request: &ModelRequest) -> Option<String> {
    let last = request.messages.last()?;
    last.content
        .iter()
        .find_map(|c| c.as_reminder().filter(|r| r.name == MEMORY_REMINDER).map(|r| r.content.clone()))
}

#[tokio::test]
async fn memories_ride_before_the_new_input_as_a_model_only_reminder() {
    let store = InMemoryVectorStore::new();
    let model = ScriptedModel::new([ModelResponse::text("Noted, Miso it is."), ModelResponse::text("Miso.")]);
    let agent = Agent::builder()
        .model(model.clone())
        .system_prompt("You are helpful.")
        .extension(MemoryExtension::new().with_long_term(long_term(&store)))
        .build()
        .unwrap();
    let session: Arc<dyn Session> = Arc::new(MemorySession::new("s1"));
    agent.run(RunOptions::text("My cat is called Miso.").with_session(session.clone())).await.unwrap();
    assert_eq!(store.len(), 2, "StoreAlways wrote the prompt and the answer");
    assert!(memory_reminder(&model.requests().all()[0]).is_none(), "nothing to recall on the first run");

    // A new conversation: the memory comes from long-term memory, not from the history.
    let fresh: Arc<dyn Session> = Arc::new(MemorySession::new("s2"));
    agent.run(RunOptions::text("What is my cat called?").with_session(fresh.clone())).await.unwrap();
    let request = &model.requests().all()[1];
    let reminder = memory_reminder(request).expect("the second run recalls the first");
    assert!(reminder.contains("My cat is called Miso."), "{reminder}");
    assert!(reminder.contains("role=\"assistant\""), "roles are shown: {reminder}");
    let input = request.messages.last().unwrap();
    assert_eq!(input.role, Role::User);
    assert!(matches!(input.content[0], Content::Reminder(_)), "the reminder comes before the input's text");
    assert_eq!(input.content[1].as_text(), Some("What is my cat called?"));
    assert_eq!(
        request.system.as_deref().map(|s| s.contains("Miso")),
        Some(false),
        "the system prompt is never rewritten"
    );
    // The only change is the engine's standing rule for reading reminders (added to any
    // request that holds one), never memory content.
    assert!(
        request
            .system
            .as_deref()
            .unwrap()
            .starts_with("You are helpful.\n\nMessages may contain <system-reminder")
    );

    // Model-only: the saved conversation holds no memory reminder.
    let saved = fresh.load().await.unwrap().messages();
    assert_eq!(saved[0], Message::user("What is my cat called?"));
    assert!(!dive_core::contains_reminders(&saved));
}

#[tokio::test]
async fn the_window_filters_what_the_model_sees_and_the_session_keeps_everything() {
    let replies: Vec<ModelResponse> = (0..4).map(|i| ModelResponse::text(format!("answer {i}"))).collect();
    let model = ScriptedModel::new(replies);
    let agent = Agent::builder()
        .model(model.clone())
        .extension(MemoryExtension::new().with_window(MessageWindow::new(3)))
        .build()
        .unwrap();
    let session: Arc<dyn Session> = Arc::new(MemorySession::new("w"));
    for i in 0..4 {
        agent.run(RunOptions::text(format!("question {i}")).with_session(session.clone())).await.unwrap();
    }
    let last = model.requests().last().unwrap();
    let seen: Vec<String> = last.messages.iter().map(Message::text).collect();
    assert_eq!(seen, ["question 2", "answer 2", "question 3"], "the newest 3 messages");
    assert_eq!(session.load().await.unwrap().messages().len(), 8, "filtering on read, never on write");
}

#[tokio::test]
async fn write_policies_decide_what_is_stored() {
    // MinLength: a short exchange is not kept.
    let store = InMemoryVectorStore::new();
    let agent = Agent::builder()
        .model(ScriptedModel::new([ModelResponse::text("ok")]))
        .extension(MemoryExtension::new().with_long_term(long_term(&store)).with_write_policy(MinLength(40)))
        .build()
        .unwrap();
    agent.run(RunOptions::text("hi")).await.unwrap();
    assert_eq!(store.len(), 0);

    // A closure keeps only the user's side.
    let store = InMemoryVectorStore::new();
    let agent = Agent::builder()
        .model(ScriptedModel::new([ModelResponse::text("Sure.")]))
        .extension(
            MemoryExtension::new()
                .with_long_term(long_term(&store))
                .with_write_policy(|prompt: &Message, _answer: &Message| Some(vec![prompt.clone()])),
        )
        .build()
        .unwrap();
    agent.run(RunOptions::text("I live in Porto.")).await.unwrap();
    assert_eq!(store.len(), 1);

    // An LLM judge: it is asked, and its condensed memory is what is stored.
    let store = InMemoryVectorStore::new();
    let judge_model =
        ScriptedModel::new([ModelResponse::text(r#"{"save": true, "memory": "The user lives in Porto."}"#)]);
    let agent = Agent::builder()
        .model(ScriptedModel::new([ModelResponse::text("Lovely city!")]))
        .extension(
            MemoryExtension::new()
                .with_long_term(long_term(&store))
                .with_async_write_policy(LlmJudge::new(judge_model.clone()).condensed()),
        )
        .build()
        .unwrap();
    agent.run(RunOptions::text("I moved to Porto last year.")).await.unwrap();
    let asked = judge_model.requests().last().unwrap();
    let shown = asked.messages[0].text();
    assert!(shown.contains("I moved to Porto last year.") && shown.contains("Lovely city!"), "{shown}");
    let hits = long_term(&store).recall("where does the user live", &Retrieval::new(5)).await.unwrap();
    assert_eq!(hits.len(), 1);
    assert_eq!(hits[0].record.message, Message::assistant("The user lives in Porto."));

    // A judge that says no stores nothing.
    let store = InMemoryVectorStore::new();
    let agent = Agent::builder()
        .model(ScriptedModel::new([ModelResponse::text("Hello!")]))
        .extension(MemoryExtension::new().with_long_term(long_term(&store)).with_async_write_policy(
            LlmJudge::new(ScriptedModel::new([ModelResponse::text(r#"{"save": false, "memory": ""}"#)])),
        ))
        .build()
        .unwrap();
    agent.run(RunOptions::text("hello there")).await.unwrap();
    assert_eq!(store.len(), 0);
}

struct Broken;

impl Embedder for Broken {
    fn dimensions(&self) -> usize {
        8
    }
    fn embed<'a>(&'a self, _texts: &'a [String]) -> BoxFuture<'a, Result<Vec<Vec<f32>>, MemoryError>> {
        Box::pin(async { Err(MemoryError::Embedding("embedding service down".into())) })
    }
}

#[tokio::test]
async fn a_memory_failure_never_fails_the_run() {
    let agent = Agent::builder()
        .model(ScriptedModel::new([ModelResponse::text("still here")]))
        .extension(MemoryExtension::new().with_long_term(LongTerm::new(Broken, InMemoryVectorStore::new())))
        .build()
        .unwrap();
    let response = agent.run(RunOptions::text("hello")).await.unwrap();
    assert_eq!(response.status, dive_core::TurnStatus::Completed);
}

#[cfg(feature = "sqlite")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn long_term_memory_in_sqlite_outlives_the_agent() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("memory.db");
    {
        let lt = LongTerm::new(HashEmbedder::new(512), SqliteVectorStore::open(&path).unwrap());
        let agent = Agent::builder()
            .model(ScriptedModel::new([ModelResponse::text("Got it: the standup is at 9:15.")]))
            .extension(MemoryExtension::new().with_long_term(lt))
            .build()
            .unwrap();
        agent.run(RunOptions::text("Our standup is at 9:15 every morning.")).await.unwrap();
    }
    let model = ScriptedModel::new([ModelResponse::text("9:15.")]);
    let lt = LongTerm::new(HashEmbedder::new(512), SqliteVectorStore::open(&path).unwrap());
    let agent = Agent::builder()
        .model(model.clone())
        .extension(MemoryExtension::new().with_long_term(lt).with_retrieval(Retrieval::new(1)))
        .build()
        .unwrap();
    agent.run(RunOptions::text("When is our standup?")).await.unwrap();
    let reminder = memory_reminder(&model.requests().last().unwrap()).unwrap();
    assert!(reminder.contains("standup is at 9:15"), "{reminder}");
    assert_eq!(reminder.matches("<memory ").count(), 1, "Retrieval::new(1) recalls one memory");
}

#[tokio::test]
async fn the_window_in_an_agent_keeps_tool_calls_with_their_results() {
    use dive_core::{FunctionTool, ToolError, ToolUse};
    use serde_json::{Value, json};
    let lookup = FunctionTool::new("lookup", "Looks a word up.", |input: Value, _ctx| async move {
        Ok::<_, ToolError>(format!("definition of {}", input["word"].as_str().unwrap_or_default()))
    });
    // Run 1: two tool calls in one response, then an answer. Run 2: a plain answer.
    let model = ScriptedModel::new([
        ModelResponse::tool_calls(vec![
            ToolUse::new("c1", "lookup", json!({"word": "a"})),
            ToolUse::new("c2", "lookup", json!({"word": "b"})),
        ]),
        ModelResponse::text("a and b defined"),
        ModelResponse::text("second answer"),
    ]);
    // 3 messages: [question 2] + [answer 1] fit, the tool group (call + results) before them
    // would not fit whole, so it is dropped whole.
    let agent = Agent::builder()
        .model(model.clone())
        .tool(lookup)
        .extension(MemoryExtension::new().with_window(MessageWindow::new(3)))
        .build()
        .unwrap();
    let session: Arc<dyn Session> = Arc::new(MemorySession::new("tools"));
    agent.run(RunOptions::text("define a and b").with_session(session.clone())).await.unwrap();
    agent.run(RunOptions::text("next question").with_session(session.clone())).await.unwrap();
    let saved = session.load().await.unwrap().messages();
    assert!(saved.len() >= 5, "the session keeps the whole tool exchange: {}", saved.len());
    let last = model.requests().last().unwrap();
    let seen = &last.messages;
    assert!(seen.len() <= 3, "{} messages seen", seen.len());
    assert!(!dive_memory::is_tool_result(&seen[0]), "the window never starts on a tool result");
    for (i, m) in seen.iter().enumerate() {
        for r in m.tool_results_iter() {
            assert!(
                seen[..i].iter().any(|p| p.tool_uses().any(|u| u.id == r.tool_use_id)),
                "orphaned result"
            );
        }
    }
    assert_eq!(seen.last().unwrap().text(), "next question");
    assert_eq!(seen[seen.len() - 2].text(), "a and b defined");
}

/// Every hook call as (hook, count, error).
type Seen = Arc<std::sync::Mutex<Vec<(&'static str, usize, Option<String>)>>>;

fn recording_hooks(seen: &Seen) -> dive_memory::MemoryHooks {
    let record = |name: &'static str, seen: Seen| {
        move |e: &dive_memory::MemoryEvent<'_>| {
            seen.lock().unwrap().push((name, e.count, e.error.map(str::to_owned)));
        }
    };
    dive_memory::MemoryHooks::new()
        .on_short_term_load(record("load", seen.clone()))
        .on_short_term_append(record("append", seen.clone()))
        .on_long_term_retrieve(record("retrieve", seen.clone()))
        .on_long_term_store(record("store", seen.clone()))
}

#[tokio::test]
async fn goagents_memory_hooks_see_each_load_retrieve_and_store_with_counts_and_errors() {
    let seen: Seen = Arc::default();
    let store = InMemoryVectorStore::new();
    let memory = MemoryExtension::new()
        .with_window(MessageWindow::new(10))
        .with_long_term(long_term(&store))
        .with_hooks(recording_hooks(&seen));
    let model = ScriptedModel::new([ModelResponse::text("Noted: Miso."), ModelResponse::text("Miso.")]);
    let agent = Agent::builder().model(model).extension(memory).build().unwrap();
    agent.run(RunOptions::text("My cat is called Miso.")).await.unwrap();
    agent.run(RunOptions::text("What is my cat called?")).await.unwrap();
    let seen_now = seen.lock().unwrap().clone();
    assert_eq!(
        seen_now,
        [
            ("load", 1, None),
            ("retrieve", 0, None),
            ("store", 2, None),
            ("load", 1, None),
            ("retrieve", 2, None),
            ("store", 2, None),
        ],
        "one load and retrieve before, one store after each run (no session: each run's history is \
         its input; the second recall finds the first exchange's two messages)"
    );

    // A failing retrieval is reported with its error, and the run goes on.
    let failing: Seen = Arc::default();
    let agent = Agent::builder()
        .model(ScriptedModel::new([ModelResponse::text("still here")]))
        .extension(
            MemoryExtension::new()
                .with_long_term(LongTerm::new(Broken, InMemoryVectorStore::new()))
                .with_hooks(recording_hooks(&failing)),
        )
        .build()
        .unwrap();
    agent.run(RunOptions::text("hello")).await.unwrap();
    let failing = failing.lock().unwrap().clone();
    assert_eq!(failing[0].0, "retrieve");
    assert_eq!(failing[0].1, 0);
    assert!(failing[0].2.as_deref().is_some_and(|e| e.contains("embedding service down")), "{failing:?}");
    assert_eq!(failing[1].0, "store");
    assert!(failing[1].2.is_some(), "the store failed too: {failing:?}");
}

#[tokio::test]
async fn a_short_term_historys_hooks_see_appends_and_windowed_loads() {
    use dive_core::ShortTermMemory;
    let seen: Seen = Arc::default();
    let memory =
        dive_memory::ShortTerm::new().with_policy(MessageWindow::new(2)).with_hooks(recording_hooks(&seen));
    memory.append(vec![Message::user("a"), Message::assistant("b"), Message::user("c")]).await.unwrap();
    assert_eq!(memory.messages().await.unwrap().len(), 2);
    assert_eq!(*seen.lock().unwrap(), [("append", 3, None), ("load", 2, None)]);
}
