//! Errors in the user's words: what went wrong and what to do about it, named in terms of the
//! CLI (environment variables, flags, slash commands), never the library's builder methods.
//! The same description feeds the terminal and the `error` object of `--output-format json`.

use dive::{AgentError, LlmError, LlmErrorKind, TurnFailure};
use serde_json::{Value, json};

/// A failure as the user is told about it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UserError {
    /// A stable short name (`authentication`, `rate_limited`, `cancelled`, …).
    pub kind: String,
    /// What happened and what to do.
    pub message: String,
}

impl UserError {
    /// The `error` object of JSON output.
    pub fn to_json(&self) -> Value {
        json!({"kind": self.kind, "message": self.message})
    }
}

/// The vendor whose name a provider reports, for the variables to name.
fn vendor(provider: &str) -> Option<dive::Vendor> {
    dive::vendors().into_iter().find(|v| v.name == provider)
}

/// Whether a read timed out somewhere in the error's causes (a stalled stream; the provider
/// may have reported it as a broken stream).
fn timed_out(error: &LlmError) -> bool {
    std::iter::successors(std::error::Error::source(error), |e| e.source()).any(|cause| {
        cause.downcast_ref::<std::io::Error>().is_some_and(|io| io.kind() == std::io::ErrorKind::TimedOut)
            || cause.to_string().contains("timed out")
    })
}

/// The message for a model call that failed.
pub fn from_llm(error: &LlmError) -> UserError {
    let provider = error.provider.clone().unwrap_or_else(|| "the provider".into());
    let vendor = vendor(&provider);
    let key = vendor.and_then(|v| v.key_env).unwrap_or("the provider's API key variable");
    let base = vendor.map_or("the provider's base-URL variable", |v| v.base_url_env);
    let detail = &error.message;
    let message = match error.kind {
        LlmErrorKind::Authentication => format!(
            "{provider} rejected the API key ({detail}): check {key} (in the environment or a .env file)"
        ),
        LlmErrorKind::PermissionDenied => {
            format!(
                "{provider} refused the request ({detail}): the key in {key} may lack access to this model"
            )
        }
        LlmErrorKind::QuotaExhausted => format!(
            "{provider} says the account's quota or credit is used up ({detail}): add credit or use another key"
        ),
        LlmErrorKind::RateLimited => {
            format!(
                "{provider} is rate limiting this key ({detail}); dive retried and gave up: wait a minute and send again"
            )
        }
        LlmErrorKind::Overloaded | LlmErrorKind::Server => {
            format!("{provider} had a server problem ({detail}); dive retried and gave up: try again shortly")
        }
        LlmErrorKind::NotFound => format!(
            "{provider} does not know this model or endpoint ({detail}): check --model (`dive models` lists them) and {base}"
        ),
        LlmErrorKind::ContextOverflow => format!(
            "the conversation no longer fits the model's context window ({detail}): /compact it or /clear to start over"
        ),
        LlmErrorKind::Network => {
            format!("cannot reach {provider} ({detail}): check the network connection and {base}")
        }
        LlmErrorKind::Timeout | LlmErrorKind::StreamInterrupted if timed_out(error) => format!(
            "{provider} went silent ({detail}): the stream stalled; send again, or raise --stream-idle-timeout"
        ),
        LlmErrorKind::Timeout => format!(
            "{provider} went silent ({detail}): the stream stalled; send again, or raise --stream-idle-timeout"
        ),
        LlmErrorKind::StreamInterrupted => {
            format!(
                "the answer from {provider} broke off ({detail}); what arrived is kept: send a message to go on"
            )
        }
        LlmErrorKind::Cancelled => "stopped".into(),
        _ => format!("{provider}: {detail}"),
    };
    UserError { kind: error.kind.as_str().to_owned(), message }
}

/// The message for a run that failed.
pub fn from_agent(error: &AgentError) -> UserError {
    let (kind, message) = match error {
        AgentError::Turn(turn) => match &turn.cause {
            TurnFailure::Model(llm) => return from_llm(llm),
            TurnFailure::Cancelled | TurnFailure::SoftCancelled => {
                ("cancelled", "cancelled; the turn was kept as incomplete (send a message, or run `dive --continue`, to go on)".to_owned())
            }
            TurnFailure::Deadline => (
                "deadline",
                "the turn ran past its time limit and was stopped; send a message to go on".to_owned(),
            ),
            other => ("turn_failed", other.to_string()),
        },
        AgentError::Config(m) => ("config", m.clone()),
        AgentError::Session(e) if dive::session::sqlite::is_file_damage(e) => {
            ("session_damaged", crate::save::damaged_later(e))
        }
        AgentError::Session(e) => ("session", format!("the session store failed: {e}")),
        other => ("rejected", other.to_string()),
    };
    UserError { kind: kind.to_owned(), message }
}

/// A model spec that cannot become a model, in the CLI's terms (a library user enables a
/// Cargo feature of `dive`; a CLI user installs a build that includes the provider).
pub fn model_error(error: &dive::ModelError) -> String {
    match error {
        dive::ModelError::NotCompiledIn { vendor, feature } => format!(
            "this dive was built without the {vendor} provider: install a build that has it \
             (`cargo install dive-cli --features {feature}`), or pick another model (`dive models`)"
        ),
        other => other.to_string(),
    }
}

/// The message when no key is set for the chosen provider.
pub fn missing_key(vendor: &str, key_env: &str) -> String {
    format!(
        "no API key for {vendor}: set {key_env} (in the environment or a .env file in this directory), \
         or pick another model with --model (`dive models` lists them)"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn provider_failures_name_the_variable_to_fix() {
        let auth =
            LlmError::new(LlmErrorKind::Authentication, "invalid x-api-key").with_provider("anthropic");
        let e = from_llm(&auth);
        assert_eq!(e.kind, "authentication");
        assert!(e.message.contains("ANTHROPIC_API_KEY") && e.message.contains("invalid x-api-key"), "{e:?}");
        let net = LlmError::new(LlmErrorKind::Network, "connection refused").with_provider("openai");
        assert!(from_llm(&net).message.contains("OPENAI_BASE_URL"));
        assert_eq!(e.to_json()["kind"], "authentication");
        let absent = dive::ModelError::NotCompiledIn { vendor: "google", feature: "google" };
        let said = model_error(&absent);
        assert!(said.contains("--features google") && !said.contains("Cargo.toml"), "{said}");
        let missing = missing_key("anthropic", "ANTHROPIC_API_KEY");
        assert!(missing.contains("set ANTHROPIC_API_KEY") && !missing.contains("Builder"));
    }
}
