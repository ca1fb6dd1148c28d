//! The opt-in OTLP/HTTP set-up: SDK tracer and meter providers exporting protobuf over HTTP,
//! configured from the standard `OTEL_EXPORTER_OTLP_*` and `OTEL_SERVICE_NAME` variables, and
//! a guard that flushes and shuts them down when dropped. Nothing is installed globally.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use dive_core::Secret;
use opentelemetry_otlp::{Protocol, WithExportConfig, WithHttpConfig};
use opentelemetry_sdk::Resource;
use opentelemetry_sdk::metrics::{PeriodicReader, SdkMeterProvider};
use opentelemetry_sdk::trace::SdkTracerProvider;
use rustls_platform_verifier::BuilderVerifierExt;

use crate::{OtelTracer, OtelTracerBuilder};

/// Why the OTLP set-up failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum OtlpError {
    /// A variable holds a value we cannot use.
    #[error("{var} is not valid: {reason}; fix or unset it")]
    InvalidVariable {
        /// The variable.
        var: &'static str,
        /// What is wrong (never the value of a header).
        reason: String,
    },
    /// The protocol asked for is not OTLP/HTTP with protobuf.
    #[error("OTEL_EXPORTER_OTLP_PROTOCOL={0} is not supported; dive exports `http/protobuf` only")]
    UnsupportedProtocol(String),
    /// The exporter or its HTTP client could not be built (header values redacted).
    #[error("the OTLP exporter could not be set up: {0}")]
    Setup(String),
}

/// What the OTLP exporter is configured with. `Debug` shows header names only.
#[derive(Clone)]
#[non_exhaustive]
pub struct OtlpConfig {
    /// The traces endpoint (a full URL, `…/v1/traces`).
    pub traces_endpoint: String,
    /// The metrics endpoint (a full URL, `…/v1/metrics`).
    pub metrics_endpoint: String,
    /// Headers sent with every export (often an API key): values are secrets.
    pub headers: BTreeMap<String, Secret>,
    /// The export timeout.
    pub timeout: Duration,
    /// `service.name` of the resource.
    pub service_name: String,
    /// How often metrics are exported.
    pub metric_interval: Duration,
}

impl std::fmt::Debug for OtlpConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OtlpConfig")
            .field("traces_endpoint", &self.traces_endpoint)
            .field("metrics_endpoint", &self.metrics_endpoint)
            .field("headers", &self.headers)
            .field("timeout", &self.timeout)
            .field("service_name", &self.service_name)
            .finish_non_exhaustive()
    }
}

/// The service name when `OTEL_SERVICE_NAME` is unset.
pub const DEFAULT_SERVICE_NAME: &str = "dive";

impl OtlpConfig {
    /// A configuration exporting to `endpoint` (the base URL, `/v1/traces` and `/v1/metrics`
    /// appended), no headers, a 10 s timeout, service [`DEFAULT_SERVICE_NAME`].
    #[must_use]
    pub fn new(endpoint: &str) -> Self {
        let base = endpoint.trim_end_matches('/');
        Self {
            traces_endpoint: format!("{base}/v1/traces"),
            metrics_endpoint: format!("{base}/v1/metrics"),
            headers: BTreeMap::new(),
            timeout: Duration::from_secs(10),
            service_name: DEFAULT_SERVICE_NAME.to_owned(),
            metric_interval: Duration::from_secs(60),
        }
    }

    /// Reads the standard variables: `None` unless `OTEL_EXPORTER_OTLP_ENDPOINT` or
    /// `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` is set (exporting is opt-in), or when
    /// `OTEL_SDK_DISABLED=true`.
    ///
    /// Also read: `OTEL_EXPORTER_OTLP_METRICS_ENDPOINT`, `OTEL_EXPORTER_OTLP_HEADERS`
    /// (`key=value,…`, values percent-decoded), `OTEL_EXPORTER_OTLP_TIMEOUT` (milliseconds),
    /// `OTEL_EXPORTER_OTLP_PROTOCOL` (only `http/protobuf`), `OTEL_SERVICE_NAME`,
    /// `OTEL_METRIC_EXPORT_INTERVAL` (milliseconds).
    ///
    /// # Errors
    /// [`OtlpError`] naming the variable whose value cannot be used.
    #[allow(clippy::disallowed_methods)] // a from_env constructor
    pub fn from_env() -> Result<Option<Self>, OtlpError> {
        Self::from_vars(|name| std::env::var(name).ok().filter(|v| !v.trim().is_empty()))
    }

