//! Write policies that need to await something: [`AsyncWritePolicy`] and [`LlmJudge`], a
//! model that decides what a run leaves in long-term memory. The synchronous ones
//! ([`StoreAlways`](dive_core::StoreAlways), [`MinLength`](dive_core::MinLength), any
//! closure) are dive-core's [`WritePolicy`](dive_core::WritePolicy).

use std::sync::Arc;

use dive_core::{BoxFuture, Llm, MemoryError, Message, ModelRequest};
use serde::Deserialize;

use crate::text::render;

/// Decides, asynchronously, what a finished run writes to long-term memory: `None` stores
/// nothing, `Some` stores exactly what it returns.
pub trait AsyncWritePolicy: Send + Sync {
    /// The messages to store for this prompt and answer.
    fn decide<'a>(
        &'a self,
        prompt: &'a Message,
        answer: &'a Message,
    ) -> BoxFuture<'a, Result<Option<Vec<Message>>, MemoryError>>;
}

/// The judge's answer was not the JSON it was asked for.
#[derive(Debug, thiserror::Error)]
#[error("the memory judge did not answer with {{\"save\": bool, \"memory\": string}}: {answer:?}")]
#[non_exhaustive]
pub struct JudgeError {
    /// What it answered.
    pub answer: String,
}

const INSTRUCTIONS: &str = "You decide what an assistant remembers across conversations. You are shown one \
exchange. Keep it only if it holds something worth knowing in a later conversation: facts about the user, \
their preferences, decisions, names, commitments. Do not keep small talk, one-off questions or things anyone \
could look up. Answer with JSON only: {\"save\": true or false, \"memory\": \"the fact in one short sentence, \
or an empty string\"}.";

#[derive(Deserialize)]
struct Verdict {
    save: bool,
    #[serde(default)]
    memory: String,
}

/// A model as a judge: it is shown the exchange and answers `{"save": bool, "memory": "…"}`.
/// A saved exchange is stored as it was (both messages, roles and blocks kept), or, with
/// [`condensed`](Self::condensed), as the judge's one-sentence memory (an assistant
/// message).
///
/// ```
/// use dive_core::{Message, ModelResponse};
/// use dive_memory::{AsyncWritePolicy, LlmJudge};
/// use dive_test::ScriptedModel;
/// # futures::executor::block_on(async {
/// let judge = LlmJudge::new(ScriptedModel::new([ModelResponse::text(r#"{"save": true, "memory": "Ada prefers tea."}"#)])).condensed();
/// let kept = judge.decide(&Message::user("I prefer tea"), &Message::assistant("Noted!")).await.unwrap();
/// assert_eq!(kept.unwrap()[0].text(), "Ada prefers tea.");
/// # });
/// ```
#[derive(Clone)]
pub struct LlmJudge {
    model: Arc<dyn Llm>,
    instructions: String,
    condensed: bool,
}

impl std::fmt::Debug for LlmJudge {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LlmJudge")
            .field("model", &self.model.model())
            .field("condensed", &self.condensed)
            .finish()
    }
}

impl LlmJudge {
    /// A judge on this model with the default instructions.
    pub fn new(model: impl Llm + 'static) -> Self {
        Self { model: Arc::new(model), instructions: INSTRUCTIONS.to_owned(), condensed: false }
    }

    /// Replaces the instructions (they must still ask for the JSON answer).
    #[must_use]
    pub fn with_instructions(mut self, instructions: impl Into<String>) -> Self {
        self.instructions = instructions.into();
        self
    }

    /// Stores the judge's condensed memory instead of the exchange.
    #[must_use]
    pub fn condensed(mut self) -> Self {
        self.condensed = true;
        self
    }
}

/// The JSON object in a model's answer (tolerating a code fence or words around it).
fn parse(answer: &str) -> Option<Verdict> {
    let start = answer.find('{')?;
    let end = answer.rfind('}')?;
    serde_json::from_str(answer.get(start..=end)?).ok()
}

impl AsyncWritePolicy for LlmJudge {
    fn decide<'a>(
        &'a self,
        prompt: &'a Message,
        answer: &'a Message,
    ) -> BoxFuture<'a, Result<Option<Vec<Message>>, MemoryError>> {
        Box::pin(async move {
            let exchange =
                format!("<user>\n{}\n</user>\n<assistant>\n{}\n</assistant>", render(prompt), render(answer));
            let request =
                ModelRequest::new(vec![Message::user(exchange)]).with_system(self.instructions.clone());
            let response =
                self.model.generate(request).await.map_err(|e| MemoryError::Backend(Box::new(e)))?;
            let text = response.text_content();
            let verdict = parse(&text)
                .ok_or_else(|| MemoryError::Backend(Box::new(JudgeError { answer: text.clone() })))?;
            if !verdict.save {
                return Ok(None);
            }
            if self.condensed && !verdict.memory.trim().is_empty() {
                return Ok(Some(vec![Message::assistant(verdict.memory.trim())]));
            }
            Ok(Some(vec![prompt.clone(), answer.clone()]))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_fenced_and_bare_answers() {
        assert!(parse("```json\n{\"save\": false}\n```").is_some_and(|v| !v.save));
        assert!(parse("{\"save\": true, \"memory\": \"x\"}").is_some_and(|v| v.save && v.memory == "x"));
        assert!(parse("yes, keep it").is_none());
    }
}
