//! Interactive mode: the prompt loop, streamed turns, slash commands.

use std::sync::Arc;

use dive::{
    CancellationToken, Content, Message, ModelRequest, Role, RunOptions, SessionEdit, SessionStore,
    SoftCancel, Usage,
};

use crate::cancel::CancelWatch;
use crate::input::{Input, Line};
use crate::model;
use crate::render::{Renderer, Spinner};
use crate::setup::Setup;

const HELP: &str = "\
Commands:
  /help            this help
  /clear           start a new session (the current one stays saved)
  /model [spec]    show the model, or switch to vendor/model
  /usage           tokens and cost so far
  /status          model, session, workspace, permission mode
  /compact         summarise the conversation so far into a new window (the transcript stays)
  /quit            leave (also Ctrl-D)
Ctrl-C during a turn stops it after the current step; press it again to stop now.";

/// The interactive session.
pub struct Repl {
    pub setup: Setup,
    pub input: Input,
    pub spinner: Spinner,
    pub show_thinking: bool,
    usage: Usage,
}

impl Repl {
    /// A loop over `setup`.
    pub fn new(setup: Setup, input: Input, spinner: Spinner, show_thinking: bool) -> Self {
        Self { setup, input, spinner, show_thinking, usage: Usage::default() }
    }

    fn banner(&self) {
        eprintln!(
            "dive {} · model {} · workspace {}\nsession {}{} · /help for commands",
            env!("CARGO_PKG_VERSION"),
            self.setup.model.label,
            self.setup.workspace.display(),
            self.setup.session.id(),
            if self.setup.resumed { " (resumed)" } else { "" },
        );
        if self.setup.model.offline {
            eprintln!("\n{}\n", model::OFFLINE_NOTICE);
        }
    }

    /// Runs until `/quit` or end of input.
    pub async fn run(mut self) {
        self.banner();
        loop {
            let input = self.input.clone();
            let line = tokio::task::spawn_blocking(move || input.read_line("› ")).await;
            let line = match line {
                Ok(Line::Text(line)) => line,
                Ok(Line::Interrupted) => continue,
                Ok(Line::Eof) | Err(_) => break,
            };
            let line = line.trim();
            if line.is_empty() {
                continue;
            }
            if let Some(command) = line.strip_prefix('/') {
                if !self.command(command).await {
                    break;
                }
                continue;
            }
            self.turn(line).await;
        }
    }

    async fn turn(&mut self, text: &str) {
        let soft = SoftCancel::new();
        let hard = CancellationToken::new();
        let watch = CancelWatch::start(soft.clone(), hard.clone());
        let renderer = Renderer::new(self.spinner.clone(), self.show_thinking);
        self.spinner.busy("thinking…");
        let sink = renderer.clone();
        let options = RunOptions::text(text)
            .with_session(Arc::clone(&self.setup.session))
            .with_soft_cancel(soft)
            .with_cancel(hard)
            .on_event(move |item| {
                sink.item(item);
                Ok(())
            });
        let result = self.setup.agent.run(options).await;
        drop(watch);
        self.spinner.pause();
        self.set_title_once(text).await;
        match result {
            Ok(response) => {
                self.usage += &response.usage;
                if response.status == dive::TurnStatus::Incomplete {
                    let reason = response
                        .turn
                        .as_ref()
                        .and_then(|t| t.outcome.as_ref())
                        .map(|o| format!("{:?}", o.reason));
                    eprintln!(
                        "\x1b[33m(the turn stopped early: {}; send a message to go on)\x1b[0m",
                        reason.unwrap_or_default()
                    );
                }
                eprintln!("\x1b[2m({})\x1b[0m", usage_line(&response.usage));
            }
            Err(e) => {
                if let Some(r) = e.response() {
                    self.usage += &r.usage;
                }
                eprintln!("\x1b[31merror:\x1b[0m {e}");
                if e.response().is_some() {
                    eprintln!("\x1b[2m(the turn was saved; send a message to go on)\x1b[0m");
                }
            }
        }
    }

