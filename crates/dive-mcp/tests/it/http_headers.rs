//! Configured headers reach the HTTP server on every request, and never its error messages.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use dive_mcp::{ConnectOptions, HttpConfig, McpClient, McpConfig, Vars};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn headers_from_config_are_sent_and_not_printed() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let server = tokio::spawn(async move {
        let (mut stream, _) = listener.accept().await.unwrap();
        let mut head = Vec::new();
        let mut buf = [0u8; 4096];
        while !head.windows(4).any(|w| w == b"\r\n\r\n") {
            let n = stream.read(&mut buf).await.unwrap();
            assert!(n > 0, "the client hung up before sending headers");
            head.extend_from_slice(&buf[..n]);
        }
        stream
            .write_all(b"HTTP/1.1 403 Forbidden\r\ncontent-length: 0\r\nconnection: close\r\n\r\n")
            .await
            .unwrap();
        String::from_utf8_lossy(&head).to_lowercase()
    });
    let vars = Vars::new([("URL", url.as_str()), ("TOKEN", "s3cret-token")]);
    let config = McpConfig::from_arg(
        r#"{"mcpServers": {"h": {"type": "http", "url": "${URL}",
            "headers": {"Authorization": "Bearer ${TOKEN}", "X-Team": "${TEAM:-core}"}}}}"#,
        &vars,
    )
    .unwrap();
    let options = ConnectOptions::default().with_protocol(dive_mcp::ProtocolChoice::Legacy);
    let err = McpClient::connect(config.server("h").unwrap(), &options).await.unwrap_err();
    let head = server.await.unwrap();
    assert!(head.starts_with("post /mcp "), "{head}");
    assert!(head.contains("\r\nauthorization: bearer s3cret-token\r\n"), "{head}");
    assert!(head.contains("\r\nx-team: core\r\n"), "{head}");
    let shown = format!("{err} {err:?}");
    assert!(!shown.contains("s3cret"), "{shown}");
    assert!(shown.contains("MCP server `h`"), "{shown}");
    let direct = HttpConfig::new(url).with_header("Authorization", "Bearer s3cret-token");
    assert!(!format!("{direct:?}").contains("s3cret"));
}
