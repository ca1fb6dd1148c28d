//! [`Dialect`] and [`BodyHook`]: the small wire differences between OpenAI and a vendor
//! speaking one of its formats (roles, field names, reasoning shapes, finish reasons, keys
//! the vendor rejects, a last edit of the body).

use std::fmt;
use std::sync::Arc;

use dive_core::{ModelRequest, ReminderStyle, Role};
use serde_json::{Map, Value};

/// A function that edits the JSON body just before it is sent (after every built-in rule).
/// The `tools` array is not in the map it edits: a provider sends it pre-encoded, built once
/// per tool list ([`ToolCache`](crate::ToolCache)).
///
/// ```
/// use dive_openai_wire::BodyHook;
/// let hook = BodyHook::new(|_request, body| {
///     body.insert("safe_prompt".into(), serde_json::json!(true));
/// });
/// # drop(hook);
/// ```
#[derive(Clone)]
pub struct BodyHook(Arc<BodyEdit>);

type BodyEdit = dyn Fn(&ModelRequest, &mut Map<String, Value>) + Send + Sync;

impl BodyHook {
    /// Wraps a closure.
    pub fn new(f: impl Fn(&ModelRequest, &mut Map<String, Value>) + Send + Sync + 'static) -> Self {
        Self(Arc::new(f))
    }

    /// Runs the hook.
    pub fn apply(&self, request: &ModelRequest, body: &mut Map<String, Value>) {
        (self.0)(request, body);
    }
}

impl fmt::Debug for BodyHook {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("BodyHook(..)")
    }
}

/// Small wire differences between OpenAI and a compatible vendor.
///
/// [`Dialect::openai`] is OpenAI's own behaviour; [`Dialect::compatible`] is a conservative
/// default for third-party Chat Completions endpoints (no `developer` role, `max_tokens`,
/// reasoning text read from `reasoning_content` / `reasoning`). Adjust with the `with_*`
/// methods:
///
/// ```
/// use dive_openai_wire::Dialect;
/// // Mistral: `model_length` means the context window is full, and it rejects these keys.
/// let mistral = Dialect::compatible()
///     .with_stop_reasons(&[("model_length", "model_length")])
///     .with_unsupported(&["parallel_tool_calls", "service_tier", "prompt_cache_key"]);
/// assert_eq!(mistral.max_tokens_field, "max_tokens");
/// ```
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Dialect {
    /// Chat Completions: the role of the system prompt message (`system` or `developer`).
    pub system_role: Role,
    /// How reminders are rendered: operator reminders as `developer` messages on OpenAI's
    /// own endpoint, `<system-reminder>` user text elsewhere.
    pub reminders: ReminderStyle,
    /// Chat Completions: the output limit key (`max_completion_tokens` or `max_tokens`).
    pub max_tokens_field: &'static str,
    /// Chat Completions: ask for a final usage chunk when streaming (`stream_options`).
    pub stream_usage: bool,
    /// Chat Completions: message / delta fields holding reasoning text, read as thinking.
    pub reasoning_fields: &'static [&'static str],
    /// Chat Completions: the assistant-message field thinking text is replayed in, if any.
    pub replay_reasoning_field: Option<&'static str>,
    /// Chat Completions: replay thinking as typed `{"type": "thinking", "thinking": [{"type":
    /// "text", …}]}` chunks in the assistant's `content` array, the form Mistral's Magistral
    /// models answer in. (Such chunks are decoded for every dialect.)
    pub thinking_chunks: bool,
    /// Chat Completions: keep the `reasoning_details` array (OpenRouter) and replay it
    /// unmodified. Each detail becomes a thinking block (text, signature) holding the detail
    /// itself under `metadata[key].reasoning_detail`, `key` being this value.
    pub reasoning_details: Option<&'static str>,
    /// Raw finish reasons renamed before they reach [`ModelResponse::stop_reason`](dive_core::ModelResponse)
    /// (`(vendor value, dive value)`, matched case-insensitively). Unlisted values are kept.
    pub stop_reasons: &'static [(&'static str, &'static str)],
    /// Top-level body keys this vendor rejects; they are removed before sending.
    pub unsupported: &'static [&'static str],
    /// Read the usage cost field ([`Self::cost_field`], US dollars) as a provider-reported
    /// cost with this `Cost::source` label (OpenRouter, DeepInfra).
    pub reported_cost: Option<&'static str>,
    /// The `usage` field holding a reported cost: `cost` (OpenRouter), `estimated_cost`
    /// (DeepInfra).
    pub cost_field: &'static str,
    /// Chat Completions: send provider-native tools (`ToolDefinition::native`) verbatim in
    /// `tools`. When false (OpenAI), a `web_search` native tool becomes `web_search_options`
    /// and other native tools are left out.
    pub native_tools: bool,
    /// Responses API: the `store` flag (false: reasoning is replayed encrypted).
    pub store: bool,
    /// Responses API: ask for `reasoning.encrypted_content` so reasoning can be replayed.
    pub encrypted_reasoning: bool,
    /// Responses API: whether a model rejects sampling parameters (`temperature`, `top_p`),
    /// as OpenAI's reasoning models do; they are then left out. No model does by default.
    pub rejects_sampling: fn(&str) -> bool,
    /// A last edit of every body.
    pub body_hook: Option<BodyHook>,
    /// Whether the endpoint takes documents as file parts (Chat Completions `file`, Responses
    /// `input_file`: a PDF as base64 data or a file id). When false, such a document is refused
    /// with [`LlmErrorKind::UnsupportedContent`](dive_core::LlmErrorKind::UnsupportedContent)
    /// before sending; text and URL documents still go as text. OpenAI and OpenRouter: true.
    pub file_parts: bool,
    /// Responses API: the server compacts natively (`POST /responses/compact`, the
    /// `context_management` compaction entry). OpenAI only.
    pub native_compaction: bool,
}

