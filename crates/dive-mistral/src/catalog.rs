//! The Mistral model catalog: context windows, output limits and prices (US dollars per
//! million tokens) as published on mistral.ai/pricing in 2026-12. `-latest` aliases and
//! dated versions (`mistral-medium-2508`) match their family through [`find_model`].

use std::sync::LazyLock;

use dive_core::{ModelInfo, Pricing, ReasoningEffort as E, find_model};

/// The model used when none is given.
pub const DEFAULT_MODEL: &str = "mistral-medium-latest";

const EFFORTS: &[E] = &[E::None, E::Low, E::Medium, E::High];

fn model(id: &'static str, context: u64, input: f64, output: f64) -> ModelInfo {
    ModelInfo::new(id, "mistral", context, context).with_pricing(Pricing::new(input, output))
}

/// Known models.
pub static MODELS: LazyLock<Vec<ModelInfo>> = LazyLock::new(|| {
    vec![
        model("mistral-large", 131_072, 2.0, 6.0).with_vision(),
        model("mistral-medium", 131_072, 0.4, 2.0).with_vision(),
        model("mistral-small", 131_072, 0.1, 0.3).with_vision(),
        model("magistral-medium", 40_960, 2.0, 5.0).with_efforts(EFFORTS),
        model("magistral-small", 40_960, 0.5, 1.5).with_efforts(EFFORTS),
        model("codestral", 262_144, 0.3, 0.9),
        model("devstral-medium", 131_072, 0.4, 2.0),
        model("devstral-small", 131_072, 0.1, 0.3),
        model("ministral-8b", 131_072, 0.1, 0.1),
        model("ministral-3b", 131_072, 0.04, 0.04),
        model("pixtral-large", 131_072, 2.0, 6.0).with_vision(),
    ]
});

/// Catalog information for `model`.
///
/// ```
/// let info = dive_mistral::model_info("mistral-medium-latest").unwrap();
/// assert_eq!(info.context_window, 131_072);
/// ```
#[must_use]
pub fn model_info(model: &str) -> Option<&'static ModelInfo> {
    find_model(&MODELS, model)
}
