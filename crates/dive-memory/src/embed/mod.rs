//! Embedders over HTTP (feature `embedders`): OpenAI, Gemini, Ollama and Voyage, on
//! dive-provider's client, retry policy and typed errors, with batching.
//!
//! Each is an [`HttpEmbedder`] over a [`Wire`] that knows one vendor's request and response
//! shapes: `HttpEmbedder::<OpenAi>::new("text-embedding-3-small", 1536).api_key(key)`, or
//! `from_env` to read the vendor's usual variables.

mod http;
mod wires;

pub use http::{HttpEmbedder, Wire};
pub use wires::{Gemini, Ollama, OpenAi, Voyage};

/// OpenAI's `/v1/embeddings`.
pub type OpenAiEmbedder = HttpEmbedder<OpenAi>;
/// Gemini's `models/{model}:batchEmbedContents`.
pub type GeminiEmbedder = HttpEmbedder<Gemini>;
/// Ollama's `/api/embed`.
pub type OllamaEmbedder = HttpEmbedder<Ollama>;
/// Voyage AI's `/v1/embeddings`.
pub type VoyageEmbedder = HttpEmbedder<Voyage>;
