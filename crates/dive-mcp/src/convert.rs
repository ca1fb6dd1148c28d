//! Mapping between MCP's types (rmcp's model) and ours: content blocks, tool results,
//! annotations and prompt messages. Schemas are passed through as JSON, untouched.

use dive_core::{Content, MediaSource, Message, Role, ToolAnnotations, ToolOutput};
use rmcp::model::{self as mcp, ContentBlock, ResourceContents};

/// MCP annotations as ours (the same camelCase keys), with the tool's `title` when the
/// annotations carry none.
pub(crate) fn annotations_from_mcp(tool: &mcp::Tool) -> ToolAnnotations {
    let mut ours = tool
        .annotations
        .as_ref()
        .and_then(|a| serde_json::to_value(a).ok())
        .and_then(|v| serde_json::from_value::<ToolAnnotations>(v).ok())
        .unwrap_or_default();
    if ours.title.is_none() {
        ours.title.clone_from(&tool.title);
    }
    ours
}

/// Our annotations as MCP's (hints MCP has no word for are left out), `None` when empty.
pub(crate) fn annotations_to_mcp(ours: &ToolAnnotations) -> Option<mcp::ToolAnnotations> {
    let value = serde_json::to_value(ours).ok()?;
    let theirs: mcp::ToolAnnotations = serde_json::from_value(value).ok()?;
    (theirs != mcp::ToolAnnotations::default()).then_some(theirs)
}

/// A finished MCP tool call as our output: every block mapped and `isError` kept. The
/// content is what the server meant the model to read; `structuredContent` becomes JSON
/// text only when the content is empty (servers are asked to send both, and the Python
/// SDK's text is often the same value unwrapped), so nothing is said twice or lost.
pub(crate) fn output_from_mcp(result: mcp::CallToolResult) -> ToolOutput {
    let mut content: Vec<Content> = result.content.into_iter().map(content_from_mcp).collect();
    if content.is_empty()
        && let Some(structured) = result.structured_content
    {
        content.push(Content::text(structured.to_string()));
    }
    let mut output = ToolOutput::new(content);
    output.is_error = result.is_error.unwrap_or(false);
    output
}

/// One MCP content block as ours. Audio has no block of its own here: it becomes a
/// base64 document with its audio MIME type (providers that take audio read it; others
/// refuse it by type, never silently).
pub(crate) fn content_from_mcp(block: ContentBlock) -> Content {
    match block {
        ContentBlock::Text(t) => Content::text(t.text),
        ContentBlock::Image(i) => Content::image(MediaSource::base64(i.mime_type, i.data)),
        ContentBlock::Audio(a) => Content::document(MediaSource::base64(a.mime_type, a.data)),
        ContentBlock::Resource(r) => resource_from_mcp(r.resource),
        ContentBlock::ResourceLink(link) => {
            let mut text = format!("[resource {}: {}", link.name, link.uri);
            if let Some(mime) = &link.mime_type {
                text.push_str(&format!(" ({mime})"));
            }
            if let Some(description) = &link.description {
                text.push_str(&format!(" — {description}"));
            }
            text.push(']');
            Content::text(text)
        }
        other => Content::text(serde_json::to_string(&other).unwrap_or_default()),
    }
}

/// Resource contents as a block: text as a text document titled by its URI; an image blob
/// as an image; any other blob as a base64 document of its MIME type.
pub(crate) fn resource_from_mcp(resource: ResourceContents) -> Content {
    match resource {
        ResourceContents::TextResourceContents { uri, mime_type, text, .. } => {
            let source = MediaSource::Text {
                media_type: mime_type.unwrap_or_else(|| "text/plain".into()),
                data: text,
            };
            Content::Document(dive_core::DocumentContent::new(source).with_title(uri))
        }
        ResourceContents::BlobResourceContents { uri, mime_type, blob, .. } => {
            let mime = mime_type.unwrap_or_else(|| "application/octet-stream".into());
            if mime.starts_with("image/") {
                Content::image(MediaSource::base64(mime, blob))
            } else {
                Content::Document(
                    dive_core::DocumentContent::new(MediaSource::base64(mime, blob)).with_title(uri),
                )
            }
        }
        other => Content::text(serde_json::to_string(&other).unwrap_or_default()),
    }
}

/// An MCP prompt message as ours.
pub(crate) fn message_from_mcp(message: mcp::PromptMessage) -> Message {
    let role = match message.role {
        mcp::Role::Assistant => Role::Assistant,
        _ => Role::User,
    };
    Message::new(role, vec![content_from_mcp(message.content)])
}

/// Our output as an MCP result. Blocks MCP cannot carry (tool calls, thinking, …) are sent
/// as their JSON text rather than dropped.
pub(crate) fn output_to_mcp(output: ToolOutput) -> mcp::CallToolResult {
    let content: Vec<ContentBlock> = output.content.into_iter().map(content_to_mcp).collect();
    if output.is_error { mcp::CallToolResult::error(content) } else { mcp::CallToolResult::success(content) }
}

