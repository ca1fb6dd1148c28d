//! The GenAI client metrics: operation duration, token usage, time to first chunk and tool
//! execution duration, as histograms with the conventions' units and bucket boundaries.

use opentelemetry::KeyValue;
use opentelemetry::metrics::{Histogram, Meter};

use crate::semconv::{self, Semconv, metric};

/// The instruments one tracer records to.
#[derive(Debug, Clone)]
pub(crate) struct Metrics {
    duration: Histogram<f64>,
    tokens: Histogram<u64>,
    first_chunk: Histogram<f64>,
    tool_duration: Histogram<f64>,
    workflow_duration: Histogram<f64>,
}

impl Metrics {
    pub(crate) fn new(meter: &Meter, semconv: Semconv) -> Self {
        Self {
            duration: meter
                .f64_histogram(metric::CLIENT_OPERATION_DURATION)
                .with_unit("s")
                .with_description("GenAI operation duration.")
                .with_boundaries(metric::DURATION_BUCKETS.to_vec())
                .build(),
            tokens: meter
                .u64_histogram(metric::CLIENT_TOKEN_USAGE)
                .with_unit("{token}")
                .with_description("Number of input and output tokens used.")
                .with_boundaries(metric::TOKEN_BUCKETS.to_vec())
                .build(),
            first_chunk: meter
                .f64_histogram(semconv.time_to_first_chunk_metric())
                .with_unit("s")
                .with_description("Time to receive the first chunk of a streamed response.")
                .with_boundaries(metric::FIRST_CHUNK_BUCKETS.to_vec())
                .build(),
            tool_duration: meter
                .f64_histogram(metric::EXECUTE_TOOL_DURATION)
                .with_unit("s")
                .with_description("Tool execution duration.")
                .with_boundaries(metric::DURATION_BUCKETS.to_vec())
                .build(),
            workflow_duration: meter
                .f64_histogram(metric::WORKFLOW_DURATION)
                .with_unit("s")
                .with_description("GenAI workflow duration.")
                .with_boundaries(metric::DURATION_BUCKETS.to_vec())
                .build(),
        }
    }

    /// One model call ended: its duration (with `error.type` when it failed) and its tokens.
    pub(crate) fn chat(
        &self,
        attrs: &[KeyValue],
        seconds: f64,
        error: Option<&str>,
        tokens: Option<(u64, u64)>,
    ) {
        let mut with_error = attrs.to_vec();
        if let Some(e) = error {
            with_error.push(KeyValue::new(semconv::ERROR_TYPE, e.to_owned()));
        }
        self.duration.record(seconds, &with_error);
        if let Some((input, output)) = tokens {
            let mut a = attrs.to_vec();
            a.push(KeyValue::new(semconv::TOKEN_TYPE, "input"));
            self.tokens.record(input, &a);
            a.pop();
            a.push(KeyValue::new(semconv::TOKEN_TYPE, "output"));
            self.tokens.record(output, &a);
        }
    }

    pub(crate) fn first_chunk(&self, attrs: &[KeyValue], seconds: f64) {
        self.first_chunk.record(seconds, attrs);
    }

    pub(crate) fn workflow(&self, attrs: &[KeyValue], seconds: f64) {
        self.workflow_duration.record(seconds, attrs);
    }

    pub(crate) fn tool(&self, attrs: &[KeyValue], seconds: f64) {
        self.tool_duration.record(seconds, attrs);
    }
}
