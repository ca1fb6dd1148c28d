//! [`OsLock`]: an exclusive OS file lock (`flock` / `LockFileEx` through `std::fs::File::lock`)
//! on a lock file, held by a guard. Processes — and separate store instances in one process —
//! sharing a directory exclude each other with it.

use std::fs::{File, OpenOptions};
use std::path::PathBuf;
use std::sync::OnceLock;

use dive_core::SessionError;

/// A lock file, opened on first use and kept open.
#[derive(Debug)]
pub(crate) struct OsLock {
    path: PathBuf,
    file: OnceLock<File>,
}

/// Holds the lock until dropped.
#[derive(Debug)]
pub(crate) struct OsLockGuard<'a>(&'a File);

impl Drop for OsLockGuard<'_> {
    fn drop(&mut self) {
        let _ = self.0.unlock();
    }
}

impl OsLock {
    pub(crate) fn new(path: PathBuf) -> Self {
        Self { path, file: OnceLock::new() }
    }

    /// Blocks until the lock is held.
    pub(crate) fn hold(&self) -> Result<OsLockGuard<'_>, SessionError> {
        let file = match self.file.get() {
            Some(f) => f,
            None => {
                let opened = OpenOptions::new().create(true).truncate(false).write(true).open(&self.path)?;
                // Another thread may have won the race: use whichever was stored.
                let _ = self.file.set(opened);
                self.file
                    .get()
                    .ok_or_else(|| SessionError::Io(std::io::Error::other("lock file not stored")))?
            }
        };
        file.lock()?;
        Ok(OsLockGuard(file))
    }

    /// Removes the lock file (only when the session itself is deleted).
    pub(crate) fn remove(&self) {
        let _ = std::fs::remove_file(&self.path);
    }
}
