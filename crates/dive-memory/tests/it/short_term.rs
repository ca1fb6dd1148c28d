//! Short-term read windows over histories with tool groups at the window's edge.
#![allow(clippy::unwrap_used)]

use dive_core::{Content, Message, Role, ShortTermMemory, ToolResultContent};
use dive_memory::{
    HeuristicEstimator, MessageWindow, NoWindow, ReadPolicy, ShortTerm, TokenEstimator, TokenWindow,
    is_tool_result,
};
use serde_json::json;

fn call(ids: &[&str]) -> Message {
    Message::new(
        Role::Assistant,
        ids.iter().map(|id| Content::tool_use(*id, "read", json!({"path": id}))).collect(),
    )
}

fn result(id: &str) -> Message {
    Message::tool_results(vec![ToolResultContent::new(id, vec![Content::text(format!("contents of {id}"))])])
}

/// user, [assistant call c1,c2 + two result messages], assistant, user, [call c3 + result], assistant
fn history() -> Vec<Message> {
    vec![
        Message::user("read two files"),
        call(&["c1", "c2"]),
        result("c1"),
        result("c2"),
        Message::assistant("both read"),
        Message::user("and the third"),
        call(&["c3"]),
        result("c3"),
        Message::assistant("done"),
    ]
}

/// Every tool result in the window has its call in the window, and it does not start on one.
fn assert_whole(window: &[Message]) {
    assert!(window.first().is_none_or(|m| !is_tool_result(m)), "window starts on a tool result: {window:?}");
    for (i, m) in window.iter().enumerate() {
        for r in m.tool_results_iter() {
            let called = window[..i].iter().any(|p| p.tool_uses().any(|u| u.id == r.tool_use_id));
            assert!(called, "result {} without its call in {window:?}", r.tool_use_id);
        }
    }
}

fn texts(window: &[Message]) -> Vec<String> {
    window
        .iter()
        .map(|m| {
            m.tool_uses().next().map_or_else(|| dive_memory::embeddable_text(m), |u| format!("call {}", u.id))
        })
        .collect()
}

#[test]
fn message_window_never_splits_a_group_at_its_edge() {
    let h = history();
    // The newest groups that fit whole: "done" (1) + [c3 call, result] (2) = 3.
    let w = MessageWindow::new(3).select(&h);
    assert_eq!(texts(&w), ["call c3", "contents of c3", "done"]);
    assert_whole(&w);
    // 2 messages: the c3 group does not fit whole, so only "done".
    let w = MessageWindow::new(2).select(&h);
    assert_eq!(texts(&w), ["done"]);
    // 7 would start inside the c1/c2 group (on "result c2"): the group is dropped whole.
    let w = MessageWindow::new(7).select(&h);
    assert_eq!(texts(&w).first().map(String::as_str), Some("both read"));
    assert_eq!(w.len(), 5);
    assert_whole(&w);
    for n in 0..=h.len() + 1 {
        let w = MessageWindow::new(n).select(&h);
        assert_whole(&w);
        assert!(w.len() <= n.max(1) || n == 0, "window of {n} has {}", w.len());
        assert_eq!(w, h[h.len() - w.len()..], "a window is a suffix of the history");
    }
    assert!(MessageWindow::new(0).select(&h).is_empty());
}

#[test]
fn newest_group_is_kept_whole_even_when_larger_than_the_window() {
    let h = vec![Message::user("go"), call(&["a", "b", "c"]), result("a"), result("b"), result("c")];
    let w = MessageWindow::new(2).select(&h);
    assert_eq!(w.len(), 4, "the newest group (a call and its three results) stays whole");
    assert_whole(&w);
}

#[test]
fn a_history_starting_with_an_orphaned_result_never_starts_the_window_there() {
    let h = vec![result("gone"), Message::assistant("ok"), Message::user("next")];
    let w = NoWindow.select(&h);
    assert_eq!(w.len(), 3, "NoWindow returns everything");
    let w = MessageWindow::new(10).select(&h);
    assert_eq!(texts(&w), ["ok", "next"]);
    let w = TokenWindow::new(10_000).select(&h);
    assert_eq!(texts(&w), ["ok", "next"]);
}

