//! The tools a [`ComputerUse`](super::ComputerUse) hands the agent: one [`MemberTool`] per
//! member of the computer toolset, or the one [`SingleTool`] (`computer`, with an `action`) of
//! a dated version. Both check the input, run the [`Computer`] and render what it produced.

use std::sync::Arc;

use dive_core::{
    BoxFuture, Content, MediaSource, Tool, ToolAnnotations, ToolContext, ToolError, ToolOutput, ToolPreview,
    ToolResult,
};
use serde_json::Value;

use super::member::{missing_fields, single_tool_schema};
use super::{Computer, ComputerAction, ComputerInput, ComputerMember, ComputerOutput};

/// The name of a dated single computer tool.
pub(crate) const SINGLE_TOOL_NAME: &str = "computer";

/// One member of the computer toolset as a tool of its own.
pub(crate) struct MemberTool {
    member: ComputerMember,
    schema: Value,
    annotations: ToolAnnotations,
    computer: Arc<dyn Computer>,
}

impl MemberTool {
    pub(crate) fn new(member: ComputerMember, computer: Arc<dyn Computer>) -> Self {
        Self {
            member,
            schema: member.input_schema(),
            annotations: annotations(member.is_read_only()),
            computer,
        }
    }
}

fn annotations(read_only: bool) -> ToolAnnotations {
    ToolAnnotations::default()
        .with_read_only(read_only)
        .with_open_world(true)
        .with_halts_batch(true)
        .with_title("Computer use")
}

impl Tool for MemberTool {
    fn name(&self) -> &str {
        self.member.as_str()
    }
    fn description(&self) -> &str {
        self.member.description()
    }
    fn input_schema(&self) -> &Value {
        &self.schema
    }
    fn annotations(&self) -> &ToolAnnotations {
        &self.annotations
    }
    fn preview(&self, input: &Value) -> Option<ToolPreview> {
        Some(preview(self.member, input))
    }
    fn call(&self, input: Value, ctx: ToolContext) -> BoxFuture<'_, Result<ToolResult, ToolError>> {
        Box::pin(perform(&*self.computer, self.member, input, ctx))
    }
}

/// A dated single computer tool (`computer_20251124`, `computer_20250124`): the `action`
/// chooses the member.
pub(crate) struct SingleTool {
    served: Vec<ComputerMember>,
    schema: Value,
    annotations: ToolAnnotations,
    computer: Arc<dyn Computer>,
}

impl SingleTool {
    pub(crate) fn new(served: Vec<ComputerMember>, computer: Arc<dyn Computer>) -> Self {
        Self { schema: single_tool_schema(&served), served, annotations: annotations(false), computer }
    }

    fn member(&self, input: &Value) -> Result<ComputerMember, String> {
        let action = input.get("action").and_then(Value::as_str).unwrap_or("");
        ComputerMember::from_name(action).filter(|m| self.served.contains(m)).ok_or_else(|| {
            let offered: Vec<&str> = self.served.iter().map(|m| m.as_str()).collect();
            format!("Unknown or unavailable action `{action}`: use one of {}.", offered.join(", "))
        })
    }
}

impl Tool for SingleTool {
    fn name(&self) -> &str {
        SINGLE_TOOL_NAME
    }
    fn description(&self) -> &str {
        "Use the mouse and keyboard and take screenshots."
    }
    fn input_schema(&self) -> &Value {
        &self.schema
    }
    fn annotations(&self) -> &ToolAnnotations {
        &self.annotations
    }
    fn preview(&self, input: &Value) -> Option<ToolPreview> {
        self.member(input).ok().map(|m| preview(m, input))
    }
    fn call(&self, input: Value, ctx: ToolContext) -> BoxFuture<'_, Result<ToolResult, ToolError>> {
        Box::pin(async move {
            match self.member(&input) {
                Ok(member) => perform(&*self.computer, member, input, ctx).await,
                Err(message) => Ok(ToolResult::error(message)),
            }
        })
    }
}

fn preview(member: ComputerMember, input: &Value) -> ToolPreview {
    let mut summary = member.as_str().replace('_', " ");
    if let Some(c) = input.get("coordinate").and_then(Value::as_array) {
        let xy: Vec<String> = c.iter().map(Value::to_string).collect();
        summary.push_str(&format!(" at ({})", xy.join(", ")));
    }
    if let Some(t) = input.get("text").and_then(Value::as_str) {
        summary.push_str(&format!(" {t:?}"));
    }
    ToolPreview::new(summary)
}

