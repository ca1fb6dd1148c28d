//! [`TiktokenEstimator`] (feature `tiktoken`): exact token counts for OpenAI models with
//! tiktoken's encodings.

use dive_core::{MemoryError, Message};
use tiktoken_rs::CoreBPE;

use crate::tokens::{TokenEstimator, blocks_with};

/// Tokens per message for its role and framing, as OpenAI's chat format counts them.
const PER_MESSAGE: usize = 3;

/// Counts text with a tiktoken encoding (`o200k_base` for GPT-4o, GPT-4.1, o-series and
/// GPT-5; `cl100k_base` for GPT-4 and GPT-3.5), plus 3 tokens a message; images and binary
/// documents are costed as [`HeuristicEstimator`](crate::HeuristicEstimator) does.
///
/// ```
/// use dive_core::Message;
/// use dive_memory::{TiktokenEstimator, TokenEstimator};
/// let tokens = TiktokenEstimator::for_model("gpt-4o").unwrap();
/// assert_eq!(tokens.message_tokens(&Message::user("hello world")), 3 + 2);
/// ```
#[derive(Clone, Copy)]
pub struct TiktokenEstimator {
    bpe: &'static CoreBPE,
    encoding: &'static str,
}

impl std::fmt::Debug for TiktokenEstimator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TiktokenEstimator").field("encoding", &self.encoding).finish()
    }
}

impl TiktokenEstimator {
    /// The encoding OpenAI uses for `model` (`gpt-4o`, `gpt-4.1-mini`, `o3`, `gpt-3.5-turbo`, …).
    ///
    /// # Errors
    /// [`MemoryError::Embedding`] naming the model when tiktoken knows no encoding for it.
    pub fn for_model(model: &str) -> Result<Self, MemoryError> {
        let encoding = tiktoken_rs::tokenizer::get_tokenizer(model).ok_or_else(|| {
            MemoryError::Embedding(format!("tiktoken knows no encoding for model {model:?}"))
        })?;
        use tiktoken_rs::tokenizer::Tokenizer;
        Ok(match encoding {
            Tokenizer::O200kBase => Self::o200k(),
            Tokenizer::O200kHarmony => {
                Self { bpe: tiktoken_rs::o200k_harmony_singleton(), encoding: "o200k_harmony" }
            }
            Tokenizer::Cl100kBase => Self::cl100k(),
            Tokenizer::P50kBase | Tokenizer::P50kEdit => {
                Self { bpe: tiktoken_rs::p50k_base_singleton(), encoding: "p50k_base" }
            }
            Tokenizer::R50kBase | Tokenizer::Gpt2 => {
                Self { bpe: tiktoken_rs::r50k_base_singleton(), encoding: "r50k_base" }
            }
        })
    }

    /// `o200k_base`.
    #[must_use]
    pub fn o200k() -> Self {
        Self { bpe: tiktoken_rs::o200k_base_singleton(), encoding: "o200k_base" }
    }

    /// `cl100k_base`.
    #[must_use]
    pub fn cl100k() -> Self {
        Self { bpe: tiktoken_rs::cl100k_base_singleton(), encoding: "cl100k_base" }
    }

    /// The encoding's name.
    #[must_use]
    pub fn encoding(&self) -> &'static str {
        self.encoding
    }

    /// Tokens of a text.
    #[must_use]
    pub fn text_tokens(&self, text: &str) -> usize {
        self.bpe.encode_ordinary(text).len()
    }
}

impl TokenEstimator for TiktokenEstimator {
    fn message_tokens(&self, message: &Message) -> usize {
        PER_MESSAGE + blocks_with(&message.content, &|t| self.text_tokens(t))
    }
}
