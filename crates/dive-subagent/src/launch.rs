//! Running one single-use subagent to its [`Report`]: tools filtered, an optional worktree,
//! the factory's agent, the parent's cancellation, and an early stop turned into a partial
//! answer with its reason.

use std::path::PathBuf;
use std::sync::Arc;

use dive_agent::{AgentError, CancellationToken, RunOptions};
use dive_core::{
    Message, OutcomeReason, Response, Role, SoftCancel, Tool, ToolOutput, TurnStatus, Usage, Values,
};

use crate::catalog::Catalog;
use crate::definition::{Definition, Isolation};
use crate::factory::{AgentFactory, Spawn};
use crate::worktree::Worktree;

/// How a subagent run ended, as its parent sees it.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Report {
    /// Its final answer, or the partial answer it had when it stopped.
    pub answer: String,
    /// Why it stopped early (`iteration_limit`, `canceled`, `provider_error: …`); `None`
    /// when it finished.
    pub stopped: Option<String>,
    /// Usage and cost of its model calls.
    pub usage: Usage,
}

impl Report {
    /// A run that finished with `answer`.
    #[must_use]
    pub fn answered(answer: impl Into<String>) -> Self {
        Self { answer: answer.into(), stopped: None, usage: Usage::default() }
    }

    /// A run that stopped early for `reason`, with the partial `answer` it had (may be empty).
    #[must_use]
    pub fn stopped(answer: impl Into<String>, reason: impl Into<String>) -> Self {
        Self { answer: answer.into(), stopped: Some(reason.into()), usage: Usage::default() }
    }

    /// The usage and cost of its model calls.
    #[must_use]
    pub fn with_usage(mut self, usage: Usage) -> Self {
        self.usage = usage;
        self
    }

    /// Whether it finished on its own.
    #[must_use]
    pub fn is_complete(&self) -> bool {
        self.stopped.is_none()
    }

    /// The text the parent's model reads: the answer, a note on an early stop, and usage.
    #[must_use]
    pub fn to_text(&self) -> String {
        let mut text = match &self.stopped {
            None => self.answer.clone(),
            Some(reason) if self.answer.trim().is_empty() => {
                format!("The subagent stopped early ({reason}) before giving an answer.")
            }
            Some(reason) => {
                format!("The subagent stopped early ({reason}). Its partial answer:\n{}", self.answer)
            }
        };
        let u = &self.usage;
        text.push_str(&format!(
            "\n\n[subagent usage: {} input tokens, {} output tokens",
            u.total_input_tokens(),
            u.output_tokens
        ));
        if let Some(cost) = &u.cost {
            text.push_str(&format!(", ${:.4}", cost.total));
        }
        text.push(']');
        text
    }

    /// The tool output of a foreground run: the text (an error when it stopped with no
    /// answer at all), carrying the usage so the parent's turn counts it.
    #[must_use]
    pub fn to_output(&self) -> ToolOutput {
        let failed = !self.is_complete() && self.answer.trim().is_empty();
        let text = self.to_text();
        let output = if failed { ToolOutput::error(text) } else { ToolOutput::text(text) };
        output.with_usage(self.usage.clone())
    }
}

/// What the `Agent` tool launches subagents with.
#[derive(Clone)]
pub(crate) struct Launcher {
    pub(crate) catalog: Arc<Catalog>,
    pub(crate) factory: Arc<dyn AgentFactory>,
    pub(crate) parent_tools: Vec<Arc<dyn Tool>>,
    pub(crate) repo: Option<PathBuf>,
}

impl Launcher {
    /// Runs `definition` on `prompt` until it ends; never fails (a failure is a report).
    pub(crate) async fn run(
        &self,
        definition: &Definition,
        prompt: String,
        values: Values,
        soft: SoftCancel,
        cancel: CancellationToken,
    ) -> Report {
        if let Some(external) = self.catalog.external(&definition.name) {
            return external.run(prompt, cancel).await;
        }
        let tools: Vec<Arc<dyn Tool>> =
            self.parent_tools.iter().filter(|t| definition.allows(t.name())).cloned().collect();
        let worktree = match definition.isolation {
            Isolation::Worktree => {
                let repo = self.repo.clone().or_else(|| std::env::current_dir().ok()).unwrap_or_default();
                match Worktree::create(&repo, &definition.name).await {
                    Ok(tree) => Some(tree),
                    Err(e) => return failed(e.to_string()),
                }
            }
            _ => None,
        };
        let workdir = worktree.as_ref().map(|t| t.path().to_owned());
        let report = match self.factory.build(Spawn { definition, tools, workdir }).await {
            Ok(agent) => {
                let options =
                    RunOptions::text(prompt).with_values(values).with_soft_cancel(soft).with_cancel(cancel);
                report_of(agent.run(options).await)
            }
            Err(e) => failed(e.to_string()),
        };
        if let Some(tree) = worktree
            && let Err(e) = tree.remove().await
        {
            tracing::warn!(error = %e, "removing a subagent's worktree failed");
        }
        report
    }
}

fn failed(reason: String) -> Report {
    Report { answer: String::new(), stopped: Some(reason), usage: Usage::default() }
}

pub(crate) fn report_of(result: Result<Response, AgentError>) -> Report {
    match result {
        Ok(response) if response.status == TurnStatus::Completed => {
            Report { answer: response.output_text(), stopped: None, usage: response.usage.clone() }
        }
        Ok(response) => {
            let outcome = response.turn.as_ref().and_then(|t| t.outcome.as_ref());
            let reason =
                outcome.map_or_else(|| response.status.as_str().to_owned(), |o| reason_name(&o.reason));
            Report { answer: partial(&response), stopped: Some(reason), usage: response.usage.clone() }
        }
        Err(AgentError::Turn(error)) => Report {
            answer: partial(&error.response),
            stopped: Some(format!("{}: {}", reason_name(&error.reason), error.cause)),
            usage: error.response.usage.clone(),
        },
        Err(other) => failed(other.to_string()),
    }
}

/// The last assistant text the subagent wrote.
fn partial(response: &Response) -> String {
    response
        .output_messages
        .iter()
        .rev()
        .filter(|m: &&Message| m.role == Role::Assistant)
        .map(Message::answer_text)
        .find(|t| !t.trim().is_empty())
        .unwrap_or_default()
}

fn reason_name(reason: &OutcomeReason) -> String {
    match reason {
        OutcomeReason::Other(s) => s.clone(),
        other => serde_json::to_value(other)
            .ok()
            .and_then(|v| v.as_str().map(str::to_owned))
            .unwrap_or_else(|| format!("{other:?}")),
    }
}
