//! Interactive mode: the prompt loop, streamed turns, slash commands.

use std::sync::Arc;

use dive::{
    CancellationToken, CompactionPolicy, Llm, RunOptions, SessionCompaction, SessionEdit, SessionStore,
    SoftCancel, Usage,
};

use crate::cancel::CancelWatch;
use crate::input::{Input, Line};
use crate::interrupt::{AtPrompt, PromptInterrupts, TurnState};
use crate::model;
use crate::render::{Renderer, Spinner};
use crate::setup::Setup;
use crate::style::Style;

const HELP: &str = "\
Commands:
  /help            this help
  /clear           start a new session (the current one stays saved)
  /model [spec]    show the model, or switch to vendor/model
  /usage           tokens and cost so far
  /status          model, session, workspace, permission mode
  /compact [how]   summarise the conversation so far into a new window (the transcript stays)
  /agents          the subagent types the model can start
  /tasks [stop ID] background subagents and commands; stop one
  /todos           the model's todo list
  /mcp             the MCP servers and their state
  /quit            leave (also Ctrl-D)
Ctrl-C while the model answers stops it at once; while tools run it stops after the step
(press it again to stop now); at a permission prompt it cancels the turn; at the prompt it
says how to leave, and a second press (or Ctrl-D) leaves.";

/// The interactive session.
pub struct Repl {
    pub setup: Setup,
    pub input: Input,
    pub spinner: Spinner,
    pub show_thinking: bool,
    usage: Usage,
    turn_state: TurnState,
    prompt_interrupts: PromptInterrupts,
    style: Style,
    /// The session whose workspace was recorded (once a session).
    tagged: Option<String>,
    /// Background runs already announced at the prompt.
    background: crate::progress::BackgroundWatch,
}

impl Repl {
    /// A loop over `setup`.
    pub fn new(setup: Setup, input: Input, spinner: Spinner, show_thinking: bool) -> Self {
        Self {
            setup,
            input,
            spinner,
            show_thinking,
            usage: Usage::default(),
            turn_state: TurnState::default(),
            prompt_interrupts: PromptInterrupts::default(),
            style: Style::stderr_from_env(),
            tagged: None,
            background: crate::progress::BackgroundWatch::default(),
        }
    }

    /// Shares the running turn with the permission dialog (Ctrl-C there cancels the turn).
    pub fn with_turn_state(mut self, turn: TurnState) -> Self {
        self.turn_state = turn;
        self
    }

    /// On resume: the last exchanges, so the user sees where the conversation stands.
    async fn recap(&self) {
        let Ok(snapshot) = self.setup.session.load().await else { return };
        let lines = crate::transcript::last_exchanges(&snapshot.messages(), 2);
        if lines.is_empty() {
            return;
        }
        eprintln!("{}", self.style.dim("── last exchanges ──"));
        for line in lines {
            let line: String = line.chars().take(300).collect();
            eprintln!("{}", crate::sanitize::visible(&line));
        }
        eprintln!("{}", self.style.dim("──"));
    }

    async fn banner(&self) {
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
        if self.setup.resumed {
            self.recap().await;
        }
    }

    /// Runs until `/quit`, end of input or a termination signal; returns the exit code.
    pub async fn run(mut self) -> u8 {
        self.banner().await;
        loop {
            if let Some(runs) = self.setup.capabilities.runs() {
                for notice in self.background.notices(runs) {
                    eprintln!("{}", self.style.dim(&format!("({notice})")));
                }
            }
            let input = self.input.clone();
            let signals = self.setup.guard.signals.clone();
            let line = tokio::select! {
                line = tokio::task::spawn_blocking(move || input.read_line("› ")) => line,
                () = signals.received() => break,
            };
            let line = match line {
                Ok(Line::Text(line)) => line,
                Ok(Line::Interrupted) => match self.prompt_interrupts.interrupted() {
                    AtPrompt::Hint(hint) => {
                        eprintln!("{}", self.style.dim(hint));
                        continue;
                    }
                    AtPrompt::Exit => break,
                },
                Ok(Line::Eof) | Err(_) => break,
            };
            self.prompt_interrupts.reset();
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
            self.turn(line, line).await;
            if self.setup.guard.signal_exit().is_some() {
                break;
            }
        }
        self.setup.capabilities.stop_background().await;
        self.setup.guard.finish().await;
        crate::setup::flush_otel(self.setup.otel.take()).await;
        self.setup.guard.signal_exit().unwrap_or(0)
    }

