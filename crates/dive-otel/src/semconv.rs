//! The GenAI semantic-convention names this crate emits, versioned: [`Semconv::V1_36`] (the
//! names instrumentations emitted up to semantic conventions v1.36, our default as the
//! conventions' transition plan asks) or [`Semconv::Latest`] (the latest experimental names of
//! the `semantic-conventions-genai` registry), chosen with `OTEL_SEMCONV_STABILITY_OPT_IN`.
//!
//! Every GenAI name is still "Development" in the conventions and no Rust crate publishes the
//! registry, so the names live here, once. Names in the `dive.*` namespace are our own, for
//! facts the conventions have no name for (cost, the turn outcome) or had none for in v1.36.

/// `gen_ai.operation.name`.
pub const OPERATION_NAME: &str = "gen_ai.operation.name";
/// `gen_ai.provider.name` (latest): the provider, e.g. `anthropic`.
pub const PROVIDER_NAME: &str = "gen_ai.provider.name";
/// `gen_ai.system` (v1.36): what `gen_ai.provider.name` replaced.
pub const SYSTEM: &str = "gen_ai.system";
/// `gen_ai.request.model`.
pub const REQUEST_MODEL: &str = "gen_ai.request.model";
/// `gen_ai.request.max_tokens`.
pub const REQUEST_MAX_TOKENS: &str = "gen_ai.request.max_tokens";
/// `gen_ai.request.temperature`.
pub const REQUEST_TEMPERATURE: &str = "gen_ai.request.temperature";
/// `gen_ai.request.top_p`.
pub const REQUEST_TOP_P: &str = "gen_ai.request.top_p";
/// `gen_ai.request.stream` (latest only).
pub const REQUEST_STREAM: &str = "gen_ai.request.stream";
/// `gen_ai.response.model`.
pub const RESPONSE_MODEL: &str = "gen_ai.response.model";
/// `gen_ai.response.id`.
pub const RESPONSE_ID: &str = "gen_ai.response.id";
/// `gen_ai.response.finish_reasons` (a string array).
pub const RESPONSE_FINISH_REASONS: &str = "gen_ai.response.finish_reasons";
/// `gen_ai.response.time_to_first_chunk` (latest; seconds).
pub const RESPONSE_TIME_TO_FIRST_CHUNK: &str = "gen_ai.response.time_to_first_chunk";
/// `dive.response.time_to_first_chunk` (v1.36 had no name for it; seconds).
pub const DIVE_RESPONSE_TIME_TO_FIRST_CHUNK: &str = "dive.response.time_to_first_chunk";
/// `gen_ai.usage.input_tokens`: every input token, cached ones included.
pub const USAGE_INPUT_TOKENS: &str = "gen_ai.usage.input_tokens";
/// `gen_ai.usage.output_tokens`: every output token, reasoning ones included.
pub const USAGE_OUTPUT_TOKENS: &str = "gen_ai.usage.output_tokens";
/// `gen_ai.usage.cache_read.input_tokens` (latest).
pub const USAGE_CACHE_READ_INPUT_TOKENS: &str = "gen_ai.usage.cache_read.input_tokens";
/// `gen_ai.usage.cache_creation.input_tokens` (latest).
pub const USAGE_CACHE_CREATION_INPUT_TOKENS: &str = "gen_ai.usage.cache_creation.input_tokens";
/// `gen_ai.usage.reasoning.output_tokens` (latest).
pub const USAGE_REASONING_OUTPUT_TOKENS: &str = "gen_ai.usage.reasoning.output_tokens";
/// `dive.usage.cache_read_input_tokens` (v1.36 had no name for it).
pub const DIVE_USAGE_CACHE_READ: &str = "dive.usage.cache_read_input_tokens";
/// `dive.usage.cache_creation_input_tokens` (v1.36 had no name for it).
pub const DIVE_USAGE_CACHE_CREATION: &str = "dive.usage.cache_creation_input_tokens";
/// `dive.usage.reasoning_output_tokens` (v1.36 had no name for it).
pub const DIVE_USAGE_REASONING: &str = "dive.usage.reasoning_output_tokens";
/// `gen_ai.token.type` (a metric attribute: `input` or `output`).
pub const TOKEN_TYPE: &str = "gen_ai.token.type";
/// `gen_ai.conversation.id`: the session id.
pub const CONVERSATION_ID: &str = "gen_ai.conversation.id";
/// `gen_ai.agent.name`.
pub const AGENT_NAME: &str = "gen_ai.agent.name";
/// `gen_ai.agent.id`.
pub const AGENT_ID: &str = "gen_ai.agent.id";
/// `gen_ai.tool.name`.
pub const TOOL_NAME: &str = "gen_ai.tool.name";
/// `gen_ai.tool.call.id`.
pub const TOOL_CALL_ID: &str = "gen_ai.tool.call.id";
/// `gen_ai.tool.type` (`function` for the tools an agent runs itself).
pub const TOOL_TYPE: &str = "gen_ai.tool.type";
/// `gen_ai.tool.call.arguments` (opt-in content).
pub const TOOL_CALL_ARGUMENTS: &str = "gen_ai.tool.call.arguments";
/// `gen_ai.tool.call.result` (opt-in content).
pub const TOOL_CALL_RESULT: &str = "gen_ai.tool.call.result";
/// `gen_ai.system_instructions` (opt-in content).
pub const SYSTEM_INSTRUCTIONS: &str = "gen_ai.system_instructions";
/// `gen_ai.input.messages` (opt-in content).
pub const INPUT_MESSAGES: &str = "gen_ai.input.messages";
/// `gen_ai.output.messages` (opt-in content).
pub const OUTPUT_MESSAGES: &str = "gen_ai.output.messages";
/// `gen_ai.workflow.name`.
pub const WORKFLOW_NAME: &str = "gen_ai.workflow.name";
/// `server.address`.
pub const SERVER_ADDRESS: &str = "server.address";
/// `server.port`.
pub const SERVER_PORT: &str = "server.port";
/// The attributes tools report on their `execute_tool` span (`gen_ai.skill.name`,
/// `process.exit.code`, …), defined once in dive-core.
pub use dive_core::trace::attributes::*;
/// `gen_ai.data_source.id`: the store a memory or retrieval operation works on.
pub const DATA_SOURCE_ID: &str = "gen_ai.data_source.id";
/// `dive.operation.count`: how many items a memory operation found or wrote.
pub const DIVE_OPERATION_COUNT: &str = "dive.operation.count";
/// `exception`: the event recording a failure on its span.
pub const EXCEPTION_EVENT: &str = "exception";
/// `exception.type`.
pub const EXCEPTION_TYPE: &str = "exception.type";
/// `exception.message`.
pub const EXCEPTION_MESSAGE: &str = "exception.message";
/// `error.type`.
pub const ERROR_TYPE: &str = "error.type";
/// `dive.cost.total`: what the call or turn cost, in US dollars (the catalog's or the
/// provider's figure).
pub const DIVE_COST_TOTAL: &str = "dive.cost.total";
/// `dive.cost.input`, US dollars.
pub const DIVE_COST_INPUT: &str = "dive.cost.input";
/// `dive.cost.output`, US dollars.
pub const DIVE_COST_OUTPUT: &str = "dive.cost.output";
/// `dive.cost.source`: where the cost came from (`catalog`, the provider's report, …).
pub const DIVE_COST_SOURCE: &str = "dive.cost.source";
/// `dive.turn.status`: how the turn ended (`completed`, `suspended`, `incomplete`).
pub const DIVE_TURN_STATUS: &str = "dive.turn.status";
/// `dive.turn.reason`: why it ended so (the outcome reason).
pub const DIVE_TURN_REASON: &str = "dive.turn.reason";
/// `dive.turn.id`.
pub const DIVE_TURN_ID: &str = "dive.turn.id";

