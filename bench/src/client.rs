//! The clients and providers under test, and one client built for a run.

use crate::BenchError;
use crate::agent::DiveClient;
use crate::raw::{chat::RawChat, http_client, messages::RawMessages};

/// The API a run speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, clap::ValueEnum)]
pub enum Provider {
    /// OpenAI Chat Completions.
    Chat,
    /// Anthropic Messages.
    Messages,
}

impl Provider {
    /// Both providers, in table order.
    pub const ALL: [Provider; 2] = [Provider::Chat, Provider::Messages];

    /// The name in the table.
    #[must_use]
    pub fn label(self) -> &'static str {
        match self {
            Provider::Chat => "Chat Completions",
            Provider::Messages => "Anthropic Messages",
        }
    }

    /// The model name sent.
    #[must_use]
    pub fn model(self) -> &'static str {
        match self {
            Provider::Chat => dive::openai::DEFAULT_CHAT_MODEL,
            Provider::Messages => dive::anthropic::DEFAULT_MODEL,
        }
    }
}

/// Which client does the turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, clap::ValueEnum)]
pub enum ClientKind {
    /// The hand-written reqwest + serde client (the limit).
    Raw,
    /// dive's agent.
    Dive,
}

impl ClientKind {
    /// The name in the table.
    #[must_use]
    pub fn label(self) -> &'static str {
        match self {
            ClientKind::Raw => "raw reqwest + serde (the limit)",
            ClientKind::Dive => "dive",
        }
    }
}

/// A client ready to run turns.
#[derive(Debug, Clone)]
pub enum Client {
    /// Raw Chat Completions.
    RawChat(RawChat),
    /// Raw Anthropic Messages.
    RawMessages(RawMessages),
    /// dive's agent on either provider.
    Dive(DiveClient),
}

impl Client {
    /// Builds `kind` for `provider` at the mock's `base` URL.
    ///
    /// # Errors
    /// When a client cannot be built.
    pub fn new(kind: ClientKind, provider: Provider, base: &str, stream: bool) -> Result<Self, BenchError> {
        let model = provider.model();
        Ok(match (kind, provider) {
            (ClientKind::Raw, Provider::Chat) => {
                Client::RawChat(RawChat::new(http_client()?, base, model, stream))
            }
            (ClientKind::Raw, Provider::Messages) => {
                Client::RawMessages(RawMessages::new(http_client()?, base, model, stream))
            }
            (ClientKind::Dive, _) => Client::Dive(DiveClient::new(provider, base, model, stream)?),
        })
    }

    /// One turn; the final answer.
    ///
    /// # Errors
    /// The client's failure.
    pub async fn turn(&self, question: &str) -> Result<String, BenchError> {
        match self {
            Client::RawChat(c) => c.turn(question).await,
            Client::RawMessages(c) => c.turn(question).await,
            Client::Dive(c) => c.turn(question).await,
        }
    }
}
