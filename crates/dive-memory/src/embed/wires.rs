//! The four vendors' request and response shapes.

use dive_core::Secret;
use dive_provider::reqwest::RequestBuilder;
use serde_json::{Value, json};

use super::http::{Wire, floats};

/// OpenAI: `POST {base}/embeddings` with `{"model", "input": [...], "encoding_format":
/// "float", "dimensions"?}`, bearer key; vectors in `data[].embedding`, placed by `index`.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct OpenAi;

/// Reads `data[]` entries `{index, embedding}` in index order (OpenAI and Voyage).
fn indexed_data(body: &Value) -> Result<Vec<Vec<f32>>, String> {
    let data = body["data"].as_array().ok_or("no `data` array")?;
    let mut out: Vec<Option<Vec<f32>>> = vec![None; data.len()];
    for (i, item) in data.iter().enumerate() {
        let index = item["index"].as_u64().and_then(|x| usize::try_from(x).ok()).unwrap_or(i);
        let vector = floats(&item["embedding"]).ok_or("an entry has no `embedding` numbers")?;
        *out.get_mut(index).ok_or("an `index` out of range")? = Some(vector);
    }
    out.into_iter().map(|v| v.ok_or_else(|| "an index is missing".to_owned())).collect()
}

impl Wire for OpenAi {
    const PROVIDER: &'static str = "openai";
    const BASE_URL: &'static str = "https://api.openai.com/v1";
    const KEY_VARS: &'static [&'static str] = &["OPENAI_API_KEY"];
    const BASE_URL_VAR: &'static str = "OPENAI_BASE_URL";
    const MAX_BATCH: usize = 2048;

    fn url(&self, base: &str, _model: &str) -> String {
        format!("{base}/embeddings")
    }

    fn auth(&self, request: RequestBuilder, key: &Secret) -> RequestBuilder {
        request.bearer_auth(key.expose())
    }

    fn body(&self, model: &str, texts: &[String], dimensions: Option<usize>) -> Value {
        let mut body = json!({"model": model, "input": texts, "encoding_format": "float"});
        if let Some(d) = dimensions {
            body["dimensions"] = json!(d);
        }
        body
    }

    fn parse(&self, body: &Value) -> Result<Vec<Vec<f32>>, String> {
        indexed_data(body)
    }
}

/// Gemini: `POST {base}/v1beta/models/{model}:batchEmbedContents` with `{"requests": [{"model":
/// "models/{model}", "content": {"parts": [{"text"}]}, "outputDimensionality"?}]}`, key in
/// `x-goog-api-key`; vectors in `embeddings[].values`.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct Gemini {
    /// `taskType` for every request (`RETRIEVAL_DOCUMENT`, `RETRIEVAL_QUERY`, …), if set.
    pub task_type: Option<String>,
}

impl Wire for Gemini {
    const PROVIDER: &'static str = "google";
    const BASE_URL: &'static str = "https://generativelanguage.googleapis.com";
    const KEY_VARS: &'static [&'static str] = &["GEMINI_API_KEY", "GOOGLE_API_KEY"];
    const BASE_URL_VAR: &'static str = "GEMINI_BASE_URL";
    const MAX_BATCH: usize = 100;

    fn url(&self, base: &str, model: &str) -> String {
        format!("{base}/v1beta/models/{model}:batchEmbedContents")
    }

    fn auth(&self, request: RequestBuilder, key: &Secret) -> RequestBuilder {
        request.header("x-goog-api-key", key.expose())
    }

    fn body(&self, model: &str, texts: &[String], dimensions: Option<usize>) -> Value {
        let requests: Vec<Value> = texts
            .iter()
            .map(|t| {
                let mut r = json!({"model": format!("models/{model}"), "content": {"parts": [{"text": t}]}});
                if let Some(d) = dimensions {
                    r["outputDimensionality"] = json!(d);
                }
                if let Some(task) = &self.task_type {
                    r["taskType"] = json!(task);
                }
                r
            })
            .collect();
        json!({"requests": requests})
    }

    fn parse(&self, body: &Value) -> Result<Vec<Vec<f32>>, String> {
        let items = body["embeddings"].as_array().ok_or("no `embeddings` array")?;
        items
            .iter()
            .map(|e| floats(&e["values"]).ok_or_else(|| "an embedding has no `values`".to_owned()))
            .collect()
    }
}

/// Ollama: `POST {host}/api/embed` with `{"model", "input": [...], "dimensions"?}`, no key
/// unless one is set (bearer, for hosted Ollama); vectors in `embeddings`.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct Ollama;

impl Wire for Ollama {
    const PROVIDER: &'static str = "ollama";
    const BASE_URL: &'static str = "http://localhost:11434";
    const KEY_VARS: &'static [&'static str] = &["OLLAMA_API_KEY"];
    const BASE_URL_VAR: &'static str = "OLLAMA_HOST";
    const MAX_BATCH: usize = 512;

    fn url(&self, base: &str, _model: &str) -> String {
        format!("{base}/api/embed")
    }

    fn auth(&self, request: RequestBuilder, key: &Secret) -> RequestBuilder {
        request.bearer_auth(key.expose())
    }

    fn body(&self, model: &str, texts: &[String], dimensions: Option<usize>) -> Value {
        let mut body = json!({"model": model, "input": texts});
        if let Some(d) = dimensions {
            body["dimensions"] = json!(d);
        }
        body
    }

    fn parse(&self, body: &Value) -> Result<Vec<Vec<f32>>, String> {
        let items = body["embeddings"].as_array().ok_or("no `embeddings` array")?;
        items
            .iter()
            .map(|e| floats(e).ok_or_else(|| "an embedding is not an array of numbers".to_owned()))
            .collect()
    }
}

/// Voyage AI: `POST {base}/embeddings` with `{"model", "input": [...], "input_type"?,
/// "output_dimension"?}`, bearer key; vectors in `data[].embedding`, placed by `index`.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct Voyage {
    /// `input_type`: `document` or `query` (unset: none sent).
    pub input_type: Option<String>,
}

impl Wire for Voyage {
    const PROVIDER: &'static str = "voyage";
    const BASE_URL: &'static str = "https://api.voyageai.com/v1";
    const KEY_VARS: &'static [&'static str] = &["VOYAGE_API_KEY"];
    const BASE_URL_VAR: &'static str = "VOYAGE_BASE_URL";
    const MAX_BATCH: usize = 128;

    fn url(&self, base: &str, _model: &str) -> String {
        format!("{base}/embeddings")
    }

    fn auth(&self, request: RequestBuilder, key: &Secret) -> RequestBuilder {
        request.bearer_auth(key.expose())
    }

    fn body(&self, model: &str, texts: &[String], dimensions: Option<usize>) -> Value {
        let mut body = json!({"model": model, "input": texts});
        if let Some(t) = &self.input_type {
            body["input_type"] = json!(t);
        }
        if let Some(d) = dimensions {
            body["output_dimension"] = json!(d);
        }
        body
    }

    fn parse(&self, body: &Value) -> Result<Vec<Vec<f32>>, String> {
        indexed_data(body)
    }
}