#[test]
fn token_window_walks_from_the_newest_and_stops_at_the_first_group_over_budget() {
    let h = history();
    let cost = |m: &[Message]| m.iter().map(|m| HeuristicEstimator.message_tokens(m)).sum::<usize>();
    let tail = cost(&h[6..]);
    // Exactly the last two groups fit.
    let w = TokenWindow::new(tail).select(&h);
    assert_eq!(texts(&w), ["call c3", "contents of c3", "done"]);
    // One token short: the c3 group no longer fits, so the walk stops after "done".
    let w = TokenWindow::new(tail - 1).select(&h);
    assert_eq!(texts(&w), ["done"]);
    // A budget below the newest group still keeps it.
    assert_eq!(TokenWindow::new(1).select(&h).len(), 1);
    for budget in (0..cost(&h) + 10).step_by(3) {
        assert_whole(&TokenWindow::new(budget).select(&h));
    }
    // An exact tokenizer plugs in as a closure: here every message costs 10.
    let w = TokenWindow::new(30).with_estimator(|_: &Message| 10).select(&h);
    assert_eq!(w.len(), 3);
}

#[test]
fn token_window_counts_images_by_size() {
    use base64::Engine as _;
    let mut png = b"\x89PNG\r\n\x1a\n\0\0\0\x0dIHDR".to_vec();
    png.extend(1000u32.to_be_bytes());
    png.extend(750u32.to_be_bytes());
    png.extend([8, 6, 0, 0, 0, 0, 0, 0]);
    let image = Content::image(dive_core::MediaSource::Base64 {
        media_type: "image/png".into(),
        data: base64::engine::general_purpose::STANDARD.encode(png),
    });
    let h = vec![Message::new(Role::User, vec![image]), Message::assistant("a chart")];
    // 1000 x 750 / 750 = 1000 tokens + overhead; the small answer is 6.
    assert_eq!(HeuristicEstimator.message_tokens(&h[0]), 1004);
    assert_eq!(TokenWindow::new(1000).select(&h).len(), 1);
    assert_eq!(TokenWindow::new(1010).select(&h).len(), 2);
}

#[tokio::test]
async fn short_term_filters_on_read_never_on_write() {
    let memory = ShortTerm::new().with_policy(MessageWindow::new(3));
    memory.append(history()).await.unwrap();
    assert_eq!(memory.messages().await.unwrap().len(), 3);
    assert_eq!(memory.stored(), history(), "append keeps everything");
    memory.append(vec![Message::user("more")]).await.unwrap();
    let w = memory.messages().await.unwrap();
    assert_eq!(texts(&w), ["done", "more"], "the window moves as history grows");
}

#[cfg(feature = "tiktoken")]
#[test]
fn tiktoken_counts_exactly_and_drives_the_window() {
    use dive_memory::TiktokenEstimator;
    let gpt4o = TiktokenEstimator::for_model("gpt-4o").unwrap();
    assert_eq!(gpt4o.encoding(), "o200k_base");
    assert_eq!(TiktokenEstimator::for_model("gpt-4").unwrap().encoding(), "cl100k_base");
    assert!(TiktokenEstimator::for_model("claude-sonnet-4-5").is_err());
    assert_eq!(gpt4o.text_tokens("hello world"), 2);
    assert_eq!(gpt4o.message_tokens(&Message::user("hello world")), 5);
    let h = history();
    let tail: usize = h[6..].iter().map(|m| gpt4o.message_tokens(m)).sum();
    let w = TokenWindow::new(tail).with_estimator(gpt4o).select(&h);
    assert_eq!(texts(&w), ["call c3", "contents of c3", "done"]);
    let w = TokenWindow::new(tail - 1).with_estimator(gpt4o).select(&h);
    assert_eq!(texts(&w), ["done"]);
}
