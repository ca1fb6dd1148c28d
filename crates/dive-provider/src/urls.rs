//! [`ParsedUrls`]: the endpoint URLs a provider calls, each parsed once. Parsing a URL costs
//! more than the rest of building a request, and a provider calls the same few endpoints
//! again and again, so a call clones the parsed URL instead.

use std::sync::{Mutex, PoisonError};

use reqwest::Url;

/// The most URLs kept (a provider calls one to a few: the model name can be in the path).
const KEPT: usize = 8;

/// Parsed endpoint URLs, shared by the clones of one provider.
#[derive(Debug, Default)]
pub(crate) struct ParsedUrls(Mutex<Vec<(String, Url)>>);

impl ParsedUrls {
    /// `url` parsed: from the cache when it was seen, otherwise parsed now (and kept while
    /// there is room). `None` when it does not parse: the caller hands the text to the HTTP
    /// client, which reports the error as it always does.
    pub(crate) fn get(&self, url: &str) -> Option<Url> {
        let mut kept = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some((_, parsed)) = kept.iter().find(|(text, _)| text == url) {
            return Some(parsed.clone());
        }
        let parsed = Url::parse(url).ok()?;
        if kept.len() < KEPT {
            kept.push((url.to_owned(), parsed.clone()));
        }
        Some(parsed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_url_is_parsed_once_and_kept_while_there_is_room() {
        let urls = ParsedUrls::default();
        let first = urls.get("http://127.0.0.1:9/v1/messages?beta=true").unwrap();
        assert_eq!(first.as_str(), "http://127.0.0.1:9/v1/messages?beta=true");
        assert_eq!(urls.get("http://127.0.0.1:9/v1/messages?beta=true").unwrap(), first);
        assert_eq!(urls.0.lock().unwrap().len(), 1);
        for i in 0..20 {
            let url = format!("http://127.0.0.1:9/v1/models/m{i}");
            assert_eq!(urls.get(&url).unwrap().as_str(), url);
        }
        assert_eq!(urls.0.lock().unwrap().len(), KEPT);
        assert!(urls.get("not a url").is_none());
    }
}
