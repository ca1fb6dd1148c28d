//! Preparing a long history for sending (`history_to_send`): every model call of a long agent
//! conversation walks the whole history to answer any tool call left unanswered, so its cost
//! is paid once a request for every past message.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use dive_core::{Content, Message, ReminderStyle, Role, ToolResultContent, history_to_send};
use serde_json::json;

/// `turns` turns of an agent using tools: a question, a tool call (`calls` at once), their
/// results and an answer; every call answered.
fn history(turns: usize, calls: usize) -> Vec<Message> {
    let mut messages = Vec::with_capacity(turns * 4);
    for turn in 0..turns {
        let ids: Vec<String> = (0..calls).map(|n| format!("call_{turn}_{n}")).collect();
        messages.push(Message::user(format!("question {turn}")));
        let uses = ids
            .iter()
            .map(|id| Content::tool_use(id.as_str(), "read_file", json!({"path": "a.rs"})))
            .collect();
        messages.push(Message::new(Role::Assistant, uses));
        messages.push(Message::tool_results(
            ids.iter().map(|id| ToolResultContent::text(id.as_str(), "ok")).collect(),
        ));
        messages.push(Message::new(Role::Assistant, vec![Content::text(format!("answer {turn}"))]));
    }
    messages
}

fn bench(c: &mut Criterion) {
    let style = ReminderStyle::UserText;
    let mut group = c.benchmark_group("history_to_send");
    for (turns, calls) in [(100, 1), (25, 8)] {
        let messages = history(turns, calls);
        group.throughput(Throughput::Elements(messages.len() as u64));
        group.bench_function(format!("{turns}_turns_{calls}_calls_each"), |b| {
            b.iter(|| std::hint::black_box(history_to_send(std::hint::black_box(&messages), &style).len()));
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
