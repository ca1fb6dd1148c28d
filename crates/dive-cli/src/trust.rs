//! Workspace trust: the workspaces whose own skills, commands and agent files may load. A
//! project's `.dive`, `.agents` and `.claude` directories can hold instructions and commands
//! written by whoever wrote the repository, so they load only in a workspace the user trusted
//! (`dive trust`, or yes at the question interactive mode asks once). The list is a JSON array
//! of absolute paths in `trusted-workspaces.json` in the session directory.

use std::path::{Path, PathBuf};

/// The file name in the session directory.
pub const FILE: &str = "trusted-workspaces.json";

/// The trusted workspaces.
pub struct Trust {
    path: PathBuf,
    workspaces: Vec<PathBuf>,
}

impl Trust {
    /// Reads the list in `session_dir`; a missing file is an empty list, an unreadable or
    /// malformed one an error naming it (nothing is trusted then, and nothing is overwritten).
    pub fn load(session_dir: &Path) -> Result<Self, String> {
        let path = session_dir.join(FILE);
        let workspaces = match std::fs::read(&path) {
            Ok(bytes) => serde_json::from_slice::<Vec<PathBuf>>(&bytes).map_err(|e| {
                format!(
                    "{} is not a JSON list of paths ({e}); fix or delete it to trust workspaces again",
                    path.display()
                )
            })?,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
            Err(e) => return Err(format!("cannot read {}: {e}", path.display())),
        };
        Ok(Self { path, workspaces })
    }

    /// Whether `workspace` (an absolute, resolved path) is trusted.
    pub fn is_trusted(&self, workspace: &Path) -> bool {
        self.workspaces.iter().any(|w| w == workspace)
    }

    /// Trusts `workspace` (`true`) or takes the trust back (`false`), and saves the list
    /// (written to a temporary file, then renamed over the old one).
    pub fn set(&mut self, workspace: &Path, trusted: bool) -> Result<(), String> {
        self.workspaces.retain(|w| w != workspace);
        if trusted {
            self.workspaces.push(workspace.to_path_buf());
        }
        let text = serde_json::to_string_pretty(&self.workspaces).map_err(|e| e.to_string())?;
        let tmp = self.path.with_extension("json.tmp");
        std::fs::write(&tmp, text)
            .and_then(|()| std::fs::rename(&tmp, &self.path))
            .map_err(|e| format!("cannot save {}: {e}", self.path.display()))
    }
}

/// Whether `workspace`'s own skills, commands and agents may load. When they exist and may
/// not, says so and how to trust the workspace.
pub fn for_workspace(session_dir: &Path, workspace: &Path) -> bool {
    let trusted = match Trust::load(session_dir) {
        Ok(trust) => trust.is_trusted(workspace),
        Err(e) => {
            eprintln!("dive: warning: {e}");
            false
        }
    };
    let dirs = if trusted { Vec::new() } else { project_dirs(workspace) };
    if !dirs.is_empty() {
        eprintln!(
            "dive: the project's skills and agents ({}) are not loaded: this workspace is not trusted \
             (`dive trust` trusts it)",
            describe(workspace, &dirs)
        );
    }
    trusted
}

/// Interactive mode: when the workspace has its own skills, agents, MCP servers or settings and
/// is not trusted, asks (on a terminal) whether to trust it, and saves a yes.
pub async fn ask(input: &crate::input::Input, session_dir: &Path, workspace: &Path) {
    use std::io::IsTerminal;
    let dirs = project_items(workspace);
    // Piped input is the conversation, not an answer to this question.
    if dirs.is_empty() || !std::io::stdin().is_terminal() {
        return;
    }
    let mut trust = match Trust::load(session_dir) {
        Ok(trust) if trust.is_trusted(workspace) => return,
        Ok(trust) => trust,
        Err(e) => return eprintln!("dive: warning: {e}"),
    };
    eprintln!(
        "This workspace has its own skills, agents, MCP servers or settings ({}). They are \
         instructions and commands written by whoever wrote this repository.",
        describe(workspace, &dirs)
    );
    let input = input.clone();
    let answer =
        tokio::task::spawn_blocking(move || input.read_answer("Trust this workspace and load them? [y/N] "))
            .await;
    if let Ok(crate::input::Line::Text(answer)) = answer
        && matches!(answer.trim().to_ascii_lowercase().as_str(), "y" | "yes")
    {
        match trust.set(workspace, true) {
            Ok(()) => eprintln!("trusted {}", workspace.display()),
            Err(e) => eprintln!("dive: {e}"),
        }
    }
}

