//! `dive`: a terminal agent built only on Dive for Rust's public API. Interactive mode (a line
//! editor, streamed output, tool calls with previews, permission prompts, slash commands) and
//! print mode (`dive -p`), with sessions saved in SQLite.

/// Like `println!`, without panicking on a closed pipe.
macro_rules! say {
    ($($arg:tt)*) => {
        $crate::out::line(format!($($arg)*))
    };
}

mod a2a;
mod args;
mod bypass;
mod cancel;
mod capabilities;
mod claim;
mod cli_settings;
mod elicit_form;
mod env_file;
mod errors;
mod extra_tools;
mod guard;
mod input;
mod interrupt;
mod mcp;
mod model;
mod out;
mod print_mode;
mod progress;
mod provenance;
mod render;
mod repl;
mod sanitize;
mod save;
mod sessions_cmd;
mod setup;
mod signals;
mod slash;
mod style;
mod tool_line;
mod transcript;
mod transport;
mod trust;
mod workspace_sessions;

use std::process::ExitCode;
use std::sync::Arc;

use args::{Args, Command};
use input::{CliDialog, Input, Line, NoDialog};
use setup::SessionChoice;

fn main() -> ExitCode {
    let env_file = std::env::current_dir().map(|cwd| env_file::EnvFile::load_from(&cwd)).unwrap_or_default();
    for warning in env_file.warnings() {
        guard::say_err(&warning);
    }
    let env_file = Arc::new(env_file);
    let matches = <Args as clap::CommandFactory>::command().get_matches();
    let args = match <Args as clap::FromArgMatches>::from_arg_matches(&matches) {
        Ok(args) => args,
        Err(e) => e.exit(),
    };
    let provenance = Arc::new(provenance::Provenance::new(env_file, &matches));
    let runtime = match tokio::runtime::Builder::new_multi_thread().enable_all().build() {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("dive: cannot start the runtime: {e}");
            return ExitCode::from(1);
        }
    };
    let code = runtime.block_on(run(args, provenance));
    // A prompt may still be blocked reading stdin; do not wait for it.
    runtime.shutdown_background();
    ExitCode::from(code)
}

async fn run(args: Args, provenance: Arc<provenance::Provenance>) -> u8 {
    match run_inner(args, provenance).await {
        Ok(code) => code,
        Err(message) => {
            eprintln!("dive: {}", sanitize::for_stderr(&message));
            1
        }
    }
}

