//! Provider-defined toolsets: a [`ToolDeclaration`] (what a toolset a provider defines — Anthropic's
//! computer-use toolset, its text editor and bash tool types — tells the request) and
//! [`DeclaredToolset`], a fixed set of member tools with its declaration.
//!
//! A toolset whose [`Toolset::declaration`](super::Toolset::declaration) is `Some` is a *tool
//! declarer*. Its member tools run like any tool (a call routes to the member of that name, so
//! permissions and hooks apply per member), but they are left out of the request's custom tools:
//! the declaration travels in [`ModelRequest::declared_toolsets`](crate::ModelRequest::declared_toolsets)
//! and the provider sends its own entry instead. A provider with no entry in the declaration
//! refuses the request ([`ModelRequest::refuse_undeclared`](crate::ModelRequest::refuse_undeclared)),
//! never sending the members silently under another shape. Calls to members halt their batch
//! (`ToolAnnotations::halts_batch`): they run in order, alone, and a failure skips the later ones.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{Tool, ToolError, Toolset};
use crate::future::BoxFuture;
use crate::run::RunInfo;

/// What a provider-defined toolset declares to a request: its name, its member tools, and per
/// provider the payload that provider sends in place of the members' definitions.
///
/// The payload's shape belongs to the provider (Anthropic: `{"tools": [<tools[] entries>],
/// "betas": [<anthropic-beta values>]}`); dive-core only carries it.
///
/// ```
/// use dive_core::ToolDeclaration;
/// use serde_json::json;
/// let decl = ToolDeclaration::new("bash", ["bash"])
///     .with_provider("anthropic", json!({"tools": [{"type": "bash_20250124", "name": "bash"}]}));
/// assert!(decl.payload("anthropic").is_some());
/// assert!(decl.payload("openai").is_none());
/// assert!(decl.has_member("bash"));
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ToolDeclaration {
    /// The toolset's name (Anthropic's `toolset_name` for the computer toolset: `computer`).
    pub toolset: String,
    /// The names of the member tools the declaration stands for.
    pub members: Vec<String>,
    /// The payload each provider that understands the toolset sends, keyed by provider name
    /// (its `Llm::provider`).
    pub providers: BTreeMap<String, Value>,
}

impl ToolDeclaration {
    /// A declaration of toolset `toolset` standing for `members`, with no provider payload yet.
    #[must_use]
    pub fn new<I, S>(toolset: impl Into<String>, members: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        Self {
            toolset: toolset.into(),
            members: members.into_iter().map(Into::into).collect(),
            providers: BTreeMap::new(),
        }
    }

    /// Sets the payload `provider` sends for this toolset.
    #[must_use]
    pub fn with_provider(mut self, provider: impl Into<String>, payload: Value) -> Self {
        self.providers.insert(provider.into(), payload);
        self
    }

    /// The payload of `provider`, if it understands this toolset.
    #[must_use]
    pub fn payload(&self, provider: &str) -> Option<&Value> {
        self.providers.get(provider)
    }

    /// Whether `name` is one of the member tools.
    #[must_use]
    pub fn has_member(&self, name: &str) -> bool {
        self.members.iter().any(|m| m == name)
    }
}

/// Why a [`DeclaredToolset`] could not be built.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum DeclarationError {
    /// The declaration names a member twice.
    #[error("the toolset {toolset} names member {member} twice: name each member once")]
    RepeatedMember {
        /// The toolset.
        toolset: String,
        /// The repeated member.
        member: String,
    },
    /// The declared members and the given tools differ.
    #[error(
        "the toolset {toolset} declares the members [{members}] but was given the tools [{tools}]: \
         give one tool per declared member, named as the member"
    )]
    MembersMismatch {
        /// The toolset.
        toolset: String,
        /// The declared member names, sorted, comma-separated.
        members: String,
        /// The given tools' names, sorted, comma-separated.
        tools: String,
    },
}

