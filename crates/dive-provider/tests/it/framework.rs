//! The provider framework on its own: a toy wire format over NDJSON, written the way a
//! downstream provider author would, passes the provider conformance suite through the
//! generic `HttpProvider` (default Bearer auth, NDJSON framing, a mapper's own end check).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::VecDeque;
use std::sync::LazyLock;
use std::time::Duration;

use dive_core::{
    Content, ContentDelta, LlmErrorKind, MessageDelta, ModelInfo, ModelRequest, ModelResponse, Pricing,
    StreamEvent, Usage,
};
use dive_provider::{
    CallContext, Encoded, HttpProvider, ProviderError, RetryPolicy, StreamMapper, Vendor, WireFormat,
};
use dive_test::provider::{CannedReplies, ProviderSetup, provider_conformance};
use serde::Serialize;
use serde_json::{Value, json};

static MODELS: LazyLock<Vec<ModelInfo>> = LazyLock::new(|| {
    let mut m = ModelInfo::new("toy-1", "toy", 100_000, 8_000);
    m.pricing = Some(Pricing::new(1.0, 2.0));
    vec![m]
});

fn catalog(model: &str) -> Option<&'static ModelInfo> {
    MODELS.iter().find(|m| m.id == model)
}

const VENDOR: Vendor = Vendor::new("toy", "http://toy.invalid", "toy-1", catalog)
    .with_api_key_vars(&["TOY_API_KEY"])
    .with_base_url_var("TOY_BASE_URL");

#[derive(Debug, Clone, Default)]
struct Toy;

#[derive(Serialize)]
struct ToyBody<'a> {
    model: &'a str,
    prompt: String,
    stream: bool,
}

fn usage(v: &Value) -> Usage {
    Usage::new(v["in"].as_u64().unwrap_or(0), v["out"].as_u64().unwrap_or(0))
}

/// Lines: `{"text": …}` pieces, then `{"done": true, "in": …, "out": …}`; `{"error": …}`.
#[derive(Debug, Default)]
struct ToyMapper {
    started: bool,
    done: bool,
}

impl StreamMapper for ToyMapper {
    type Frame = Value;

    fn map(&mut self, line: Value, out: &mut VecDeque<StreamEvent>) -> Result<(), ProviderError> {
        if line.get("error").is_some() {
            return Err(ProviderError::from_stream_error(
                "toy",
                &json!({"error": {"type": line["error"], "message": "toy error"}}),
            ));
        }
        if !self.started {
            self.started = true;
            out.push_back(StreamEvent::message_start(ModelResponse::default()));
            out.push_back(StreamEvent::block_start(0, Content::text("")));
        }
        if let Some(text) = line["text"].as_str() {
            let delta = ContentDelta::TextDelta { text: text.to_owned() };
            out.push_back(StreamEvent::ContentBlockDelta { index: 0, delta });
        }
        if line["done"] == true {
            self.done = true;
            let mut delta = MessageDelta::default();
            delta.stop_reason = Some("stop".into());
            out.push_back(StreamEvent::ContentBlockStop { index: 0 });
            out.push_back(StreamEvent::message_delta(delta, Some(usage(&line))));
        }
        Ok(())
    }

    fn end(&mut self, out: &mut VecDeque<StreamEvent>) -> Result<(), ProviderError> {
        if self.done {
            out.push_back(StreamEvent::MessageStop);
        }
        Ok(())
    }

    fn end_marker(&self) -> &'static str {
        "its done line"
    }
}

impl WireFormat for Toy {
    type Body<'a> = ToyBody<'a>;
    type Mapper = ToyMapper;

    fn vendor(&self) -> &Vendor {
        &VENDOR
    }