fn content_to_mcp(block: Content) -> ContentBlock {
    match block {
        Content::Text(t) => ContentBlock::text(t.text),
        Content::Image(i) => match i.source {
            MediaSource::Base64 { media_type, data } => ContentBlock::image(data, media_type),
            MediaSource::Url { url } => ContentBlock::text(format!("[image: {url}]")),
            other => ContentBlock::text(serde_json::to_string(&other).unwrap_or_default()),
        },
        Content::Document(d) => match d.source {
            MediaSource::Text { media_type, data } => ContentBlock::resource(
                ResourceContents::text(data, d.title.unwrap_or_else(|| "dive://document".into()))
                    .with_mime_type(media_type),
            ),
            MediaSource::Base64 { media_type, data } if media_type.starts_with("audio/") => {
                ContentBlock::audio(data, media_type)
            }
            MediaSource::Base64 { media_type, data } => ContentBlock::resource(
                ResourceContents::blob(data, d.title.unwrap_or_else(|| "dive://document".into()))
                    .with_mime_type(media_type),
            ),
            other => ContentBlock::text(serde_json::to_string(&other).unwrap_or_default()),
        },
        other => ContentBlock::text(serde_json::to_string(&other).unwrap_or_default()),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use serde_json::{Value, json};

    fn result(v: Value) -> mcp::CallToolResult {
        serde_json::from_value(v).unwrap()
    }

    #[test]
    fn every_block_kind_maps_and_structured_content_fills_empty_content() {
        let out = output_from_mcp(result(json!({
            "content": [
                {"type": "text", "text": "{\"result\":5}"},
                {"type": "image", "data": "iVBO", "mimeType": "image/png"},
                {"type": "audio", "data": "UklG", "mimeType": "audio/wav"},
                {"type": "resource", "resource": {"uri": "file:///a.txt", "mimeType": "text/plain", "text": "hello"}},
                {"type": "resource", "resource": {"uri": "file:///b.pdf", "mimeType": "application/pdf", "blob": "JVBE"}},
                {"type": "resource_link", "uri": "file:///c", "name": "c"}
            ],
            "structuredContent": {"result": 5},
            "isError": false
        })));
        assert!(!out.is_error);
        assert_eq!(out.content.len(), 6, "content present: structured content not repeated: {out:?}");
        assert_eq!(out.content[1], Content::image(MediaSource::base64("image/png", "iVBO")));
        assert_eq!(out.content[2], Content::document(MediaSource::base64("audio/wav", "UklG")));
        let Content::Document(doc) = &out.content[3] else { panic!("{:?}", out.content[3]) };
        assert_eq!(doc.title.as_deref(), Some("file:///a.txt"));
        assert_eq!(doc.source, MediaSource::Text { media_type: "text/plain".into(), data: "hello".into() });
        assert_eq!(out.content[4].kind(), "document");
        assert!(out.text_content().contains("[resource c: file:///c]"));

        let only_structured =
            output_from_mcp(result(json!({"content": [], "structuredContent": {"x": [1, 2]}})));
        assert_eq!(only_structured.text_content(), r#"{"x":[1,2]}"#);
    }

    #[test]
    fn is_error_becomes_an_error_output() {
        let out =
            output_from_mcp(result(json!({"content": [{"type": "text", "text": "boom"}], "isError": true})));
        assert!(out.is_error);
        assert_eq!(out.text_content(), "boom");
    }

    #[test]
    fn annotations_round_trip_and_title_falls_back_to_the_tool_title() {
        let tool: mcp::Tool = serde_json::from_value(json!({
            "name": "t", "title": "The T", "inputSchema": {"type": "object"},
            "annotations": {"readOnlyHint": true, "openWorldHint": false}
        }))
        .unwrap();
        let ours = annotations_from_mcp(&tool);
        assert_eq!(ours.read_only_hint, Some(true));
        assert_eq!(ours.open_world_hint, Some(false));
        assert_eq!(ours.destructive_hint, None);
        assert_eq!(ours.title.as_deref(), Some("The T"));
        let back = annotations_to_mcp(&ours).unwrap();
        assert_eq!(back.read_only_hint, Some(true));
        assert!(annotations_to_mcp(&ToolAnnotations::default()).is_none());
    }

    #[test]
    fn our_output_maps_to_mcp_blocks() {
        let mut out = ToolOutput::new(vec![
            Content::text("hi"),
            Content::image(MediaSource::base64("image/png", "AAA")),
            Content::document(MediaSource::base64("audio/mpeg", "BBB")),
        ]);
        out.is_error = true;
        let v = serde_json::to_value(output_to_mcp(out)).unwrap();
        assert_eq!(v["isError"], true);
        assert_eq!(v["content"][0], json!({"type": "text", "text": "hi"}));
        assert_eq!(v["content"][1], json!({"type": "image", "data": "AAA", "mimeType": "image/png"}));
        assert_eq!(v["content"][2], json!({"type": "audio", "data": "BBB", "mimeType": "audio/mpeg"}));
    }
}