/// Operation names (`gen_ai.operation.name` values).
pub mod operation {
    /// The memory operations, defined once in dive-core (`search_memory`, `upsert_memory`, …).
    pub use dive_core::trace::operations::*;

    /// `chat`.
    pub const CHAT: &str = "chat";
    /// `invoke_agent`.
    pub const INVOKE_AGENT: &str = "invoke_agent";
    /// `execute_tool`.
    pub const EXECUTE_TOOL: &str = "execute_tool";
    /// `invoke_workflow`.
    pub const INVOKE_WORKFLOW: &str = "invoke_workflow";
}

/// Metric names and their advised bucket boundaries.
pub mod metric {
    /// `gen_ai.client.operation.duration` (histogram, seconds).
    pub const CLIENT_OPERATION_DURATION: &str = "gen_ai.client.operation.duration";
    /// `gen_ai.client.token.usage` (histogram, `{token}`).
    pub const CLIENT_TOKEN_USAGE: &str = "gen_ai.client.token.usage";
    /// `gen_ai.client.operation.time_to_first_chunk` (latest; histogram, seconds).
    pub const CLIENT_TIME_TO_FIRST_CHUNK: &str = "gen_ai.client.operation.time_to_first_chunk";
    /// `gen_ai.server.time_to_first_token` (what v1.36 had; histogram, seconds).
    pub const SERVER_TIME_TO_FIRST_TOKEN: &str = "gen_ai.server.time_to_first_token";
    /// `gen_ai.workflow.duration` (histogram, seconds).
    pub const WORKFLOW_DURATION: &str = "gen_ai.workflow.duration";
    /// `gen_ai.execute_tool.duration` (proposed; histogram, seconds).
    pub const EXECUTE_TOOL_DURATION: &str = "gen_ai.execute_tool.duration";
    /// `gen_ai.client.operation.duration` buckets, seconds.
    pub const DURATION_BUCKETS: [f64; 14] =
        [0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92];
    /// `gen_ai.client.token.usage` buckets.
    pub const TOKEN_BUCKETS: [f64; 14] = [
        1.0,
        4.0,
        16.0,
        64.0,
        256.0,
        1024.0,
        4096.0,
        16384.0,
        65536.0,
        262_144.0,
        1_048_576.0,
        4_194_304.0,
        16_777_216.0,
        67_108_864.0,
    ];
    /// Time-to-first-chunk buckets, seconds.
    pub const FIRST_CHUNK_BUCKETS: [f64; 16] =
        [0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0];
}

