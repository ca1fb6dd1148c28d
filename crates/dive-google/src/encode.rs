//! [`ModelRequest`] → `generateContent` request body.
//!
//! Every request first gets [`answer_unanswered_tool_calls`] (a backstop for broken
//! histories) and reminders rendered as user text (Gemini has no system role inside
//! `contents`); the stored history is never changed. `provider_options` go to the top level
//! of the body, except `generationConfig` and `toolConfig`, which merge into ours key by key
//! (e.g. `{"toolConfig": {"functionCallingConfig": {"streamFunctionCallArguments": true}}}`
//! turns on streamed function-call arguments and keeps the tool choice's `mode`).
//!
//! Function results: Gemini's `functionResponse` carries the function *name*, not a call id.
//! Each result finds its call by `tool_use_id` among the model turns before it, takes that
//! call's name, and results are sent in the order of their calls (name + order is how Gemini
//! pairs them). The responses go in a `user` content of their own; any other block of the same
//! message (text, images) follows in a second `user` content.

use std::collections::HashMap;

use dive_core::{
    Content, MediaSource, Message, ModelRequest, ReasoningEffort, ReminderStyle, ResponseFormat, Role,
    ThinkingDisplay, ThinkingMode, ToolChoice, ToolDefinition, ToolResultContent, ToolUse,
    answer_unanswered_tool_calls, render_reminders,
};
use serde_json::{Map, Value, json};

use crate::catalog::{ThinkingControl, model_info, supports_multimodal_function_response, thinking_control};
use crate::meta::{GOOGLE, call_id_from_api, signature};
use crate::schema::{SchemaError, convert_schema};

/// Settings of the client that shape every body.
#[derive(Debug, Clone)]
pub(crate) struct EncodeOptions<'a> {
    pub model: &'a str,
    pub max_tokens: u32,
    /// Prefix that turns a Files API name (`files/abc`) into the URI Gemini expects.
    pub files_base: &'a str,
}

/// The model id a request is sent to (`models/` prefix removed).
pub(crate) fn request_model<'a>(request: &'a ModelRequest, default: &'a str) -> &'a str {
    let model = request.model.as_deref().unwrap_or(default);
    model.strip_prefix("models/").unwrap_or(model)
}

/// Builds the JSON body of a `generateContent` / `streamGenerateContent` call.
pub(crate) fn encode_request(request: &ModelRequest, opts: &EncodeOptions<'_>) -> Result<Value, SchemaError> {
    let model = request_model(request, opts.model);
    let mut body = Map::new();
    let answered = answer_unanswered_tool_calls(&request.messages);
    let rendered = render_reminders(&answered, &ReminderStyle::UserText);
    let ctx = Ctx {
        files_base: opts.files_base,
        calls: index_calls(&rendered),
        multimodal_results: supports_multimodal_function_response(model),
    };
    let mut contents = Vec::new();
    for message in rendered.iter() {
        encode_message(message, &ctx, &mut contents);
    }
    body.insert("contents".into(), Value::Array(contents));
    if let Some(system) = request.system.as_deref().filter(|s| !s.is_empty()) {
        body.insert("systemInstruction".into(), json!({"parts": [{"text": system}]}));
    }
    if !request.tools.is_empty() {
        let declarations = request.tools.iter().map(encode_tool).collect::<Result<Vec<_>, _>>()?;
        body.insert("tools".into(), json!([{"functionDeclarations": declarations}]));
    }
    if let Some(config) = encode_tool_choice(request.tool_choice.as_ref()) {
        body.insert("toolConfig".into(), json!({"functionCallingConfig": config}));
    }
    body.insert("generationConfig".into(), Value::Object(generation_config(request, model, opts)?));
    for (k, v) in &request.provider_options {
        match body.get_mut(k) {
            Some(ours) if k == "generationConfig" || k == "toolConfig" => merge(ours, v),
            _ => {
                body.insert(k.clone(), v.clone());
            }
        }
    }
    Ok(Value::Object(body))
}

/// Merges a provider option into the object the encoder built, key by key at every depth
/// (so `toolConfig.functionCallingConfig.streamFunctionCallArguments` keeps the encoder's
/// `mode`); a value that is not an object replaces ours.
fn merge(ours: &mut Value, theirs: &Value) {
    match (ours, theirs) {
        (Value::Object(ours), Value::Object(theirs)) => {
            for (k, v) in theirs {
                match ours.get_mut(k) {
                    Some(o) => merge(o, v),
                    None => {
                        ours.insert(k.clone(), v.clone());
                    }
                }
            }
        }
        (ours, theirs) => *ours = theirs.clone(),
    }
}

