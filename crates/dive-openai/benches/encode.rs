//! Per-call cost of Chat Completions and the Responses API with a long history: one
//! `generate` of a 20-message history (text, tool calls, tool results) with 10 tools against a
//! local keep-alive server answering a canned response, so encoding the body, the tool list
//! and decoding the reply are what changes between runs (the HTTP round trip is the same);
//! and the Chat Completions body alone serialized to bytes (`chat::encode_body`), with its 10
//! tools encoded in the call and without tools (what a provider encodes per call once its
//! tool list is cached).
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use criterion::{Criterion, criterion_group, criterion_main};
use dive_core::Llm;
use serde_json::json;
use wiremock::matchers::method;
use wiremock::{Mock, MockServer, ResponseTemplate};

#[path = "support/long_request.rs"]
mod long_request;

fn bench(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let server = rt.block_on(async {
        let server = MockServer::builder().disable_request_recording().start().await;
        let chat = json!({"id": "c1", "object": "chat.completion", "model": "gpt-5.5", "choices": [{"index": 0,
            "message": {"role": "assistant", "content": "The third one."}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 900, "completion_tokens": 5, "total_tokens": 905}});
        let responses = json!({"id": "resp_1", "object": "response", "model": "gpt-5.5", "status": "completed",
            "output": [{"type": "message", "id": "msg_1", "role": "assistant", "status": "completed",
                "content": [{"type": "output_text", "text": "The third one.", "annotations": []}]}],
            "usage": {"input_tokens": 900, "output_tokens": 5, "total_tokens": 905}});
        Mock::given(method("POST"))
            .and(wiremock::matchers::path("/chat/completions"))
            .respond_with(ResponseTemplate::new(200).set_body_raw(chat.to_string(), "application/json"))
            .mount(&server)
            .await;
        Mock::given(method("POST"))
            .and(wiremock::matchers::path("/responses"))
            .respond_with(ResponseTemplate::new(200).set_body_raw(responses.to_string(), "application/json"))
            .mount(&server)
            .await;
        server
    });
    let chat = dive_openai::ChatCompletions::builder().api_key("k").base_url(server.uri()).build().unwrap();
    let responses = dive_openai::OpenAi::builder().api_key("k").base_url(server.uri()).build().unwrap();
    let request = long_request::request();
    let call = |llm: &dyn Llm| {
        let reply = rt.block_on(llm.generate(request.clone())).unwrap();
        assert_eq!(reply.text_content(), "The third one.");
    };

    let mut group = c.benchmark_group("openai_call_20_messages_10_tools");
    group.bench_function("chat_completions_generate", |b| b.iter(|| call(&chat)));
    group.bench_function("responses_generate", |b| b.iter(|| call(&responses)));
    let dialect = dive_openai::dialect();
    let opts = dive_openai::chat::ChatOptions::new("gpt-5.5", &dialect);
    group.bench_function("chat_completions_encode_body", |b| {
        b.iter(|| serde_json::to_vec(&dive_openai::chat::encode_body(&request, &opts)).unwrap().len());
    });
    // The part a provider encodes per call once its tool list is cached.
    let history = request.clone().with_tools(Vec::new());
    group.bench_function("chat_completions_encode_body_without_tools", |b| {
        b.iter(|| serde_json::to_vec(&dive_openai::chat::encode_body(&history, &opts)).unwrap().len());
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
