//! Work in progress as the terminal shows it: the model's todo list as a checklist, and the
//! background subagents and `Monitor` commands — the ones running, shown at the prompt, and
//! the ones that finished since, which the model hears about on its next call.

use std::collections::HashMap;

use dive::subagent::{RunSnapshot, RunStatus, Runs, TodoItem, TodoStatus};

use crate::sanitize::visible;

/// The todo list as checklist lines.
pub fn checklist(todos: &[TodoItem]) -> Vec<String> {
    todos
        .iter()
        .map(|todo| match todo.status {
            TodoStatus::Completed => format!("☑ {}", visible(&todo.content)),
            TodoStatus::InProgress if !todo.active_form.trim().is_empty() => {
                format!("◐ {}", visible(&todo.active_form))
            }
            TodoStatus::InProgress => format!("◐ {}", visible(&todo.content)),
            _ => format!("☐ {}", visible(&todo.content)),
        })
        .collect()
}

/// One line a run: id, kind, status, description.
pub fn run_line(run: &RunSnapshot) -> String {
    let kind = match run.kind {
        dive::subagent::RunKind::Agent => "agent",
        _ => "command",
    };
    let mut line =
        format!("{}  {kind:<7}  {:<9}  {}", run.id, run.status.as_str(), visible(&run.description));
    if run.kind != dive::subagent::RunKind::Agent && run.lines > 0 {
        line.push_str(&format!("  ({} lines)", run.lines));
    }
    line
}

/// What changed in the background since the last look.
#[derive(Default)]
pub struct BackgroundWatch {
    seen: HashMap<String, RunStatus>,
}

impl BackgroundWatch {
    /// Lines for the prompt: each background run that finished since the last call, then how
    /// many still run (nothing when nothing runs in the background).
    pub fn notices(&mut self, runs: &Runs) -> Vec<String> {
        let background: Vec<RunSnapshot> = runs.list().into_iter().filter(|r| r.background).collect();
        let mut lines = Vec::new();
        for run in &background {
            let before = self.seen.insert(run.id.clone(), run.status);
            let finished_now = run.status != RunStatus::Running && before != Some(run.status);
            if finished_now {
                lines.push(format!(
                    "background {} {}: {} (the model hears of it on its next call)",
                    run.id,
                    run.status.as_str(),
                    visible(&run.description)
                ));
            }
        }
        let running: Vec<&RunSnapshot> =
            background.iter().filter(|r| r.status == RunStatus::Running).collect();
        if !running.is_empty() {
            let names: Vec<String> = running.iter().map(|r| visible(&r.description).into_owned()).collect();
            lines.push(format!("{} running in the background: {} (/tasks)", running.len(), names.join(", ")));
        }
        lines
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use dive::subagent::RunKind;

    #[test]
    fn the_checklist_marks_each_status() {
        let mut doing = TodoItem::new("Run the tests", TodoStatus::InProgress);
        doing.active_form = "Running the tests".into();
        let lines = checklist(&[
            TodoItem::new("Read the code", TodoStatus::Completed),
            doing,
            TodoItem::new("Fix the \x1b[31mbug", TodoStatus::Pending),
        ]);
        assert_eq!(lines[0], "☑ Read the code");
        assert_eq!(lines[1], "◐ Running the tests");
        assert!(lines[2].starts_with("☐ Fix the") && !lines[2].contains('\x1b'), "{:?}", lines[2]);
    }

    #[tokio::test]
    async fn background_runs_are_shown_while_they_run_and_once_when_they_finish() {
        let runs = Runs::new();
        let mut watch = BackgroundWatch::default();
        assert!(watch.notices(&runs).is_empty());
        let handle = runs.start(RunKind::Monitor, "tail the log", true);
        let _foreground = runs.start(RunKind::Agent, "in the foreground", false);
        let lines = watch.notices(&runs);
        assert_eq!(lines, ["1 running in the background: tail the log (/tasks)"]);
        handle.finish(RunStatus::Completed, "done");
        let lines = watch.notices(&runs);
        assert_eq!(lines.len(), 1);
        assert!(lines[0].contains("completed: tail the log"), "{lines:?}");
        assert!(watch.notices(&runs).is_empty(), "a finished run is announced once");
    }
}
