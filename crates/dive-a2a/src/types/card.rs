//! The agent card: who an agent is, where and how to reach it, what it can do.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// One way to reach an agent.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct AgentInterface {
    /// The endpoint.
    pub url: String,
    /// `JSONRPC`, `HTTP+JSON` or `GRPC`.
    pub protocol_binding: String,
    /// The tenant.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tenant: Option<String>,
    /// The protocol version (`1.0`).
    #[serde(default)]
    pub protocol_version: String,
}

impl AgentInterface {
    /// The JSON-RPC binding at `url`, protocol 1.0.
    #[must_use]
    pub fn jsonrpc(url: impl Into<String>) -> Self {
        Self {
            url: url.into(),
            protocol_binding: "JSONRPC".into(),
            tenant: None,
            protocol_version: super::PROTOCOL_VERSION.into(),
        }
    }
}

impl AgentInterface {
    /// The HTTP+JSON (REST) binding at `url`, protocol 1.0.
    #[must_use]
    pub fn http_json(url: impl Into<String>) -> Self {
        Self { protocol_binding: "HTTP+JSON".into(), ..Self::jsonrpc(url) }
    }
}

/// Who provides the agent.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct AgentProvider {
    /// The provider's site.
    pub url: String,
    /// The organization.
    pub organization: String,
}

/// What the agent supports.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct AgentCapabilities {
    /// Streaming (`SendStreamingMessage`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub streaming: Option<bool>,
    /// Push notifications.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub push_notifications: Option<bool>,
    /// Protocol extensions, as sent.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub extensions: Vec<Value>,
    /// An extended card for authenticated clients.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extended_agent_card: Option<bool>,
}

/// A scheme name → scopes list, as protobuf JSON writes `StringList`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct StringList {
    /// The scopes.
    #[serde(default)]
    pub list: Vec<String>,
}

/// Schemes that together authorize a request.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct SecurityRequirement {
    /// Scheme name → required scopes.
    #[serde(default)]
    pub schemes: BTreeMap<String, StringList>,
}

impl SecurityRequirement {
    /// A requirement of one scheme without scopes.
    #[must_use]
    pub fn scheme(name: impl Into<String>) -> Self {
        Self { schemes: BTreeMap::from([(name.into(), StringList::default())]) }
    }
}

/// An API key sent in a header, query parameter or cookie.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ApiKeyScheme {
    /// What it is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// `header`, `query` or `cookie`.
    pub location: String,
    /// The header, parameter or cookie name.
    pub name: String,
}

/// HTTP authentication (`Bearer`, `Basic`, ...).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct HttpAuthScheme {
    /// What it is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The scheme (`Bearer`).
    pub scheme: String,
    /// The bearer token's format.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bearer_format: Option<String>,
}

/// How a client authenticates.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub enum SecurityScheme {
    /// An API key.
    ApiKeySecurityScheme(ApiKeyScheme),
    /// HTTP authentication.
    HttpAuthSecurityScheme(HttpAuthScheme),
    /// OAuth 2.0, as sent.
    Oauth2SecurityScheme(Value),
    /// OpenID Connect, as sent.
    OpenIdConnectSecurityScheme(Value),
    /// Mutual TLS, as sent.
    MtlsSecurityScheme(Value),
}

/// A capability the agent offers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct AgentSkill {
    /// Its id.
    pub id: String,
    /// Its name.
    pub name: String,
    /// What it does.
    #[serde(default)]
    pub description: String,
    /// Keywords.
    #[serde(default)]
    pub tags: Vec<String>,
    /// Example prompts.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub examples: Vec<String>,
    /// Input media types, when they differ from the card's.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub input_modes: Vec<String>,
    /// Output media types, when they differ from the card's.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub output_modes: Vec<String>,
    /// Security needed for this skill.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub security_requirements: Vec<SecurityRequirement>,
}

impl AgentSkill {
    /// A skill.
    #[must_use]
    pub fn new(id: impl Into<String>, name: impl Into<String>, description: impl Into<String>) -> Self {
        Self {
            id: id.into(),
            name: name.into(),
            description: description.into(),
            tags: Vec::new(),
            examples: Vec::new(),
            input_modes: Vec::new(),
            output_modes: Vec::new(),
            security_requirements: Vec::new(),
        }
    }
}

/// An agent's self-description, served at `/.well-known/agent-card.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct AgentCard {
    /// The agent's name.
    pub name: String,
    /// What it does.
    #[serde(default)]
    pub description: String,
    /// Where to reach it, preferred first.
    #[serde(default)]
    pub supported_interfaces: Vec<AgentInterface>,
    /// Who provides it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider: Option<AgentProvider>,
    /// The agent's version.
    #[serde(default)]
    pub version: String,
    /// Documentation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub documentation_url: Option<String>,
    /// What it supports.
    #[serde(default)]
    pub capabilities: AgentCapabilities,
    /// Authentication schemes by name.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub security_schemes: BTreeMap<String, SecurityScheme>,
    /// Which schemes a request needs (any one of them).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub security_requirements: Vec<SecurityRequirement>,
    /// Input media types.
    #[serde(default)]
    pub default_input_modes: Vec<String>,
    /// Output media types.
    #[serde(default)]
    pub default_output_modes: Vec<String>,
    /// Its skills.
    #[serde(default)]
    pub skills: Vec<AgentSkill>,
    /// Card signatures, as sent.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub signatures: Vec<Value>,
    /// An icon.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icon_url: Option<String>,
}

impl AgentCard {
    /// A card with a name, a description and a version; no interfaces yet.
    #[must_use]
    pub fn new(name: impl Into<String>, description: impl Into<String>, version: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            description: description.into(),
            supported_interfaces: Vec::new(),
            provider: None,
            version: version.into(),
            documentation_url: None,
            capabilities: AgentCapabilities::default(),
            security_schemes: BTreeMap::new(),
            security_requirements: Vec::new(),
            default_input_modes: vec!["text/plain".into()],
            default_output_modes: vec!["text/plain".into()],
            skills: Vec::new(),
            signatures: Vec::new(),
            icon_url: None,
        }
    }

    /// The first JSON-RPC interface speaking protocol 1.0.
    #[must_use]
    pub fn jsonrpc_interface(&self) -> Option<&AgentInterface> {
        self.supported_interfaces.iter().find(|i| {
            i.protocol_binding.eq_ignore_ascii_case("JSONRPC")
                && (i.protocol_version.is_empty() || i.protocol_version.starts_with("1."))
        })
    }
}