/// The environment variable that opts into the latest experimental names.
pub const STABILITY_OPT_IN_VAR: &str = "OTEL_SEMCONV_STABILITY_OPT_IN";
/// The value of [`STABILITY_OPT_IN_VAR`] (one of a comma-separated list) that selects
/// [`Semconv::Latest`].
pub const GEN_AI_LATEST_EXPERIMENTAL: &str = "gen_ai_latest_experimental";

/// Which version of the GenAI conventions to emit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum Semconv {
    /// The names of semantic conventions v1.36 (`gen_ai.system`, the v1.36 metrics); facts
    /// v1.36 had no name for go under `dive.*`. The default.
    #[default]
    V1_36,
    /// The latest experimental names (`gen_ai.provider.name`, cache and reasoning token
    /// attributes, time to first chunk).
    Latest,
}

impl Semconv {
    /// Reads `OTEL_SEMCONV_STABILITY_OPT_IN`: [`Semconv::Latest`] when its comma-separated list
    /// holds `gen_ai_latest_experimental`, else [`Semconv::V1_36`].
    #[must_use]
    #[allow(clippy::disallowed_methods)] // a from_env constructor
    pub fn from_env() -> Self {
        Self::from_opt_in(&std::env::var(STABILITY_OPT_IN_VAR).unwrap_or_default())
    }

