//! A small catalog of popular Ollama models: context windows as published on ollama.com
//! (2026-12). Local models have no price, so `Usage::cost` stays unknown (`None`); a model
//! missing here works all the same.

use std::sync::LazyLock;

use dive_core::{ModelInfo, ReasoningEffort as E, find_model};

/// The model used when none is given (as in Dive's Go provider).
pub const DEFAULT_MODEL: &str = "gpt-oss:20b";

const GPT_OSS_EFFORTS: &[E] = &[E::Low, E::Medium, E::High];

fn model(id: &'static str, context: u64) -> ModelInfo {
    ModelInfo::new(id, "ollama", context, context)
}

/// Known models. Tags (`qwen3:32b`) match their family (`qwen3`) through [`find_model`].
pub static MODELS: LazyLock<Vec<ModelInfo>> = LazyLock::new(|| {
    vec![
        model("gpt-oss", 131_072).with_efforts(GPT_OSS_EFFORTS),
        model("qwen3", 40_960),
        model("qwen3-coder", 262_144),
        model("deepseek-r1", 131_072),
        model("llama3.3", 131_072),
        model("llama3.2", 131_072),
        model("llama3.2-vision", 131_072).with_vision(),
        model("llama4", 10_485_760).with_vision(),
        model("gemma3", 131_072).with_vision(),
        model("mistral-small3.2", 131_072).with_vision(),
    ]
});

/// Catalog information for `model` (exact id, else the longest catalog id it starts with).
///
/// ```
/// let info = dive_ollama::model_info("qwen3:32b").unwrap();
/// assert_eq!(info.context_window, 40_960);
/// assert!(info.pricing.is_none());
/// ```
#[must_use]
pub fn model_info(model: &str) -> Option<&'static ModelInfo> {
    find_model(&MODELS, model)
}
