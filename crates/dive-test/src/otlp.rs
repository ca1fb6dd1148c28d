//! [`OtlpReceiver`]: the OTLP/HTTP receiver peer (`interop/otlp_receiver.py`, on the official
//! `opentelemetry-proto` package) as a child process for tests: it decodes every export and
//! writes each span as one JSON line, which [`OtlpReceiver::spans`] reads back.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use serde_json::Value;

/// A running receiver on a free port, killed when dropped.
#[derive(Debug)]
pub struct OtlpReceiver {
    child: Child,
    url: String,
    out: PathBuf,
}

impl OtlpReceiver {
    /// Starts the receiver with `python` (from [`python`](crate::interop::python)), writing
    /// spans to `out`.
    ///
    /// # Panics
    /// When it does not start or does not say where it listens.
    #[must_use]
    pub fn start(python: &str, out: &Path) -> Self {
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("interop/otlp_receiver.py");
        let mut child = Command::new(python)
            .arg(script)
            .args(["--port", "0", "--out"])
            .arg(out)
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap_or_else(|e| panic!("the OTLP receiver does not start with {python}: {e}"));
        let mut first = String::new();
        if let Some(stdout) = child.stdout.take() {
            let mut lines = BufReader::new(stdout);
            let _ = lines.read_line(&mut first);
            // Keep reading what it prints for each export, so its prints never hit a closed pipe.
            std::thread::spawn(move || std::io::copy(&mut lines, &mut std::io::sink()));
        }
        let url = first.trim().rsplit(' ').next().unwrap_or_default().to_owned();
        assert!(url.starts_with("http://127.0.0.1:"), "the OTLP receiver said {first:?}");
        Self { child, url, out: out.to_path_buf() }
    }

    /// Its base URL (`http://127.0.0.1:PORT`), for `OTEL_EXPORTER_OTLP_ENDPOINT`.
    #[must_use]
    pub fn url(&self) -> &str {
        &self.url
    }

    /// Every span received so far, as the receiver decoded it (`name`, `trace_id`,
    /// `span_id`, `parent_span_id`, `kind`, `service`, `scope`, `attributes`).
    ///
    /// # Panics
    /// When a line is not JSON.
    #[must_use]
    pub fn spans(&self) -> Vec<Value> {
        let text = std::fs::read_to_string(&self.out).unwrap_or_default();
        text.lines().map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}"))).collect()
    }
}

impl Drop for OtlpReceiver {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
