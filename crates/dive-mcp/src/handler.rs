//! The client side's rmcp handler: who we are, and the list-changed notifications that mark
//! a server's tool, prompt or resource lists stale.

use std::sync::Arc;

use rmcp::model::{ClientCapabilities, ClientConfig, Implementation};
use rmcp::service::NotificationContext;
use rmcp::{ClientHandler, RoleClient};
use tokio::sync::watch;

/// Generation counters bumped on each list-changed notification; a cached list is stale
/// when the counter moved since it was read.
#[derive(Debug)]
pub(crate) struct Changes {
    pub(crate) tools: watch::Sender<u64>,
    pub(crate) prompts: watch::Sender<u64>,
    pub(crate) resources: watch::Sender<u64>,
}

impl Changes {
    pub(crate) fn new() -> Arc<Self> {
        Arc::new(Self {
            tools: watch::channel(0).0,
            prompts: watch::channel(0).0,
            resources: watch::channel(0).0,
        })
    }

    pub(crate) fn bump(counter: &watch::Sender<u64>) {
        counter.send_modify(|n| *n += 1);
    }
}

/// Our rmcp client handler. Server-initiated requests (sampling, roots, elicitation) keep
/// rmcp's defaults: declined.
#[derive(Debug, Clone)]
pub(crate) struct Handler {
    pub(crate) changes: Arc<Changes>,
    pub(crate) info: ClientConfig,
}

impl Handler {
    pub(crate) fn new(changes: Arc<Changes>) -> Self {
        // Form elicitation is declared so 2026-07-28 servers may ask through `input_required`
        // (a suspension); a 2025-11-25 server's mid-call elicitation request is declined.
        let capabilities: ClientCapabilities =
            serde_json::from_value(serde_json::json!({"elicitation": {"form": {}}})).unwrap_or_default();
        let info = ClientConfig::new(capabilities, Implementation::new("dive", env!("CARGO_PKG_VERSION")));
        Self { changes, info }
    }
}

impl ClientHandler for Handler {
    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        Changes::bump(&self.changes.tools);
    }

    async fn on_prompt_list_changed(&self, _context: NotificationContext<RoleClient>) {
        Changes::bump(&self.changes.prompts);
    }

    async fn on_resource_list_changed(&self, _context: NotificationContext<RoleClient>) {
        Changes::bump(&self.changes.resources);
    }

    fn get_info(&self) -> ClientConfig {
        self.info.clone()
    }
}
