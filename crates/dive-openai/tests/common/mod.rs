//! Shared by the integration tests: clients pointed nowhere, fixture decoding, the Python
//! SDK probe.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};

use bytes::Bytes;
use dive_core::{ModelResponse, ResponseAccumulator};
use dive_openai::chat::{ChatEvents, ChatMapper};
use dive_openai::responses::{ResponsesEvents, ResponsesMapper};
use dive_openai::{ChatCompletions, Dialect, OpenAi};
use dive_provider::ProviderError;
use futures::StreamExt;

/// The folder of the Python helpers.
pub fn interop_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/interop")
}

/// A fixture file.
pub fn fixture_path(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(name)
}

/// A Responses client pointed at nothing.
pub fn responses(model: &str) -> OpenAi {
    OpenAi::builder()
        .api_key("sk-interop-not-a-key")
        .base_url("http://127.0.0.1:9/v1")
        .model(model)
        .build()
        .unwrap()
}

/// A Chat Completions client pointed at nothing.
pub fn chat(model: &str) -> ChatCompletions {
    ChatCompletions::builder()
        .api_key("sk-interop-not-a-key")
        .base_url("http://127.0.0.1:9/v1")
        .model(model)
        .build()
        .unwrap()
}

/// Decodes a fixture through our stream mapper (split into small chunks), without pricing.
pub async fn decode_fixture(name: &str) -> (ResponseAccumulator, Option<ProviderError>) {
    let text = std::fs::read(fixture_path(name)).unwrap();
    let chunks: Vec<Result<Bytes, std::io::Error>> =
        text.chunks(97).map(|c| Ok(Bytes::copy_from_slice(c))).collect();
    let sse = Box::pin(dive_provider::decode_sse("openai", futures::stream::iter(chunks)));
    let mut acc = ResponseAccumulator::new();
    let mut stream: futures::stream::BoxStream<'_, Result<dive_core::StreamEvent, ProviderError>> =
        if Path::new(name).file_name().is_some_and(|f| f.to_string_lossy().starts_with("chat_")) {
            Box::pin(ChatEvents::new("openai", sse, ChatMapper::new("openai", Dialect::openai()), None))
        } else {
            Box::pin(ResponsesEvents::new("openai", sse, ResponsesMapper::new("openai"), None))
        };
    while let Some(event) = stream.next().await {
        match event {
            Ok(e) => acc.add(&e).unwrap(),
            Err(e) => return (acc, Some(e)),
        }
    }
    (acc, None)
}

/// A fixture decoded to its response; panics on any stream error.
pub async fn decode_fixture_ok(name: &str) -> ModelResponse {
    let (acc, err) = decode_fixture(name).await;
    assert!(err.is_none(), "{err:?}");
    assert!(acc.is_complete());
    acc.into_response()
}
