//! [`MisbehavingServer`]: a real local HTTP/1.1 server that answers each request with the
//! next scripted [`Reply`] — a status with a body, a stream cut at a chosen frame, a stream
//! that never ends — and records what it was sent.
//!
//! It speaks just enough HTTP for a provider client: it reads one request (head and
//! `content-length` body) per connection, answers with `connection: close`, and closes. A
//! cut is a socket closed while the declared `content-length` is still unmet, which every
//! client sees as a broken body.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Notify;

/// One scripted answer.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum Reply {
    /// A whole response: status, extra headers, body.
    Status {
        /// The HTTP status.
        status: u16,
        /// Extra headers (`retry-after`, …).
        headers: Vec<(String, String)>,
        /// The body (`application/json`).
        body: Vec<u8>,
    },
    /// A `200` stream of `frames` (each a complete frame, separators included) with a
    /// `content-length` of the whole; `cut_after` frames are sent, then the socket closes
    /// (`None`: all of them, a clean end).
    Stream {
        /// The `content-type`.
        content_type: String,
        /// The frames.
        frames: Vec<Vec<u8>>,
        /// Send only this many frames, then cut the connection.
        cut_after: Option<usize>,
    },
    /// A `200` stream that sends `frames` and then holds the connection open until the client
    /// closes it (recorded, see [`MisbehavingServer::wait_client_closed`]).
    Hold {
        /// The `content-type`.
        content_type: String,
        /// The frames sent before holding.
        frames: Vec<Vec<u8>>,
    },
}

impl Reply {
    /// A JSON body with a status.
    #[must_use]
    pub fn json(status: u16, body: impl Into<Vec<u8>>) -> Self {
        Self::Status { status, headers: Vec::new(), body: body.into() }
    }

    /// Adds a header to a [`Reply::Status`] (other replies are unchanged).
    #[must_use]
    pub fn with_header(mut self, name: &str, value: &str) -> Self {
        if let Self::Status { headers, .. } = &mut self {
            headers.push((name.to_owned(), value.to_owned()));
        }
        self
    }
}

/// One request the server received.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Received {
    /// The request line (`POST /v1/messages HTTP/1.1`).
    pub request_line: String,
    /// The headers, names lower-cased.
    pub headers: Vec<(String, String)>,
    /// The body.
    pub body: Vec<u8>,
    /// When it arrived.
    pub at: Instant,
}

impl Received {
    /// The path of the request line (query included).
    #[must_use]
    pub fn path(&self) -> &str {
        self.request_line.split(' ').nth(1).unwrap_or_default()
    }
}

#[derive(Debug, Default)]
struct State {
    script: Vec<Reply>,
    received: Vec<Received>,
    client_closed: bool,
}

/// A local server that plays a script of [`Reply`]s, one a connection; a request past the end
/// of the script gets a `500` saying so.
#[derive(Debug, Clone)]
pub struct MisbehavingServer {
    url: String,
    state: Arc<Mutex<State>>,
    closed: Arc<Notify>,
}

