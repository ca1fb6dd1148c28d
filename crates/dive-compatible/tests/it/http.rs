//! The profiles against a local server: DeepInfra's reported `usage.estimated_cost` becomes
//! the call's cost (whole and streamed), Groq and Together call their Chat Completions path
//! with the bearer key.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use dive_core::{Llm, Message, ModelRequest};
use futures::StreamExt;
use serde_json::json;
use wiremock::matchers::{header, method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

fn completion(usage: serde_json::Value) -> serde_json::Value {
    json!({"id": "c1", "model": "m", "choices": [{"index": 0, "finish_reason": "stop",
        "message": {"role": "assistant", "content": "Hi"}}], "usage": usage})
}

#[tokio::test]
async fn deepinfra_keeps_its_estimated_cost() {
    let server = MockServer::start().await;
    let usage =
        json!({"prompt_tokens": 10, "completion_tokens": 2, "total_tokens": 12, "estimated_cost": 0.00042});
    Mock::given(method("POST"))
        .and(path("/chat/completions"))
        .and(header("authorization", "Bearer di-key"))
        .respond_with(ResponseTemplate::new(200).set_body_json(completion(usage.clone())))
        .mount(&server)
        .await;
    let stream = format!(
        "data: {}\n\ndata: {}\n\ndata: [DONE]\n\n",
        json!({"id": "c1", "model": "m", "choices": [{"index": 0, "delta": {"content": "Hi"}}]}),
        json!({"id": "c1", "model": "m", "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}], "usage": usage})
    );
    Mock::given(method("POST"))
        .and(path("/stream/chat/completions"))
        .respond_with(
            ResponseTemplate::new(200)
                .insert_header("content-type", "text/event-stream")
                .set_body_string(stream),
        )
        .mount(&server)
        .await;
    let llm = dive_compatible::deepinfra::DeepInfra::builder()
        .api_key("di-key")
        .base_url(server.uri())
        .build()
        .unwrap();
    let r = llm.generate(ModelRequest::new(vec![Message::user("hi")])).await.unwrap();
    let cost = r.usage.cost.unwrap();
    assert_eq!((cost.total, cost.source.as_deref()), (0.00042, Some("provider")));

    let llm = dive_compatible::deepinfra::DeepInfra::builder()
        .api_key("di-key")
        .base_url(format!("{}/stream", server.uri()))
        .build()
        .unwrap();
    let mut events = llm.stream(ModelRequest::new(vec![Message::user("hi")])).await.unwrap();
    let mut acc = dive_core::ResponseAccumulator::new();
    while let Some(event) = events.next().await {
        acc.add(&event.unwrap()).unwrap();
    }
    let r = acc.into_response();
    assert_eq!(r.text_content(), "Hi");
    assert_eq!(r.usage.cost.unwrap().total, 0.00042);
}

#[tokio::test]
async fn groq_and_together_call_chat_completions_with_their_key() {
    let server = MockServer::start().await;
    let usage = json!({"prompt_tokens": 3, "completion_tokens": 1, "cost": 9.0});
    Mock::given(method("POST"))
        .and(path("/chat/completions"))
        .and(header("authorization", "Bearer k"))
        .respond_with(ResponseTemplate::new(200).set_body_json(completion(usage)))
        .mount(&server)
        .await;
    let groq = dive_compatible::groq::Groq::builder().api_key("k").base_url(server.uri()).build().unwrap();
    let together =
        dive_compatible::together::Together::builder().api_key("k").base_url(server.uri()).build().unwrap();
    for llm in [&groq as &dyn Llm, &together] {
        let r = llm.generate(ModelRequest::new(vec![Message::user("hi")])).await.unwrap();
        assert_eq!((r.text_content().as_str(), r.usage.output_tokens), ("Hi", 1));
        // Neither reports a cost: a `cost` field is not theirs to read.
        assert!(r.usage.cost.is_none(), "{}", llm.provider());
    }
    assert_eq!((groq.provider(), together.provider()), ("groq", "together"));
}