fn generation_config(
    request: &ModelRequest,
    model: &str,
    opts: &EncodeOptions<'_>,
) -> Result<Map<String, Value>, SchemaError> {
    let mut config = Map::new();
    config.insert("maxOutputTokens".into(), json!(request.max_tokens.unwrap_or(opts.max_tokens)));
    let numbers = [
        ("temperature", request.temperature),
        ("topP", request.top_p),
        ("presencePenalty", request.presence_penalty),
        ("frequencyPenalty", request.frequency_penalty),
    ];
    for (key, value) in numbers {
        if let Some(v) = value {
            config.insert(key.into(), json!(v));
        }
    }
    if !request.stop_sequences.is_empty() {
        config.insert("stopSequences".into(), json!(request.stop_sequences));
    }
    if let Some(thinking) = thinking_config(request, model) {
        config.insert("thinkingConfig".into(), thinking);
    }
    match &request.response_format {
        Some(ResponseFormat::JsonSchema { schema, .. }) => {
            config.insert("responseMimeType".into(), json!("application/json"));
            config.insert("responseJsonSchema".into(), convert_schema(schema)?);
        }
        Some(ResponseFormat::JsonObject) => {
            config.insert("responseMimeType".into(), json!("application/json"));
        }
        _ => {}
    }
    Ok(config)
}

/// `thinkingConfig` from the request's reasoning settings (see the providers guide for the
/// effort → level / budget table).
fn thinking_config(request: &ModelRequest, model: &str) -> Option<Value> {
    let reasoning = request.reasoning.as_ref()?;
    let mut config = Map::new();
    let include = reasoning.display != Some(ThinkingDisplay::Omitted);
    config.insert("includeThoughts".into(), json!(include));
    let disabled = reasoning.thinking == Some(ThinkingMode::Disabled);
    match thinking_control(model) {
        ThinkingControl::Level => {
            if let Some(budget) = reasoning.budget_tokens {
                // Gemini 3 still takes a budget, for code written against 2.5.
                config.insert("thinkingBudget".into(), json!(budget));
            } else if disabled {
                config.insert("thinkingLevel".into(), json!("MINIMAL"));
            } else if let Some(effort) = reasoning.effort {
                let supported = model_info(model).map(|m| m.reasoning_efforts.as_ref()).unwrap_or(&[]);
                let effort = if effort == ReasoningEffort::None { ReasoningEffort::Minimal } else { effort };
                let clamped = if supported.is_empty() { Some(effort) } else { effort.clamp_to(supported) };
                if let Some(level) = clamped.and_then(level_name) {
                    config.insert("thinkingLevel".into(), json!(level));
                }
            }
        }
        ThinkingControl::Budget { min, max, can_disable } => {
            let budget: Option<i64> = if disabled || reasoning.effort == Some(ReasoningEffort::None) {
                Some(if can_disable { 0 } else { i64::from(min) })
            } else if let Some(b) = reasoning.budget_tokens {
                Some(i64::from(b.clamp(min, max)))
            } else if reasoning.thinking == Some(ThinkingMode::Adaptive) {
                Some(-1)
            } else {
                reasoning.effort.map(|e| i64::from(effort_budget(e).clamp(min, max)))
            };
            if let Some(b) = budget {
                config.insert("thinkingBudget".into(), json!(b));
            }
        }
    }
    Some(Value::Object(config))
}

fn level_name(effort: ReasoningEffort) -> Option<&'static str> {
    Some(match effort {
        ReasoningEffort::None | ReasoningEffort::Minimal => "MINIMAL",
        ReasoningEffort::Low => "LOW",
        ReasoningEffort::Medium => "MEDIUM",
        ReasoningEffort::High => "HIGH",
        ReasoningEffort::Xhigh | ReasoningEffort::Max => "XHIGH",
        _ => return None,
    })
}

/// The thinking budget an effort stands for on budget-controlled (2.5) models.
fn effort_budget(effort: ReasoningEffort) -> u32 {
    match effort {
        ReasoningEffort::None => 0,
        ReasoningEffort::Minimal => 512,
        ReasoningEffort::Low => 1_024,
        ReasoningEffort::Medium => 8_192,
        ReasoningEffort::High => 24_576,
        _ => 32_768,
    }
}

fn encode_tool(tool: &ToolDefinition) -> Result<Value, SchemaError> {
    let mut m = Map::new();
    m.insert("name".into(), json!(tool.name));
    if !tool.description.is_empty() {
        m.insert("description".into(), json!(tool.description));
    }
    let schema = convert_schema(&tool.input_schema).map_err(|mut e| {
        e.tool = Some(tool.name.clone());
        e
    })?;
    // A function without parameters sends no schema at all.
    let empty = schema.get("properties").is_none_or(|p| p.as_object().is_some_and(Map::is_empty))
        && schema.as_object().is_some_and(|s| s.keys().all(|k| matches!(k.as_str(), "type" | "properties")));
    if !empty {
        m.insert("parametersJsonSchema".into(), schema);
    }
    Ok(Value::Object(m))
}

