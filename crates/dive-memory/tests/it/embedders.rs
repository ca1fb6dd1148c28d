//! The HTTP embedders against a local axum server that records each request: the vendor's
//! path, auth header and body shape, batching in input order, retries, typed errors with
//! the key redacted.
#![cfg(feature = "embedders")]
#![allow(clippy::unwrap_used)]

use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::body::Bytes;
use axum::http::{HeaderMap, StatusCode, Uri};
use axum::response::IntoResponse;
use dive_core::{Embedder, LlmErrorKind, MemoryError};
use dive_memory::embed::{GeminiEmbedder, OllamaEmbedder, OpenAiEmbedder, VoyageEmbedder};
use dive_provider::RetryPolicy;
use serde_json::{Value, json};

#[derive(Debug, Clone)]
struct Seen {
    path: String,
    headers: HeaderMap,
    body: Value,
}

type Reply = Arc<dyn Fn(usize, &Value) -> (u16, Vec<(&'static str, String)>, Value) + Send + Sync>;

/// A local server answering every POST with `reply(request number, body)`.
async fn server(reply: Reply) -> (String, Arc<Mutex<Vec<Seen>>>) {
    let seen: Arc<Mutex<Vec<Seen>>> = Arc::default();
    let log = seen.clone();
    let app = Router::new().fallback(move |uri: Uri, headers: HeaderMap, body: Bytes| {
        let log = log.clone();
        let reply = reply.clone();
        async move {
            let body: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
            let n = {
                let mut log = log.lock().unwrap();
                log.push(Seen { path: uri.path().to_owned(), headers, body: body.clone() });
                log.len() - 1
            };
            let (status, extra, json) = reply(n, &body);
            let mut response = (StatusCode::from_u16(status).unwrap(), json.to_string()).into_response();
            response.headers_mut().insert("content-type", "application/json".parse().unwrap());
            for (k, v) in extra {
                response.headers_mut().insert(k, v.parse().unwrap());
            }
            response
        }
    });
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (url, seen)
}

/// A vector of `dims` values whose first value is the input's number (so order is checked).
fn vector_for(text: &str, dims: usize) -> Vec<f32> {
    let n: f32 = text.trim_start_matches("text ").parse().unwrap();
    let mut v = vec![0.5; dims];
    v[0] = n;
    v
}

fn texts(n: usize) -> Vec<String> {
    (0..n).map(|i| format!("text {i}")).collect()
}

fn firsts(vectors: &[Vec<f32>]) -> Vec<f32> {
    vectors.iter().map(|v| v[0]).collect()
}

fn fast_retry() -> RetryPolicy {
    RetryPolicy::default().with_base_delay(Duration::from_millis(1)).with_max_delay(Duration::from_millis(5))
}

#[tokio::test]
async fn openai_batches_in_order_with_bearer_key_and_dimensions() {
    let reply: Reply = Arc::new(|_, body| {
        // Answer in reverse order: the client must place vectors by `index`.
        let inputs = body["input"].as_array().unwrap();
        let mut data: Vec<Value> = inputs
            .iter()
            .enumerate()
            .map(|(i, t)| json!({"object": "embedding", "index": i, "embedding": vector_for(t.as_str().unwrap(), 3)}))
            .collect();
        data.reverse();
        (
            200,
            vec![],
            json!({"object": "list", "data": data, "model": "text-embedding-3-small", "usage": {"prompt_tokens": 4, "total_tokens": 4}}),
        )
    });
    let (url, seen) = server(reply).await;
    let embedder = OpenAiEmbedder::new("text-embedding-3-small", 3)
        .unwrap()
        .api_key("sk-test-123")
        .base_url(format!("{url}/v1"))
        .request_dimensions()
        .batch_size(2);
    let vectors = embedder.embed(&texts(5)).await.unwrap();
    assert_eq!(firsts(&vectors), [0.0, 1.0, 2.0, 3.0, 4.0]);
    let seen = seen.lock().unwrap().clone();
    assert_eq!(seen.len(), 3, "5 inputs in batches of 2");
    assert_eq!(seen[0].path, "/v1/embeddings");
    assert_eq!(seen[0].headers["authorization"], "Bearer sk-test-123");
    assert_eq!(
        seen[0].body,
        json!({"model": "text-embedding-3-small", "input": ["text 0", "text 1"], "encoding_format": "float", "dimensions": 3})
    );
    assert_eq!(seen[2].body["input"], json!(["text 4"]));
    assert!(!format!("{embedder:?}").contains("sk-test-123"), "the key is redacted in Debug");
}

#[tokio::test]
async fn gemini_batch_embed_contents_shape() {
    let reply: Reply = Arc::new(|_, body| {
        let embeddings: Vec<Value> = body["requests"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| json!({"values": vector_for(r["content"]["parts"][0]["text"].as_str().unwrap(), 4)}))
            .collect();
        (200, vec![], json!({"embeddings": embeddings}))
    });
    let (url, seen) = server(reply).await;
    let embedder = GeminiEmbedder::new("gemini-embedding-001", 4)
        .unwrap()
        .api_key("g-key")
        .base_url(&url)
        .request_dimensions()
        .map_wire(|w| w.task_type = Some("RETRIEVAL_DOCUMENT".into()));
    let vectors = embedder.embed(&texts(3)).await.unwrap();
    assert_eq!(firsts(&vectors), [0.0, 1.0, 2.0]);
    let seen = seen.lock().unwrap().clone();
    assert_eq!(seen.len(), 1);
    assert_eq!(seen[0].path, "/v1beta/models/gemini-embedding-001:batchEmbedContents");
    assert_eq!(seen[0].headers["x-goog-api-key"], "g-key");
    assert!(seen[0].headers.get("authorization").is_none());
    assert_eq!(
        seen[0].body["requests"][1],
        json!({"model": "models/gemini-embedding-001", "content": {"parts": [{"text": "text 1"}]},
               "outputDimensionality": 4, "taskType": "RETRIEVAL_DOCUMENT"})
    );
}

#[tokio::test]
async fn ollama_api_embed_shape_without_a_key() {
    let reply: Reply = Arc::new(|_, body| {
        let embeddings: Vec<Vec<f32>> =
            body["input"].as_array().unwrap().iter().map(|t| vector_for(t.as_str().unwrap(), 2)).collect();
        (200, vec![], json!({"model": "nomic-embed-text", "embeddings": embeddings, "prompt_eval_count": 6}))
    });
    let (url, seen) = server(reply).await;
    let embedder = OllamaEmbedder::new("nomic-embed-text", 2).unwrap().base_url(&url);
    let vectors = embedder.embed(&texts(2)).await.unwrap();
    assert_eq!(firsts(&vectors), [0.0, 1.0]);
    let seen = seen.lock().unwrap().clone();
    assert_eq!(seen[0].path, "/api/embed");
    assert!(seen[0].headers.get("authorization").is_none(), "no key, no auth header");
    assert_eq!(seen[0].body, json!({"model": "nomic-embed-text", "input": ["text 0", "text 1"]}));
}

#[tokio::test]
async fn voyage_shape_with_input_type_and_output_dimension() {
    let reply: Reply = Arc::new(|_, body| {
        let data: Vec<Value> = body["input"]
            .as_array()
            .unwrap()
            .iter()
            .enumerate()
            .map(|(i, t)| json!({"object": "embedding", "index": i, "embedding": vector_for(t.as_str().unwrap(), 2)}))
            .collect();
        (
            200,
            vec![],
            json!({"object": "list", "data": data, "model": "voyage-3.5", "usage": {"total_tokens": 3}}),
        )
    });
    let (url, seen) = server(reply).await;
    let embedder = VoyageEmbedder::new("voyage-3.5", 2)
        .unwrap()
        .api_key("pa-key")
        .base_url(format!("{url}/v1"))
        .request_dimensions()
        .map_wire(|w| w.input_type = Some("document".into()));
    assert_eq!(firsts(&embedder.embed(&texts(3)).await.unwrap()), [0.0, 1.0, 2.0]);
    let seen = seen.lock().unwrap().clone();
    assert_eq!(seen[0].path, "/v1/embeddings");
    assert_eq!(seen[0].headers["authorization"], "Bearer pa-key");
    assert_eq!(
        seen[0].body,
        json!({"model": "voyage-3.5", "input": ["text 0", "text 1", "text 2"], "input_type": "document", "output_dimension": 2})
    );
}

#[tokio::test]
async fn a_rate_limit_is_retried_then_succeeds() {
    let reply: Reply = Arc::new(|n, body| {
        if n == 0 {
            return (
                429,
                vec![("retry-after", "0".into())],
                json!({"error": {"type": "rate_limit_error", "message": "slow down"}}),
            );
        }
        let embeddings: Vec<Vec<f32>> =
            body["input"].as_array().unwrap().iter().map(|t| vector_for(t.as_str().unwrap(), 2)).collect();
        (200, vec![], json!({"embeddings": embeddings}))
    });
    let (url, seen) = server(reply).await;
    let embedder = OllamaEmbedder::new("m", 2).unwrap().base_url(&url).retry_policy(fast_retry());
    assert_eq!(embedder.embed(&texts(1)).await.unwrap().len(), 1);
    assert_eq!(seen.lock().unwrap().len(), 2, "one 429, one retry");
}

#[tokio::test]
async fn errors_are_typed_and_never_carry_the_key() {
    let reply: Reply = Arc::new(|_, _| {
        (
            401,
            vec![],
            json!({"error": {"message": "Incorrect API key provided: sk-secret-999", "type": "invalid_request_error", "code": "invalid_api_key"}}),
        )
    });
    let (url, seen) = server(reply).await;
    let embedder = OpenAiEmbedder::new("text-embedding-3-small", 2)
        .unwrap()
        .api_key("sk-secret-999")
        .base_url(&url)
        .retry_policy(fast_retry());
    let err = embedder.embed(&texts(1)).await.unwrap_err();
    match &err {
        MemoryError::Provider(e) => assert_eq!(e.kind, LlmErrorKind::Authentication),
        other => panic!("expected a provider error, got {other:?}"),
    }
    assert!(!format!("{err} {err:?}").contains("sk-secret-999"), "the key is redacted: {err:?}");
    assert_eq!(seen.lock().unwrap().len(), 1, "a bad key is not retried");

    // Vectors of the wrong length are refused.
    let reply: Reply = Arc::new(|_, _| (200, vec![], json!({"embeddings": [[1.0, 2.0, 3.0]]})));
    let (url, _) = server(reply).await;
    let err = OllamaEmbedder::new("m", 2).unwrap().base_url(&url).embed(&texts(1)).await.unwrap_err();
    assert!(matches!(err, MemoryError::DimensionMismatch { expected: 2, actual: 3 }), "{err:?}");
}
