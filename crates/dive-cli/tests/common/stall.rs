//! A Messages API that starts a streamed answer and then goes silent: it sends the headers,
//! `message_start` and one text delta, then holds the connection open without another byte
//! (a stalled stream), until the test ends.

use std::io::{Read, Write};
use std::net::TcpListener;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, mpsc};

/// The text the stalled stream sends before it goes silent.
pub const PARTIAL: &str = "partial answer";

/// A running stalling server.
pub struct StallingApi {
    /// `http://127.0.0.1:PORT`.
    pub uri: String,
    requests: Arc<AtomicUsize>,
    _stop: mpsc::Sender<()>,
}

impl StallingApi {
    /// Starts the server on a free local port.
    pub fn start() -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let uri = format!("http://{}", listener.local_addr().unwrap());
        let requests = Arc::new(AtomicUsize::new(0));
        let (stop, stopped) = mpsc::channel::<()>();
        let stopped = Arc::new(std::sync::Mutex::new(stopped));
        let count = Arc::clone(&requests);
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(mut stream) = stream else { break };
                let count = Arc::clone(&count);
                let stopped = Arc::clone(&stopped);
                std::thread::spawn(move || {
                    let mut buf = [0u8; 65536];
                    let mut seen = Vec::new();
                    // Read the request head and body (Content-Length) before answering.
                    loop {
                        let Ok(n) = stream.read(&mut buf) else { return };
                        if n == 0 {
                            return;
                        }
                        seen.extend_from_slice(&buf[..n]);
                        let text = String::from_utf8_lossy(&seen);
                        if let Some(end) = text.find("\r\n\r\n") {
                            let length = text[..end]
                                .lines()
                                .find_map(|l| {
                                    l.to_ascii_lowercase()
                                        .strip_prefix("content-length:")
                                        .map(|v| v.trim().parse::<usize>().unwrap_or(0))
                                })
                                .unwrap_or(0);
                            if seen.len() >= end + 4 + length {
                                break;
                            }
                        }
                    }
                    count.fetch_add(1, Ordering::SeqCst);
                    let head = "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncache-control: no-cache\r\nconnection: close\r\n\r\n";
                    let start = r#"{"type":"message_start","message":{"id":"msg_stall","type":"message","role":"assistant","model":"claude-sonnet-5-5","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":12,"output_tokens":1}}}"#;
                    let block = r#"{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}"#;
                    let delta = format!(
                        r#"{{"type":"content_block_delta","index":0,"delta":{{"type":"text_delta","text":"{PARTIAL}"}}}}"#
                    );
                    let body = format!(
                        "event: message_start\ndata: {start}\n\nevent: content_block_start\ndata: {block}\n\nevent: content_block_delta\ndata: {delta}\n\n"
                    );
                    let _ = stream.write_all(head.as_bytes());
                    let _ = stream.write_all(body.as_bytes());
                    let _ = stream.flush();
                    // Silent until the test drops the server (or a minute passes).
                    let guard = stopped.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
                    let _ = guard.recv_timeout(std::time::Duration::from_secs(60));
                });
            }
        });
        Self { uri, requests, _stop: stop }
    }

    /// How many requests have been answered (and stalled).
    pub fn requests(&self) -> usize {
        self.requests.load(Ordering::SeqCst)
    }
}
