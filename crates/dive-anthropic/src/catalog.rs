//! The Anthropic model catalog: ids, context windows, output limits and prices (US dollars
//! per million tokens; cache writes at the 5-minute rate, 1.25× input; cache reads 0.1×
//! input). Figures as published on platform.claude.com in 2026-12.

use std::sync::LazyLock;

use dive_core::{ModelInfo, Pricing, ReasoningEffort as E, find_model};

/// The model used when none is given.
pub const DEFAULT_MODEL: &str = "claude-sonnet-5-5";

const EFFORTS: &[E] = &[E::Low, E::Medium, E::High, E::Xhigh, E::Max];
const EFFORTS_4X: &[E] = &[E::Low, E::Medium, E::High];

fn model(id: &'static str, context: u64, output: u64, input_price: f64, output_price: f64) -> ModelInfo {
    ModelInfo::new(id, "anthropic", context, output)
        .with_pricing(
            Pricing::new(input_price, output_price).with_cache(input_price * 0.1, input_price * 1.25),
        )
        .with_vision()
}

/// Every model this version knows. Dated snapshots (`claude-sonnet-4-5-20250929`) match their
/// base id through [`find_model`].
pub static MODELS: LazyLock<Vec<ModelInfo>> = LazyLock::new(|| {
    vec![
        model("claude-fable-5-2", 1_000_000, 128_000, 10.0, 50.0).with_efforts(EFFORTS),
        model("claude-fable-5-1", 1_000_000, 128_000, 10.0, 50.0).with_efforts(EFFORTS),
        model("claude-fable-5", 1_000_000, 128_000, 10.0, 50.0).with_efforts(EFFORTS),
        model("claude-mythos-5-2", 1_000_000, 128_000, 10.0, 50.0).with_efforts(EFFORTS),
        model("claude-mythos-5-1", 1_000_000, 128_000, 10.0, 50.0).with_efforts(EFFORTS),
        model("claude-mythos-5", 1_000_000, 128_000, 10.0, 50.0).with_efforts(EFFORTS),
        model("claude-opus-5-5", 1_000_000, 128_000, 4.0, 20.0).with_efforts(EFFORTS),
        model("claude-opus-5", 1_000_000, 128_000, 5.0, 25.0).with_efforts(EFFORTS),
        model("claude-sonnet-5-5", 1_000_000, 128_000, 2.0, 10.0).with_efforts(EFFORTS),
        model("claude-sonnet-5", 1_000_000, 128_000, 2.0, 10.0).with_efforts(EFFORTS),
        model("claude-haiku-5-5", 1_000_000, 128_000, 0.10, 0.50).with_efforts(EFFORTS),
        model("claude-opus-4-8", 1_000_000, 128_000, 5.0, 25.0).with_efforts(EFFORTS),
        model("claude-opus-4-7", 1_000_000, 128_000, 5.0, 25.0).with_efforts(EFFORTS),
        model("claude-opus-4-6", 200_000, 128_000, 5.0, 25.0).with_efforts(EFFORTS_4X),
        model("claude-sonnet-4-6", 200_000, 64_000, 3.0, 15.0).with_efforts(EFFORTS_4X),
        model("claude-opus-4-5", 200_000, 64_000, 5.0, 25.0).with_efforts(EFFORTS_4X),
        model("claude-sonnet-4-5", 200_000, 64_000, 3.0, 15.0),
        model("claude-haiku-4-5", 200_000, 64_000, 1.0, 5.0),
    ]
});

/// Catalog information for `model` (exact id, else the longest catalog id it starts with).
///
/// ```
/// let info = dive_anthropic::model_info("claude-sonnet-4-5-20250929").unwrap();
/// assert_eq!(info.context_window, 200_000);
/// ```
#[must_use]
pub fn model_info(model: &str) -> Option<&'static ModelInfo> {
    find_model(&MODELS, model)
}

/// Whether the model accepts `system`-role messages inside `messages` (Opus 4.8 and every
/// 5-series model); operator reminders are rendered that way there.
#[must_use]
pub fn supports_system_messages(model: &str) -> bool {
    let id = model_info(model).map_or(model, |m| m.id.as_ref());
    // `claude-<family>-<major>-<minor>…`, read in place.
    let mut parts = id.split('-').skip(1);
    let family = parts.next();
    let mut num = || parts.next().and_then(|p| p.parse::<u32>().ok());
    match (family, num(), num()) {
        (_, Some(major), _) if major >= 5 => true,
        (Some("opus"), Some(4), Some(minor)) => (8..100).contains(&minor),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn system_message_support() {
        assert!(supports_system_messages("claude-opus-4-8"));
        assert!(supports_system_messages("claude-sonnet-5-5"));
        assert!(!supports_system_messages("claude-sonnet-4-5-20250929"));
        assert!(!supports_system_messages("claude-haiku-4-5"));
    }
}