    /// The choice a value of `OTEL_SEMCONV_STABILITY_OPT_IN` makes.
    ///
    /// ```
    /// use dive_otel::semconv::Semconv;
    /// assert_eq!(Semconv::from_opt_in("http, gen_ai_latest_experimental"), Semconv::Latest);
    /// assert_eq!(Semconv::from_opt_in("http"), Semconv::V1_36);
    /// ```
    #[must_use]
    pub fn from_opt_in(value: &str) -> Self {
        if value.split(',').any(|v| v.trim() == GEN_AI_LATEST_EXPERIMENTAL) {
            Self::Latest
        } else {
            Self::V1_36
        }
    }

    /// The attribute that names the provider.
    #[must_use]
    pub fn provider(self) -> &'static str {
        match self {
            Self::V1_36 => SYSTEM,
            Self::Latest => PROVIDER_NAME,
        }
    }

    /// The attribute for cache-read input tokens.
    #[must_use]
    pub fn cache_read_tokens(self) -> &'static str {
        match self {
            Self::V1_36 => DIVE_USAGE_CACHE_READ,
            Self::Latest => USAGE_CACHE_READ_INPUT_TOKENS,
        }
    }

    /// The attribute for cache-creation (cache write) input tokens.
    #[must_use]
    pub fn cache_creation_tokens(self) -> &'static str {
        match self {
            Self::V1_36 => DIVE_USAGE_CACHE_CREATION,
            Self::Latest => USAGE_CACHE_CREATION_INPUT_TOKENS,
        }
    }

    /// The attribute for reasoning output tokens.
    #[must_use]
    pub fn reasoning_tokens(self) -> &'static str {
        match self {
            Self::V1_36 => DIVE_USAGE_REASONING,
            Self::Latest => USAGE_REASONING_OUTPUT_TOKENS,
        }
    }

    /// The span attribute for time to first chunk.
    #[must_use]
    pub fn time_to_first_chunk(self) -> &'static str {
        match self {
            Self::V1_36 => DIVE_RESPONSE_TIME_TO_FIRST_CHUNK,
            Self::Latest => RESPONSE_TIME_TO_FIRST_CHUNK,
        }
    }

    /// The time-to-first-chunk histogram.
    #[must_use]
    pub fn time_to_first_chunk_metric(self) -> &'static str {
        match self {
            Self::V1_36 => metric::SERVER_TIME_TO_FIRST_TOKEN,
            Self::Latest => metric::CLIENT_TIME_TO_FIRST_CHUNK,
        }
    }

    /// Whether `gen_ai.request.stream` exists in this version.
    #[must_use]
    pub fn has_request_stream(self) -> bool {
        self == Self::Latest
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn opt_in_is_one_value_of_a_comma_separated_list() {
        assert_eq!(Semconv::from_opt_in(""), Semconv::V1_36);
        assert_eq!(Semconv::from_opt_in("gen_ai_latest_experimental"), Semconv::Latest);
        assert_eq!(Semconv::from_opt_in("database, gen_ai_latest_experimental "), Semconv::Latest);
        assert_eq!(Semconv::from_opt_in("gen_ai_latest_experimental_x"), Semconv::V1_36);
    }

    #[test]
    fn the_versions_differ_where_the_conventions_renamed() {
        assert_eq!(Semconv::V1_36.provider(), "gen_ai.system");
        assert_eq!(Semconv::Latest.provider(), "gen_ai.provider.name");
        assert_eq!(Semconv::Latest.cache_read_tokens(), "gen_ai.usage.cache_read.input_tokens");
        assert_eq!(Semconv::Latest.reasoning_tokens(), "gen_ai.usage.reasoning.output_tokens");
        assert!(Semconv::V1_36.cache_creation_tokens().starts_with("dive."));
    }
}