async fn run_inner(mut args: Args, provenance: Arc<provenance::Provenance>) -> Result<u8, String> {
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
        Some(Command::Mcp(args::McpCommand::Serve { http })) => {
            let served = setup::served_tools(&args)?;
            mcp::serve(served.tools, served.permissions, http).await?;
            return Ok(0);
        }
        Some(Command::Mcp(args::McpCommand::Login { server, timeout })) => {
            let config = setup::mcp_config(&args)?;
            mcp::login(
                &config,
                &setup::session_dir(&args)?,
                &server,
                std::time::Duration::from_secs(timeout),
            )
            .await?;
            return Ok(0);
        }
        Some(Command::Mcp(args::McpCommand::Logout { server })) => {
            let config = setup::mcp_config(&args)?;
            mcp::logout(&config, &setup::session_dir(&args)?, &server)?;
            return Ok(0);
        }
        Some(Command::A2a(args::A2aCommand::Call { url, prompt, task })) => {
            return a2a::call(&url, &prompt, task.as_deref(), a2a::token_from_env()).await;
        }
        Some(Command::A2a(args::A2aCommand::Serve { addr, url })) => {
            let store = setup::open_store(&args)?;
            let id = dive::new_id("session");
            let mut setup =
                setup::build(&args, Arc::clone(&store), &id, false, Arc::new(NoDialog), None).await?;
            bypass::warn(setup.manager.mode());
            let session_dir = setup::session_dir(&args)?;
            let otel = setup.otel.take();
            let served = a2a::serve(setup.agent, &session_dir, &addr, url, a2a::token_from_env()).await;
            setup::flush_otel(otel).await;
            return served.map(|()| 0);
        }
        Some(Command::Trust { revoke }) => {
            trust::command(&setup::session_dir(&args)?, &setup::workspace_root(&args)?, revoke)?;
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
        let workspace = setup::workspace_root(&args)?;
        let (id, resumed) = setup::session_id(&store, choice, &workspace).await?;
        let mut setup =
            setup::build(&args, Arc::clone(&store), &id, resumed, Arc::new(NoDialog), None).await?;
        setup.guard.provenance = Arc::clone(&provenance);
        claim::hold(&mut setup, None, args.fork_session).await?;
        bypass::warn(setup.manager.mode());
        if setup.model.offline {
            eprintln!("{}\n", model::OFFLINE_NOTICE);
        }
        let prompt = slash::expand_prompt(&setup.capabilities.skills, prompt).await;
        let prompt = mcp::expand_prompt(setup.mcp.as_ref(), prompt).await?;
        let code = print_mode::run(&setup, prompt, args.output_format).await;
        setup.capabilities.stop_background().await;
        setup.guard.finish().await;
        setup::flush_otel(setup.otel.take()).await;
        drop(setup);
        close_store(&store).await;
        return Ok(u8::try_from(code).unwrap_or(1));
    }
    let history = setup::session_dir(&args).ok().map(|d| d.join("history"));
    let input = Input::new(history);
    let spinner = render::Spinner::start();
    let workspace = setup::workspace_root(&args)?;
    let choice = match args.resume.as_deref() {
        Some("") => pick_session(&store, &input, &workspace).await?,
        Some(id) => SessionChoice::Id(id.to_owned()),
        None if args.continue_last => SessionChoice::MostRecent,
        None => SessionChoice::New,
    };
    let (id, resumed) = setup::session_id(&store, choice, &workspace).await?;
    trust::ask(&input, &setup::session_dir(&args)?, &workspace).await;
    let turn = interrupt::TurnState::default();
    let dialog = Arc::new(CliDialog::new(input.clone(), spinner.clone()).with_turn(turn.clone()));
    let terminal = setup::Terminal { input: input.clone(), spinner: spinner.clone(), turn: turn.clone() };
    let mut setup = setup::build(&args, Arc::clone(&store), &id, resumed, dialog, Some(terminal)).await?;
    setup.guard.provenance = Arc::clone(&provenance);
    claim::hold(&mut setup, Some(&input), args.fork_session).await?;
    bypass::warn(setup.manager.mode());
    let code = repl::Repl::new(setup, input, spinner, args.show_thinking).with_turn_state(turn).run().await;
    close_store(&store).await;
    Ok(code)
}

/// At a clean exit: the write-ahead log goes into `sessions.db`, so that file alone holds
/// every session (bounded: a stuck disk does not hold the exit).
async fn close_store(store: &dive::session::SqliteStore) {
    let flushed = tokio::time::timeout(std::time::Duration::from_secs(5), store.checkpoint()).await;
    if let Ok(Err(e)) = flushed {
        guard::say_err(&format!("could not fold the session log into sessions.db: {e}"));
    }
}

/// Lists recent sessions, this workspace's first, and asks which to resume.
async fn pick_session(
    store: &dive::session::SqliteStore,
    input: &Input,
    workspace: &std::path::Path,
) -> Result<SessionChoice, String> {
    let sessions = workspace_sessions::recent(store, workspace, 10).await?;
    if sessions.is_empty() {
        eprintln!("no saved sessions yet; starting a new one");
        return Ok(SessionChoice::New);
    }
    eprintln!("Recent sessions (this workspace first):");
    for (i, info) in sessions.iter().enumerate() {
        let title = sanitize::visible(info.title.as_deref().unwrap_or("(untitled)")).into_owned();
        let place = workspace_sessions::where_label(info, workspace);
        eprintln!("  {}. {title}  ({}, {}, {place})", i + 1, info.id, info.updated_at);
    }
    let input = input.clone();
    let line = tokio::task::spawn_blocking(move || {
        input.read_answer("Resume which? [1-10, Enter for a new session] ")
    })
    .await
    .map_err(|e| e.to_string())?;
    let Line::Text(answer) = line else { return Ok(SessionChoice::New) };
    match answer.trim().parse::<usize>() {
        Ok(n) if (1..=sessions.len()).contains(&n) => Ok(SessionChoice::Id(sessions[n - 1].id.clone())),
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