/// `dive trust`: trusts the workspace, or takes the trust back.
pub fn command(session_dir: &Path, workspace: &Path, revoke: bool) -> Result<(), String> {
    let mut trust = Trust::load(session_dir)?;
    trust.set(workspace, !revoke)?;
    if revoke {
        say!("{} is no longer trusted: its own skills and agents will not load", workspace.display());
    } else {
        say!("trusted {}: its own skills, commands and agents load from now on", workspace.display());
    }
    Ok(())
}

/// What a trusted workspace would load and exists here: the skill and agent directories, the
/// MCP servers file and the settings files (for the question).
pub fn project_items(workspace: &Path) -> Vec<PathBuf> {
    let files = [crate::mcp::PROJECT_FILE, ".dive/settings.json", ".dive/settings.local.json"];
    let mut items = project_dirs(workspace);
    items.extend(files.iter().map(|f| workspace.join(f)).filter(|f| f.is_file()));
    items
}

/// The project's skill and agent directories that exist here (for the notice).
pub fn project_dirs(workspace: &Path) -> Vec<PathBuf> {
    let skills = dive::skill::Discovery::new().project(workspace, true).search_dirs();
    let agents = dive::subagent::Discovery::new().project(workspace, true).search_dirs();
    let mut dirs: Vec<PathBuf> = skills
        .into_iter()
        .filter(|(scope, _, _)| *scope == dive::skill::Scope::Project)
        .map(|(_, dir, _)| dir)
        .chain(
            agents
                .into_iter()
                .filter(|(source, _)| *source == dive::subagent::Source::Project)
                .map(|(_, dir)| dir),
        )
        .filter(|dir| dir.is_dir())
        .collect();
    dirs.dedup();
    dirs
}

/// The directories as the user reads them: relative to the workspace.
pub fn describe(workspace: &Path, dirs: &[PathBuf]) -> String {
    dirs.iter()
        .map(|d| d.strip_prefix(workspace).unwrap_or(d).display().to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trust_is_saved_and_taken_back() {
        let dir = tempfile::tempdir().unwrap();
        let workspace = dir.path().join("project");
        let mut trust = Trust::load(dir.path()).unwrap();
        assert!(!trust.is_trusted(&workspace));
        trust.set(&workspace, true).unwrap();
        assert!(Trust::load(dir.path()).unwrap().is_trusted(&workspace));
        trust.set(&workspace, false).unwrap();
        assert!(!Trust::load(dir.path()).unwrap().is_trusted(&workspace));
    }

    #[test]
    fn a_malformed_list_is_an_error_naming_the_file_and_is_left_alone() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(FILE), "{not json").unwrap();
        let err = Trust::load(dir.path()).err().unwrap();
        assert!(err.contains(FILE) && err.contains("fix or delete"), "{err}");
        assert_eq!(std::fs::read_to_string(dir.path().join(FILE)).unwrap(), "{not json");
    }

    #[test]
    fn only_existing_project_directories_are_listed() {
        let dir = tempfile::tempdir().unwrap();
        assert!(project_dirs(dir.path()).is_empty());
        std::fs::create_dir_all(dir.path().join(".claude/skills")).unwrap();
        std::fs::create_dir_all(dir.path().join(".dive/agents")).unwrap();
        let listed = describe(dir.path(), &project_dirs(dir.path()));
        assert!(listed.contains(".claude/skills") && listed.contains(".dive/agents"), "{listed}");
        std::fs::write(dir.path().join(".mcp.json"), "{}").unwrap();
        let items = describe(dir.path(), &project_items(dir.path()));
        assert!(items.contains(".mcp.json") && !listed.contains(".mcp.json"), "{items}");
    }
}
