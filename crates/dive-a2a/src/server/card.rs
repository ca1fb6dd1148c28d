//! The card computed from an agent: its name, description and version, one skill per tool.

use dive_agent::Agent;

use crate::types::{AgentCapabilities, AgentCard, AgentSkill};

/// The card of `agent`, without interfaces (the server adds its URL).
pub(crate) fn from_agent(agent: &Agent) -> AgentCard {
    let name = if agent.name().is_empty() { "dive-agent" } else { agent.name() };
    let version = if agent.version().is_empty() { env!("CARGO_PKG_VERSION") } else { agent.version() };
    let mut card = AgentCard::new(name, agent.description(), version);
    card.capabilities = AgentCapabilities { streaming: Some(true), ..AgentCapabilities::default() };
    card.skills = agent
        .tools()
        .iter()
        .map(|tool| {
            let mut skill = AgentSkill::new(tool.name(), tool.name(), tool.description());
            skill.tags = vec!["tool".into()];
            skill
        })
        .collect();
    if card.skills.is_empty() {
        let mut skill = AgentSkill::new("chat", "chat", format!("Talk with {name}"));
        skill.tags = vec!["chat".into()];
        card.skills.push(skill);
    }
    card
}
