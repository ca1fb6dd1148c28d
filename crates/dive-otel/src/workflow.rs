//! `WorkflowSpan`: an `invoke_workflow {name}` span around an orchestration of several agent
//! runs (a pipeline, a fan-out), whose runs hang under it through their run values.

use std::time::Instant;

use dive_core::Values;
use opentelemetry::trace::{SpanKind, Status, TraceContextExt, Tracer as _};
use opentelemetry::{Context, KeyValue};

use crate::OtelTracer;
use crate::propagation::values_under;
use crate::semconv::{self, operation};

/// An open `invoke_workflow` span; ended by [`WorkflowSpan::end`] or when dropped.
#[derive(Debug)]
pub struct WorkflowSpan {
    cx: Context,
    tracer: OtelTracer,
    started: Instant,
    name: String,
    error: bool,
    ended: bool,
}

impl WorkflowSpan {
    /// Values for one run of the workflow (`RunOptions::with_values`): its `invoke_agent` span
    /// becomes a child of this span.
    #[must_use]
    pub fn values(&self) -> Values {
        values_under(self.cx.clone())
    }

    /// The span's context, for work of your own under it.
    #[must_use]
    pub fn context(&self) -> &Context {
        &self.cx
    }

    /// Marks the workflow failed.
    pub fn set_error(&mut self, error: &str) {
        let span = self.cx.span();
        span.set_attribute(KeyValue::new(semconv::ERROR_TYPE, "_OTHER"));
        span.set_status(Status::error(error.to_owned()));
        self.error = true;
    }

    /// Ends the span (and records `gen_ai.workflow.duration` when the tracer has a meter).
    pub fn end(mut self) {
        self.finish();
    }

    fn finish(&mut self) {
        if self.ended {
            return;
        }
        self.ended = true;
        if let Some(m) = self.tracer.metrics() {
            let mut attrs = vec![KeyValue::new(semconv::WORKFLOW_NAME, self.name.clone())];
            if self.error {
                attrs.push(KeyValue::new(semconv::ERROR_TYPE, "_OTHER"));
            }
            m.workflow(&attrs, self.started.elapsed().as_secs_f64());
        }
        self.cx.span().end();
    }
}

impl Drop for WorkflowSpan {
    fn drop(&mut self) {
        self.finish();
    }
}

impl OtelTracer {
    /// Starts an `invoke_workflow {name}` span under the caller's current context (or under
    /// `parent` when given); `name` should have low cardinality (`gen_ai.workflow.name`).
    #[must_use]
    pub fn start_workflow(&self, name: &str, parent: Option<&Context>) -> WorkflowSpan {
        let parent = parent.cloned().unwrap_or_else(Context::current);
        let attributes = vec![
            KeyValue::new(semconv::OPERATION_NAME, operation::INVOKE_WORKFLOW),
            KeyValue::new(semconv::WORKFLOW_NAME, name.to_owned()),
        ];
        let tracer = self.otel();
        let span = tracer
            .span_builder(format!("{} {name}", operation::INVOKE_WORKFLOW))
            .with_kind(SpanKind::Internal)
            .with_attributes(attributes)
            .start_with_context(tracer, &parent);
        WorkflowSpan {
            cx: parent.with_span(span),
            tracer: self.clone(),
            started: Instant::now(),
            name: name.to_owned(),
            error: false,
            ended: false,
        }
    }
}
