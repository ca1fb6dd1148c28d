//! Compaction in the engine: a threshold compaction makes the next request smaller while a
//! real SQLite session keeps every original message; an overflow is compacted and retried
//! once; carried-over content survives.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::result_large_err)]

use std::sync::Arc;

use dive_agent::{Agent, CompactionPolicy, SUMMARY_PREFIX, Summarize};
use dive_core::{
    ClearToolResults, FunctionTool, LlmError, LlmErrorKind, Message, ModelResponse, OutcomeReason,
    SessionStore, ToolError, ToolUse, TurnStatus, Usage, estimate_tokens,
};
use dive_session::SqliteStore;
use dive_test::{FunctionModel, ScriptedModel};
use serde_json::{Value, json};

fn usage(input: u64) -> Usage {
    Usage::new(input, 10)
}

#[tokio::test]
async fn a_threshold_compaction_shrinks_the_next_request_and_the_sqlite_transcript_keeps_everything() {
    let dir = tempfile::tempdir().unwrap();
    let store = SqliteStore::open(dir.path().join("sessions.db")).unwrap();
    let session = store.open("chat").await.unwrap();
    let model = FunctionModel::new(|req, n| {
        Ok(ModelResponse::text(format!("answer {n}")).with_usage(usage(estimate_tokens(&req.messages))))
    });
    let requests = model.requests();
    let summarizer = ScriptedModel::new([ModelResponse::text("The user asked about apples.")]);
    let summary_requests = summarizer.requests();
    let agent = Agent::builder()
        .model(model)
        .session(Arc::clone(&session))
        .compaction(CompactionPolicy::new(Summarize::new(summarizer)).context_limit(2_000).threshold(0.5))
        .build()
        .unwrap();

    let first = format!("apples {}", "a".repeat(2_000)); // ~500 tokens: under 1,000
    agent.run(first.as_str()).await.unwrap();
    let second = format!("pears {}", "p".repeat(3_000)); // ~750 more: over 1,000
    agent.run(second.as_str()).await.unwrap();

    // The summariser saw the first exchange and the default prompt; the second request carries
    // the summary and the new input only.
    let asked = summary_requests.last().unwrap();
    assert!(asked.messages[0].text().starts_with("apples"));
    assert!(asked.messages.last().unwrap().text().contains("Summarise this conversation"));
    let sent = requests.all()[1].messages.to_vec();
    assert_eq!(sent.len(), 1, "{sent:?}");
    assert!(sent[0].text().starts_with(SUMMARY_PREFIX) && sent[0].text().contains("apples."));
    assert!(sent[0].text().ends_with(&second));
    let uncompacted =
        vec![Message::user(first.clone()), Message::assistant("answer 0"), Message::user(second.clone())];
    assert!(estimate_tokens(&sent) + 400 < estimate_tokens(&uncompacted));

    // The session: every original message in the transcript, one compaction record, and an
    // active window that starts from the summary.
    let doc = session.as_history().unwrap().document().await.unwrap();
    let texts: Vec<String> = doc.all_messages().iter().map(Message::text).collect();
    assert_eq!(texts, [first.clone(), "answer 0".into(), second.clone(), "answer 1".into()]);
    assert_eq!(doc.compactions().count(), 1);
    assert!(doc.messages()[0].text().starts_with(SUMMARY_PREFIX));

    // A third turn (a fresh run) starts from the compacted window, read back from SQLite.
    agent.run("and plums?").await.unwrap();
    let third = requests.last().unwrap();
    assert!(third.messages[0].text().starts_with(SUMMARY_PREFIX));
    assert!(!third.messages.iter().any(|m| m.text().starts_with("apples")));
    let reopened = SqliteStore::open(dir.path().join("sessions.db")).unwrap().open("chat").await.unwrap();
    let doc = reopened.as_history().unwrap().document().await.unwrap();
    assert_eq!(doc.all_messages().len(), 6);
    assert!(doc.all_messages()[0].text().starts_with("apples"));
}