    fn encode<'a>(
        &'a self,
        request: &'a ModelRequest,
        call: &CallContext<'a>,
    ) -> Result<Encoded<ToyBody<'a>>, ProviderError> {
        let prompt = request.messages.iter().map(dive_core::Message::text).collect();
        Ok(Encoded::new(ToyBody { model: call.model, prompt, stream: call.stream })
            .with_header("x-toy-beta", "wire")
            .with_header("x-toy-feature", "wire"))
    }

    fn path(
        &self,
        _encoded: &Encoded<ToyBody<'_>>,
        call: &CallContext<'_>,
    ) -> std::borrow::Cow<'static, str> {
        if call.stream { "/stream".into() } else { "/generate".into() }
    }

    fn decode(&self, body: &[u8], _call: &CallContext<'_>) -> Result<ModelResponse, ProviderError> {
        let v: Value = serde_json::from_slice(body)
            .map_err(|e| ProviderError::new("toy", LlmErrorKind::Decode, e.to_string()))?;
        let mut r = ModelResponse::text(v["text"].as_str().unwrap_or_default());
        r.usage = usage(&v);
        Ok(r)
    }

    fn mapper(&self, _call: &CallContext<'_>) -> ToyMapper {
        ToyMapper::default()
    }
}

type ToyProvider = HttpProvider<Toy>;

fn make(setup: &ProviderSetup<'_>) -> ToyProvider {
    ToyProvider::builder()
        .api_key(setup.api_key)
        .base_url(setup.base_url)
        .retry_policy(RetryPolicy::default().with_base_delay(Duration::from_millis(2)).with_jitter(0.0))
        .build()
        .unwrap()
}

#[tokio::test]
async fn a_toy_ndjson_wire_format_passes_the_provider_conformance_suite() {
    let stream = "{\"text\":\"do\"}\n{\"text\":\"ne\"}\n{\"done\":true,\"in\":1000,\"out\":100}\n";
    let reply = br#"{"text":"done","in":1000,"out":100}"#.to_vec();
    let mut canned = CannedReplies::new(reply, "done", (1000, 100));
    canned.stream_content_type = "application/x-ndjson".into();
    canned.stream = CannedReplies::ndjson_frames(stream);
    canned.first_event_frames = 1;
    canned.stream_error = (b"{\"error\":\"overloaded\"}\n".to_vec(), LlmErrorKind::Overloaded);
    canned.priced = true;
    let report = provider_conformance(make, canned).await;
    assert_eq!(report.passed.len(), 9, "{report:?}");
}

#[test]
fn a_missing_key_names_the_variable_and_from_env() {
    let err = ToyProvider::builder().build().unwrap_err();
    assert_eq!(err.kind, LlmErrorKind::Authentication);
    assert_eq!(
        err.message,
        "no toy API key: call api_key on the builder, or build with from_env to read TOY_API_KEY"
    );
    let optional = HttpProvider::<Toy>::builder().api_key("k").build().unwrap();
    assert_eq!((optional.base_url(), dive_core::Llm::model(&optional)), ("http://toy.invalid", "toy-1"));
}

