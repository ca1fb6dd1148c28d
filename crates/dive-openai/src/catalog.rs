//! The OpenAI model catalog: ids, context windows, output limits and prices (US dollars per
//! million tokens; cache reads at the published cached-input rate; OpenAI bills no cache
//! writes). Figures as listed on OpenAI's pricing page in 2026-12; check them before
//! making billing decisions.

use std::sync::LazyLock;

use dive_core::{ModelInfo, Pricing, ReasoningEffort as E, find_model};

/// The model used when none is given (Responses API).
pub const DEFAULT_MODEL: &str = "gpt-6-luna";
/// The model used when none is given (Chat Completions).
pub const DEFAULT_CHAT_MODEL: &str = "gpt-5.5";

const GPT5_EFFORTS: &[E] = &[E::None, E::Minimal, E::Low, E::Medium, E::High, E::Xhigh];
const O_EFFORTS: &[E] = &[E::Low, E::Medium, E::High];

fn model(
    id: &'static str,
    context: u64,
    output: u64,
    input: f64,
    cached: f64,
    output_price: f64,
) -> ModelInfo {
    ModelInfo::new(id, "openai", context, output)
        .with_pricing(Pricing::new(input, output_price).with_cache(cached, input))
        .with_vision()
}

/// Every model this version knows. Dated snapshots (`gpt-4.1-2025-04-14`) match their base id
/// through [`find_model`].
pub static MODELS: LazyLock<Vec<ModelInfo>> = LazyLock::new(|| {
    vec![
        model("gpt-6-luna", 1_050_000, 128_000, 2.5, 0.25, 15.0).with_efforts(GPT5_EFFORTS),
        model("gpt-5.6-sol", 1_050_000, 128_000, 2.0, 0.20, 12.0).with_efforts(GPT5_EFFORTS),
        model("gpt-5.5", 400_000, 128_000, 1.25, 0.125, 10.0).with_efforts(GPT5_EFFORTS),
        model("gpt-5.4", 400_000, 128_000, 1.25, 0.125, 10.0).with_efforts(GPT5_EFFORTS),
        model("gpt-5-mini", 400_000, 128_000, 0.25, 0.025, 2.0).with_efforts(GPT5_EFFORTS),
        model("gpt-5-nano", 400_000, 128_000, 0.05, 0.005, 0.40).with_efforts(GPT5_EFFORTS),
        model("gpt-5-codex", 400_000, 128_000, 1.25, 0.125, 10.0).with_efforts(GPT5_EFFORTS),
        model("gpt-5", 400_000, 128_000, 1.25, 0.125, 10.0).with_efforts(GPT5_EFFORTS),
        model("gpt-4.1-mini", 1_047_576, 32_768, 0.40, 0.10, 1.60),
        model("gpt-4.1-nano", 1_047_576, 32_768, 0.10, 0.025, 0.40),
        model("gpt-4.1", 1_047_576, 32_768, 2.0, 0.50, 8.0),
        model("gpt-4o-mini", 128_000, 16_384, 0.15, 0.075, 0.60),
        model("gpt-4o", 128_000, 16_384, 2.5, 1.25, 10.0),
        model("o4-mini", 200_000, 100_000, 1.10, 0.275, 4.40).with_efforts(O_EFFORTS),
        model("o3-mini", 200_000, 100_000, 1.10, 0.55, 4.40).with_efforts(O_EFFORTS),
        model("o3", 200_000, 100_000, 2.0, 0.50, 8.0).with_efforts(O_EFFORTS),
        model("codex-mini-latest", 200_000, 100_000, 1.50, 0.375, 6.0).with_efforts(O_EFFORTS),
    ]
});

/// Catalog information for `model` (exact id, else the longest catalog id it starts with).
///
/// ```
/// let info = dive_openai::model_info("gpt-4.1-2025-04-14").unwrap();
/// assert_eq!(info.id, "gpt-4.1");
/// assert!(dive_openai::model_info("gpt-4.1-mini").unwrap().context_window > 1_000_000);
/// ```
#[must_use]
pub fn model_info(model: &str) -> Option<&'static ModelInfo> {
    find_model(&MODELS, model)
}

/// Whether the model reasons (takes `reasoning` settings and returns reasoning items).
#[must_use]
pub fn is_reasoning_model(model: &str) -> bool {
    let id = model.rsplit('/').next().unwrap_or(model);
    id.starts_with("gpt-5") || id.starts_with("gpt-6") || id.starts_with('o') || id.starts_with("codex")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lookups_and_reasoning() {
        assert_eq!(model_info("gpt-5-mini-2025-08-07").unwrap().id, "gpt-5-mini");
        assert_eq!(model_info("gpt-5.5").unwrap().context_window, 400_000);
        assert!(model_info("text-davinci-003").is_none());
        assert!(is_reasoning_model("o4-mini") && is_reasoning_model("gpt-6-luna"));
        assert!(!is_reasoning_model("gpt-4.1"));
    }
}
