//! The Gemini model catalog: ids, context windows, output limits, prices (US dollars per
//! million tokens; cache reads at Google's context-caching rate, no cache-write charge since
//! Gemini's implicit caching has none) and how each model controls thinking.
//!
//! 2.5 and 3-series figures are Google's published prices for the Gemini API (paid tier);
//! the 3.5 entries carry the 3-series preview prices until Google's price list is checked
//! against them (see the providers guide).

use std::sync::LazyLock;

use dive_core::{ModelInfo, Pricing, ReasoningEffort as E, find_model};

/// The model used when none is given.
pub const DEFAULT_MODEL: &str = "gemini-3.5-flash";

/// How a model takes its thinking setting.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ThinkingControl {
    /// `thinkingLevel` (Gemini 3 and later): the efforts in [`ModelInfo::reasoning_efforts`].
    Level,
    /// `thinkingBudget` in tokens (Gemini 2.5): `min..=max`, and `0` when `can_disable`.
    Budget {
        /// The smallest budget the model accepts.
        min: u32,
        /// The largest budget the model accepts.
        max: u32,
        /// Whether `0` (no thinking) is accepted.
        can_disable: bool,
    },
}

const LEVELS_PRO: &[E] = &[E::Low, E::High];
const LEVELS_FLASH: &[E] = &[E::Minimal, E::Low, E::Medium, E::High];

fn model(id: &'static str, output: u64, input_price: f64, output_price: f64, cache: f64) -> ModelInfo {
    ModelInfo::new(id, "google", 1_048_576, output)
        .with_pricing(Pricing::new(input_price, output_price).with_cache(cache, input_price))
        .with_vision()
}

/// A Pro model: prices double past 200k prompt tokens.
fn pro(id: &'static str, output: u64, prices: [f64; 3], long: [f64; 3]) -> ModelInfo {
    let long = Pricing::new(long[0], long[1]).with_cache(long[2], long[0]);
    let mut info = model(id, output, prices[0], prices[1], prices[2]);
    info.pricing = info.pricing.take().map(|p| p.with_long_context(200_000, long));
    info
}

/// Every model this version knows. Dated or suffixed ids (`gemini-2.5-flash-preview-09-2025`)
/// match their base id through [`find_model`].
pub static MODELS: LazyLock<Vec<ModelInfo>> = LazyLock::new(|| {
    vec![
        pro("gemini-3.5-pro", 65_536, [2.0, 12.0, 0.20], [4.0, 18.0, 0.40]).with_efforts(LEVELS_PRO),
        model("gemini-3.5-flash", 65_536, 0.50, 3.0, 0.05).with_efforts(LEVELS_FLASH),
        pro("gemini-3-pro-preview", 65_536, [2.0, 12.0, 0.20], [4.0, 18.0, 0.40]).with_efforts(LEVELS_PRO),
        model("gemini-3-flash-preview", 65_536, 0.50, 3.0, 0.05).with_efforts(LEVELS_FLASH),
        pro("gemini-2.5-pro", 65_536, [1.25, 10.0, 0.125], [2.50, 15.0, 0.25]),
        model("gemini-2.5-flash", 65_536, 0.30, 2.50, 0.03),
        model("gemini-2.5-flash-lite", 65_536, 0.10, 0.40, 0.01),
    ]
});

/// Catalog information for `model` (exact id, else the longest catalog id it starts with;
/// a `models/` prefix is ignored).
///
/// ```
/// let info = dive_google::model_info("models/gemini-2.5-flash-preview-09-2025").unwrap();
/// assert_eq!(info.id, "gemini-2.5-flash");
/// assert_eq!(info.context_window, 1_048_576);
/// ```
#[must_use]
pub fn model_info(model: &str) -> Option<&'static ModelInfo> {
    find_model(&MODELS, model.strip_prefix("models/").unwrap_or(model))
}

/// How `model` takes its thinking setting: a level for Gemini 3 and later (and unknown
/// future ids), a token budget for Gemini 2.x.
///
/// ```
/// use dive_google::{ThinkingControl, thinking_control};
/// assert_eq!(thinking_control("gemini-3.5-flash"), ThinkingControl::Level);
/// assert!(matches!(thinking_control("gemini-2.5-pro"), ThinkingControl::Budget { can_disable: false, .. }));
/// ```
#[must_use]
pub fn thinking_control(model: &str) -> ThinkingControl {
    let id = model.strip_prefix("models/").unwrap_or(model);
    if !id.starts_with("gemini-2") && !id.starts_with("gemini-1") {
        return ThinkingControl::Level;
    }
    if id.starts_with("gemini-2.5-pro") {
        ThinkingControl::Budget { min: 128, max: 32_768, can_disable: false }
    } else if id.starts_with("gemini-2.5-flash-lite") {
        ThinkingControl::Budget { min: 512, max: 24_576, can_disable: true }
    } else {
        ThinkingControl::Budget { min: 1, max: 24_576, can_disable: true }
    }
}

/// Whether `model` takes images and documents inside function responses
/// (`functionResponse.parts`, Gemini 3 and later); older models get them lifted into
/// ordinary parts after the function responses.
#[must_use]
pub fn supports_multimodal_function_response(model: &str) -> bool {
    thinking_control(model) == ThinkingControl::Level
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_context_prices_apply_past_200k() {
        let pricing = model_info("gemini-2.5-pro").unwrap().pricing.clone().unwrap();
        let small = dive_core::Usage::new(100_000, 0);
        let big = dive_core::Usage::new(300_000, 0);
        assert!((pricing.cost_of(&small).total - 0.125).abs() < 1e-9);
        assert!((pricing.cost_of(&big).total - 0.75).abs() < 1e-9);
    }

    #[test]
    fn controls_by_generation() {
        assert_eq!(thinking_control("gemini-3-pro-preview"), ThinkingControl::Level);
        assert!(matches!(
            thinking_control("gemini-2.5-flash"),
            ThinkingControl::Budget { can_disable: true, .. }
        ));
        assert!(!supports_multimodal_function_response("gemini-2.5-flash"));
        assert!(supports_multimodal_function_response("gemini-3.5-pro"));
    }
}
