//! [`Workspace`]: confines every file tool to a root directory (plus optional read-only roots).
//!
//! Paths are made absolute against the root, cleaned lexically, then resolved through the
//! file system (symlinks followed) before the containment check, so `..`, symlinks that
//! point out and absolute paths elsewhere are all refused. After a file is opened its real
//! path is read back from the open handle (`/proc/self/fd` on Linux) and checked again, so a
//! symlink swapped in between the check and the open is caught too.

use std::fs::{File, OpenOptions};
use std::io::Write as _;
use std::path::{Component, Path, PathBuf};

use crate::error::PathError;

/// What a path is going to be used for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Access {
    /// Reading: the root and the read-only roots are allowed.
    Read,
    /// Writing: only the root is allowed.
    Write,
}

/// A confinement root for file tools.
///
/// ```
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let dir = tempfile::tempdir()?;
/// let ws = dive_toolkit::Workspace::new(dir.path())?;
/// assert!(ws.resolve("notes/today.md", dive_toolkit::Access::Write).is_ok());
/// assert!(ws.resolve("../outside.txt", dive_toolkit::Access::Read).is_err());
/// assert!(ws.resolve("/etc/passwd", dive_toolkit::Access::Read).is_err());
/// # Ok(()) }
/// ```
#[derive(Debug, Clone)]
pub struct Workspace {
    root: PathBuf,
    read_only: Vec<PathBuf>,
}

impl Workspace {
    /// A workspace rooted at `root`, which must exist.
    ///
    /// # Errors
    /// [`PathError::Root`] when the root cannot be resolved.
    pub fn new(root: impl AsRef<Path>) -> Result<Self, PathError> {
        let root = root.as_ref();
        let root =
            root.canonicalize().map_err(|e| PathError::Root { path: root.to_path_buf(), source: e })?;
        Ok(Self { root, read_only: Vec::new() })
    }

    /// Adds a root that may be read but never written (skills, reference docs).
    ///
    /// # Errors
    /// [`PathError::Root`] when the path cannot be resolved.
    pub fn with_read_only_root(mut self, path: impl AsRef<Path>) -> Result<Self, PathError> {
        let path = path.as_ref();
        let resolved =
            path.canonicalize().map_err(|e| PathError::Root { path: path.to_path_buf(), source: e })?;
        self.read_only.push(resolved);
        Ok(self)
    }

    /// The resolved root.
    #[must_use]
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The resolved read-only roots.
    #[must_use]
    pub fn read_only_roots(&self) -> &[PathBuf] {
        &self.read_only
    }

    /// Resolves `path` (relative to the root, or absolute) to an absolute, symlink-free path
    /// inside the workspace. The path need not exist; its longest existing ancestor is
    /// resolved and the rest appended.
    ///
    /// # Errors
    /// [`PathError::Escapes`] when the resolved path lies outside every allowed root,
    /// [`PathError::Io`] when resolution fails for another reason.
    pub fn resolve(&self, path: impl AsRef<Path>, access: Access) -> Result<PathBuf, PathError> {
        let requested = path.as_ref();
        if requested.as_os_str().is_empty() {
            return Err(PathError::Empty);
        }
        let joined =
            if requested.is_absolute() { requested.to_path_buf() } else { self.root.join(requested) };
        let cleaned = clean(&joined);
        let resolved = resolve_existing_prefix(&cleaned)?;
        if self.allows(&resolved, access) { Ok(resolved) } else { Err(self.escapes(requested, access)) }
    }

    /// Whether an absolute, resolved path lies under an allowed root.
    #[must_use]
    pub fn allows(&self, resolved: &Path, access: Access) -> bool {
        resolved.starts_with(&self.root)
            || (access == Access::Read && self.read_only.iter().any(|r| resolved.starts_with(r)))
    }

    /// A path relative to the root when possible (for messages to the model).
    #[must_use]
    pub fn display(&self, resolved: &Path) -> String {
        resolved.strip_prefix(&self.root).map_or_else(
            |_| resolved.display().to_string(),
            |rel| if rel.as_os_str().is_empty() { ".".into() } else { rel.display().to_string() },
        )
    }

    fn escapes(&self, requested: &Path, access: Access) -> PathError {
        PathError::Escapes {
            path: requested.to_path_buf(),
            root: self.root.clone(),
            read_only: access == Access::Write && !self.read_only.is_empty(),
        }
    }

    /// Opens a resolved file for reading, refusing a final symlink and re-checking the
    /// opened file's real path.
    ///
    /// # Errors
    /// [`PathError::Escapes`] when the opened file is outside the workspace (a swap since
    /// [`resolve`](Self::resolve)), [`PathError::Io`] otherwise.
    pub fn open_read(&self, resolved: &Path) -> Result<File, PathError> {
        let mut options = OpenOptions::new();
        options.read(true);
        no_follow(&mut options);
        let file = options.open(resolved).map_err(|e| io_error(resolved, e))?;
        self.verify_handle(&file, resolved, Access::Read)?;
        Ok(file)
    }

