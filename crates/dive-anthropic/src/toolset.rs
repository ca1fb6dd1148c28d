//! Anthropic-defined client tools as provider-defined toolsets: the Anthropic payload of a
//! [`ToolDeclaration`] (`tools[]` entries sent in place of the members, and the betas they
//! need), the text editor ([`text_editor`], `text_editor_20250728`) and bash ([`bash`],
//! `bash_20250124`) tool types over a tool of your own, and [`declare`] for any other type.
//! The computer-use toolset is [`ComputerUse`](crate::ComputerUse).

use std::sync::Arc;

use dive_core::{
    BoxFuture, DeclarationError, DeclaredToolset, Input, ModelRequest, Tool, ToolAnnotations, ToolContext,
    ToolDeclaration, ToolDefinition, ToolError, ToolPreview, ToolResult,
};
use serde_json::{Value, json};

use crate::PROVIDER;

/// The name the model calls the `text_editor_20250728` tool by.
pub const TEXT_EDITOR_NAME: &str = "str_replace_based_edit_tool";
/// The text editor tool type [`text_editor`] declares.
pub const TEXT_EDITOR_TYPE: &str = "text_editor_20250728";
/// The name the model calls the `bash_20250124` tool by.
pub const BASH_NAME: &str = "bash";
/// The bash tool type [`bash`] declares.
pub const BASH_TYPE: &str = "bash_20250124";

/// A declaration of `toolset` (standing for `members`) whose Anthropic payload is `entries`
/// (the `tools[]` entries the API takes instead of the members' definitions) and `betas` (the
/// `anthropic-beta` values they need, merged into the request's).
///
/// ```
/// use dive_anthropic::declare;
/// use serde_json::json;
/// let decl = declare("memory", ["memory"], vec![json!({"type": "memory_20250818", "name": "memory"})], []);
/// assert_eq!(decl.payload("anthropic").unwrap()["tools"][0]["type"], "memory_20250818");
/// ```
#[must_use]
pub fn declare<M, S, B>(toolset: &str, members: M, entries: Vec<Value>, betas: B) -> ToolDeclaration
where
    M: IntoIterator<Item = S>,
    S: Into<String>,
    B: IntoIterator<Item = &'static str>,
{
    let betas: Vec<&str> = betas.into_iter().collect();
    let mut payload = json!({ "tools": entries });
    if !betas.is_empty() {
        payload["betas"] = json!(betas);
    }
    ToolDeclaration::new(toolset, members).with_provider(PROVIDER, payload)
}

/// Anthropic's text editor tool type (`text_editor_20250728`, called
/// `str_replace_based_edit_tool`: `view`, `create`, `str_replace`, `insert`) run by `tool`
/// (for instance dive-toolkit's `TextEditorTool`), which answers under the type's name.
/// `max_characters` caps what `view` shows.
///
/// # Errors
/// Never for a single tool; the `Result` is [`DeclaredToolset::new`]'s.
pub fn text_editor(
    tool: impl Tool + 'static,
    max_characters: Option<u32>,
) -> Result<DeclaredToolset, DeclarationError> {
    let mut entry = json!({"type": TEXT_EDITOR_TYPE, "name": TEXT_EDITOR_NAME});
    if let Some(max) = max_characters {
        entry["max_characters"] = json!(max);
    }
    single("text_editor", TEXT_EDITOR_NAME, entry, tool)
}

/// Anthropic's bash tool type (`bash_20250124`, called `bash`: `command`, `restart`) run by
/// `tool` (for instance dive-toolkit's `BashTool`), which answers under the type's name.
///
/// # Errors
/// Never for a single tool; the `Result` is [`DeclaredToolset::new`]'s.
pub fn bash(tool: impl Tool + 'static) -> Result<DeclaredToolset, DeclarationError> {
    single("bash", BASH_NAME, json!({"type": BASH_TYPE, "name": BASH_NAME}), tool)
}

fn single(
    toolset: &str,
    name: &'static str,
    entry: Value,
    tool: impl Tool + 'static,
) -> Result<DeclaredToolset, DeclarationError> {
    let member: Arc<dyn Tool> =
        if tool.name() == name { Arc::new(tool) } else { Arc::new(Renamed { name, inner: Arc::new(tool) }) };
    DeclaredToolset::new(declare(toolset, [name], vec![entry], []), vec![member])
}