    /// [`OtlpConfig::from_env`] over any source of variables (tests, a settings file).
    ///
    /// # Errors
    /// As [`OtlpConfig::from_env`].
    pub fn from_vars(var: impl Fn(&str) -> Option<String>) -> Result<Option<Self>, OtlpError> {
        if var("OTEL_SDK_DISABLED").is_some_and(|v| v.trim().eq_ignore_ascii_case("true")) {
            return Ok(None);
        }
        let base = var("OTEL_EXPORTER_OTLP_ENDPOINT");
        let traces = var("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT");
        if base.is_none() && traces.is_none() {
            return Ok(None);
        }
        if let Some(protocol) = var("OTEL_EXPORTER_OTLP_PROTOCOL")
            && protocol.trim() != "http/protobuf"
        {
            return Err(OtlpError::UnsupportedProtocol(protocol));
        }
        let mut config = Self::new(base.as_deref().unwrap_or("http://localhost:4318"));
        if let Some(t) = traces {
            config.traces_endpoint = t;
        }
        if let Some(m) = var("OTEL_EXPORTER_OTLP_METRICS_ENDPOINT") {
            config.metrics_endpoint = m;
        }
        for (name, endpoint) in [
            ("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", &config.traces_endpoint),
            ("OTEL_EXPORTER_OTLP_METRICS_ENDPOINT", &config.metrics_endpoint),
        ] {
            if !(endpoint.starts_with("http://") || endpoint.starts_with("https://")) {
                return Err(OtlpError::InvalidVariable {
                    var: name,
                    reason: "the endpoint is not an http(s) URL".into(),
                });
            }
        }
        if let Some(h) = var("OTEL_EXPORTER_OTLP_HEADERS") {
            config.headers = parse_headers(&h)?;
        }
        if let Some(t) = var("OTEL_EXPORTER_OTLP_TIMEOUT") {
            config.timeout = millis("OTEL_EXPORTER_OTLP_TIMEOUT", &t)?;
        }
        if let Some(i) = var("OTEL_METRIC_EXPORT_INTERVAL") {
            config.metric_interval = millis("OTEL_METRIC_EXPORT_INTERVAL", &i)?;
        }
        if let Some(name) = var("OTEL_SERVICE_NAME") {
            config.service_name = name;
        }
        Ok(Some(config))
    }

    /// Builds the providers (a batch span processor and a periodic metric reader, each on its
    /// own thread) without installing anything globally.
    ///
    /// # Errors
    /// [`OtlpError::Setup`] when the HTTP client or an exporter cannot be built.
    pub fn build(&self) -> Result<OtelGuard, OtlpError> {
        let secrets: Vec<&Secret> = self.headers.values().collect();
        let setup =
            |e: &dyn std::fmt::Display| OtlpError::Setup(dive_core::secret::redact(&e.to_string(), &secrets));
        let headers: std::collections::HashMap<String, String> =
            self.headers.iter().map(|(k, v)| (k.clone(), v.expose().to_owned())).collect();
        let client = blocking_client(self.timeout).map_err(|e| setup(&e))?;
        let spans = opentelemetry_otlp::SpanExporter::builder()
            .with_http()
            .with_http_client(client.clone())
            .with_protocol(Protocol::HttpBinary)
            .with_endpoint(self.traces_endpoint.clone())
            .with_timeout(self.timeout)
            .with_headers(headers.clone())
            .build()
            .map_err(|e| setup(&e))?;
        let metrics = opentelemetry_otlp::MetricExporter::builder()
            .with_http()
            .with_http_client(client)
            .with_protocol(Protocol::HttpBinary)
            .with_endpoint(self.metrics_endpoint.clone())
            .with_timeout(self.timeout)
            .with_headers(headers)
            .build()
            .map_err(|e| setup(&e))?;
        let resource = Resource::builder_empty().with_service_name(self.service_name.clone()).build();
        let tracer_provider =
            SdkTracerProvider::builder().with_batch_exporter(spans).with_resource(resource.clone()).build();
        let reader = PeriodicReader::builder(metrics).with_interval(self.metric_interval).build();
        let meter_provider = SdkMeterProvider::builder().with_reader(reader).with_resource(resource).build();
        Ok(OtelGuard { tracer_provider, meter_provider, shut: false })
    }
}

