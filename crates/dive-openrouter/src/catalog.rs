//! A small catalog of OpenRouter model ids with OpenRouter's list prices (US dollars per
//! million tokens, openrouter.ai/models, 2026-12). OpenRouter reports the cost of each call
//! itself, which wins; these prices are a fallback and context windows inform compaction.
//! Any other `org/model` id works without an entry.

use std::sync::LazyLock;

use dive_core::{ModelInfo, Pricing, find_model};

/// The model used when none is given.
pub const DEFAULT_MODEL: &str = "anthropic/claude-sonnet-5";

fn model(id: &'static str, context: u64, output: u64, input: f64, out: f64) -> ModelInfo {
    ModelInfo::new(id, "openrouter", context, output).with_pricing(Pricing::new(input, out))
}

/// Known models.
pub static MODELS: LazyLock<Vec<ModelInfo>> = LazyLock::new(|| {
    vec![
        model("anthropic/claude-sonnet-5", 1_000_000, 128_000, 2.0, 10.0).with_vision(),
        model("anthropic/claude-sonnet-4.5", 1_000_000, 64_000, 3.0, 15.0).with_vision(),
        model("openai/gpt-5", 400_000, 128_000, 1.25, 10.0).with_vision(),
        model("google/gemini-2.5-pro", 1_048_576, 65_536, 1.25, 10.0).with_vision(),
        model("google/gemini-2.5-flash", 1_048_576, 65_536, 0.3, 2.5).with_vision(),
        model("meta-llama/llama-4-maverick", 1_048_576, 16_384, 0.15, 0.6).with_vision(),
        model("deepseek/deepseek-chat-v3.1", 163_840, 163_840, 0.2, 0.8),
        model("qwen/qwen3-coder", 262_144, 262_144, 0.22, 0.95),
        model("mistralai/mistral-medium-3.1", 131_072, 131_072, 0.4, 2.0).with_vision(),
    ]
});

/// Catalog information for `model`.
///
/// ```
/// assert!(dive_openrouter::model_info("openai/gpt-5").is_some());
/// assert!(dive_openrouter::model_info("some-org/unknown").is_none());
/// ```
#[must_use]
pub fn model_info(model: &str) -> Option<&'static ModelInfo> {
    find_model(&MODELS, model)
}
