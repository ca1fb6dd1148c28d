//! `dive -p`: one turn, printed as text, one JSON object, or a JSON line per item.

use std::io::{IsTerminal, Read, Write};

use dive::{CancellationToken, Response, RunOptions, SoftCancel};
use serde_json::{Value, json};

use crate::args::OutputFormat;
use crate::cancel::CancelWatch;
use crate::setup::Setup;

/// The prompt: the argument, or stdin for `-`; piped stdin is appended to a given prompt.
pub fn read_prompt(arg: &str) -> Result<String, String> {
    let stdin_text = || -> Result<String, String> {
        let mut text = String::new();
        std::io::stdin().read_to_string(&mut text).map_err(|e| format!("cannot read stdin: {e}"))?;
        Ok(text)
    };
    let prompt = if arg == "-" {
        stdin_text()?
    } else if !std::io::stdin().is_terminal() {
        let piped = stdin_text()?;
        if piped.trim().is_empty() { arg.to_owned() } else { format!("{arg}\n\n{piped}") }
    } else {
        arg.to_owned()
    };
    if prompt.trim().is_empty() {
        return Err("empty prompt: pass text after -p, or pipe it in with -p -".into());
    }
    Ok(prompt)
}

/// The response as one JSON object.
pub fn response_json(response: &Response) -> Value {
    json!({
        "type": "result",
        "id": response.id,
        "model": response.model,
        "status": response.status.as_str(),
        "text": response.output_text(),
        "stop_reason": response.stop_reason,
        "usage": response.usage,
        "turn": response.turn,
        "model_calls": response.model_calls,
        "items": response.items,
    })
}

/// Runs print mode; returns the process exit code.
pub async fn run(setup: &Setup, prompt: String, format: OutputFormat) -> i32 {
    let soft = SoftCancel::new();
    let hard = CancellationToken::new();
    let _watch = CancelWatch::start(soft.clone(), hard.clone());
    let mut options = RunOptions::text(prompt)
        .with_session(std::sync::Arc::clone(&setup.session))
        .with_soft_cancel(soft)
        .with_cancel(hard);
    if format == OutputFormat::StreamJson {
        options = options.on_event(|item| {
            let line = serde_json::to_string(item)?;
            let mut out = std::io::stdout().lock();
            writeln!(out, "{line}")?;
            out.flush()?;
            Ok(())
        });
    }
    let result = setup.agent.run(options).await;
    let (response, error) = match result {
        Ok(r) => (Some(r), None),
        Err(e) => {
            let message = e.to_string();
            (e.into_response(), Some(message))
        }
    };
    if let Some(response) = &response {
        match format {
            OutputFormat::Text => {
                let text = response.output_text();
                if !text.is_empty() {
                    say!("{text}");
                }
            }
            OutputFormat::Json => say!("{}", response_json(response)),
            OutputFormat::StreamJson => say!(
                "{}",
                json!({"type": "result", "status": response.status.as_str(),
                "text": response.output_text(), "usage": response.usage, "session_id": setup.session.id()})
            ),
        }
    }
    match error {
        Some(message) => {
            eprintln!("dive: {message}");
            1
        }
        None => {
            if let Some(r) = &response
                && r.status == dive::TurnStatus::Incomplete
            {
                let reason =
                    r.turn.as_ref().and_then(|t| t.outcome.as_ref()).map(|o| format!("{:?}", o.reason));
                eprintln!(
                    "dive: the turn stopped early ({}); `dive --continue` picks it up",
                    reason.unwrap_or_default()
                );
            }
            0
        }
    }
}
