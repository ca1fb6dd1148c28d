//! The xAI model catalog: context windows and prices (US dollars per million tokens; cached
//! input at a quarter of the input price) as published on docs.x.ai in 2026-12.

use std::sync::LazyLock;

use dive_core::{ModelInfo, Pricing, find_model};

/// The model used when none is given.
pub const DEFAULT_MODEL: &str = "grok-4";

fn model(id: &'static str, context: u64, input: f64, output: f64) -> ModelInfo {
    ModelInfo::new(id, "grok", context, context)
        .with_pricing(Pricing::new(input, output).with_cache(input / 4.0, input))
}

/// Known models; dated versions (`grok-4-0709`) match their family through [`find_model`].
pub static MODELS: LazyLock<Vec<ModelInfo>> = LazyLock::new(|| {
    vec![
        model("grok-4", 256_000, 3.0, 15.0).with_vision(),
        model("grok-4-fast", 2_000_000, 0.2, 0.5).with_vision(),
        model("grok-code-fast-1", 256_000, 0.2, 1.5),
        model("grok-3", 131_072, 3.0, 15.0),
        model("grok-3-mini", 131_072, 0.3, 0.5),
    ]
});

/// Catalog information for `model`.
///
/// ```
/// assert_eq!(dive_grok::model_info("grok-4-0709").unwrap().context_window, 256_000);
/// ```
#[must_use]
pub fn model_info(model: &str) -> Option<&'static ModelInfo> {
    find_model(&MODELS, model)
}