fn millis(var: &'static str, value: &str) -> Result<Duration, OtlpError> {
    value
        .trim()
        .parse::<u64>()
        .map(Duration::from_millis)
        .map_err(|_| OtlpError::InvalidVariable { var, reason: "not a whole number of milliseconds".into() })
}

/// `key=value,key2=value2` with percent-encoded values (the OTLP exporter specification's
/// format). Errors name the entry's position, never its value.
fn parse_headers(text: &str) -> Result<BTreeMap<String, Secret>, OtlpError> {
    let mut headers = BTreeMap::new();
    for (i, entry) in text.split(',').enumerate().filter(|(_, e)| !e.trim().is_empty()) {
        let bad = |reason: &str| OtlpError::InvalidVariable {
            var: "OTEL_EXPORTER_OTLP_HEADERS",
            reason: format!("entry {} {reason}", i + 1),
        };
        let (key, value) = entry.split_once('=').ok_or_else(|| bad("has no `=`"))?;
        let key = key.trim();
        if key.is_empty() || !key.bytes().all(|b| b.is_ascii_alphanumeric() || b"-_".contains(&b)) {
            return Err(bad("has an invalid header name"));
        }
        let value = percent_decode(value.trim()).ok_or_else(|| bad("has a malformed percent escape"))?;
        headers.insert(key.to_owned(), Secret::new(value));
    }
    Ok(headers)
}

fn percent_decode(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = text.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// A blocking reqwest client on rustls with the ring provider (no process-global crypto
/// provider, never aws-lc), built on its own thread: a blocking client may not be built or
/// dropped inside an async runtime, and the exporters run on their own threads.
fn blocking_client(timeout: Duration) -> Result<reqwest::blocking::Client, String> {
    std::thread::spawn(move || {
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let tls = rustls::ClientConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .map_err(|e| format!("TLS versions: {e}"))?
            .with_platform_verifier()
            .map_err(|e| format!("TLS certificate verifier: {e}"))?
            .with_no_client_auth();
        reqwest::blocking::Client::builder()
            .tls_backend_preconfigured(tls)
            .timeout(timeout)
            .build()
            .map_err(|e| format!("HTTP client: {e}"))
    })
    .join()
    .map_err(|_| "building the HTTP client panicked".to_owned())?
}

/// The SDK providers [`init_from_env`] built. Dropping it flushes and shuts both down (the
/// exports block the dropping thread for at most the export timeout).
pub struct OtelGuard {
    tracer_provider: SdkTracerProvider,
    meter_provider: SdkMeterProvider,
    shut: bool,
}

impl std::fmt::Debug for OtelGuard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The providers' own Debug reaches the exporters' configuration; header values stay out.
        f.debug_struct("OtelGuard").field("shut", &self.shut).finish_non_exhaustive()
    }
}

impl OtelGuard {
    /// The tracer provider.
    #[must_use]
    pub fn tracer_provider(&self) -> &SdkTracerProvider {
        &self.tracer_provider
    }

    /// The meter provider.
    #[must_use]
    pub fn meter_provider(&self) -> &SdkMeterProvider {
        &self.meter_provider
    }

    /// A tracer builder on these providers, its meter set and its options read from the
    /// environment ([`OtelTracerBuilder::from_env`]).
    pub fn tracer_builder(&self) -> OtelTracerBuilder {
        use opentelemetry::metrics::MeterProvider as _;
        OtelTracer::builder(&self.tracer_provider).meter(self.meter_provider.meter(crate::SCOPE)).from_env()
    }

    /// [`OtelGuard::tracer_builder`] built.
    #[must_use]
    pub fn tracer(&self) -> OtelTracer {
        self.tracer_builder().build()
    }