fn lookup_tool() -> FunctionTool {
    FunctionTool::new("lookup", "Looks something up.", |_i: Value, _c| async move {
        Ok::<_, ToolError>("a very long lookup result ".repeat(50))
    })
}

fn overflow() -> LlmError {
    LlmError::new(LlmErrorKind::ContextOverflow, "prompt is too long: 210000 tokens > 200000 maximum")
}

#[tokio::test]
async fn an_overflow_is_compacted_and_the_call_retried_once() {
    let model = FunctionModel::new(|_req, n| match n {
        0 => Ok(ModelResponse::tool_calls(vec![ToolUse::new("c1", "lookup", json!({}))])),
        1 => Err(overflow()),
        _ => Ok(ModelResponse::text("found it")),
    });
    let requests = model.requests();
    let agent = Agent::builder()
        .model(model)
        .tool(lookup_tool())
        .compaction(CompactionPolicy::new(ClearToolResults::new(0)))
        .build()
        .unwrap();
    let response = agent.run("look it up").await.unwrap();
    assert_eq!(response.output_text(), "found it");
    let all = requests.all();
    assert_eq!(all.len(), 3);
    let result_text =
        |i: usize| all[i].messages.iter().flat_map(Message::tool_results_iter).next().unwrap().text_content();
    assert!(result_text(1).starts_with("a very long lookup result"));
    assert_eq!(result_text(2), dive_core::CLEARED_TOOL_RESULT_TEXT);
    // The turn record keeps the original result; two model calls succeeded, one failed.
    let turn = response.turn.unwrap();
    let kept = turn.messages.iter().flat_map(Message::tool_results_iter).next().unwrap().text_content();
    assert!(kept.starts_with("a very long lookup result"));
    assert_eq!(response.model_calls.iter().filter(|c| c.error.is_some()).count(), 1);
}

#[tokio::test]
async fn a_second_overflow_ends_the_turn_without_another_retry() {
    let model = FunctionModel::new(|_req, n| match n {
        0 => Ok(ModelResponse::tool_calls(vec![ToolUse::new("c1", "lookup", json!({}))])),
        _ => Err(overflow()),
    });
    let requests = model.requests();
    let agent = Agent::builder()
        .model(model)
        .tool(lookup_tool())
        .compaction(CompactionPolicy::new(ClearToolResults::new(0)))
        .build()
        .unwrap();
    let error = agent.run("look it up").await.unwrap_err();
    let dive_agent::AgentError::Turn(turn) = error else { panic!("{error:?}") };
    assert_eq!(turn.reason, OutcomeReason::ProviderError);
    assert_eq!(requests.len(), 3);
}

#[tokio::test]
async fn without_compaction_an_overflow_fails_at_once() {
    let model = FunctionModel::new(|_req, _n| Err(overflow()));
    let requests = model.requests();
    let agent = Agent::builder().model(model).build().unwrap();
    assert!(agent.run("hi").await.is_err());
    assert_eq!(requests.len(), 1);
}

#[tokio::test]
async fn carried_over_content_survives_a_summary() {
    let skill = "<skill_content name=\"haiku\">\n5-7-5.\n</skill_content>";
    let keep_skill = move |messages: &[Message]| {
        messages.iter().any(|m| m.text().contains(skill)).then(|| Message::user(skill))
    };
    let model = FunctionModel::new(|_req, n| Ok(ModelResponse::text(format!("answer {n}"))));
    let requests = model.requests();
    let summarizer = ScriptedModel::new([ModelResponse::text("A poem was asked for.")]);
    let dir = tempfile::tempdir().unwrap();
    let store = SqliteStore::open(dir.path().join("s.db")).unwrap();
    let session = store.open("poems").await.unwrap();
    let agent = Agent::builder()
        .model(model)
        .session(Arc::clone(&session))
        .compaction(
            CompactionPolicy::new(Summarize::new(summarizer))
                .context_limit(200)
                .threshold(0.5)
                .keep(keep_skill),
        )
        .build()
        .unwrap();
    agent.run(format!("{skill}\nwrite a haiku {}", "x".repeat(400)).as_str()).await.unwrap();
    agent.run("another one").await.unwrap();
    let sent = requests.last().unwrap();
    assert!(sent.messages[0].text().contains(skill), "{:?}", sent.messages);
    assert!(sent.messages[0].text().contains("A poem was asked for."));
    let doc = session.as_history().unwrap().document().await.unwrap();
    assert_eq!(doc.turns().last().unwrap().status, TurnStatus::Completed);
}

