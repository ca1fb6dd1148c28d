//! The client side's rmcp handler: who we are, and the list-changed notifications that mark
//! a server's tool, prompt or resource lists stale.

use std::sync::Arc;

use rmcp::model::{
    ClientCapabilities, ClientConfig, ElicitRequestParams, ElicitResult, ElicitationAction, Implementation,
};
use rmcp::service::{NotificationContext, RequestContext};
use rmcp::{ClientHandler, RoleClient};
use tokio::sync::watch;

use crate::elicit::{Elicitation, ElicitationHandler, decline};

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

/// Our rmcp client handler. A 2025-11-25 server's mid-call elicitation goes to the
/// connection's [`ElicitationHandler`] (declined without one); sampling and roots keep rmcp's
/// defaults: declined.
#[derive(Debug, Clone)]
pub(crate) struct Handler {
    pub(crate) changes: Arc<Changes>,
    pub(crate) info: ClientConfig,
    server: String,
    elicitation: Option<ElicitationHandler>,
}

impl Handler {
    pub(crate) fn new(changes: Arc<Changes>, server: &str, elicitation: Option<ElicitationHandler>) -> Self {
        // Form elicitation is declared so 2026-07-28 servers may ask through `input_required`
        // (a suspension) and older ones with a request; the tasks extension so a long call may
        // come back as a task (a background tool result).
        let capabilities: ClientCapabilities = serde_json::from_value(serde_json::json!({
            "elicitation": {"form": {}},
            "extensions": {(rmcp::model::TASKS_EXTENSION_ID): {}},
        }))
        .unwrap_or_default();
        let info = ClientConfig::new(capabilities, Implementation::new("dive", env!("CARGO_PKG_VERSION")));
        Self { changes, info, server: server.to_owned(), elicitation }
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

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, rmcp::ErrorData> {
        let Some(handler) = &self.elicitation else {
            return Ok(ElicitResult::new(ElicitationAction::Decline));
        };
        let ask = match request {
            ElicitRequestParams::FormElicitationParams { message, requested_schema, .. } => Elicitation {
                server: self.server.clone(),
                message,
                schema: serde_json::to_value(requested_schema).ok(),
                url: None,
            },
            ElicitRequestParams::UrlElicitationParams { message, url, .. } => {
                Elicitation { server: self.server.clone(), message, schema: None, url: Some(url) }
            }
            _ => return Ok(ElicitResult::new(ElicitationAction::Decline)),
        };
        let answer = handler.answer(ask).await;
        Ok(serde_json::from_value(answer)
            .or_else(|_| serde_json::from_value(decline()))
            .unwrap_or_else(|_| ElicitResult::new(ElicitationAction::Decline)))
    }

    fn get_info(&self) -> ClientConfig {
        self.info.clone()
    }
}