fn accepts_sampling(_model: &str) -> bool {
    false
}

impl Dialect {
    /// OpenAI's own wire behaviour (the `dive-openai` crate adds which of its models reject
    /// sampling parameters).
    #[must_use]
    pub fn openai() -> Self {
        Self {
            system_role: Role::System,
            reminders: ReminderStyle::NativeRole(Role::Developer),
            max_tokens_field: "max_completion_tokens",
            stream_usage: true,
            reasoning_fields: &[],
            replay_reasoning_field: None,
            thinking_chunks: false,
            reasoning_details: None,
            stop_reasons: &[],
            unsupported: &[],
            reported_cost: None,
            cost_field: "cost",
            native_tools: false,
            store: false,
            encrypted_reasoning: true,
            rejects_sampling: accepts_sampling,
            body_hook: None,
            native_compaction: true,
            file_parts: true,
        }
    }

    /// A conservative default for OpenAI-compatible Chat Completions endpoints.
    #[must_use]
    pub fn compatible() -> Self {
        Self {
            reminders: ReminderStyle::UserText,
            max_tokens_field: "max_tokens",
            reasoning_fields: &["reasoning_content", "reasoning"],
            native_compaction: false,
            file_parts: false,
            ..Self::openai()
        }
    }

    /// Sets the role of the system prompt.
    #[must_use]
    pub fn with_system_role(mut self, role: Role) -> Self {
        self.system_role = role;
        self
    }

    /// Says whether the server compacts natively (Responses API: `POST /responses/compact`).
    #[must_use]
    pub fn with_native_compaction(mut self, native: bool) -> Self {
        self.native_compaction = native;
        self
    }

    /// Says whether the endpoint takes documents as file parts (see [`file_parts`](Self::file_parts)).
    #[must_use]
    pub fn with_file_parts(mut self, takes: bool) -> Self {
        self.file_parts = takes;
        self
    }

    /// Sets the reminder style.
    #[must_use]
    pub fn with_reminders(mut self, style: ReminderStyle) -> Self {
        self.reminders = style;
        self
    }

    /// Sets the output limit key.
    #[must_use]
    pub fn with_max_tokens_field(mut self, field: &'static str) -> Self {
        self.max_tokens_field = field;
        self
    }

