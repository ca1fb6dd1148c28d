//! The official a2a-sdk client (Python, pinned in crates/dive-test/interop/requirements.txt)
//! against our server: card, streaming and blocking and non-blocking sends, get, list in
//! pages, cancel, an input-required round trip, bearer authentication; over both bindings
//! (JSON-RPC and HTTP+JSON).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::path::Path;
use std::sync::Arc;

use dive_a2a::A2aServer;
use dive_core::Secret;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_python_sdk_client_drives_our_server() {
    let Some(python) = dive_test::interop::python("a2a-sdk") else { return };
    for transport in ["JSONRPC", "HTTP+JSON"] {
        drive(&python, transport).await;
    }
}

/// One run of the SDK client over `transport`, against fresh servers.
async fn drive(python: &str, transport: &str) {
    let token = "test-token-123";
    let plain = A2aServer::builder(common::agent("plain", vec![]))
        .store(common::memory())
        .bearer_token(Secret::new(token))
        .build()
        .unwrap()
        .bind("127.0.0.1:0")
        .await
        .unwrap();
    let asking = A2aServer::builder(common::agent("asking", vec![Arc::new(common::AskName::new())]))
        .store(common::memory())
        .bearer_token(Secret::new(token))
        .build()
        .unwrap()
        .bind("127.0.0.1:0")
        .await
        .unwrap();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/peers/sdk_client.py");
    let out = tokio::process::Command::new(python)
        .arg(&script)
        .arg(plain.url())
        .arg(asking.url())
        .arg("--bearer")
        .arg(token)
        .args(["--transport", transport])
        .output()
        .await
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "the SDK client failed over {transport}:\n{stdout}\n{stderr}");
    assert!(stdout.contains("13 passed, 0 failed"), "{stdout}\n{stderr}");
    eprintln!("{stdout}");
    plain.shutdown().await;
    asking.shutdown().await;
}
