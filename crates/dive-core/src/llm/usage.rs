//! Token usage, cost and pricing.
//!
//! Input tokens are split into three **disjoint** buckets: uncached input, cache reads and
//! cache writes; their sum is the prompt size. Reasoning tokens are a subset of output tokens.

use std::borrow::Cow;
use std::ops::{Add, AddAssign};

use serde::{Deserialize, Serialize};

fn is_zero(v: &u64) -> bool {
    *v == 0
}

/// Token counts (and cost when known) for one model call or an aggregate of calls.
///
/// ```
/// use dive_core::Usage;
/// let a = Usage::new(10, 5);
/// let b = Usage::new(3, 0).with_cache(100, 0);
/// let sum = a.clone() + b;
/// assert_eq!(sum.input_tokens, 13);
/// assert_eq!(sum.total_input_tokens(), 113);
/// ```
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Usage {
    /// Uncached input tokens.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub input_tokens: u64,
    /// Output tokens (including reasoning).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub output_tokens: u64,
    /// Input tokens written to the prompt cache.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub cache_creation_input_tokens: u64,
    /// Input tokens read from the prompt cache.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub cache_read_input_tokens: u64,
    /// Reasoning tokens (a subset of `output_tokens`).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub reasoning_tokens: u64,
    /// Service tier that served the call; `mixed` for aggregates of different tiers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub service_tier: Option<String>,
    /// Cost in US dollars; `None` means unknown.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost: Option<Cost>,
    /// The separately billed steps of the call, as the provider itemised them (e.g. a
    /// server-side compaction). The counters above already include every step that is billed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub iterations: Vec<UsageIteration>,
}

impl Usage {
    /// Usage with uncached input and output tokens.
    #[must_use]
    pub fn new(input_tokens: u64, output_tokens: u64) -> Self {
        Self { input_tokens, output_tokens, ..Self::default() }
    }

    /// Sets the cache read and cache write buckets.
    #[must_use]
    pub fn with_cache(mut self, read: u64, write: u64) -> Self {
        self.cache_read_input_tokens = read;
        self.cache_creation_input_tokens = write;
        self
    }

    /// Sets the reasoning tokens.
    #[must_use]
    pub fn with_reasoning(mut self, reasoning_tokens: u64) -> Self {
        self.reasoning_tokens = reasoning_tokens;
        self
    }

    /// Uncached + cache read + cache write input tokens.
    #[must_use]
    pub fn total_input_tokens(&self) -> u64 {
        self.input_tokens + self.cache_read_input_tokens + self.cache_creation_input_tokens
    }

    /// Input plus output tokens.
    #[must_use]
    pub fn total_tokens(&self) -> u64 {
        self.total_input_tokens() + self.output_tokens
    }

    /// True when no tokens are counted and no cost is set.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.total_tokens() == 0 && self.reasoning_tokens == 0 && self.cost.is_none()
    }

    /// Applies a later usage report of the *same* call ("snapshot replaces, per field
    /// present"): every field the report carries replaces ours, a field it lacks keeps its
    /// value. A count may go down (a provider corrects an earlier estimate), so this is never
    /// a maximum and never a sum; separately billed [`iterations`](Self::iterations) are
    /// replaced as a whole list when the report carries them.
    ///
    /// ```
    /// use dive_core::{Usage, UsageReport};
    /// let mut u = Usage::new(100, 1).with_cache(40, 0);
    /// let mut last = UsageReport::default();
    /// last.input_tokens = Some(90);
    /// last.output_tokens = Some(12);
    /// u.apply_snapshot(&last);
    /// assert_eq!((u.input_tokens, u.output_tokens, u.cache_read_input_tokens), (90, 12, 40));
    /// ```
    pub fn apply_snapshot(&mut self, report: &UsageReport) {
        let set = |field: &mut u64, value: Option<u64>| {
            if let Some(v) = value {
                *field = v;
            }
        };
        set(&mut self.input_tokens, report.input_tokens);
        set(&mut self.output_tokens, report.output_tokens);
        set(&mut self.cache_creation_input_tokens, report.cache_creation_input_tokens);
        set(&mut self.cache_read_input_tokens, report.cache_read_input_tokens);
        set(&mut self.reasoning_tokens, report.reasoning_tokens);
        if report.service_tier.is_some() {
            self.service_tier.clone_from(&report.service_tier);
        }
        if report.cost.is_some() {
            self.cost.clone_from(&report.cost);
        }
        if let Some(iterations) = &report.iterations {
            self.iterations.clone_from(iterations);
        }
    }
}

