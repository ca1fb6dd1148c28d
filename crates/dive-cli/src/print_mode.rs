//! `dive -p`: one turn, printed as text, one JSON object, or a JSON line per item.

use std::io::{IsTerminal, Read, Write};

use dive::{CancellationToken, Response, RunOptions, SoftCancel};
use serde_json::{Value, json};

use crate::args::OutputFormat;
use crate::cancel::CancelWatch;
use crate::setup::Setup;

/// Text from bytes that should be UTF-8: invalid sequences become U+FFFD and the caller is
/// told, so `git diff | dive -p review` works on a diff with Latin-1 or binary lines.
pub fn decode_lossy(bytes: Vec<u8>) -> (String, bool) {
    match String::from_utf8(bytes) {
        Ok(text) => (text, false),
        Err(e) => (String::from_utf8_lossy(e.as_bytes()).into_owned(), true),
    }
}

/// The prompt: the argument, or stdin for `-`; piped stdin is appended to a given prompt.
pub fn read_prompt(arg: &str) -> Result<String, String> {
    let stdin_text = || -> Result<String, String> {
        let mut bytes = Vec::new();
        std::io::stdin().read_to_end(&mut bytes).map_err(|e| format!("cannot read stdin: {e}"))?;
        let (text, replaced) = decode_lossy(bytes);
        if replaced {
            eprintln!("dive: note: stdin is not valid UTF-8; the invalid bytes were replaced with U+FFFD");
        }
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

/// The response as one JSON object, with the session it was saved in.
pub fn response_json(response: &Response, session_id: &str) -> Value {
    json!({
        "type": "result",
        "session_id": session_id,
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
    if let Err(e) = setup.guard.before_turn().await {
        eprintln!("dive: {e}");
        return 1;
    }
    let soft = SoftCancel::new();
    let hard: CancellationToken = setup.guard.signals.turn_token();
    // Ctrl-C while the model answers stops it at once; while tools run, after the step.
    let turn = crate::interrupt::TurnState::default();
    turn.begin(hard.clone());
    let _watch = CancelWatch::start(soft.clone(), hard.clone(), turn.clone());
    let stream_json = format == OutputFormat::StreamJson;
    let options = RunOptions::text(prompt)
        .with_session(std::sync::Arc::clone(&setup.session))
        .with_soft_cancel(soft)
        .with_cancel(hard)
        .on_event(move |item| {
            turn.observe(item);
            if stream_json {
                let line = serde_json::to_string(item)?;
                let mut out = std::io::stdout().lock();
                writeln!(out, "{line}")?;
                out.flush()?;
            }
            Ok(())
        });
    let result = setup.agent.run(options).await;
    let (response, error) = match result {
        Ok(r) => (Some(r), None),
        Err(e) => {
            let described = crate::errors::from_agent(&e);
            (e.into_response(), Some(described))
        }
    };
    let error_text = error.as_ref().map(|e| e.message.as_str());
    setup.guard.after_turn(&setup.session, response.as_ref().and_then(|r| r.turn.as_ref()), error_text);
    crate::workspace_sessions::tag(&*setup.session, &setup.workspace).await;
    if let Some(code) = setup.guard.signal_exit() {
        return i32::from(code);
    }
    let session_id = setup.session.id();
    let mut result = match (&response, format) {
        (Some(response), OutputFormat::Text) => {
            let text = response.output_text();
            if !text.is_empty() {
                say!("{text}");
            }
            None
        }
        (Some(response), OutputFormat::Json) => Some(response_json(response, session_id)),
        (Some(response), OutputFormat::StreamJson) => Some(json!({"type": "result",
            "status": response.status.as_str(), "text": response.output_text(), "usage": response.usage,
            "session_id": session_id})),
        (None, OutputFormat::Text) => None,
        (None, _) => Some(json!({"type": "result", "status": "failed", "session_id": session_id})),
    };
    if let (Some(object), Some(error)) = (result.as_mut().and_then(Value::as_object_mut), &error) {
        object.insert("error".into(), error.to_json());
    }
    if let Some(result) = result {
        say!("{result}");
    }
    match error {
        Some(error) => {
            eprintln!("dive: {}", crate::sanitize::for_stderr(&error.message));
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
