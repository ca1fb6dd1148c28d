//! WebFetch against local servers: pages become Markdown; loopback, private, link-local and
//! metadata addresses are refused directly, via DNS, and via redirects.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::sync::Arc;

use common::call;
use dive_core::IntoTool;
use dive_toolkit::{HttpFetcher, NetworkPolicy, WebFetchTool};
use serde_json::json;
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

async fn server() -> MockServer {
    let server = MockServer::start().await;
    Mock::given(method("GET"))
        .and(path("/page"))
        .respond_with(ResponseTemplate::new(200).set_body_raw(
            "<html><head><title>t</title><style>p{}</style></head><body><h1>Hello</h1>\
                     <script>alert(1)</script><p>Some <b>bold</b> text.</p></body></html>",
            "text/html; charset=utf-8",
        ))
        .mount(&server)
        .await;
    server
}

fn redirect(to: &str) -> ResponseTemplate {
    ResponseTemplate::new(302).insert_header("location", to)
}

/// A tool whose only exception is this exact server address.
fn tool_for(server: &MockServer) -> Arc<dyn dive_core::Tool> {
    let policy = NetworkPolicy::public_only().allow_exact(*server.address());
    WebFetchTool::with_fetcher(Arc::new(HttpFetcher::with_policy(policy).unwrap())).into_tool()
}

#[tokio::test]
async fn fetches_html_as_markdown_and_follows_safe_redirects() {
    let server = server().await;
    Mock::given(path("/moved")).respond_with(redirect("/page")).mount(&server).await;
    let tool = tool_for(&server);
    let out = call(&tool, json!({"url": format!("{}/moved", server.uri()), "prompt": "summarise"})).await;
    assert!(!out.is_error, "{}", out.text_content());
    let text = out.text_content();
    assert!(text.starts_with(&format!("URL: {}/page", server.uri())), "{text}");
    assert!(text.contains("# Hello") && text.contains("Some **bold** text."), "{text}");
    assert!(!text.contains("alert") && !text.contains("p{}"), "scripts and styles stripped: {text}");
}

#[tokio::test]
async fn default_policy_refuses_local_and_private_targets() {
    let server = server().await;
    let port = server.address().port();
    let tool = WebFetchTool::new().unwrap().into_tool();
    let targets = [
        format!("http://127.0.0.1:{port}/page"),
        format!("http://[::1]:{port}/page"),
        format!("http://127.1:{port}/page"),
        format!("http://2130706433:{port}/page"),
        format!("http://[::ffff:127.0.0.1]:{port}/page"),
        "http://10.0.0.1/".to_string(),
        "http://192.168.1.1/".to_string(),
        "http://169.254.169.254/latest/meta-data/".to_string(),
        "http://[fd00::1]/".to_string(),
        format!("http://localhost:{port}/page"),
        "file:///etc/passwd".to_string(),
        "ftp://example.com/".to_string(),
    ];
    for url in targets {
        let out = call(&tool, json!({"url": url})).await;
        let text = out.text_content();
        assert!(out.is_error && text.starts_with("refused:"), "{url} was not refused: {text}");
    }
    assert!(server.received_requests().await.unwrap().is_empty(), "nothing reached the server");
}

#[tokio::test]
async fn redirects_to_refused_targets_are_refused() {
    let server = server().await;
    let port = server.address().port();
    let other = MockServer::start().await;
    let targets = [
        format!("http://127.0.0.1:{}/page", other.address().port()),
        format!("http://localhost:{port}/page"),
        format!("http://[::1]:{port}/page"),
        "http://10.0.0.1/".to_string(),
        "http://169.254.169.254/latest/meta-data/".to_string(),
        "file:///etc/passwd".to_string(),
    ];
    for (i, target) in targets.iter().enumerate() {
        Mock::given(path(format!("/r{i}"))).respond_with(redirect(target)).mount(&server).await;
    }
    let tool = tool_for(&server);
    for (i, target) in targets.iter().enumerate() {
        let out = call(&tool, json!({"url": format!("{}/r{i}", server.uri())})).await;
        let text = out.text_content();
        assert!(out.is_error && text.starts_with("refused:"), "redirect to {target} was followed: {text}");
    }
    assert!(other.received_requests().await.unwrap().is_empty());
    let page_hits =
        server.received_requests().await.unwrap().iter().filter(|r| r.url.path() == "/page").count();
    assert_eq!(page_hits, 0, "the redirect to localhost on the allowed port was not followed either");
}

#[tokio::test]
async fn errors_statuses_and_plain_text() {
    let server = MockServer::start().await;
    Mock::given(path("/gone")).respond_with(ResponseTemplate::new(404)).mount(&server).await;
    Mock::given(path("/txt"))
        .respond_with(
            ResponseTemplate::new(200)
                .insert_header("content-type", "text/plain")
                .set_body_string("<b>raw</b>"),
        )
        .mount(&server)
        .await;
    Mock::given(path("/flaky"))
        .respond_with(ResponseTemplate::new(503))
        .up_to_n_times(1)
        .mount(&server)
        .await;
    Mock::given(path("/flaky"))
        .respond_with(ResponseTemplate::new(200).set_body_string("ok now"))
        .mount(&server)
        .await;
    let tool = tool_for(&server);
    let out = call(&tool, json!({"url": format!("{}/gone", server.uri())})).await;
    assert!(out.is_error && out.text_content().starts_with("HTTP 404"));
    let out = call(&tool, json!({"url": format!("{}/txt", server.uri())})).await;
    assert!(out.text_content().ends_with("<b>raw</b>"), "plain text is not converted");
    let out = call(&tool, json!({"url": format!("{}/flaky", server.uri())})).await;
    assert!(out.text_content().ends_with("ok now"), "one retry on 5xx: {}", out.text_content());
    let out = call(&tool, json!({"url": "not a url"})).await;
    assert!(out.is_error && out.text_content().contains("invalid URL"));
}