/// An agent over a session whose second turn passes the threshold.
async fn two_turns(hooks: dive_core::Hooks) -> (dive_test::RecordedRequests, dive_test::RecordedRequests) {
    let model = FunctionModel::new(|_req, n| Ok(ModelResponse::text(format!("answer {n}"))));
    let requests = model.requests();
    let summarizer = ScriptedModel::new([ModelResponse::text("Summary text.")]);
    let asked = summarizer.requests();
    let store = dive_session::MemoryStore::new();
    let agent = Agent::builder()
        .model(model)
        .session(store.open("s").await.unwrap())
        .hooks(hooks)
        .compaction(CompactionPolicy::new(Summarize::new(summarizer)).context_limit(300).threshold(0.5))
        .build()
        .unwrap();
    // ~104 tokens, under the 150 threshold; the second turn's ~55 more pass it.
    agent.run("x".repeat(400).as_str()).await.unwrap();
    agent.run(format!("next {}", "y".repeat(200)).as_str()).await.unwrap();
    (requests, asked)
}

#[tokio::test]
async fn pre_compact_adds_instructions_and_post_compact_sees_the_sizes() {
    let seen = Arc::new(std::sync::Mutex::new(Vec::new()));
    let sink = Arc::clone(&seen);
    let hooks = dive_core::Hooks::new()
        .on_pre_compact(|ctx: dive_core::PreCompactContext| async move {
            assert_eq!(ctx.trigger, dive_core::CompactionTrigger::Auto);
            assert_eq!(ctx.strategy, "summarize");
            Ok(dive_core::PreCompactDecision::instructions("Keep every file name."))
        })
        .on_post_compact(move |ctx: dive_core::PostCompactContext| {
            let sink = Arc::clone(&sink);
            async move {
                sink.lock().unwrap().push((
                    ctx.tokens_before,
                    ctx.tokens_after,
                    ctx.messages_before,
                    ctx.messages_after,
                ));
                Ok(())
            }
        });
    let (requests, asked) = two_turns(hooks).await;
    let prompt = asked.last().unwrap().messages.last().unwrap().text();
    assert!(prompt.contains("Additional instructions: Keep every file name."), "{prompt}");
    assert!(requests.last().unwrap().messages[0].text().starts_with(SUMMARY_PREFIX));
    let seen = seen.lock().unwrap();
    assert_eq!(seen.len(), 1);
    let (before, after, messages_before, messages_after) = seen[0];
    assert!(after < before, "{before} -> {after}");
    assert_eq!((messages_before, messages_after), (3, 1));
}

#[tokio::test]
async fn a_pre_compact_veto_leaves_the_working_set_alone() {
    let calls = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let counter = Arc::clone(&calls);
    let hooks = dive_core::Hooks::new().on_pre_compact(move |_ctx: dive_core::PreCompactContext| {
        counter.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        async move { Ok(dive_core::PreCompactDecision::veto("the user is mid-thought")) }
    });
    let (requests, asked) = two_turns(hooks).await;
    assert!(asked.is_empty());
    assert_eq!(calls.load(std::sync::atomic::Ordering::SeqCst), 1, "the hook was asked once");
    assert_eq!(requests.last().unwrap().messages.len(), 3);
}

/// An agent with `hooks` over a session that holds one exchange, a summariser, and what it asks.
async fn one_exchange(
    hooks: dive_core::Hooks,
) -> (Agent, Arc<dyn dive_core::Session>, Summarize, dive_test::RecordedRequests) {
    let model = ScriptedModel::new([ModelResponse::text("The secret is 7, noted.")]);
    let summarizer = ScriptedModel::new([ModelResponse::text("The secret is 7.")]);
    let asked = summarizer.requests();
    let session = dive_session::MemoryStore::new().open("s").await.unwrap();
    let agent = Agent::builder().model(model).session(Arc::clone(&session)).hooks(hooks).build().unwrap();
    agent.run("the secret is 7").await.unwrap();
    (agent, session, Summarize::new(summarizer).keep_recent(0), asked)
}