    async fn set_title_once(&self, text: &str) {
        let Some(history) = self.setup.session.as_history() else { return };
        let Ok(document) = history.document().await else { return };
        if document.info.title.is_none() {
            let title: String = text.chars().take(60).collect();
            let _ = history.edit(None, &SessionEdit::SetTitle(Some(title))).await;
        }
    }

    /// Runs a slash command; `false` means quit.
    async fn command(&mut self, command: &str) -> bool {
        let (name, arg) = command.split_once(' ').map_or((command, ""), |(n, a)| (n, a.trim()));
        match name {
            "quit" | "exit" | "q" => return false,
            "help" | "?" => eprintln!("{HELP}"),
            "clear" => self.clear().await,
            "model" => self.model(arg),
            "usage" | "cost" => eprintln!("{}", usage_line(&self.usage)),
            "status" => eprintln!(
                "model {}\nsession {}\nworkspace {}\npermission mode {}\n{}",
                self.setup.model.label,
                self.setup.session.id(),
                self.setup.workspace.display(),
                self.setup.manager.mode(),
                usage_line(&self.usage)
            ),
            "compact" => self.compact().await,
            other => eprintln!("unknown command /{other}; /help lists them"),
        }
        true
    }

    async fn clear(&mut self) {
        let id = dive::new_id("session");
        match self.setup.store.open(&id).await {
            Ok(session) => {
                self.setup.session = session;
                eprintln!("new session {id}");
            }
            Err(e) => eprintln!("cannot start a new session: {e}"),
        }
    }

    fn model(&mut self, spec: &str) {
        if spec.is_empty() {
            eprintln!("model {}", self.setup.model.label);
            return;
        }
        match model::choose(Some(spec)) {
            Ok(choice) => {
                self.setup.agent.set_model(Arc::clone(&choice.llm));
                eprintln!("model {}", choice.label);
                self.setup.model = choice;
            }
            Err(e) => eprintln!("{e}"),
        }
    }

    async fn compact(&mut self) {
        let Some(history) = self.setup.session.as_history() else {
            eprintln!("this session store cannot compact");
            return;
        };
        let snapshot = match self.setup.session.load().await {
            Ok(s) => s,
            Err(e) => return eprintln!("cannot load the session: {e}"),
        };
        let messages = snapshot.messages();
        if messages.is_empty() {
            return eprintln!("nothing to compact yet");
        }
        let mut request_messages = messages.clone();
        request_messages.push(Message::user(
            "Summarise this conversation so far for yourself: the goal, decisions, files touched, and what is left. Be concise.",
        ));
        self.spinner.busy("compacting…");
        let summary = self.setup.model.llm.generate(ModelRequest::new(request_messages)).await;
        self.spinner.pause();
        let summary = match summary {
            Ok(r) => r.text_content(),
            Err(e) => return eprintln!("compaction failed: {e}"),
        };
        let edit = SessionEdit::Compact {
            summary: vec![Message::new(
                Role::User,
                vec![Content::text(format!("Summary of the conversation so far:\n{summary}"))],
            )],
        };
        match history.edit(Some(snapshot.revision), &edit).await {
            Ok(_) => eprintln!(
                "compacted {} messages into a summary (the full transcript stays saved)",
                messages.len()
            ),
            Err(e) => eprintln!("compaction failed: {e}"),
        }
    }
}

/// Tokens and cost in one line.
pub fn usage_line(usage: &Usage) -> String {
    let mut line = format!("{} in · {} out tokens", usage.total_input_tokens(), usage.output_tokens);
    if usage.cache_read_input_tokens > 0 {
        line.push_str(&format!(" · {} cached", usage.cache_read_input_tokens));
    }
    if let Some(cost) = &usage.cost {
        line.push_str(&format!(" · ${:.4}", cost.total));
    }
    line
}
