//! DeepInfra (`https://api.deepinfra.com/v1/openai`): `DEEPINFRA_API_KEY` (or
//! `DEEPINFRA_TOKEN`), `DEEPINFRA_BASE_URL`. The cost DeepInfra reports in
//! `usage.estimated_cost` is kept as `Usage::cost` with source `provider`.

use dive_provider::Vendor;

crate::profile!(
    DeepInfraVendor,
    DeepInfra,
    "DeepInfra",
    dive_openai_wire::Dialect::compatible()
        .with_reported_cost(Some("provider"))
        .with_cost_field("estimated_cost")
);

/// DeepInfra's vendor facts.
pub const VENDOR: Vendor = Vendor::new(
    "deepinfra",
    "https://api.deepinfra.com/v1/openai",
    "meta-llama/Llama-3.3-70B-Instruct",
    crate::no_models,
)
.with_api_key_vars(&["DEEPINFRA_API_KEY", "DEEPINFRA_TOKEN"])
.with_base_url_var("DEEPINFRA_BASE_URL");