#[tokio::test]
async fn headers_keep_their_precedence_and_a_bad_one_fails_the_build() {
    use wiremock::matchers::{header, method, path};
    use wiremock::{Mock, MockServer, ResponseTemplate};
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/generate"))
        .and(header("authorization", "Bearer k"))
        .and(header("content-type", "application/json"))
        // The provider's own header wins over the wire format's, the request's over both…
        .and(header("x-toy-beta", "provider"))
        .and(header("x-toy-feature", "wire"))
        .and(header("x-per-request", "request"))
        .respond_with(ResponseTemplate::new(200).set_body_string(r#"{"text":"ok","in":1,"out":1}"#))
        .expect(2)
        .mount(&server)
        .await;
    let provider = ToyProvider::builder()
        .api_key("k")
        .base_url(server.uri())
        .header("x-toy-beta", "provider")
        .header("x-per-request", "provider")
        .build()
        .unwrap();
    for _ in 0..2 {
        let mut request = ModelRequest::new(vec![dive_core::Message::user("hi")]);
        request.headers.insert("x-per-request".into(), "request".into());
        // …and the content type stays JSON whatever a request says.
        request.headers.insert("Content-Type".into(), "text/plain".into());
        let response = dive_core::Llm::generate(&provider, request).await.unwrap();
        assert_eq!(response.text_content(), "ok");
    }
    let bad = ToyProvider::builder().api_key("k").header("x-bad", "line\nbreak").build().unwrap_err();
    assert_eq!(bad.kind, LlmErrorKind::InvalidRequest);
    assert!(bad.message.contains("x-bad") && !bad.message.contains("line"), "{}", bad.message);
    let bad_key = ToyProvider::builder().api_key("sk-\nsecret").build().unwrap_err();
    assert!(!bad_key.message.contains("secret"), "{}", bad_key.message);
}

#[tokio::test]
async fn the_client_defaults_are_sent_once_and_a_header_of_ones_own_wins() {
    use wiremock::matchers::method;
    use wiremock::{Mock, MockServer, ResponseTemplate};
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(200).set_body_string(r#"{"text":"ok","in":1,"out":1}"#))
        .mount(&server)
        .await;
    let ask = |provider: ToyProvider| async move {
        let request = ModelRequest::new(vec![dive_core::Message::user("hi")]);
        dive_core::Llm::generate(&provider, request).await.unwrap();
    };
    let built = || ToyProvider::builder().api_key("k").base_url(server.uri());
    ask(built().build().unwrap()).await;
    ask(built().header("User-Agent", "mine/2").header("accept", "application/json").build().unwrap()).await;
    let own_client = dive_provider::HttpOptions::default()
        .client_builder()
        .unwrap()
        .user_agent("custom/1")
        .build()
        .unwrap();
    ask(built().http_client(own_client).build().unwrap()).await;
    let received = server.received_requests().await.unwrap();
    let values = |i: usize, name: &str| -> Vec<String> {
        received[i].headers.get_all(name).iter().map(|v| v.to_str().unwrap().to_owned()).collect()
    };
    assert_eq!(values(0, "accept"), ["*/*"]);
    assert_eq!(values(0, "user-agent"), [format!("dive-rs/{}", env!("CARGO_PKG_VERSION"))]);
    assert_eq!(values(1, "accept"), ["application/json"]);
    assert_eq!(values(1, "user-agent"), ["mine/2"]);
    assert_eq!(values(2, "user-agent"), ["custom/1"]);
    for i in 0..3 {
        assert_eq!(values(i, "authorization"), ["Bearer k"]);
        assert_eq!(values(i, "content-type"), ["application/json"]);
    }
}

#[tokio::test]
async fn a_toolset_declared_only_for_another_provider_is_refused_before_any_request() {
    use wiremock::{Mock, MockServer, ResponseTemplate};
    let server = MockServer::start().await;
    Mock::given(wiremock::matchers::any())
        .respond_with(ResponseTemplate::new(200))
        .expect(0)
        .mount(&server)
        .await;
    let provider = ToyProvider::builder().api_key("k").base_url(server.uri()).build().unwrap();
    let mut request = ModelRequest::new(vec![dive_core::Message::user("hi")]);
    request.declared_toolsets.push(std::sync::Arc::new(
        dive_core::ToolDeclaration::new("computer", ["screenshot"])
            .with_provider("anthropic", json!({"tools": [{"type": "computer_toolset_20260801"}]})),
    ));
    for err in [
        provider.request_body(&request, false).unwrap_err(),
        dive_core::Llm::generate(&provider, request.clone()).await.unwrap_err(),
        dive_core::Llm::stream(&provider, request.clone()).await.map(|_| ()).unwrap_err(),
    ] {
        assert_eq!((err.kind, err.provider.as_deref()), (LlmErrorKind::InvalidRequest, Some("toy")));
        assert!(err.message.contains("toolset computer (members screenshot)"), "{}", err.message);
        assert!(err.message.contains("defined for anthropic"), "{}", err.message);
    }
}
