//! Groq (`https://api.groq.com/openai/v1`): `GROQ_API_KEY`, `GROQ_BASE_URL`; reasoning text
//! read from `reasoning`.

use dive_provider::Vendor;

crate::profile!(GroqVendor, Groq, "Groq", dive_openai_wire::Dialect::compatible());

/// Groq's vendor facts.
pub const VENDOR: Vendor =
    Vendor::new("groq", "https://api.groq.com/openai/v1", "llama-3.3-70b-versatile", crate::no_models)
        .with_api_key_vars(&["GROQ_API_KEY"])
        .with_base_url_var("GROQ_BASE_URL");
