//! A Chat Completions `usage` object read typed ([`ChatUsage`]): the token counts, their
//! details and the cost fields dialects report, read as they come (no JSON tree). A field
//! that is not the number it should be reads as absent, exactly as
//! [`decode_usage`](super::decode_usage) reads it from JSON.

use dive_core::{Cost, Usage};
use dive_provider::lenient::{Amount, Count, ObjectReader, read_object};
use serde::de::{Deserialize, Deserializer, MapAccess};

use crate::dialect::Dialect;

/// The cost fields read typed; a dialect naming another is read from JSON.
const COST_FIELDS: [&str; 2] = ["cost", "estimated_cost"];

/// Whether [`ChatUsage`] reads this dialect's cost field.
pub(crate) fn typed_cost(dialect: &Dialect) -> bool {
    dialect.reported_cost.is_none() || COST_FIELDS.contains(&dialect.cost_field)
}

/// A `usage` object (anything else reads as an empty one).
#[derive(Debug, Default)]
pub(crate) struct ChatUsage {
    /// Whether it was an object (anything else carries no usage).
    pub(crate) object: bool,
    prompt_tokens: Option<u64>,
    completion_tokens: Option<u64>,
    cached_tokens: Option<u64>,
    reasoning_tokens: Option<u64>,
    cost: Option<f64>,
    estimated_cost: Option<f64>,
}

impl ChatUsage {
    /// The usage, in Dive's disjoint buckets: `prompt_tokens` includes cached tokens, so the
    /// cached part moves to `cache_read_input_tokens`. The dialect's cost is reported when
    /// it reports one (and its field is one of [`COST_FIELDS`]).
    pub(crate) fn to_usage(&self, dialect: &Dialect) -> Usage {
        let cached = self.cached_tokens.unwrap_or(0);
        let input = self.prompt_tokens.unwrap_or(0).saturating_sub(cached);
        let mut u = Usage::new(input, self.completion_tokens.unwrap_or(0)).with_cache(cached, 0);
        u.reasoning_tokens = self.reasoning_tokens.unwrap_or(0);
        let total = match dialect.cost_field {
            "cost" => self.cost,
            "estimated_cost" => self.estimated_cost,
            _ => None,
        };
        if let (Some(source), Some(total)) = (dialect.reported_cost, total) {
            let mut cost = Cost::default();
            cost.total = total;
            cost.source = Some(source.into());
            u.cost = Some(cost);
        }
        u
    }
}

impl<'de> Deserialize<'de> for ChatUsage {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        read_object(deserializer, UsageFields)
    }
}

struct UsageFields;

impl ObjectReader for UsageFields {
    type Out = ChatUsage;
    const KEYS: &'static [&'static str] = &[
        "prompt_tokens",
        "completion_tokens",
        "prompt_tokens_details",
        "completion_tokens_details",
        "cost",
        "estimated_cost",
    ];

    fn object(&self, out: &mut ChatUsage) {
        out.object = true;
    }

    fn field<'de, A: MapAccess<'de>>(
        &self,
        out: &mut ChatUsage,
        key: usize,
        map: &mut A,
    ) -> Result<(), A::Error> {
        match key {
            0 => out.prompt_tokens = map.next_value::<Count>()?.0,
            1 => out.completion_tokens = map.next_value::<Count>()?.0,
            2 => out.cached_tokens = map.next_value::<Details>()?.cached_tokens,
            3 => out.reasoning_tokens = map.next_value::<Details>()?.reasoning_tokens,
            4 => out.cost = map.next_value::<Amount>()?.0,
            _ => out.estimated_cost = map.next_value::<Amount>()?.0,
        }
        Ok(())
    }
}

/// `prompt_tokens_details` / `completion_tokens_details`.
#[derive(Default)]
struct Details {
    cached_tokens: Option<u64>,
    reasoning_tokens: Option<u64>,
}

struct DetailFields;

impl ObjectReader for DetailFields {
    type Out = Details;
    const KEYS: &'static [&'static str] = &["cached_tokens", "reasoning_tokens"];

    fn field<'de, A: MapAccess<'de>>(
        &self,
        out: &mut Details,
        key: usize,
        map: &mut A,
    ) -> Result<(), A::Error> {
        let count = map.next_value::<Count>()?.0;
        if key == 0 {
            out.cached_tokens = count;
        } else {
            out.reasoning_tokens = count;
        }
        Ok(())
    }
}

impl<'de> Deserialize<'de> for Details {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        read_object(deserializer, DetailFields)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::chat::decode_usage;

    #[test]
    fn typed_usage_reads_as_the_json_reading_does() {
        let dialects = [
            Dialect::openai(),
            Dialect::openai().with_reported_cost(Some("vendor")),
            Dialect::openai().with_reported_cost(Some("vendor")).with_cost_field("estimated_cost"),
        ];
        let usages = [
            json!({"prompt_tokens": 40, "completion_tokens": 12, "total_tokens": 52}),
            json!({"prompt_tokens": 100, "completion_tokens": 7, "prompt_tokens_details": {"cached_tokens": 60,
                "audio_tokens": 0}, "completion_tokens_details": {"reasoning_tokens": 5, "accepted_prediction_tokens": 0}}),
            json!({"prompt_tokens": 10, "prompt_tokens_details": {"cached_tokens": 20}}),
            json!({"prompt_tokens": 3, "completion_tokens": 4, "cost": 0.0125, "estimated_cost": 2}),
            json!({"prompt_tokens": -1, "completion_tokens": 1.5, "cost": "free", "estimated_cost": -3}),
            json!({"prompt_tokens": null, "prompt_tokens_details": null, "completion_tokens_details": [1, 2],
                "cost": {"total": 1}, "some_vendor_field": {"nested": [true]}}),
            json!({"prompt_tokens_details": 5, "completion_tokens_details": "x"}),
            json!({}),
        ];
        for dialect in &dialects {
            assert!(typed_cost(dialect));
            for usage in &usages {
                let from_text: ChatUsage = serde_json::from_str(&usage.to_string()).unwrap();
                let from_value = ChatUsage::deserialize(usage).unwrap();
                assert!(from_text.object && from_value.object);
                let expected = decode_usage(usage, dialect);
                assert_eq!(from_text.to_usage(dialect), expected, "{usage}");
                assert_eq!(from_value.to_usage(dialect), expected, "{usage}");
            }
        }
        assert!(!typed_cost(&Dialect::openai().with_reported_cost(Some("v")).with_cost_field("total_cost")));
        for other in [json!(null), json!(3), json!("x"), json!([1])] {
            let read: ChatUsage = serde_json::from_str(&other.to_string()).unwrap();
            assert!(!read.object);
            assert_eq!(read.to_usage(&Dialect::openai()), decode_usage(&other, &Dialect::openai()));
        }
    }
}
