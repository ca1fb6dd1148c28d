//! Together AI (`https://api.together.xyz/v1`): `TOGETHER_API_KEY`, `TOGETHER_BASE_URL`.

use dive_provider::Vendor;

crate::profile!(TogetherVendor, Together, "Together AI", dive_openai_wire::Dialect::compatible());

/// Together AI's vendor facts.
pub const VENDOR: Vendor = Vendor::new(
    "together",
    "https://api.together.xyz/v1",
    "meta-llama/Llama-3.3-70B-Instruct-Turbo",
    crate::no_models,
)
.with_api_key_vars(&["TOGETHER_API_KEY"])
.with_base_url_var("TOGETHER_BASE_URL");
