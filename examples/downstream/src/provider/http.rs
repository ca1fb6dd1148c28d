//! One HTTP/1.1 exchange over a plain TCP connection: enough for a model server on the local
//! machine or network (no TLS, no chunked bodies: the server sends `Connection: close` and
//! either a `Content-Length` or a body that ends with the connection).

use dive_core::{LlmError, LlmErrorKind, Secret};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpStream;

/// Where the server listens: `host:port`, from a `http://host:port` base URL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Endpoint {
    pub(crate) authority: String,
}

impl Endpoint {
    /// Parses `http://host:port` (a trailing `/` allowed).
    pub(crate) fn parse(base_url: &str) -> Result<Self, LlmError> {
        let rest = base_url.strip_prefix("http://").ok_or_else(|| {
            LlmError::new(
                LlmErrorKind::InvalidRequest,
                format!("LineModel speaks plain HTTP to a local server: give a base URL like http://127.0.0.1:8080, not {base_url:?}"),
            )
        })?;
        let authority = rest.trim_end_matches('/');
        if authority.is_empty() || authority.contains('/') {
            return Err(LlmError::new(
                LlmErrorKind::InvalidRequest,
                format!("the base URL must be http://host:port with no path, not {base_url:?}"),
            ));
        }
        Ok(Self { authority: authority.to_owned() })
    }
}

/// A response whose status line and headers are read; the body is still on the connection.
pub(crate) struct Response {
    pub(crate) status: u16,
    pub(crate) retry_after: Option<u64>,
    pub(crate) content_length: Option<usize>,
    pub(crate) body: BufReader<TcpStream>,
}

impl Response {
    /// The whole body (up to `Content-Length`, else to the end of the connection).
    pub(crate) async fn bytes(mut self) -> Result<Vec<u8>, LlmError> {
        let mut bytes = Vec::new();
        match self.content_length {
            Some(n) => {
                bytes.resize(n, 0);
                self.body.read_exact(&mut bytes).await.map_err(network)?;
            }
            None => {
                self.body.read_to_end(&mut bytes).await.map_err(network)?;
            }
        }
        Ok(bytes)
    }
}

pub(crate) fn network(e: std::io::Error) -> LlmError {
    LlmError::new(LlmErrorKind::Network, format!("the model server connection failed: {e}")).with_source(e)
}

/// Sends `POST path` with a JSON body and reads the status line and headers.
pub(crate) async fn post(
    endpoint: &Endpoint,
    path: &str,
    key: Option<&Secret>,
    body: &[u8],
) -> Result<Response, LlmError> {
    let mut stream = TcpStream::connect(&endpoint.authority).await.map_err(network)?;
    let mut head = format!(
        "POST {path} HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n",
        endpoint.authority,
        body.len()
    );
    if let Some(key) = key {
        head.push_str(&format!("Authorization: Bearer {}\r\n", key.expose()));
    }
    head.push_str("\r\n");
    stream.write_all(head.as_bytes()).await.map_err(network)?;
    stream.write_all(body).await.map_err(network)?;
    let mut reader = BufReader::new(stream);
    let mut line = String::new();
    reader.read_line(&mut line).await.map_err(network)?;
    let status = line.split_whitespace().nth(1).and_then(|s| s.parse::<u16>().ok()).ok_or_else(|| {
        LlmError::new(LlmErrorKind::Decode, format!("not an HTTP status line: {:?}", line.trim_end()))
    })?;
    let (mut retry_after, mut content_length) = (None, None);
    loop {
        line.clear();
        if reader.read_line(&mut line).await.map_err(network)? == 0 || line.trim_end().is_empty() {
            break;
        }
        if let Some((name, value)) = line.split_once(':') {
            let value = value.trim();
            if name.eq_ignore_ascii_case("retry-after") {
                retry_after = value.parse().ok();
            } else if name.eq_ignore_ascii_case("content-length") {
                content_length = value.parse().ok();
            }
        }
    }
    Ok(Response { status, retry_after, content_length, body: reader })
}