fn encode_tool_choice(choice: Option<&ToolChoice>) -> Option<Value> {
    Some(match choice? {
        ToolChoice::Auto => json!({"mode": "AUTO"}),
        ToolChoice::Any => json!({"mode": "ANY"}),
        ToolChoice::None => json!({"mode": "NONE"}),
        ToolChoice::Tool { name } => json!({"mode": "ANY", "allowedFunctionNames": [name]}),
        // A choice added to dive-core after this encoder: let the model decide.
        _ => json!({"mode": "AUTO"}),
    })
}

/// What every message needs to know about the rest of the history.
struct Ctx<'a> {
    files_base: &'a str,
    /// tool_use_id → (function name, position among its turn's calls, id to echo when Gemini
    /// gave one).
    calls: HashMap<String, (String, usize, Option<String>)>,
    multimodal_results: bool,
}

fn index_calls(messages: &[Message]) -> HashMap<String, (String, usize, Option<String>)> {
    let mut calls = HashMap::new();
    for message in messages.iter().filter(|m| m.role == Role::Assistant) {
        for (i, call) in message.tool_uses().enumerate() {
            let echo = call_id_from_api(call).then(|| call.id.clone());
            calls.insert(call.id.clone(), (call.name.clone(), i, echo));
        }
    }
    calls
}

fn encode_message(message: &Message, ctx: &Ctx<'_>, contents: &mut Vec<Value>) {
    let model = message.role == Role::Assistant;
    let mut results: Vec<(usize, &ToolResultContent)> = Vec::new();
    let mut parts = Vec::new();
    for block in &message.content {
        match block {
            Content::ToolResult(r) if !model => {
                results.push((ctx.calls.get(&r.tool_use_id).map_or(usize::MAX, |c| c.1), r));
            }
            other => parts.extend(encode_part(other, model, ctx)),
        }
    }
    if !results.is_empty() {
        results.sort_by_key(|(order, _)| *order);
        let mut lifted = Vec::new();
        let responses: Vec<Value> =
            results.iter().map(|(_, r)| function_response(r, ctx, &mut lifted)).collect();
        contents.push(json!({"role": "user", "parts": responses}));
        lifted.append(&mut parts);
        parts = lifted;
    }
    if !parts.is_empty() {
        contents.push(json!({"role": if model { "model" } else { "user" }, "parts": parts}));
    }
}

fn function_response(result: &ToolResultContent, ctx: &Ctx<'_>, lifted: &mut Vec<Value>) -> Value {
    let (name, id) = match ctx.calls.get(&result.tool_use_id) {
        Some((name, _, id)) => (name.clone(), id.clone()),
        // An orphan result (its call was trimmed from the history): its id is all we have.
        None => (result.tool_use_id.clone(), None),
    };
    let text = result.text_content();
    let key = if result.is_error { "error" } else { "output" };
    let mut response = json!({"name": name, "response": {key: text}});
    if let Some(id) = id {
        response["id"] = json!(id);
    }
    let media: Vec<Value> = result
        .content
        .iter()
        .filter(|c| matches!(c, Content::Image(_) | Content::Document(_) | Content::File(_)))
        .filter_map(|c| encode_part(c, false, ctx))
        .collect();
    if !media.is_empty() {
        if ctx.multimodal_results {
            response["parts"] = Value::Array(media);
        } else {
            lifted.push(json!({"text": format!("Media returned by the `{name}` function call:")}));
            lifted.extend(media);
        }
    }
    json!({"functionResponse": response})
}

fn with_signature(mut part: Value, meta: &Map<String, Value>, model: bool) -> Value {
    if model && let Some(sig) = signature(meta) {
        part["thoughtSignature"] = json!(sig);
    }
    part
}

/// One part on the wire, or `None` for blocks Gemini cannot take (another provider's
/// reasoning or server tools, empty text).
fn encode_part(block: &Content, model: bool, ctx: &Ctx<'_>) -> Option<Value> {
    Some(match block {
        Content::Text(t) => {
            if t.text.is_empty() && (!model || signature(&t.metadata).is_none()) {
                return None;
            }
            with_signature(json!({"text": t.text}), &t.metadata, model)
        }
        Content::Image(i) => media_part(&i.source, None, ctx)?,
        Content::Document(d) => match &d.source {
            MediaSource::Text { data, .. } => match &d.title {
                Some(title) => json!({"text": format!("{title}\n\n{data}")}),
                None => json!({"text": data}),
            },
            source => media_part(source, Some("application/pdf"), ctx)?,
        },
        Content::File(f) => file_data(&f.file_id, f.media_type.as_deref(), ctx),
        Content::ToolUse(t) => encode_call(t, model),
        Content::Thinking(t) if model && t.metadata.contains_key(GOOGLE) => {
            with_signature(json!({"text": t.thinking, "thought": true}), &t.metadata, model)
        }
        Content::Refusal(r) if model && !r.refusal.is_empty() => json!({"text": r.refusal}),
        Content::Reminder(r) => json!({"text": r.render()}),
        Content::ToolResult(r) => json!({"text": r.text_content()}),
        Content::Unknown(u) if u.kind() == Some(crate::meta::PART_KIND) => u.raw.get("part")?.clone(),
        _ => return None,
    })
}

