//! A recorded Ollama `/api/chat` answer (see `tests/fixtures/recorded/README.md`): thinking,
//! a tool call with object arguments and the token counts, with expected values read from
//! the recording.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use dive_core::{Content, Llm, Message, ModelRequest};
use dive_ollama::{Ollama, OllamaBuilderExt};
use serde_json::Value;
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

#[tokio::test]
async fn a_recorded_thinking_tool_call_answer_decodes_whole() {
    let recorded: Value = serde_json::from_slice(
        &std::fs::read(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("tests/fixtures/recorded/attogram-ollama-gpt-oss-tool-call.json"),
        )
        .unwrap(),
    )
    .unwrap();
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/api/chat"))
        .respond_with(ResponseTemplate::new(200).set_body_json(&recorded))
        .mount(&server)
        .await;
    let llm = Ollama::builder().host(server.uri()).model("gpt-oss:120b").build().unwrap();
    let r =
        llm.generate(ModelRequest::new(vec![Message::user("Search for 'ollama bash lib'")])).await.unwrap();
    let Content::Thinking(t) = &r.content[0] else { panic!("{:?}", r.content) };
    assert_eq!(t.thinking, recorded["message"]["thinking"].as_str().unwrap());
    let call = r.tool_uses().next().unwrap();
    let wire = &recorded["message"]["tool_calls"][0]["function"];
    assert_eq!((call.name.as_str(), &*call.input), (wire["name"].as_str().unwrap(), &wire["arguments"]));
    assert!(!call.id.is_empty(), "Ollama gives no call id: one is made up so the result can find its call");
    assert_eq!(r.usage.input_tokens, recorded["prompt_eval_count"].as_u64().unwrap());
    assert_eq!(r.usage.output_tokens, recorded["eval_count"].as_u64().unwrap());
    assert_eq!(r.stop_kind(), dive_core::StopKind::ToolUse);
}