/// Checks the input of one action, runs it and renders its output for the model.
async fn perform(
    computer: &dyn Computer,
    member: ComputerMember,
    input: Value,
    ctx: ToolContext,
) -> Result<ToolResult, ToolError> {
    let missing = missing_fields(member, &input);
    if !missing.is_empty() {
        return Ok(ToolResult::error(format!("{} needs {}.", member.as_str(), missing.join(" and "))));
    }
    let parsed: ComputerInput = match serde_json::from_value(input) {
        Ok(parsed) => parsed,
        Err(e) => return Ok(ToolResult::error(format!("Invalid {} input: {e}.", member.as_str()))),
    };
    let output = computer.run(ComputerAction { member, input: parsed.clone() }, ctx).await?;
    Ok(ToolResult::Output(render(member, &parsed, output)?))
}

fn render(
    member: ComputerMember,
    input: &ComputerInput,
    output: ComputerOutput,
) -> Result<ToolOutput, ToolError> {
    let content = match output {
        ComputerOutput::Image { media_type, data } => {
            vec![Content::image(MediaSource::base64(media_type, data))]
        }
        _ if member.returns_image() => {
            return Err(ToolError::new(format!(
                "the computer answered {} without an image: return ComputerOutput::Image",
                member.as_str()
            )));
        }
        ComputerOutput::Cursor { x, y } => vec![Content::text(format!("The cursor is at ({x}, {y})."))],
        ComputerOutput::Done(line) => {
            let mut blocks = vec![Content::text(member.acknowledgment(input))];
            blocks.extend(line.filter(|l| !l.trim().is_empty()).map(Content::text));
            blocks
        }
    };
    Ok(ToolOutput::new(content))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use serde_json::json;
    use std::sync::Mutex;

    #[derive(Default)]
    struct Log(Mutex<Vec<ComputerAction>>);
    impl Computer for Log {
        fn run(
            &self,
            action: ComputerAction,
            _c: ToolContext,
        ) -> BoxFuture<'_, Result<ComputerOutput, ToolError>> {
            let member = action.member;
            self.0.lock().unwrap().push(action);
            Box::pin(async move {
                Ok(match member {
                    ComputerMember::Screenshot => ComputerOutput::png("AAAA"),
                    ComputerMember::CursorPosition => ComputerOutput::Cursor { x: 3, y: 4 },
                    ComputerMember::Zoom => ComputerOutput::done(),
                    _ => ComputerOutput::Done(Some("focused the search box".into())),
                })
            })
        }
    }

    fn output(result: ToolResult) -> ToolOutput {
        let ToolResult::Output(o) = result else { panic!("not an output") };
        o
    }

    #[tokio::test]
    async fn a_member_runs_its_action_and_renders_the_acknowledgment() {
        let log = Arc::new(Log::default());
        let click = MemberTool::new(ComputerMember::LeftClick, log.clone());
        let out = output(
            click.call(json!({"coordinate": [10, 20]}), ToolContext::detached("left_click")).await.unwrap(),
        );
        assert_eq!(out.text_content(), "Clicked.\nfocused the search box");
        let shot = MemberTool::new(ComputerMember::Screenshot, log.clone());
        let out = output(shot.call(json!({}), ToolContext::detached("screenshot")).await.unwrap());
        assert!(matches!(&out.content[0], Content::Image(_)), "{:?}", out.content);
        let logged = log.0.lock().unwrap();
        assert_eq!(logged[0].input.coordinate, Some([10, 20]));
        assert_eq!(logged[1].member, ComputerMember::Screenshot);
    }

    #[tokio::test]
    async fn missing_fields_and_images_not_returned_are_errors() {
        let log = Arc::new(Log::default());
        let typing = MemberTool::new(ComputerMember::Type, log.clone());
        let out = output(typing.call(json!({}), ToolContext::detached("type")).await.unwrap());
        assert!(out.is_error && out.text_content() == "type needs text.", "{out:?}");
        assert!(log.0.lock().unwrap().is_empty(), "the computer never saw the bad call");
        let zoom = MemberTool::new(ComputerMember::Zoom, log.clone());
        let err =
            zoom.call(json!({"region": [0, 0, 5, 5]}), ToolContext::detached("zoom")).await.unwrap_err();
        assert!(err.message.contains("without an image"), "{err}");
    }

    #[tokio::test]
    async fn the_single_tool_dispatches_on_action_and_refuses_an_unserved_one() {
        let log = Arc::new(Log::default());
        let single = SingleTool::new(vec![ComputerMember::CursorPosition], log.clone());
        let ctx = || ToolContext::detached("computer");
        let out = output(single.call(json!({"action": "cursor_position"}), ctx()).await.unwrap());
        assert_eq!(out.text_content(), "The cursor is at (3, 4).");
        let out = output(single.call(json!({"action": "left_click"}), ctx()).await.unwrap());
        assert!(out.is_error && out.text_content().contains("use one of cursor_position"), "{out:?}");
    }
}