#[tokio::test]
async fn compact_session_runs_both_hooks_and_records_the_compaction() {
    let seen = Arc::new(std::sync::Mutex::new(Vec::new()));
    let sink = Arc::clone(&seen);
    let hooks = dive_core::Hooks::new()
        .on_pre_compact(|ctx: dive_core::PreCompactContext| async move {
            assert_eq!((ctx.trigger, ctx.message_count), (dive_core::CompactionTrigger::Manual, 2));
            assert_eq!(ctx.instructions.as_deref(), Some("keep every number"));
            Ok(dive_core::PreCompactDecision::instructions("and every name"))
        })
        .on_post_compact(move |ctx: dive_core::PostCompactContext| {
            let sink = Arc::clone(&sink);
            async move {
                sink.lock().unwrap().push((ctx.trigger, ctx.messages_before, ctx.messages_after));
                Ok(())
            }
        });
    let (agent, session, summarize, asked) = one_exchange(hooks).await;
    let done = agent
        .compact_session(&*session, &CompactionPolicy::new(summarize), Some("keep every number".into()))
        .await
        .unwrap();
    assert!(
        matches!(
            done,
            dive_agent::SessionCompaction::Compacted { messages_before: 2, messages_after: 1, .. }
        ),
        "{done:?}"
    );
    let prompt = asked.last().unwrap().messages.last().unwrap().text();
    assert!(prompt.contains("keep every number\nand every name"), "{prompt}");
    assert_eq!(*seen.lock().unwrap(), [(dive_core::CompactionTrigger::Manual, 2, 1)]);
    let doc = session.as_history().unwrap().document().await.unwrap();
    assert_eq!(doc.compactions().count(), 1);
    assert!(doc.messages()[0].text().contains("The secret is 7."));
    assert_eq!(doc.all_messages().len(), 2);
}

#[tokio::test]
async fn a_vetoed_compact_session_records_nothing_and_says_why() {
    let hooks = dive_core::Hooks::new().on_pre_compact(|_ctx: dive_core::PreCompactContext| async move {
        Ok(dive_core::PreCompactDecision::veto("the user is mid-thought"))
    });
    let (agent, session, summarize, asked) = one_exchange(hooks).await;
    let done = agent.compact_session(&*session, &CompactionPolicy::new(summarize), None).await.unwrap();
    let dive_agent::SessionCompaction::Vetoed(reason) = done else { panic!("{done:?}") };
    assert!(reason.contains("mid-thought"), "{reason}");
    assert!(asked.is_empty());
    assert_eq!(session.as_history().unwrap().document().await.unwrap().compactions().count(), 0);
}

#[tokio::test]
async fn compact_session_on_a_store_without_history_is_a_typed_error() {
    struct Bare(Arc<dyn dive_core::Session>);
    impl dive_core::Session for Bare {
        fn id(&self) -> &str {
            self.0.id()
        }
        fn load(
            &self,
        ) -> dive_core::BoxFuture<'_, Result<dive_core::SessionSnapshot, dive_core::SessionError>> {
            self.0.load()
        }
        fn save_turn<'a>(
            &'a self,
            turn: &'a dive_core::Turn,
        ) -> dive_core::BoxFuture<'a, Result<u64, dive_core::SessionError>> {
            self.0.save_turn(turn)
        }
    }
    let (agent, session, summarize, _) = one_exchange(dive_core::Hooks::new()).await;
    let error =
        agent.compact_session(&Bare(session), &CompactionPolicy::new(summarize), None).await.unwrap_err();
    assert!(matches!(error, dive_agent::CompactSessionError::NoHistory(_)), "{error}");
    assert!(error.to_string().contains("keeps no history"));
}