/// One usage report read off the wire, each field `Some` only when the provider sent it.
///
/// Providers report the usage of a streamed call in one of two ways, and each decoder states
/// which: a **snapshot** (the call's totals so far; a field that is present replaces the
/// earlier value, one that is absent keeps it) is applied with [`Usage::apply_snapshot`]; a
/// **delta** (only what this event adds) is added with `+=`. Every provider Dive speaks to
/// today sends snapshots. A provider whose snapshot is always complete (an absent field means
/// zero, as in protobuf JSON) builds its report with [`UsageReport::whole`].
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
pub struct UsageReport {
    /// Uncached input tokens, when sent.
    pub input_tokens: Option<u64>,
    /// Output tokens (including reasoning), when sent.
    pub output_tokens: Option<u64>,
    /// Cache writes, when sent.
    pub cache_creation_input_tokens: Option<u64>,
    /// Cache reads, when sent.
    pub cache_read_input_tokens: Option<u64>,
    /// Reasoning tokens, when sent.
    pub reasoning_tokens: Option<u64>,
    /// Service tier, when sent.
    pub service_tier: Option<String>,
    /// A cost the provider reported itself, when sent.
    pub cost: Option<Cost>,
    /// Separately billed steps, when sent (the whole list).
    pub iterations: Option<Vec<UsageIteration>>,
}

impl UsageReport {
    /// A complete snapshot: every counter of `usage` is present (zero included); tier, cost
    /// and iterations are present when `usage` has them.
    #[must_use]
    pub fn whole(usage: Usage) -> Self {
        Self {
            input_tokens: Some(usage.input_tokens),
            output_tokens: Some(usage.output_tokens),
            cache_creation_input_tokens: Some(usage.cache_creation_input_tokens),
            cache_read_input_tokens: Some(usage.cache_read_input_tokens),
            reasoning_tokens: Some(usage.reasoning_tokens),
            service_tier: usage.service_tier,
            cost: usage.cost,
            iterations: (!usage.iterations.is_empty()).then_some(usage.iterations),
        }
    }

    /// The counters as a [`Usage`] (absent fields as zero).
    #[must_use]
    pub fn to_usage(&self) -> Usage {
        let mut u = Usage::default();
        u.apply_snapshot(self);
        u
    }
}

/// One separately billed step of a model call, e.g. a server-side compaction that ran
/// before the answer was sampled (Anthropic `usage.iterations`).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[non_exhaustive]
pub struct UsageIteration {
    /// The provider's name for the step (`compaction`, `message`, …).
    pub kind: String,
    /// The model that ran the step, when the provider says.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// The step's tokens.
    #[serde(default)]
    pub usage: Usage,
}

impl UsageIteration {
    /// A step of `kind` with its token counts.
    #[must_use]
    pub fn new(kind: impl Into<String>, usage: Usage) -> Self {
        Self { kind: kind.into(), model: None, usage }
    }
}

impl AddAssign<&Usage> for Usage {
    /// Sums two *different* calls. Cost stays known only if both sides know it (or one side
    /// is empty); tiers that differ become `mixed`.
    fn add_assign(&mut self, rhs: &Usage) {
        let cost = match (self.cost.take(), &rhs.cost) {
            (Some(a), Some(b)) => Some(a + b.clone()),
            (None, Some(b)) if self.total_tokens() == 0 => Some(b.clone()),
            (Some(a), None) if rhs.total_tokens() == 0 => Some(a),
            _ => None,
        };
        self.input_tokens += rhs.input_tokens;
        self.output_tokens += rhs.output_tokens;
        self.cache_creation_input_tokens += rhs.cache_creation_input_tokens;
        self.cache_read_input_tokens += rhs.cache_read_input_tokens;
        self.reasoning_tokens += rhs.reasoning_tokens;
        self.service_tier = match (self.service_tier.take(), &rhs.service_tier) {
            (Some(a), Some(b)) if a != *b => Some("mixed".to_owned()),
            (Some(a), _) => Some(a),
            (None, b) => b.clone(),
        };
        self.cost = cost;
        self.iterations.extend(rhs.iterations.iter().cloned());
    }
}

impl AddAssign for Usage {
    fn add_assign(&mut self, rhs: Usage) {
        *self += &rhs;
    }
}

impl Add for Usage {
    type Output = Usage;
    fn add(mut self, rhs: Usage) -> Usage {
        self += &rhs;
        self
    }
}

/// A cost breakdown in US dollars.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Cost {
    /// Uncached input.
    #[serde(default)]
    pub input: f64,
    /// Output.
    #[serde(default)]
    pub output: f64,
    /// Cache reads.
    #[serde(default)]
    pub cache_read: f64,
    /// Cache writes.
    #[serde(default)]
    pub cache_write: f64,
    /// Sum of the parts.
    pub total: f64,
    /// Where the figure comes from (`catalog`, `provider`, `provider_estimate`; `mixed` for
    /// a sum of costs from different sources): a fixed name is borrowed, not allocated.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<Cow<'static, str>>,
}

impl Add for Cost {
    type Output = Cost;
    fn add(self, rhs: Cost) -> Cost {
        Cost {
            input: self.input + rhs.input,
            output: self.output + rhs.output,
            cache_read: self.cache_read + rhs.cache_read,
            cache_write: self.cache_write + rhs.cache_write,
            total: self.total + rhs.total,
            source: if self.source == rhs.source { self.source } else { Some(Cow::Borrowed("mixed")) },
        }
    }
}