/// A fixed provider-defined toolset: member tools and the declaration that replaces their
/// definitions in requests. Built by provider crates (e.g. dive-anthropic's computer use, text
/// editor and bash tool types); add it to an agent like any toolset.
///
/// ```
/// use std::sync::Arc;
/// use dive_core::{DeclaredToolset, FunctionTool, Tool, ToolDeclaration, ToolResult, Toolset};
/// use serde_json::json;
/// let bash = FunctionTool::new("bash", "Runs a command.", |_input: serde_json::Value, _ctx| async {
///     Ok(ToolResult::text("ok"))
/// });
/// let decl = ToolDeclaration::new("bash", ["bash"])
///     .with_provider("anthropic", json!({"tools": [{"type": "bash_20250124", "name": "bash"}]}));
/// let toolset = DeclaredToolset::new(decl, vec![Arc::new(bash) as Arc<dyn Tool>]).unwrap();
/// assert_eq!(toolset.declaration().unwrap().toolset, "bash");
/// ```
#[derive(Clone)]
pub struct DeclaredToolset {
    declaration: Arc<ToolDeclaration>,
    tools: Vec<Arc<dyn Tool>>,
}

impl std::fmt::Debug for DeclaredToolset {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DeclaredToolset")
            .field("toolset", &self.declaration.toolset)
            .field("members", &self.declaration.members)
            .finish_non_exhaustive()
    }
}

impl DeclaredToolset {
    /// The toolset of `tools`, declared by `declaration`.
    ///
    /// # Errors
    /// [`DeclarationError`] when a member name repeats, or the member names and the tools'
    /// names differ (a member without its tool, or a tool the declaration does not name).
    pub fn new(declaration: ToolDeclaration, tools: Vec<Arc<dyn Tool>>) -> Result<Self, DeclarationError> {
        let mut members: Vec<&str> = declaration.members.iter().map(String::as_str).collect();
        let mut names: Vec<&str> = tools.iter().map(|t| t.name()).collect();
        members.sort_unstable();
        names.sort_unstable();
        if let Some(w) = members.windows(2).find(|w| w[0] == w[1]) {
            return Err(DeclarationError::RepeatedMember {
                toolset: declaration.toolset.clone(),
                member: w[0].to_owned(),
            });
        }
        if members != names {
            return Err(DeclarationError::MembersMismatch {
                toolset: declaration.toolset.clone(),
                members: members.join(", "),
                tools: names.join(", "),
            });
        }
        Ok(Self { declaration: Arc::new(declaration), tools })
    }

    /// The member tools.
    #[must_use]
    pub fn tools(&self) -> &[Arc<dyn Tool>] {
        &self.tools
    }

    /// The declaration (always `Some` through [`Toolset::declaration`]).
    #[must_use]
    pub fn tool_declaration(&self) -> &ToolDeclaration {
        &self.declaration
    }
}

impl Toolset for DeclaredToolset {
    fn name(&self) -> &str {
        &self.declaration.toolset
    }

    fn tools<'a>(&'a self, _run: &'a RunInfo) -> BoxFuture<'a, Result<Vec<Arc<dyn Tool>>, ToolError>> {
        let tools = self.tools.clone();
        Box::pin(async move { Ok(tools) })
    }

    fn declaration(&self) -> Option<Arc<ToolDeclaration>> {
        Some(Arc::clone(&self.declaration))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tool::{FunctionTool, ToolResult};
    use serde_json::json;

    fn tool(name: &str) -> Arc<dyn Tool> {
        Arc::new(FunctionTool::new(name, "", |_: Value, _| async { Ok(ToolResult::text("ok")) }))
    }

    #[test]
    fn members_and_tools_must_agree() {
        let decl = ToolDeclaration::new("computer", ["screenshot", "left_click"]);
        assert!(DeclaredToolset::new(decl.clone(), vec![tool("left_click"), tool("screenshot")]).is_ok());
        let err = DeclaredToolset::new(decl.clone(), vec![tool("screenshot")]).unwrap_err().to_string();
        assert!(err.contains("[left_click, screenshot]") && err.contains("[screenshot]"), "{err}");
        let twice = ToolDeclaration::new("computer", ["wait", "wait"]);
        let err = DeclaredToolset::new(twice, vec![tool("wait"), tool("wait")]).unwrap_err().to_string();
        assert!(err.contains("twice"), "{err}");
    }

    #[test]
    fn a_declaration_round_trips_with_its_payloads() {
        let decl = ToolDeclaration::new("computer", ["screenshot"])
            .with_provider("anthropic", json!({"tools": [{"type": "computer_toolset_20260801"}]}));
        let back: ToolDeclaration = serde_json::from_value(serde_json::to_value(&decl).unwrap()).unwrap();
        assert_eq!(back, decl);
        assert_eq!(back.payload("anthropic").unwrap()["tools"][0]["type"], "computer_toolset_20260801");
    }
}