    /// Flushes what is buffered and shuts the providers down now.
    ///
    /// # Errors
    /// [`OtlpError::Setup`] when an export failed.
    pub fn shutdown(mut self) -> Result<(), OtlpError> {
        self.shut = true;
        let traces = self.tracer_provider.shutdown();
        let metrics = self.meter_provider.shutdown();
        traces.map_err(|e| OtlpError::Setup(e.to_string()))?;
        metrics.map_err(|e| OtlpError::Setup(e.to_string()))
    }
}

impl Drop for OtelGuard {
    fn drop(&mut self) {
        if self.shut {
            return;
        }
        if let Err(e) = self.tracer_provider.shutdown() {
            tracing::warn!(error = %e, "flushing spans to the OTLP endpoint failed");
        }
        if let Err(e) = self.meter_provider.shutdown() {
            tracing::warn!(error = %e, "flushing metrics to the OTLP endpoint failed");
        }
    }
}

/// Builds the OTLP/HTTP providers when the standard variables ask for it: `Ok(None)` when no
/// OTLP endpoint is set. Keep the guard alive for as long as spans are made; build the agent's
/// tracer with [`OtelGuard::tracer`].
///
/// # Errors
/// As [`OtlpConfig::from_env`] and [`OtlpConfig::build`].
pub fn init_from_env() -> Result<Option<OtelGuard>, OtlpError> {
    OtlpConfig::from_env()?.map(|c| c.build()).transpose()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let map: BTreeMap<String, String> =
            pairs.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect();
        move |k| map.get(k).cloned()
    }

    #[test]
    fn nothing_is_built_without_an_endpoint() {
        assert!(OtlpConfig::from_vars(vars(&[("OTEL_SERVICE_NAME", "x")])).unwrap_or_default().is_none());
        let disabled = [("OTEL_EXPORTER_OTLP_ENDPOINT", "http://h:4318"), ("OTEL_SDK_DISABLED", "true")];
        assert!(OtlpConfig::from_vars(vars(&disabled)).unwrap_or_default().is_none());
    }

    #[test]
    fn endpoints_headers_and_service_are_read_and_secrets_never_print() {
        let config = OtlpConfig::from_vars(vars(&[
            ("OTEL_EXPORTER_OTLP_ENDPOINT", "https://otel.example:4318/"),
            ("OTEL_EXPORTER_OTLP_METRICS_ENDPOINT", "http://m.example/m"),
            ("OTEL_EXPORTER_OTLP_HEADERS", "api-key=s3cr%3Dt-value, x-team=a"),
            ("OTEL_EXPORTER_OTLP_TIMEOUT", "2500"),
            ("OTEL_SERVICE_NAME", "svc"),
        ]));
        let Ok(Some(config)) = config else { panic!("{config:?}") };
        assert_eq!(config.traces_endpoint, "https://otel.example:4318/v1/traces");
        assert_eq!(config.metrics_endpoint, "http://m.example/m");
        assert_eq!(config.headers.get("api-key").map(Secret::expose), Some("s3cr=t-value"));
        assert_eq!(config.timeout, Duration::from_millis(2500));
        assert_eq!(config.service_name, "svc");
        let debug = format!("{config:?}");
        assert!(debug.contains("api-key") && !debug.contains("s3cr"), "{debug}");
    }

    #[test]
    fn bad_values_are_named_without_their_secret() {
        let err = OtlpConfig::from_vars(vars(&[
            ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://h"),
            ("OTEL_EXPORTER_OTLP_HEADERS", "good=1,topsecretvalue"),
        ]))
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default();
        assert!(err.contains("OTEL_EXPORTER_OTLP_HEADERS") && err.contains("entry 2"), "{err}");
        assert!(!err.contains("topsecret"), "{err}");
        let grpc = [("OTEL_EXPORTER_OTLP_ENDPOINT", "http://h"), ("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc")];
        assert!(matches!(OtlpConfig::from_vars(vars(&grpc)), Err(OtlpError::UnsupportedProtocol(_))));
        let ftp = [("OTEL_EXPORTER_OTLP_ENDPOINT", "ftp://h")];
        assert!(matches!(OtlpConfig::from_vars(vars(&ftp)), Err(OtlpError::InvalidVariable { .. })));
    }
}
