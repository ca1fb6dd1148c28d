//! [`Summarize`]: the oldest part of the working set becomes one summary written by a model;
//! the newest messages stay as they are.

use std::sync::Arc;

use dive_core::{
    BoxFuture, CompactedWindow, CompactionError, CompactionRequest, CompactionStrategy, Llm, Message,
    ModelRequest, ToolChoice, join_messages,
};

/// What the summarising call is asked.
pub const DEFAULT_SUMMARY_PROMPT: &str = "Summarise this conversation so far for yourself: the goal, decisions, files touched, and what is left. Be concise.";

/// The line the summary message starts with.
pub const SUMMARY_PREFIX: &str = "Summary of the conversation so far:";

/// A summary by a model of everything but the newest messages (at least `keep_recent`, more
/// when needed so that no tool call is parted from its result). Custom instructions (a
/// `/compact` argument, a PreCompact hook's) are added to the prompt.
///
/// ```
/// # tokio_test_block_on(async {
/// use dive_agent::Summarize;
/// use dive_core::{CompactionRequest, CompactionStrategy, CompactionTrigger, Message, ModelResponse};
/// use dive_test::ScriptedModel;
/// let model = ScriptedModel::new([ModelResponse::text("They said hello.")]);
/// let messages = vec![Message::user("hello"), Message::assistant("hi"), Message::user("what now?")];
/// let request = CompactionRequest::new(messages, CompactionTrigger::Manual);
/// let window = Summarize::new(model).compact(&request).await.unwrap().unwrap().messages;
/// assert_eq!(window.len(), 1);
/// assert!(window[0].text().contains("They said hello.") && window[0].text().ends_with("what now?"));
/// # });
/// # fn tokio_test_block_on<F: std::future::Future>(f: F) -> F::Output {
/// #     tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(f)
/// # }
/// ```
#[derive(Clone)]
pub struct Summarize {
    model: Arc<dyn Llm>,
    prompt: String,
    instructions: Option<String>,
    keep_recent: usize,
    max_tokens: Option<u32>,
}

impl std::fmt::Debug for Summarize {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Summarize")
            .field("model", &self.model.model())
            .field("keep_recent", &self.keep_recent)
            .finish_non_exhaustive()
    }
}

impl Summarize {
    /// Summarises with `model` (any [`Llm`], or an `Arc<dyn Llm>` already shared), keeping
    /// the newest message.
    #[must_use]
    pub fn new(model: impl Llm + 'static) -> Self {
        Self::shared(Arc::new(model))
    }

    /// Summarises with a shared model.
    #[must_use]
    pub fn shared(model: Arc<dyn Llm>) -> Self {
        Self {
            model,
            prompt: DEFAULT_SUMMARY_PROMPT.to_owned(),
            instructions: None,
            keep_recent: 1,
            max_tokens: None,
        }
    }

    /// Replaces the summarising prompt.
    #[must_use]
    pub fn prompt(mut self, prompt: impl Into<String>) -> Self {
        self.prompt = prompt.into();
        self
    }

    /// Custom instructions added to the prompt (a request's own come after them).
    #[must_use]
    pub fn instructions(mut self, instructions: impl Into<String>) -> Self {
        self.instructions = Some(instructions.into());
        self
    }

    /// Keeps at least the newest `n` messages out of the summary (default 1).
    #[must_use]
    pub fn keep_recent(mut self, n: usize) -> Self {
        self.keep_recent = n;
        self
    }

    /// Bounds the summary's length.
    #[must_use]
    pub fn max_tokens(mut self, tokens: u32) -> Self {
        self.max_tokens = Some(tokens);
        self
    }

    fn prompt_for(&self, request: &CompactionRequest) -> String {
        let mut prompt = self.prompt.clone();
        for extra in [self.instructions.as_deref(), request.instructions.as_deref()].into_iter().flatten() {
            if !extra.trim().is_empty() {
                prompt.push_str("\n\nAdditional instructions: ");
                prompt.push_str(extra.trim());
            }
        }
        prompt
    }

    async fn summarise(
        &self,
        request: &CompactionRequest,
    ) -> Result<Option<CompactedWindow>, CompactionError> {
        let messages = &request.messages;
        let Some(cut) = super::oldest_cut(messages, self.keep_recent) else { return Ok(None) };
        let asked = join_messages(messages[..cut].to_vec(), vec![Message::user(self.prompt_for(request))]);
        // The tools go along (a history with tool calls needs their definitions on some APIs),
        // but the summarising call may not use them.
        let mut call = ModelRequest::new(asked);
        if !request.tools.is_empty() {
            call = call.with_tools(Arc::clone(&request.tools)).with_tool_choice(ToolChoice::None);
        }
        if !request.system_prompt.is_empty() {
            call = call.with_system(request.system_prompt.clone());
        }
        call.max_tokens = self.max_tokens;
        let response = self.model.generate(call).await.map_err(CompactionError::Model)?;
        let text = response.text_content();
        if text.trim().is_empty() {
            return Err(CompactionError::Failed("the summarising model returned no text".into()));
        }
        let summary = Message::user(format!("{SUMMARY_PREFIX}\n{text}"));
        let window = join_messages(vec![summary], messages[cut..].to_vec());
        Ok(Some(CompactedWindow::new(window).with_usage(response.usage)))
    }
}

impl CompactionStrategy for Summarize {
    fn name(&self) -> &str {
        "summarize"
    }

    fn compact<'a>(
        &'a self,
        request: &'a CompactionRequest,
    ) -> BoxFuture<'a, Result<Option<CompactedWindow>, CompactionError>> {
        Box::pin(self.summarise(request))
    }
}
