//! [`Worktree`]: a temporary git worktree of a repository, detached at `HEAD`, for a
//! subagent with `isolation: worktree`; removed (with anything left in it) afterwards.

use std::path::{Path, PathBuf};

use tokio::process::Command;

use crate::error::SubagentError;

/// A temporary git worktree. Call [`remove`](Self::remove) when done; the `Agent` tool does.
///
/// ```no_run
/// # async fn f() -> Result<(), dive_subagent::SubagentError> {
/// let tree = dive_subagent::Worktree::create(std::path::Path::new("."), "agent-1").await?;
/// println!("working in {}", tree.path().display());
/// tree.remove().await?;
/// # Ok(()) }
/// ```
#[derive(Debug)]
pub struct Worktree {
    repo: PathBuf,
    path: PathBuf,
}

impl Worktree {
    /// Adds a worktree of the repository holding `repo`, detached at its `HEAD`, in a new
    /// directory under the system's temporary directory named after `label`.
    ///
    /// # Errors
    /// [`SubagentError::Worktree`] when `repo` is not in a git repository (or git is missing).
    pub async fn create(repo: &Path, label: &str) -> Result<Self, SubagentError> {
        let stamp =
            std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos());
        let label: String = label.chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '-' }).collect();
        let path = std::env::temp_dir().join(format!("dive-worktree-{label}-{}-{stamp}", std::process::id()));
        git(repo, &["worktree", "add", "--detach", &path.to_string_lossy(), "HEAD"]).await?;
        Ok(Self { repo: repo.to_owned(), path })
    }

    /// Where the worktree is.
    #[must_use]
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Removes the worktree and its directory, changes and all.
    ///
    /// # Errors
    /// [`SubagentError::Worktree`] when git refuses.
    pub async fn remove(self) -> Result<(), SubagentError> {
        git(&self.repo, &["worktree", "remove", "--force", &self.path.to_string_lossy()]).await
    }
}

async fn git(repo: &Path, args: &[&str]) -> Result<(), SubagentError> {
    let output = Command::new("git")
        .arg("-C")
        .arg(repo)
        .args(args)
        .kill_on_drop(true)
        .output()
        .await
        .map_err(|e| SubagentError::Worktree(format!("cannot run git: {e}")))?;
    if output.status.success() {
        return Ok(());
    }
    let stderr = String::from_utf8_lossy(&output.stderr);
    Err(SubagentError::Worktree(format!("git {} failed: {}", args.join(" "), stderr.trim())))
}
