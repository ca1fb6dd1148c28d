//! [`PathError`]: why a path was refused or could not be used.

use std::path::PathBuf;

/// A path was refused by the workspace or could not be used.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PathError {
    /// The workspace root could not be resolved.
    #[error("workspace root {} cannot be used: {source}", path.display())]
    Root {
        /// The root as given.
        path: PathBuf,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// The path is outside the workspace.
    #[error(
        "path {} is outside the workspace {}{}; use a path inside the workspace",
        path.display(),
        root.display(),
        if *read_only { " (the extra roots are read-only)" } else { "" }
    )]
    Escapes {
        /// The path as requested.
        path: PathBuf,
        /// The workspace root.
        root: PathBuf,
        /// Whether the path may lie in a read-only root (writes only).
        read_only: bool,
    },
    /// The path names a symlink whose target does not exist.
    #[error("path {} is a dangling symlink", path.display())]
    DanglingSymlink {
        /// The symlink.
        path: PathBuf,
    },
    /// An empty path.
    #[error("the path is empty")]
    Empty,
    /// An I/O error on a path.
    #[error("{}: {source}", path.display())]
    Io {
        /// The path.
        path: PathBuf,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
}

impl PathError {
    /// Whether the path was refused for escaping the workspace.
    #[must_use]
    pub fn is_escape(&self) -> bool {
        matches!(self, Self::Escapes { .. } | Self::DanglingSymlink { .. })
    }

    /// Whether the underlying I/O error is "not found".
    #[must_use]
    pub fn is_not_found(&self) -> bool {
        matches!(self, Self::Io { source, .. } if source.kind() == std::io::ErrorKind::NotFound)
    }
}
