//! Per-call cost of the Messages API with a long history: one `generate` of a 20-message
//! history (text, tool calls, tool results) with 10 tools against a local keep-alive server
//! answering a canned message, so encoding the body, the tool list and decoding the reply are
//! what changes between runs (the HTTP round trip is the same).
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use criterion::{Criterion, criterion_group, criterion_main};
use dive_core::Llm;
use serde_json::json;
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

#[path = "../../dive-openai/benches/support/long_request.rs"]
mod long_request;

fn bench(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let server = rt.block_on(async {
        let server = MockServer::builder().disable_request_recording().start().await;
        let message = json!({"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
            "content": [{"type": "text", "text": "The third one."}], "stop_reason": "end_turn",
            "stop_sequence": null, "usage": {"input_tokens": 900, "output_tokens": 5}});
        Mock::given(method("POST"))
            .and(path("/v1/messages"))
            .respond_with(ResponseTemplate::new(200).set_body_raw(message.to_string(), "application/json"))
            .mount(&server)
            .await;
        server
    });
    let llm = dive_anthropic::Anthropic::builder().api_key("k").base_url(server.uri()).build().unwrap();
    let request = long_request::request();

    let mut group = c.benchmark_group("anthropic_call_20_messages_10_tools");
    group.bench_function("messages_generate", |b| {
        b.iter(|| {
            let reply = rt.block_on(llm.generate(request.clone())).unwrap();
            assert_eq!(reply.text_content(), "The third one.");
        });
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