    /// Replaces (or creates) a resolved file atomically: the bytes go to a temporary file in
    /// the same directory, which is synced and renamed over the target, so a crash never
    /// leaves half a file. Missing parent directories are created (inside the workspace).
    /// A new file is created with the user's umask (0666 less the umask, typically 0644); a
    /// replaced file keeps its mode.
    ///
    /// # Errors
    /// [`PathError::Escapes`] when the directory was swapped out of the workspace,
    /// [`PathError::Io`] on I/O failure.
    pub fn write_atomic(&self, resolved: &Path, bytes: &[u8]) -> Result<(), PathError> {
        let parent = resolved.parent().ok_or(PathError::Empty)?;
        std::fs::create_dir_all(parent).map_err(|e| io_error(parent, e))?;
        let real_parent = parent.canonicalize().map_err(|e| io_error(parent, e))?;
        if !self.allows(&real_parent, Access::Write) {
            return Err(self.escapes(resolved, Access::Write));
        }
        if std::fs::symlink_metadata(resolved).is_ok_and(|m| m.file_type().is_symlink()) {
            return Err(self.escapes(resolved, Access::Write));
        }
        let permissions = std::fs::metadata(resolved).ok().map(|m| m.permissions());
        let mut builder = tempfile::Builder::new();
        builder.prefix(".dive-write-");
        // A new file gets what a plain create gets (0666 less the umask, applied by open(2)),
        // not the temp file's private 0600; an existing file keeps its mode (set below).
        #[cfg(unix)]
        builder.permissions(<std::fs::Permissions as std::os::unix::fs::PermissionsExt>::from_mode(0o666));
        let mut temp = builder.tempfile_in(&real_parent).map_err(|e| io_error(&real_parent, e))?;
        self.verify_handle(temp.as_file(), resolved, Access::Write)?;
        temp.write_all(bytes).map_err(|e| io_error(resolved, e))?;
        if let Some(permissions) = permissions {
            temp.as_file().set_permissions(permissions).map_err(|e| io_error(resolved, e))?;
        }
        temp.as_file().sync_all().map_err(|e| io_error(resolved, e))?;
        let target = real_parent.join(resolved.file_name().ok_or(PathError::Empty)?);
        temp.persist(&target).map_err(|e| io_error(&target, e.error))?;
        Ok(())
    }

    fn verify_handle(&self, file: &File, requested: &Path, access: Access) -> Result<(), PathError> {
        if let Some(real) = handle_path(file)
            && !self.allows(&real, access)
        {
            return Err(self.escapes(requested, access));
        }
        Ok(())
    }
}

/// Removes `.` and resolves `..` lexically (never above the file-system root).
fn clean(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

/// Canonicalizes the longest existing ancestor and appends the remaining (clean) components.
fn resolve_existing_prefix(cleaned: &Path) -> Result<PathBuf, PathError> {
    let mut existing = cleaned.to_path_buf();
    let mut rest = Vec::new();
    loop {
        match existing.canonicalize() {
            Ok(real) => {
                let mut out = real;
                for part in rest.iter().rev() {
                    out.push(part);
                }
                return Ok(out);
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                // A dangling symlink is not "missing": following it later could land anywhere.
                if std::fs::symlink_metadata(&existing).is_ok() {
                    return Err(PathError::DanglingSymlink { path: existing });
                }
                let Some(name) = existing.file_name().map(ToOwned::to_owned) else {
                    return Err(io_error(cleaned, e));
                };
                rest.push(name);
                if !existing.pop() {
                    return Err(io_error(cleaned, e));
                }
            }
            Err(e) => return Err(io_error(cleaned, e)),
        }
    }
}

fn io_error(path: &Path, source: std::io::Error) -> PathError {
    PathError::Io { path: path.to_path_buf(), source }
}

#[cfg(unix)]
fn no_follow(options: &mut OpenOptions) {
    use std::os::unix::fs::OpenOptionsExt as _;
    options.custom_flags(nix::fcntl::OFlag::O_NOFOLLOW.bits());
}

#[cfg(not(unix))]
fn no_follow(_options: &mut OpenOptions) {}

/// The real path of an open file, where the platform can tell.
#[cfg(target_os = "linux")]
fn handle_path(file: &File) -> Option<PathBuf> {
    use std::os::fd::AsRawFd as _;
    std::fs::read_link(format!("/proc/self/fd/{}", file.as_raw_fd())).ok()
}

#[cfg(not(target_os = "linux"))]
fn handle_path(_file: &File) -> Option<PathBuf> {
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clean_resolves_dots_lexically() {
        assert_eq!(clean(Path::new("/a/b/../c/./d")), PathBuf::from("/a/c/d"));
        assert_eq!(clean(Path::new("/../../x")), PathBuf::from("/x"));
    }

    #[test]
    fn missing_paths_resolve_under_the_root() {
        let dir = tempfile::tempdir().unwrap();
        let ws = Workspace::new(dir.path()).unwrap();
        let p = ws.resolve("a/b/c.txt", Access::Write).unwrap();
        assert_eq!(p, ws.root().join("a/b/c.txt"));
        assert_eq!(ws.display(&p), "a/b/c.txt");
    }
}
