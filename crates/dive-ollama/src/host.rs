//! [`parse_host`]: `OLLAMA_HOST`-style server names → base URLs, as the `ollama` CLI reads them.

/// The server used when neither the builder nor `OLLAMA_HOST` names one.
pub const DEFAULT_HOST: &str = "http://localhost:11434";

/// Normalises an `OLLAMA_HOST`-style value into a base URL, as the `ollama` CLI and SDK read
/// it: a missing scheme means `http`, a missing port on plain `http` means 11434, a trailing
/// slash is dropped, and an empty value means [`DEFAULT_HOST`].
///
/// ```
/// use dive_ollama::parse_host;
/// assert_eq!(parse_host(""), "http://localhost:11434");
/// assert_eq!(parse_host("10.0.0.5"), "http://10.0.0.5:11434");
/// assert_eq!(parse_host(":9999"), "http://localhost:9999");
/// assert_eq!(parse_host("https://ollama.example.com/"), "https://ollama.example.com");
/// assert_eq!(parse_host("http://127.0.0.1:8080"), "http://127.0.0.1:8080");
/// ```
#[must_use]
pub fn parse_host(host: &str) -> String {
    let host = host.trim().trim_end_matches('/');
    if host.is_empty() {
        return DEFAULT_HOST.to_owned();
    }
    let (scheme, rest) = match host.split_once("://") {
        Some((s, r)) => (s.to_ascii_lowercase(), r),
        None => ("http".to_owned(), host),
    };
    let (authority, path) = match rest.find('/') {
        Some(i) => rest.split_at(i),
        None => (rest, ""),
    };
    let authority =
        if authority.starts_with(':') { format!("localhost{authority}") } else { authority.to_owned() };
    // A port is a `:digits` suffix after any IPv6 literal.
    let has_port = authority
        .rsplit_once(':')
        .is_some_and(|(h, p)| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()) && !h.ends_with(':'));
    let authority = if has_port || scheme != "http" { authority } else { format!("{authority}:11434") };
    format!("{scheme}://{authority}{path}")
}
