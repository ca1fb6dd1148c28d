//! WebSearch over the Brave and Tavily backends, against local mock servers.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::sync::Arc;

use common::call;
use dive_core::{IntoTool, Secret};
use dive_toolkit::{BraveSearcher, SearchError, Searcher, TavilySearcher, WebSearchTool};
use serde_json::json;
use wiremock::matchers::{body_partial_json, header, method, path, query_param};
use wiremock::{Mock, MockServer, ResponseTemplate};

#[tokio::test]
async fn brave_sends_key_and_query_and_maps_results() {
    let server = MockServer::start().await;
    Mock::given(method("GET"))
        .and(path("/res/v1/web/search"))
        .and(query_param("q", "rust agents"))
        .and(query_param("count", "2"))
        .and(header("X-Subscription-Token", "brave-key-123"))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({
            "web": {"results": [
                {"title": "Dive", "url": "https://dive.rs/", "description": "Agents in Rust"},
                {"title": "Tokio", "url": "https://tokio.rs/", "description": "Async runtime"},
                {"title": "Extra", "url": "https://extra.example/", "description": "cut by limit"}
            ]}
        })))
        .expect(1)
        .mount(&server)
        .await;
    let brave = BraveSearcher::new(Secret::new("brave-key-123")).unwrap().with_base_url(server.uri());
    let tool = WebSearchTool::new(Arc::new(brave)).into_tool();
    let out = call(&tool, json!({"query": "rust agents", "limit": 2})).await;
    assert_eq!(
        out.text_content(),
        "1. [Dive](https://dive.rs/)\n   Agents in Rust\n2. [Tokio](https://tokio.rs/)\n   Async runtime\n"
    );
}

#[tokio::test]
async fn tavily_posts_json_with_bearer_key_and_filters_domains() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/search"))
        .and(header("authorization", "Bearer tvly-secret"))
        .and(body_partial_json(json!({"query": "ssrf", "max_results": 10})))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({
            "results": [
                {"title": "OWASP", "url": "https://owasp.org/ssrf", "content": "Server-side request forgery"},
                {"title": "Blog", "url": "https://blog.example.com/ssrf", "content": "A blog"}
            ]
        })))
        .mount(&server)
        .await;
    let tavily = TavilySearcher::new(Secret::new("tvly-secret")).unwrap().with_base_url(server.uri());
    let tool = WebSearchTool::new(Arc::new(tavily)).into_tool();
    let out = call(&tool, json!({"query": "ssrf", "blocked_domains": ["example.com"]})).await;
    assert_eq!(out.text_content(), "1. [OWASP](https://owasp.org/ssrf)\n   Server-side request forgery\n");
    let out = call(&tool, json!({"query": "ssrf", "allowed_domains": ["nowhere.org"]})).await;
    assert_eq!(out.text_content(), "No results for \"ssrf\"");
}

#[tokio::test]
async fn errors_never_leak_the_key() {
    let server = MockServer::start().await;
    Mock::given(path("/search"))
        .respond_with(ResponseTemplate::new(401).set_body_string("invalid key tvly-secret-XYZ"))
        .mount(&server)
        .await;
    let tavily = TavilySearcher::new(Secret::new("tvly-secret-XYZ")).unwrap().with_base_url(server.uri());
    let err = tavily.search("q", 3).await.unwrap_err();
    assert!(matches!(err, SearchError::Status { status: 401, .. }));
    assert!(!err.to_string().contains("tvly-secret-XYZ"), "{err}");
    assert!(!format!("{tavily:?}").contains("tvly-secret-XYZ"));
    let tool = WebSearchTool::new(Arc::new(tavily)).into_tool();
    let out = call(&tool, json!({"query": "q"})).await;
    assert!(out.is_error && !out.text_content().contains("tvly-secret-XYZ"));
}