fn encode_call(t: &ToolUse, model: bool) -> Value {
    let args = if t.input.is_object() { t.input.clone() } else { json!({}) };
    let mut call = json!({"name": t.name, "args": args});
    if call_id_from_api(t) {
        call["id"] = json!(t.id);
    }
    with_signature(json!({"functionCall": call}), &t.metadata, model)
}

fn media_part(source: &MediaSource, default_type: Option<&str>, ctx: &Ctx<'_>) -> Option<Value> {
    Some(match source {
        MediaSource::Base64 { media_type, data } => {
            json!({"inlineData": {"mimeType": media_type, "data": data}})
        }
        MediaSource::Url { url } => {
            let guessed = guess_media_type(url).or(default_type);
            let mut data = json!({"fileUri": url});
            if let Some(t) = guessed {
                data["mimeType"] = json!(t);
            }
            json!({"fileData": data})
        }
        MediaSource::File { file_id } => file_data(file_id, default_type, ctx),
        MediaSource::Text { data, .. } => json!({"text": data}),
        _ => return None,
    })
}

fn file_data(file_id: &str, media_type: Option<&str>, ctx: &Ctx<'_>) -> Value {
    let uri = if file_id.starts_with("files/") {
        format!("{}/{file_id}", ctx.files_base)
    } else {
        file_id.to_owned()
    };
    let mut data = json!({"fileUri": uri});
    if let Some(t) = media_type.or_else(|| guess_media_type(file_id)) {
        data["mimeType"] = json!(t);
    }
    json!({"fileData": data})
}

/// The MIME type of a URL from its extension, for the common media Gemini takes.
fn guess_media_type(url: &str) -> Option<&'static str> {
    let path = url.split(['?', '#']).next().unwrap_or(url);
    let ext = path.rsplit_once('.').map(|(_, e)| e.to_ascii_lowercase())?;
    Some(match ext.as_str() {
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "webp" => "image/webp",
        "gif" => "image/gif",
        "heic" => "image/heic",
        "pdf" => "application/pdf",
        "txt" => "text/plain",
        "md" => "text/markdown",
        "html" => "text/html",
        "csv" => "text/csv",
        "mp3" => "audio/mpeg",
        "wav" => "audio/wav",
        "mp4" => "video/mp4",
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn media_types_from_urls() {
        assert_eq!(guess_media_type("https://x/a.PDF?sig=1"), Some("application/pdf"));
        assert_eq!(guess_media_type("gs://b/c.jpeg"), Some("image/jpeg"));
        assert_eq!(guess_media_type("https://x/noext"), None);
    }

    #[test]
    fn effort_maps_to_levels_and_budgets() {
        let req = |e| ModelRequest::new(vec![]).with_reasoning(dive_core::Reasoning::effort(e));
        let cfg = |r: &ModelRequest, m| thinking_config(r, m).unwrap();
        assert_eq!(cfg(&req(ReasoningEffort::Medium), "gemini-3-pro-preview")["thinkingLevel"], "LOW");
        assert_eq!(cfg(&req(ReasoningEffort::Medium), "gemini-3.5-flash")["thinkingLevel"], "MEDIUM");
        assert_eq!(cfg(&req(ReasoningEffort::None), "gemini-3.5-flash")["thinkingLevel"], "MINIMAL");
        assert_eq!(cfg(&req(ReasoningEffort::None), "gemini-2.5-flash")["thinkingBudget"], 0);
        assert_eq!(cfg(&req(ReasoningEffort::None), "gemini-2.5-pro")["thinkingBudget"], 128);
        assert_eq!(cfg(&req(ReasoningEffort::Max), "gemini-2.5-flash")["thinkingBudget"], 24_576);
        let adaptive = ModelRequest::new(vec![]).with_reasoning(dive_core::Reasoning::adaptive());
        assert_eq!(cfg(&adaptive, "gemini-2.5-flash")["thinkingBudget"], -1);
        assert_eq!(cfg(&adaptive, "gemini-2.5-flash")["includeThoughts"], true);
    }
}
