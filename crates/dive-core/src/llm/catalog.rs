//! Model catalogs: what a provider knows about its models.

use std::borrow::Cow;

use serde::Serialize;

use super::request::ReasoningEffort;
use super::usage::Pricing;

/// What is known about one model: limits, prices and capabilities.
///
/// Providers publish a catalog (a `LazyLock<Vec<ModelInfo>>` is the usual form); cost in [`Usage`](super::Usage) comes
/// from [`ModelInfo::pricing`].
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct ModelInfo {
    /// Model id as sent on the wire.
    pub id: Cow<'static, str>,
    /// Vendor name (`anthropic`, `openai`, …).
    pub vendor: Cow<'static, str>,
    /// Context window in tokens.
    pub context_window: u64,
    /// Maximum output tokens.
    pub max_output_tokens: u64,
    /// Prices per million tokens, when known.
    pub pricing: Option<Pricing>,
    /// Reasoning effort levels the model accepts (empty: no effort control).
    pub reasoning_efforts: Cow<'static, [ReasoningEffort]>,
    /// Accepts images.
    pub vision: bool,
}

impl ModelInfo {
    /// A catalog entry.
    #[must_use]
    pub const fn new(
        id: &'static str,
        vendor: &'static str,
        context_window: u64,
        max_output_tokens: u64,
    ) -> Self {
        Self {
            id: Cow::Borrowed(id),
            vendor: Cow::Borrowed(vendor),
            context_window,
            max_output_tokens,
            pricing: None,
            reasoning_efforts: Cow::Borrowed(&[]),
            vision: false,
        }
    }

    /// Sets prices.
    #[must_use]
    pub fn with_pricing(mut self, pricing: Pricing) -> Self {
        self.pricing = Some(pricing);
        self
    }

    /// Sets the supported effort levels.
    #[must_use]
    pub fn with_efforts(mut self, efforts: &'static [ReasoningEffort]) -> Self {
        self.reasoning_efforts = Cow::Borrowed(efforts);
        self
    }

    /// Marks the model as accepting images.
    #[must_use]
    pub fn with_vision(mut self) -> Self {
        self.vision = true;
        self
    }
}

/// Finds a model in a catalog: an exact id first, then the longest id that prefixes `model`
/// (so dated snapshots like `claude-sonnet-4-5-20250929` match `claude-sonnet-4-5`).
///
/// ```
/// use dive_core::{ModelInfo, find_model};
/// static CATALOG: &[ModelInfo] = &[ModelInfo::new("m-1", "v", 1000, 100)];
/// assert!(find_model(CATALOG, "m-1-2025").is_some());
/// assert!(find_model(CATALOG, "other").is_none());
/// ```
#[must_use]
pub fn find_model<'a>(catalog: &'a [ModelInfo], model: &str) -> Option<&'a ModelInfo> {
    catalog
        .iter()
        .find(|m| m.id == model)
        .or_else(|| catalog.iter().filter(|m| model.starts_with(m.id.as_ref())).max_by_key(|m| m.id.len()))
}