/// Prices in US dollars per million tokens.
///
/// ```
/// use dive_core::{Pricing, Usage};
/// let p = Pricing::new(3.0, 15.0).with_cache(0.3, 3.75);
/// let u = Usage::new(1_000_000, 100_000);
/// assert!((p.cost_of(&u).total - 4.5).abs() < 1e-9);
/// ```
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Pricing {
    /// Uncached input.
    pub input: f64,
    /// Output.
    pub output: f64,
    /// Cache reads (defaults to the input price when absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_read: Option<f64>,
    /// Cache writes (defaults to the input price when absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_write: Option<f64>,
    /// Prices that apply instead when the prompt exceeds `threshold_tokens`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub long_context: Option<Box<LongContextPricing>>,
}

/// Prompt-length tiered pricing.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct LongContextPricing {
    /// Prompts with more total input tokens than this use `pricing`.
    pub threshold_tokens: u64,
    /// The tier's prices.
    pub pricing: Pricing,
}

impl Pricing {
    /// Input and output prices per million tokens.
    #[must_use]
    pub const fn new(input: f64, output: f64) -> Self {
        Self { input, output, cache_read: None, cache_write: None, long_context: None }
    }

    /// Sets cache read and write prices.
    #[must_use]
    pub const fn with_cache(mut self, read: f64, write: f64) -> Self {
        self.cache_read = Some(read);
        self.cache_write = Some(write);
        self
    }

    /// Adds a long-context tier.
    #[must_use]
    pub fn with_long_context(mut self, threshold_tokens: u64, pricing: Pricing) -> Self {
        self.long_context = Some(Box::new(LongContextPricing { threshold_tokens, pricing }));
        self
    }

    /// The cost of `usage` at these prices.
    #[must_use]
    pub fn cost_of(&self, usage: &Usage) -> Cost {
        if let Some(lc) = &self.long_context
            && usage.total_input_tokens() > lc.threshold_tokens
        {
            return lc.pricing.cost_of(usage);
        }
        let per = |tokens: u64, price: f64| tokens as f64 * price / 1_000_000.0;
        let input = per(usage.input_tokens, self.input);
        let output = per(usage.output_tokens, self.output);
        let cache_read = per(usage.cache_read_input_tokens, self.cache_read.unwrap_or(self.input));
        let cache_write = per(usage.cache_creation_input_tokens, self.cache_write.unwrap_or(self.input));
        Cost {
            input,
            output,
            cache_read,
            cache_write,
            total: input + output + cache_read + cache_write,
            source: Some(Cow::Borrowed("catalog")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn snapshot_fields_present_replace_even_when_lower() {
        // Anthropic: message_start reports cache reads of a compaction step; the final
        // message_delta reports 0 for them (present) and leaves the tier out (absent).
        let mut u = Usage::new(25, 1).with_cache(5_000, 0);
        u.service_tier = Some("standard".into());
        let last = UsageReport {
            output_tokens: Some(15),
            cache_read_input_tokens: Some(0),
            ..UsageReport::default()
        };
        u.apply_snapshot(&last);
        assert_eq!((u.input_tokens, u.output_tokens, u.cache_read_input_tokens), (25, 15, 0));
        assert_eq!(u.service_tier.as_deref(), Some("standard"));
        // A whole snapshot (Gemini) replaces every counter, a lower prompt count included.
        u.apply_snapshot(&UsageReport::whole(Usage::new(20, 3)));
        assert_eq!((u.input_tokens, u.output_tokens, u.cache_read_input_tokens), (20, 3, 0));
    }

    #[test]
    fn iterations_replace_as_a_list_and_sum_across_calls() {
        let step = UsageIteration::new("compaction", Usage::new(1000, 50));
        let mut u = Usage::new(10, 1);
        let report = UsageReport { iterations: Some(vec![step.clone()]), ..UsageReport::default() };
        u.apply_snapshot(&report);
        u.apply_snapshot(&report);
        assert_eq!(u.iterations, vec![step.clone()]);
        let both = u.clone() + u;
        assert_eq!(both.iterations.len(), 2);
        let json = serde_json::to_value(Usage::new(1, 1)).unwrap();
        assert!(json.get("iterations").is_none(), "no iterations, no field: {json}");
    }

    #[test]
    fn cost_unknown_when_one_side_unknown() {
        let known =
            Usage { input_tokens: 1, cost: Some(Cost { total: 1.0, ..Cost::default() }), ..Usage::default() };
        let unknown = Usage { input_tokens: 1, ..Usage::default() };
        assert!((known.clone() + unknown).cost.is_none());
        assert_eq!((Usage::default() + known.clone()).cost, known.cost);
        let tiers = Usage { service_tier: Some("flex".into()), ..Usage::default() }
            + Usage { service_tier: Some("default".into()), ..Usage::default() };
        assert_eq!(tiers.service_tier.as_deref(), Some("mixed"));
    }

    #[test]
    fn long_context_tier() {
        let p = Pricing::new(1.0, 2.0).with_long_context(200_000, Pricing::new(10.0, 20.0));
        let small = Usage { input_tokens: 1_000_000 / 10, ..Usage::default() };
        let big = Usage { input_tokens: 300_000, ..Usage::default() };
        assert!((p.cost_of(&small).total - 0.1).abs() < 1e-9);
        assert!((p.cost_of(&big).total - 3.0).abs() < 1e-9);
    }
}
