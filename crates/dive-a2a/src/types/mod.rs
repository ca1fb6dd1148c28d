//! The A2A 1.0 wire types, as the official SDKs serialize them (the protobuf JSON mapping of
//! `a2a.proto`: lowerCamelCase fields, enums by their full names such as `ROLE_USER` and
//! `TASK_STATE_COMPLETED`, default values left out).

mod card;
mod message;
mod request;
mod rpc;
mod task;

pub use card::{
    AgentCapabilities, AgentCard, AgentInterface, AgentProvider, AgentSkill, ApiKeyScheme, HttpAuthScheme,
    SecurityRequirement, SecurityScheme, StringList,
};
pub use message::{Message, Part, PartContent, Role};
pub use request::{
    CancelTaskRequest, GetTaskRequest, ListTasksRequest, ListTasksResponse, SendMessageConfiguration,
    SendMessageRequest, SendMessageResponse, StreamResponse,
};
pub use rpc::{ErrorCode, JsonRpcRequest, JsonRpcResponse, RpcError};
pub use task::{Artifact, Task, TaskArtifactUpdateEvent, TaskState, TaskStatus, TaskStatusUpdateEvent};

/// The protocol version this crate speaks, sent in the `A2A-Version` header.
pub const PROTOCOL_VERSION: &str = "1.0";

/// The header that carries the protocol version.
pub const VERSION_HEADER: &str = "A2A-Version";

/// Where an agent card is served, relative to the agent's base URL.
pub const AGENT_CARD_PATH: &str = "/.well-known/agent-card.json";

/// Implements `Serialize`/`Deserialize` for a string enum that keeps unknown values.
macro_rules! wire_enum {
    ($ty:ident { $($variant:ident => $name:literal),* $(,)? }) => {
        impl $ty {
            /// The wire name.
            #[must_use]
            pub fn as_str(&self) -> &str {
                match self {
                    $(Self::$variant => $name,)*
                    Self::Other(raw) => raw,
                }
            }

            /// The value for a wire name (unknown names are kept in `Other`).
            #[must_use]
            pub fn from_wire(name: &str) -> Self {
                match name {
                    $($name => Self::$variant,)*
                    other => Self::Other(other.to_owned()),
                }
            }
        }

        impl serde::Serialize for $ty {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(self.as_str())
            }
        }

        impl<'de> serde::Deserialize<'de> for $ty {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let name = std::borrow::Cow::<'de, str>::deserialize(d)?;
                Ok(Self::from_wire(&name))
            }
        }
    };
}
pub(crate) use wire_enum;

#[cfg(test)]
mod tests;
