//! OAuth 2.1 against the official Python SDK's authorization server and protected MCP
//! server (tests/peers/mcp_oauth_server.py): discovery, dynamic registration, PKCE, the
//! redirect through a real loopback listener, tokens in an owner-only file, refresh.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::time::Duration;

use dive_mcp::oauth::{Authorization, CallbackListener, OAuth};
use dive_mcp::{ConnectOptions, HttpConfig, McpClient, McpError, ServerConfig};
use serde_json::{Value, json};

/// The Python server on a free port with access tokens living `ttl` seconds.
async fn oauth_server(python: &str, ttl: u64) -> (tokio::process::Child, ServerConfig) {
    let (child, port) =
        common::python_http_peer(python, "mcp_oauth_server.py", &["{port}", &ttl.to_string()]).await;
    let server = ServerConfig::http("secure", HttpConfig::new(format!("http://127.0.0.1:{port}/mcp")))
        .with_startup_timeout(Duration::from_secs(30));
    (child, server)
}

/// What a browser does after the user approves: follows the authorization URL to the
/// redirect, which lands on the listener.
async fn approve(url: &str) {
    let browser = dive_provider::HttpOptions::default().build_client().unwrap();
    let page = browser.get(url).send().await.unwrap();
    assert_eq!(page.status(), 200, "the redirect did not reach the callback listener");
}

async fn authorize(server: &ServerConfig, oauth: &OAuth) {
    let callback = CallbackListener::bind(None).await.unwrap();
    let authorization = Authorization::start(server, oauth, &callback.redirect_uri()).await.unwrap();
    let url = authorization.url().to_owned();
    assert!(url.contains("code_challenge_method=S256"), "{url}");
    assert!(url.contains("code_challenge="), "{url}");
    let redirect = tokio::spawn(callback.wait(Duration::from_secs(30)));
    approve(&url).await;
    authorization.complete(&redirect.await.unwrap().unwrap()).await.unwrap();
}

async fn stats(client: &McpClient) -> Value {
    let out = client.call_tool("auth_stats", serde_json::Map::new()).await.unwrap();
    serde_json::from_str(&out.text_content()).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_protected_server_is_authorized_once_and_its_token_refreshes() {
    let Some(python) = common::python() else { return };
    let (mut child, server) = oauth_server(&python, 4).await;
    let dir = tempfile::tempdir().unwrap();
    let oauth = OAuth::new(dir.path().join("tokens"));
    let options = ConnectOptions::default().with_oauth(oauth.clone());

    let challenge = match McpClient::connect(&server, &options).await {
        Err(McpError::AuthorizationRequired { challenge, has_store: true, .. }) => challenge,
        Err(e) => panic!("an unauthorized connect did not ask for authorization: {e}"),
        Ok(_) => panic!("an unauthorized connect succeeded"),
    };
    assert!(challenge.starts_with("Bearer"), "{challenge}");

    authorize(&server, &oauth).await;
    let dive_mcp::Transport::Http(http) = &server.transport else { unreachable!() };
    let path = oauth.token_path(http);
    assert!(oauth.has_tokens(http));
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        assert_eq!(std::fs::metadata(&path).unwrap().permissions().mode() & 0o777, 0o600);
    }
    let saved = std::fs::read_to_string(&path).unwrap();

    let client = McpClient::connect(&server, &options).await.unwrap();
    let out =
        client.call_tool("echo", serde_json::Map::from_iter([("text".into(), json!("hi"))])).await.unwrap();
    assert_eq!(out.text_content(), "hi");
    let first = stats(&client).await;
    assert_eq!(first["codes"], 1, "{first}");
    assert_eq!(first["refreshes"], 0, "{first}");
    assert!(first["client"].as_str().is_some_and(|c| !c.is_empty()), "{first}");

    // Past half its 4 s life the token is refreshed before the request goes out, and the
    // new one is written back to the file.
    tokio::time::sleep(Duration::from_millis(3200)).await;
    let second = stats(&client).await;
    assert_eq!(second["refreshes"], 1, "{second}");
    assert_eq!(second["codes"], 1, "no second authorization: {second}");
    assert_ne!(std::fs::read_to_string(&path).unwrap(), saved, "the refreshed token was not saved");
    drop(client);

    // A new connection (a new process, say) uses the stored token without asking again.
    let again = McpClient::connect(&server, &options).await.unwrap();
    assert_eq!(stats(&again).await["codes"], 1);

    // Forgetting the tokens means authorizing again.
    drop(again);
    assert!(oauth.forget(http).unwrap());
    assert!(matches!(
        McpClient::connect(&server, &options).await,
        Err(McpError::AuthorizationRequired { .. })
    ));
    child.kill().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_forged_or_refused_redirect_stores_nothing() {
    let Some(python) = common::python() else { return };
    let (mut child, server) = oauth_server(&python, 3600).await;
    let dir = tempfile::tempdir().unwrap();
    let oauth = OAuth::new(dir.path());
    let dive_mcp::Transport::Http(http) = &server.transport else { unreachable!() };

    let callback = CallbackListener::bind(None).await.unwrap();
    let redirect_uri = callback.redirect_uri();
    let forged = Authorization::start(&server, &oauth, &redirect_uri).await.unwrap();
    let e = forged.complete(&format!("{redirect_uri}?code=stolen&state=not-the-one")).await.unwrap_err();
    assert!(matches!(e, McpError::Authorization { .. }), "{e}");
    assert!(!oauth.has_tokens(http));

    let refused = Authorization::start(&server, &oauth, &redirect_uri).await.unwrap();
    let e = refused
        .complete(&format!("{redirect_uri}?error=access_denied&error_description=user%20said%20no&state=x"))
        .await
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "MCP server `secure`: OAuth: the authorization server refused: access_denied (user said no)"
    );
    assert!(!oauth.has_tokens(http));
    child.kill().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_a_token_store_a_401_says_what_to_do() {
    let Some(python) = common::python() else { return };
    let (mut child, server) = oauth_server(&python, 3600).await;
    let e = McpClient::connect(&server, &ConnectOptions::default()).await.unwrap_err();
    assert!(matches!(e, McpError::AuthorizationRequired { has_store: false, .. }), "{e}");
    assert!(e.to_string().contains("ConnectOptions::with_oauth"), "{e}");
    child.kill().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_manager_waits_for_authorization_then_reconnects() {
    let Some(python) = common::python() else { return };
    let (mut child, server) = oauth_server(&python, 3600).await;
    let dir = tempfile::tempdir().unwrap();
    let oauth = OAuth::new(dir.path());
    let config = dive_mcp::McpConfig::new().with_server(server.clone());
    let options =
        dive_mcp::ManagerOptions::default().with_connect(ConnectOptions::default().with_oauth(oauth.clone()));
    let manager = dive_mcp::McpManager::start(&config, options).await;
    let [status] = manager.statuses().try_into().unwrap();
    assert!(matches!(status.state, dive_mcp::ServerState::NeedsAuthorization { .. }), "{status:?}");
    assert!(manager.tools().await.is_empty());

    authorize(&server, &oauth).await;
    manager.reconnect("secure").await.unwrap();
    let names: Vec<String> = manager.tools().await.iter().map(|t| t.name().to_owned()).collect();
    assert!(names.contains(&"mcp__secure__echo".to_owned()), "{names:?}");
    child.kill().await.unwrap();
}