    /// Runs one turn on `text`; `typed` is what the user typed (the session's title).
    async fn turn(&mut self, text: &str, typed: &str) {
        if let Err(e) = self.setup.guard.before_turn().await {
            return eprintln!("{} {e}", self.style.red("error:"));
        }
        let soft = SoftCancel::new();
        let hard: CancellationToken = self.setup.guard.signals.turn_token();
        self.turn_state.begin(hard.clone());
        let watch = CancelWatch::start(soft.clone(), hard.clone(), self.turn_state.clone());
        let renderer = Renderer::new(self.spinner.clone(), self.show_thinking)
            .with_todos(self.setup.capabilities.todos().cloned());
        self.spinner.busy("thinking…");
        let sink = renderer.clone();
        let turn_state = self.turn_state.clone();
        let options = RunOptions::text(text)
            .with_session(Arc::clone(&self.setup.session))
            .with_soft_cancel(soft)
            .with_cancel(hard)
            .on_event(move |item| {
                turn_state.observe(item);
                sink.item(item);
                Ok(())
            });
        let result = self.setup.agent.run(options).await;
        drop(watch);
        self.turn_state.end();
        self.spinner.pause();
        let (turn, error) = match &result {
            Ok(r) => (r.turn.as_ref(), None),
            Err(e) => (e.response().and_then(|r| r.turn.as_ref()), Some(e.to_string())),
        };
        let unsaved = self.setup.guard.after_turn(&self.setup.session, turn, error.as_deref());
        self.set_title_once(typed).await;
        if self.tagged.as_deref() != Some(self.setup.session.id()) {
            crate::workspace_sessions::tag(&*self.setup.session, &self.setup.workspace).await;
            self.tagged = Some(self.setup.session.id().to_owned());
        }
        match result {
            Ok(response) => {
                self.usage += &response.usage;
                if response.status == dive::TurnStatus::Incomplete {
                    let reason = response
                        .turn
                        .as_ref()
                        .and_then(|t| t.outcome.as_ref())
                        .map(|o| format!("{:?}", o.reason));
                    let note = format!(
                        "(the turn stopped early: {}; send a message to go on)",
                        reason.unwrap_or_default()
                    );
                    eprintln!("{}", self.style.yellow(&note));
                }
                let context =
                    context_line(&response, self.setup.agent.model().model_info().map(|m| m.context_window));
                eprintln!("{}", self.style.dim(&format!("({}{context})", usage_line(&response.usage))));
            }
            Err(e) => {
                if let Some(r) = e.response() {
                    self.usage += &r.usage;
                }
                let described = crate::errors::from_agent(&e);
                eprintln!("{} {}", self.style.red("error:"), crate::sanitize::visible(&described.message));
                if e.response().is_some() && !unsaved {
                    eprintln!("{}", self.style.dim("(the turn was saved; send a message to go on)"));
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
            "help" | "?" => {
                eprintln!("{HELP}");
                let skills = crate::slash::help(&self.setup.capabilities.skills);
                if !skills.is_empty() {
                    eprint!("\n{skills}");
                }
                if let Some(manager) = &self.setup.mcp {
                    let prompts = crate::mcp::prompt_help(manager).await;
                    if !prompts.is_empty() {
                        eprint!("\n{prompts}");
                    }
                }
            }
            "clear" => self.clear().await,
            "model" => self.model(arg),
            "usage" | "cost" => eprintln!("{}", usage_line(&self.usage)),
            "status" => {
                for line in self.setup.guard.provenance.status(&self.setup) {
                    eprintln!("{line}");
                }
                eprintln!("{}", usage_line(&self.usage));
            }
            "compact" => self.compact(arg).await,
            "agents" => self.agents(),
            "tasks" => self.tasks(arg),
            "todos" => self.todos(),
            "mcp" => match &self.setup.mcp {
                Some(manager) => {
                    crate::mcp::status_lines(manager).await.iter().for_each(|l| eprintln!("  {l}"))
                }
                None => eprintln!("no MCP servers (--mcp-config, or .mcp.json in a trusted workspace)"),
            },
            other => {
                let typed = format!("/{command}");
                if let Some(content) = crate::slash::expand(&self.setup.capabilities.skills, other, arg).await
                {
                    self.turn(&content, &typed).await;
                } else if let Some(prompt) = self.mcp_prompt(other, arg).await {
                    match prompt {
                        Ok(content) => self.turn(&content, &typed).await,
                        Err(e) => eprintln!("{} {}", self.style.red("error:"), crate::sanitize::visible(&e)),
                    }
                } else {
                    eprintln!("unknown command /{other}; /help lists them");
                }
            }
        }
        true
    }

    async fn mcp_prompt(&self, name: &str, args: &str) -> Option<Result<String, String>> {
        crate::mcp::prompt(self.setup.mcp.as_ref()?, name, args).await
    }

    fn agents(&self) {
        let Some(orchestration) = &self.setup.capabilities.orchestration else {
            return eprintln!("subagents need a model (the offline test model has none)");
        };
        eprintln!("Subagent types (the model starts them with the Agent tool):");
        for definition in orchestration.agent().catalog().definitions() {
            let from = match definition.source {
                dive::subagent::Source::Project => "project",
                dive::subagent::Source::User => "user",
                _ => "built in",
            };
            let description: String = definition.description.trim().chars().take(90).collect();
            eprintln!(
                "  {:<16} {from:<8} {}",
                crate::sanitize::visible(&definition.name),
                crate::sanitize::visible(&description)
            );
        }
    }

    fn tasks(&self, arg: &str) {
        let Some(runs) = self.setup.capabilities.runs() else {
            return eprintln!("no background tasks on the offline test model");
        };
        if let Some(id) = arg.strip_prefix("stop").map(str::trim).filter(|id| !id.is_empty()) {
            return match runs.stop(id) {
                Ok(()) => eprintln!("stopped {id}"),
                Err(e) => eprintln!("{e}"),
            };
        }
        let list = runs.list();
        if list.is_empty() {
            return eprintln!("no subagents or background commands have run in this session");
        }
        for run in list {
            eprintln!("  {}", crate::progress::run_line(&run));
        }
    }

    fn todos(&self) {
        let todos =
            self.setup.capabilities.todos().map(dive::subagent::TodoTracker::todos).unwrap_or_default();
        if todos.is_empty() {
            return eprintln!("no todo list yet");
        }
        for line in crate::progress::checklist(&todos) {
            eprintln!("  {line}");
        }
    }

    async fn clear(&mut self) {
        let id = dive::new_id("session");
        match self.setup.store.open(&id).await {
            Ok(session) => {
                if let Some(old) = self.setup.guard.claim.take() {
                    old.release().await;
                }
                self.setup.guard.claim = crate::claim::Claim::take(Arc::clone(&session)).await.ok().flatten();
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
        match model::choose(Some(spec), &self.setup.transport) {
            Ok(choice) => {
                self.setup.agent.set_model(Arc::clone(&choice.llm));
                self.setup.capabilities.set_model(Arc::clone(&choice.llm));
                eprintln!("model {}", choice.label);
                self.setup.model = choice;
            }
            Err(e) => eprintln!("{e}"),
        }
    }

    /// `/compact [instructions]`: the window compacted by the same strategy the engine compacts
    /// with automatically (native, else a summary), the instructions added to its prompt, loaded
    /// skills kept word for word; recorded as a compaction (the transcript keeps every message).
    async fn compact(&mut self, instructions: &str) {
        let policy = manual_compaction(Arc::clone(&self.setup.model.llm));
        let instructions = (!instructions.is_empty()).then(|| instructions.to_owned());
        self.spinner.busy("compacting…");
        let done = self.setup.agent.compact_session(&*self.setup.session, &policy, instructions).await;
        self.spinner.pause();
        match done {
            Ok(SessionCompaction::Compacted { messages_before, .. }) => eprintln!(
                "compacted {messages_before} messages into a summary (the full transcript stays saved)"
            ),
            Ok(SessionCompaction::Vetoed(reason)) => eprintln!("not compacted: {reason}"),
            Ok(_) => eprintln!("nothing to compact yet"),
            Err(e) => eprintln!("compaction failed: {e}"),
        }
    }
}

/// What `/compact` does: the whole window compacted (nothing kept back) by the provider's own
/// compaction where it has one, else summarised; skills kept.
fn manual_compaction(llm: Arc<dyn Llm>) -> CompactionPolicy {
    CompactionPolicy::new(dive::Auto::shared(llm).keep_recent(0)).keep(dive::skill::carry_over)
}

/// How full the context is after a turn: the last model call's input and output against the
/// model's window (` · context 41% of 200k`), or nothing when the window is unknown. Automatic
/// compaction starts at 80%.
pub fn context_line(response: &dive::Response, window: Option<u64>) -> String {
    let (Some(window), Some(last)) = (window.filter(|w| *w > 0), response.model_calls.last()) else {
        return String::new();
    };
    let used = last.usage.total_input_tokens() + last.usage.output_tokens;
    let percent = used.saturating_mul(100) / window;
    let window = if window >= 1_000 { format!("{}k", window / 1_000) } else { window.to_string() };
    format!(" · context {percent}% of {window}")
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_context_line_is_the_last_calls_share_of_the_window() {
        let mut response = dive::Response::new("r");
        assert_eq!(context_line(&response, Some(200_000)), "", "no model call yet");
        let mut first = dive::ModelCallRecord::new(0, "anthropic", "m");
        first.usage.input_tokens = 10_000;
        let mut last = dive::ModelCallRecord::new(1, "anthropic", "m");
        last.usage.input_tokens = 80_000;
        last.usage.output_tokens = 2_000;
        response.model_calls = vec![first, last];
        assert_eq!(context_line(&response, Some(200_000)), " · context 41% of 200k");
        assert_eq!(context_line(&response, None), "", "an unknown window shows nothing");
    }
}