    /// Asks (or not) for a usage chunk at the end of streams.
    #[must_use]
    pub fn with_stream_usage(mut self, on: bool) -> Self {
        self.stream_usage = on;
        self
    }

    /// Sets the fields read as reasoning text.
    #[must_use]
    pub fn with_reasoning_fields(mut self, fields: &'static [&'static str]) -> Self {
        self.reasoning_fields = fields;
        self
    }

    /// Replays thinking text in this assistant-message field.
    #[must_use]
    pub fn with_replay_reasoning_field(mut self, field: Option<&'static str>) -> Self {
        self.replay_reasoning_field = field;
        self
    }

    /// Replays (or not) thinking as typed `thinking` content chunks.
    #[must_use]
    pub fn with_thinking_chunks(mut self, on: bool) -> Self {
        self.thinking_chunks = on;
        self
    }

    /// Keeps `reasoning_details` under this metadata key and replays them (`None`: off).
    #[must_use]
    pub fn with_reasoning_details(mut self, key: Option<&'static str>) -> Self {
        self.reasoning_details = key;
        self
    }

    /// Sets finish-reason renames.
    #[must_use]
    pub fn with_stop_reasons(mut self, renames: &'static [(&'static str, &'static str)]) -> Self {
        self.stop_reasons = renames;
        self
    }

    /// Sets the body keys removed before sending.
    #[must_use]
    pub fn with_unsupported(mut self, keys: &'static [&'static str]) -> Self {
        self.unsupported = keys;
        self
    }

    /// Reads `usage.cost` as a provider-reported cost with this `Cost::source` label.
    #[must_use]
    pub fn with_reported_cost(mut self, source: Option<&'static str>) -> Self {
        self.reported_cost = source;
        self
    }

    /// Reads a reported cost from this `usage` field instead of `cost`.
    #[must_use]
    pub fn with_cost_field(mut self, field: &'static str) -> Self {
        self.cost_field = field;
        self
    }

    /// Sends (or not) native tools verbatim on Chat Completions.
    #[must_use]
    pub fn with_native_tools(mut self, on: bool) -> Self {
        self.native_tools = on;
        self
    }

    /// Sets the Responses API `store` flag.
    #[must_use]
    pub fn with_store(mut self, store: bool) -> Self {
        self.store = store;
        self
    }

    /// Asks (or not) for encrypted reasoning on the Responses API.
    #[must_use]
    pub fn with_encrypted_reasoning(mut self, on: bool) -> Self {
        self.encrypted_reasoning = on;
        self
    }

    /// Sets which models reject sampling parameters on the Responses API.
    #[must_use]
    pub fn with_rejects_sampling(mut self, rule: fn(&str) -> bool) -> Self {
        self.rejects_sampling = rule;
        self
    }

    /// Sets the body hook.
    #[must_use]
    pub fn with_body_hook(mut self, hook: BodyHook) -> Self {
        self.body_hook = Some(hook);
        self
    }

    /// The finish reason as Dive reports it: lowercased, renamed per [`Self::stop_reasons`].
    #[must_use]
    pub fn stop_reason(&self, raw: &str) -> String {
        let lower = raw.to_ascii_lowercase();
        self.stop_reasons
            .iter()
            .find(|(from, _)| from.eq_ignore_ascii_case(&lower))
            .map_or(lower, |(_, to)| (*to).to_owned())
    }
}

impl Default for Dialect {
    fn default() -> Self {
        Self::openai()
    }
}

/// Why `dialect`'s endpoint cannot take `block`: a document it would have to send as a file
/// part when it takes none. For `dive_provider::refuse_unsupported_content`.
pub(crate) fn cannot_take(dialect: &Dialect, block: &dive_core::Content) -> Option<String> {
    let dive_core::Content::Document(doc) = block else { return None };
    let as_file =
        matches!(doc.source, dive_core::MediaSource::Base64 { .. } | dive_core::MediaSource::File { .. });
    (as_file && !dialect.file_parts).then(|| {
        "this endpoint takes no file parts, so a PDF or file document cannot be sent; send its text \
         instead, or turn on Dialect::with_file_parts if the server takes them"
            .to_owned()
    })
}