impl MisbehavingServer {
    /// Starts a server on `127.0.0.1` (a free port) playing `script`.
    ///
    /// # Panics
    /// When no local port can be bound (the test cannot run at all).
    pub async fn start(script: Vec<Reply>) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap_or_else(|e| panic!("bind: {e}"));
        let addr = listener.local_addr().unwrap_or_else(|e| panic!("local address: {e}"));
        let state = Arc::new(Mutex::new(State { script, ..State::default() }));
        let closed = Arc::new(Notify::new());
        let (s, c) = (state.clone(), closed.clone());
        tokio::spawn(async move {
            while let Ok((socket, _)) = listener.accept().await {
                let (s, c) = (s.clone(), c.clone());
                tokio::spawn(async move { serve(socket, s, c).await });
            }
        });
        Self { url: format!("http://{addr}"), state, closed }
    }

    /// The base URL (`http://127.0.0.1:PORT`).
    #[must_use]
    pub fn url(&self) -> &str {
        &self.url
    }

    /// The requests received so far.
    #[must_use]
    pub fn received(&self) -> Vec<Received> {
        self.lock().received.clone()
    }

    /// Waits until the client closes a held stream ([`Reply::Hold`]); `false` when `limit`
    /// passes first.
    pub async fn wait_client_closed(&self, limit: Duration) -> bool {
        let notified = self.closed.notified();
        if self.lock().client_closed {
            return true;
        }
        tokio::time::timeout(limit, notified).await.is_ok() || self.lock().client_closed
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// Reads one HTTP/1.1 request (its head, then a body of its `content-length`) from `socket`;
/// `None` when the client closes the connection first. For a test server of one's own that
/// answers in ways [`MisbehavingServer`] does not (keep-alive, chunked bodies).
pub async fn read_request(socket: &mut TcpStream) -> Option<Received> {
    let mut buf = vec![0u8; 65536];
    let mut request = Vec::new();
    loop {
        let n = socket.read(&mut buf).await.ok()?;
        if n == 0 {
            return None;
        }
        request.extend_from_slice(&buf[..n]);
        let Some(head_end) = request.windows(4).position(|w| w == b"\r\n\r\n") else { continue };
        let head = String::from_utf8_lossy(&request[..head_end]).into_owned();
        let mut lines = head.split("\r\n");
        let request_line = lines.next().unwrap_or_default().to_owned();
        let headers: Vec<(String, String)> = lines
            .filter_map(|l| l.split_once(':'))
            .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_owned()))
            .collect();
        let len = headers
            .iter()
            .find(|(k, _)| k == "content-length")
            .and_then(|(_, v)| v.parse::<usize>().ok())
            .unwrap_or(0);
        if request.len() >= head_end + 4 + len {
            let body = request[head_end + 4..head_end + 4 + len].to_vec();
            return Some(Received { request_line, headers, body, at: Instant::now() });
        }
    }
}

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        400 => "Bad Request",
        401 => "Unauthorized",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        503 => "Service Unavailable",
        _ => "Status",
    }
}

async fn serve(mut socket: TcpStream, state: Arc<Mutex<State>>, closed: Arc<Notify>) {
    let Some(request) = read_request(&mut socket).await else { return };
    let reply = {
        let mut s = state.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        s.received.push(request);
        if s.script.is_empty() { None } else { Some(s.script.remove(0)) }
    };
    let reply = reply
        .unwrap_or_else(|| Reply::json(500, &b"{\"error\":\"the test script has no more replies\"}"[..]));
    let head = |status: u16, content_type: &str, len: usize, extra: &[(String, String)]| {
        let mut h = format!(
            "HTTP/1.1 {status} {}\r\ncontent-type: {content_type}\r\ncontent-length: {len}\r\nconnection: close\r\n",
            reason(status)
        );
        for (k, v) in extra {
            h.push_str(&format!("{k}: {v}\r\n"));
        }
        h.push_str("\r\n");
        h
    };
    // Write errors mean the client went away: nothing more to do for this connection.
    match reply {
        Reply::Status { status, headers, body } => {
            let _ = socket.write_all(head(status, "application/json", body.len(), &headers).as_bytes()).await;
            let _ = socket.write_all(&body).await;
        }
        Reply::Stream { content_type, frames, cut_after } => {
            let total: usize = frames.iter().map(Vec::len).sum();
            let _ = socket.write_all(head(200, &content_type, total, &[]).as_bytes()).await;
            for frame in frames.iter().take(cut_after.unwrap_or(frames.len())) {
                if socket.write_all(frame).await.is_err() {
                    return;
                }
                let _ = socket.flush().await;
            }
        }
        Reply::Hold { content_type, frames } => {
            // A length far beyond the frames: the body stays open until the client leaves.
            let _ = socket.write_all(head(200, &content_type, 1 << 30, &[]).as_bytes()).await;
            for frame in &frames {
                let _ = socket.write_all(frame).await;
            }
            let _ = socket.flush().await;
            let mut buf = [0u8; 64];
            loop {
                match socket.read(&mut buf).await {
                    Ok(0) | Err(_) => break,
                    Ok(_) => {}
                }
            }
            state.lock().unwrap_or_else(std::sync::PoisonError::into_inner).client_closed = true;
            closed.notify_waiters();
            return;
        }
    }
    let _ = socket.flush().await;
}
