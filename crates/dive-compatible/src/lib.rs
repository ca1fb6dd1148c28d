//! OpenAI-compatible vendors for Dive for Rust, each a profile (vendor facts + dialect) over
//! `dive-openai-wire`'s Chat Completions: [`deepinfra`], [`groq`], [`together`], one feature
//! each. Nothing here encodes or decodes; a fix to the wire code reaches all of them.
//!
//! For an endpoint without a profile of its own, use `dive_openai_wire::compatible(base_url)`.
//!
//! **Invariant:** the request is dive-openai-wire's Chat Completions body for the same
//! [`ModelRequest`](dive_core::ModelRequest), changed only by the vendor's dialect.
//!
//! ```
//! # #[cfg(feature = "groq")] {
//! let llm = dive_compatible::groq::Groq::builder().api_key("k").model("llama-3.3-70b-versatile").build().unwrap();
//! assert_eq!(dive_core::Llm::provider(&llm), "groq");
//! # }
//! ```

// Library code reads no environment variables outside `from_env`-style constructors.
#![cfg_attr(not(test), deny(clippy::disallowed_methods))]
#![deny(missing_docs)]

#[cfg(feature = "deepinfra")]
pub mod deepinfra;
#[cfg(feature = "groq")]
pub mod groq;
#[cfg(feature = "together")]
pub mod together;

/// No catalog: these vendors host many models whose prices change often; DeepInfra reports
/// the cost of each call itself.
#[allow(dead_code)] // Unused when every feature is off.
fn no_models(_: &str) -> Option<&'static dive_core::ModelInfo> {
    None
}

/// Declares one profile module's items: the marker type and provider alias (through
/// `dive_openai_wire::vendor!`), and its empty model list.
#[allow(unused_macros)] // Unused when every feature is off.
macro_rules! profile {
    ($marker:ident, $alias:ident, $doc:literal, $dialect:expr) => {
        dive_openai_wire::vendor! {
            #[doc = concat!($doc, " as the vendor of a `Wire`: `", stringify!($alias), "::builder()` starts from [`profile`].")]
            pub struct $marker: Speaks<Chat> = profile();
            #[doc = concat!("The ", $doc, " provider (`", stringify!($alias), "::from_env()`, or `builder()` reading no environment).")]
            pub type $alias;
        }

        #[doc = concat!($doc, "'s wire differences.")]
        #[must_use]
        pub fn dialect() -> dive_openai_wire::Dialect {
            $dialect
        }

        #[doc = concat!($doc, " as a `Profile`: [`VENDOR`] and [`dialect`].")]
        #[must_use]
        pub fn profile() -> dive_openai_wire::Profile {
            dive_openai_wire::Profile::new(VENDOR, dialect())
        }

        /// No models are listed (see the crate docs).
        pub static MODELS: std::sync::LazyLock<Vec<dive_core::ModelInfo>> = std::sync::LazyLock::new(Vec::new);
    };
}
#[allow(unused_imports)] // Unused when every feature is off.
pub(crate) use profile;
