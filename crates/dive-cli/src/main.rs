//! `dive`: a terminal agent built only on Dive for Rust's public API. Interactive mode (a line
//! editor, streamed output, tool calls with previews, permission prompts, slash commands) and
//! print mode (`dive -p`), with sessions saved in SQLite.

/// Like `println!`, without panicking on a closed pipe.
macro_rules! say {
    ($($arg:tt)*) => {
        $crate::out::line(format!($($arg)*))
    };
}

mod args;
mod cancel;
mod input;
mod model;
mod out;
mod print_mode;
mod render;
mod repl;
mod sessions_cmd;
mod setup;

use std::process::ExitCode;
use std::sync::Arc;

use clap::Parser;
use dive::ListOptions;

use args::{Args, Command};
use input::{CliDialog, Input, Line, NoDialog};
use setup::SessionChoice;

fn main() -> ExitCode {
    let _ = dotenvy::dotenv();
    let args = Args::parse();
    let runtime = match tokio::runtime::Builder::new_multi_thread().enable_all().build() {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("dive: cannot start the runtime: {e}");
            return ExitCode::from(1);
        }
    };
    let code = runtime.block_on(run(args));
    // A prompt may still be blocked reading stdin; do not wait for it.
    runtime.shutdown_background();
    ExitCode::from(code)
}

async fn run(args: Args) -> u8 {
    match run_inner(args).await {
        Ok(code) => code,
        Err(message) => {
            eprintln!("dive: {message}");
            1
        }
    }
}

async fn run_inner(mut args: Args) -> Result<u8, String> {
    match args.command.take() {
        Some(Command::Models) => {
            models();
            return Ok(0);
        }
        Some(Command::Sessions(command)) => {
            let store = setup::open_store(&args)?;
            sessions_cmd::run(&*store, command).await?;
            return Ok(0);
        }
        None => {}
    }
    let store = setup::open_store(&args)?;
    if let Some(prompt_arg) = args.print.clone() {
        let prompt = print_mode::read_prompt(&prompt_arg)?;
        let choice = match args.resume.as_deref() {
            Some("") => {
                return Err("--resume needs a session id in print mode (see `dive sessions list`)".into());
            }
            Some(id) => SessionChoice::Id(id.to_owned()),
            None if args.continue_last => SessionChoice::MostRecent,
            None => SessionChoice::New,
        };
        let (id, resumed) = setup::session_id(&store, choice).await?;
        let setup = setup::build(&args, Arc::clone(&store), &id, resumed, Arc::new(NoDialog)).await?;
        if setup.model.offline {
            eprintln!("{}\n", model::OFFLINE_NOTICE);
        }
        let code = print_mode::run(&setup, prompt, args.output_format).await;
        return Ok(u8::try_from(code).unwrap_or(1));
    }
    let history = setup::session_dir(&args).ok().map(|d| d.join("history"));
    let input = Input::new(history);
    let spinner = render::Spinner::start();
    let choice = match args.resume.as_deref() {
        Some("") => pick_session(&store, &input).await?,
        Some(id) => SessionChoice::Id(id.to_owned()),
        None if args.continue_last => SessionChoice::MostRecent,
        None => SessionChoice::New,
    };
    let (id, resumed) = setup::session_id(&store, choice).await?;
    let dialog = Arc::new(CliDialog::new(input.clone(), spinner.clone()));
    let setup = setup::build(&args, Arc::clone(&store), &id, resumed, dialog).await?;
    repl::Repl::new(setup, input, spinner, args.show_thinking).run().await;
    Ok(0)
}

/// Lists recent sessions and asks which to resume.
async fn pick_session(store: &dive::session::SqliteStore, input: &Input) -> Result<SessionChoice, String> {
    use dive::SessionStore;
    let page = store.list(&ListOptions::page(0, 10)).await.map_err(|e| e.to_string())?;
    if page.sessions.is_empty() {
        eprintln!("no saved sessions yet; starting a new one");
        return Ok(SessionChoice::New);
    }
    eprintln!("Recent sessions:");
    for (i, info) in page.sessions.iter().enumerate() {
        let title = info.title.clone().unwrap_or_else(|| "(untitled)".into());
        eprintln!("  {}. {title}  ({}, {})", i + 1, info.id, info.updated_at);
    }
    let input = input.clone();
    let line = tokio::task::spawn_blocking(move || {
        input.read_line("Resume which? [1-10, Enter for a new session] ")
    })
    .await
    .map_err(|e| e.to_string())?;
    let Line::Text(answer) = line else { return Ok(SessionChoice::New) };
    match answer.trim().parse::<usize>() {
        Ok(n) if (1..=page.sessions.len()).contains(&n) => {
            Ok(SessionChoice::Id(page.sessions[n - 1].id.clone()))
        }
        _ => Ok(SessionChoice::New),
    }
}

/// `dive models`.
fn models() {
    say!("Providers (vendor/model; a bare model name is matched by its prefix):");
    for vendor in dive::vendors() {
        let key = match vendor.key_env {
            Some(var) if std::env::var(var).is_ok_and(|v| !v.is_empty()) => format!("{var} set"),
            Some(var) => format!("{var} not set"),
            None => "no key needed".to_owned(),
        };
        if vendor.compiled_in {
            say!(
                "  {:<18} compiled in   {key}; default {}/{}",
                vendor.name,
                vendor.name,
                vendor.default_model
            );
        } else {
            say!("  {:<18} not compiled in (build with the `{}` feature)", vendor.name, vendor.feature);
        }
    }
    say!("  {:<18} compiled in   offline test model (--model test)", "test");
    let catalog = dive::catalog();
    if !catalog.is_empty() {
        say!("\nModels (context window, $ per million input/output tokens):");
        for (vendor, info) in catalog {
            let price =
                info.pricing.as_ref().map_or_else(String::new, |p| format!("  ${}/${}", p.input, p.output));
            say!("  {vendor}/{:<32} {:>8}{price}", info.id, info.context_window);
        }
    }
}
