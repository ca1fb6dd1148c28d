//! A loopback listener for the authorization redirect: the browser comes back to
//! `http://127.0.0.1:PORT/callback?code=…&state=…`, gets a page saying it may close, and the
//! whole URL is handed to [`Authorization::complete`](super::Authorization::complete).

use std::convert::Infallible;
use std::net::SocketAddr;
use std::time::Duration;

use http::{Response, StatusCode};
use hyper::body::Incoming;
use hyper_util::rt::TokioIo;
use tokio::net::TcpListener;
use tokio::sync::mpsc;

const PATH: &str = "/callback";
const DONE: &str =
    "<!doctype html><title>dive</title><p>Authorization received. You can close this window.</p>";

/// Listens on 127.0.0.1 for one authorization redirect.
#[derive(Debug)]
pub struct CallbackListener {
    listener: TcpListener,
    addr: SocketAddr,
}

impl CallbackListener {
    /// Binds 127.0.0.1 on `port` (any free port when `None`).
    ///
    /// # Errors
    /// The port is taken or cannot be bound.
    pub async fn bind(port: Option<u16>) -> std::io::Result<Self> {
        let listener = TcpListener::bind(("127.0.0.1", port.unwrap_or(0))).await?;
        let addr = listener.local_addr()?;
        Ok(Self { listener, addr })
    }

    /// The redirect URI to register and send: `http://127.0.0.1:PORT/callback`.
    #[must_use]
    pub fn redirect_uri(&self) -> String {
        format!("http://{}{PATH}", self.addr)
    }

    /// Waits for the redirect and returns its full URL. Requests for other paths (a
    /// browser's `/favicon.ico`) get a 404 and the wait goes on.
    ///
    /// # Errors
    /// [`std::io::ErrorKind::TimedOut`] when nothing came back within `limit`.
    pub async fn wait(self, limit: Duration) -> std::io::Result<String> {
        let (found, mut received) = mpsc::channel::<String>(1);
        let base = self.redirect_uri();
        let accept = async move {
            loop {
                let stream = match self.listener.accept().await {
                    Ok((stream, _)) => stream,
                    Err(e) => return e,
                };
                let found = found.clone();
                let base = base.clone();
                let service = hyper::service::service_fn(move |request: hyper::Request<Incoming>| {
                    let found = found.clone();
                    let base = base.clone();
                    async move {
                        let uri = request.uri();
                        if uri.path() != PATH {
                            return Ok::<_, Infallible>(page(StatusCode::NOT_FOUND, "not found"));
                        }
                        let query = uri.query().map(|q| format!("?{q}")).unwrap_or_default();
                        let _ = found.try_send(format!("{base}{query}"));
                        Ok(page(StatusCode::OK, DONE))
                    }
                });
                tokio::spawn(async move {
                    let _ = hyper::server::conn::http1::Builder::new()
                        .serve_connection(TokioIo::new(stream), service)
                        .await;
                });
            }
        };
        tokio::select! {
            url = received.recv() => url.ok_or_else(|| std::io::Error::other("the callback listener stopped")),
            e = accept => Err(e),
            () = tokio::time::sleep(limit) => Err(std::io::Error::new(
                std::io::ErrorKind::TimedOut,
                format!("no authorization came back within {} s", limit.as_secs()),
            )),
        }
    }
}

fn page(status: StatusCode, body: &'static str) -> Response<String> {
    let mut response = Response::new(body.to_owned());
    *response.status_mut() = status;
    response
        .headers_mut()
        .insert(http::header::CONTENT_TYPE, http::HeaderValue::from_static("text/html; charset=utf-8"));
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn the_redirect_comes_back_whole_and_other_paths_are_ignored() {
        let listener = CallbackListener::bind(None).await.unwrap();
        let uri = listener.redirect_uri();
        let wait = tokio::spawn(listener.wait(Duration::from_secs(10)));
        let client = dive_provider::HttpOptions::default().build_client().unwrap();
        let favicon = uri.replace("/callback", "/favicon.ico");
        assert_eq!(client.get(&favicon).send().await.unwrap().status(), 404);
        let page = client.get(format!("{uri}?code=abc&state=xyz")).send().await.unwrap();
        assert_eq!(page.status(), 200);
        assert!(page.text().await.unwrap().contains("close this window"));
        assert_eq!(wait.await.unwrap().unwrap(), format!("{uri}?code=abc&state=xyz"));
    }

    #[tokio::test]
    async fn nothing_coming_back_times_out() {
        let listener = CallbackListener::bind(None).await.unwrap();
        let e = listener.wait(Duration::from_millis(50)).await.unwrap_err();
        assert_eq!(e.kind(), std::io::ErrorKind::TimedOut);
    }
}