/// A tool answering under the name a tool type fixes; everything else is the inner tool's.
struct Renamed {
    name: &'static str,
    inner: Arc<dyn Tool>,
}

impl Tool for Renamed {
    fn name(&self) -> &str {
        self.name
    }
    fn description(&self) -> &str {
        self.inner.description()
    }
    fn input_schema(&self) -> &Value {
        self.inner.input_schema()
    }
    fn annotations(&self) -> &ToolAnnotations {
        self.inner.annotations()
    }
    fn definition(&self) -> ToolDefinition {
        let mut d = self.inner.definition();
        d.name = self.name.to_owned();
        d
    }
    fn preview(&self, input: &Value) -> Option<ToolPreview> {
        self.inner.preview(input)
    }
    fn call(&self, input: Value, ctx: ToolContext) -> BoxFuture<'_, Result<ToolResult, ToolError>> {
        self.inner.call(input, ctx)
    }
    fn call_shared(&self, input: Input, ctx: ToolContext) -> BoxFuture<'_, Result<ToolResult, ToolError>> {
        self.inner.call_shared(input, ctx)
    }
}

/// The Anthropic parts of a request's declared toolsets: their `tools[]` entries, in order,
/// and the betas they need.
#[derive(Debug, Default)]
pub(crate) struct Declared<'a> {
    pub entries: Vec<&'a Value>,
    pub betas: Vec<&'a str>,
}

/// Reads the Anthropic payload of every declared toolset of `request`.
///
/// # Errors
/// A message naming the toolset when a payload is missing or not of the documented shape
/// (`{"tools": [{"type": …}, …], "betas": ["…"]}`).
pub(crate) fn declared(request: &ModelRequest) -> Result<Declared<'_>, String> {
    let mut out = Declared::default();
    for decl in &request.declared_toolsets {
        let shape = || {
            format!(
                "the declared toolset {} has no valid Anthropic payload: expected {{\"tools\": \
                 [{{\"type\": …}}, …], \"betas\": [\"…\"]}} (build it with dive_anthropic::declare)",
                decl.toolset
            )
        };
        let payload = decl.payload(PROVIDER).ok_or_else(shape)?;
        let entries = payload.get("tools").and_then(Value::as_array).ok_or_else(shape)?;
        if entries.is_empty() || !entries.iter().all(|e| e.get("type").is_some_and(Value::is_string)) {
            return Err(shape());
        }
        out.entries.extend(entries);
        match payload.get("betas") {
            None => {}
            Some(Value::Array(betas)) => {
                for beta in betas {
                    out.betas.push(beta.as_str().ok_or_else(shape)?);
                }
            }
            Some(_) => return Err(shape()),
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use dive_core::{FunctionTool, Message, Toolset};

    #[test]
    fn a_tool_of_another_name_answers_under_the_type_name() {
        let tool = FunctionTool::new("TextEditor", "Edits files.", |_: Value, _| async {
            Ok(ToolResult::text("ok"))
        });
        let set = text_editor(tool, Some(5000)).unwrap();
        assert_eq!(set.tools()[0].name(), TEXT_EDITOR_NAME);
        assert_eq!(set.tools()[0].description(), "Edits files.");
        let decl = set.declaration().unwrap();
        assert_eq!(
            decl.payload(PROVIDER).unwrap()["tools"][0],
            json!({"type": TEXT_EDITOR_TYPE, "name": TEXT_EDITOR_NAME, "max_characters": 5000})
        );
    }

    #[test]
    fn a_payload_of_another_shape_is_refused_by_name() {
        let mut request = ModelRequest::new(vec![Message::user("hi")]);
        request.declared_toolsets.push(Arc::new(
            ToolDeclaration::new("odd", ["x"]).with_provider(PROVIDER, json!({"tools": [{"name": "x"}]})),
        ));
        assert!(declared(&request).unwrap_err().contains("the declared toolset odd"));
        request.declared_toolsets[0] = Arc::new(declare("ok", ["x"], vec![json!({"type": "t"})], ["b-1"]));
        let d = declared(&request).unwrap();
        assert_eq!((d.entries.len(), d.betas), (1, vec!["b-1"]));
    }
}
