//! [`ParsedUrls`]: the endpoint URLs a provider calls, each parsed once. Parsing a URL costs
//! more than the rest of building a request, and a provider calls the same few endpoints
//! again and again, so a call clones the parsed URL instead, found by its path alone (the
//! base URL is the provider's own), without writing out the whole URL first.

use std::sync::{Mutex, PoisonError};

use reqwest::Url;

/// The most URLs kept (a provider calls one to a few: the model name can be in the path).
const KEPT: usize = 8;

/// Parsed endpoint URLs of one base URL, by path, shared by the clones of one provider.
#[derive(Debug, Default)]
pub(crate) struct ParsedUrls(Mutex<Vec<(String, Url)>>);

impl ParsedUrls {
    /// `base` + `path` parsed: from the cache when `path` was seen, otherwise parsed now (and
    /// kept while there is room). `Err` holds the URL's text when it does not parse: the
    /// caller hands that to the HTTP client, which reports the error as it always does.
    /// `base` must be the same on every call (the provider's base URL).
    pub(crate) fn get(&self, base: &str, path: &str) -> Result<Url, String> {
        let mut kept = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some((_, parsed)) = kept.iter().find(|(p, _)| p == path) {
            return Ok(parsed.clone());
        }
        let text = [base, path].concat();
        let Ok(parsed) = Url::parse(&text) else { return Err(text) };
        if kept.len() < KEPT {
            kept.push((path.to_owned(), parsed.clone()));
        }
        Ok(parsed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const BASE: &str = "http://127.0.0.1:9";

    #[test]
    fn a_url_is_parsed_once_and_kept_while_there_is_room() {
        let urls = ParsedUrls::default();
        let first = urls.get(BASE, "/v1/messages?beta=true").unwrap();
        assert_eq!(first.as_str(), "http://127.0.0.1:9/v1/messages?beta=true");
        assert_eq!(urls.get(BASE, "/v1/messages?beta=true").unwrap(), first);
        assert_eq!(urls.get(BASE, "/v1/messages").unwrap().as_str(), "http://127.0.0.1:9/v1/messages");
        assert_eq!(urls.0.lock().unwrap().len(), 2);
        for i in 0..20 {
            let path = format!("/v1/models/m{i}");
            assert_eq!(urls.get(BASE, &path).unwrap().as_str(), format!("{BASE}{path}"));
        }
        assert_eq!(urls.0.lock().unwrap().len(), KEPT);
    }

    #[test]
    fn a_url_that_does_not_parse_comes_back_as_its_text() {
        let urls = ParsedUrls::default();
        assert_eq!(urls.get("not a url", "/x").unwrap_err(), "not a url/x");
        assert!(urls.0.lock().unwrap().is_empty());
    }
}
