//! File-based session claims: `{id}.claim` holds `{"owner":…,"expires_ms":…}`, replaced
//! atomically while holding an OS lock on `{id}.claim.lock`, so processes sharing a directory
//! exclude each other.

use std::fs::{self, File};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

use dive_core::{SessionError, Timestamp};
use serde_json::{Value, json};

use crate::os_lock::OsLock;

/// The claim files of one session.
#[derive(Debug)]
pub(crate) struct ClaimFiles {
    id: String,
    claim: PathBuf,
    lock: OsLock,
}

impl ClaimFiles {
    pub(crate) fn new(dir: &Path, id: &str) -> Self {
        Self {
            id: id.to_owned(),
            claim: dir.join(format!("{id}.claim")),
            lock: OsLock::new(dir.join(format!("{id}.claim.lock"))),
        }
    }

    fn with_lock<T>(&self, f: impl FnOnce() -> Result<T, SessionError>) -> Result<T, SessionError> {
        let _held = self.lock.hold()?;
        f()
    }

    fn current(&self) -> Result<Option<(String, i64)>, SessionError> {
        match fs::read_to_string(&self.claim) {
            Ok(text) => {
                let v: Value = serde_json::from_str(&text).map_err(|e| SessionError::Corrupt {
                    location: self.claim.display().to_string(),
                    line: None,
                    reason: e.to_string(),
                })?;
                let owner = v["owner"].as_str().unwrap_or_default().to_owned();
                Ok(Some((owner, v["expires_ms"].as_i64().unwrap_or(0))))
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(e.into()),
        }
    }

    pub(crate) fn claim(&self, owner: &str, ttl: Duration) -> Result<(), SessionError> {
        self.with_lock(|| {
            let now = Timestamp::now().as_millis();
            if let Some((holder, expires)) = self.current()?
                && holder != owner
                && expires > now
            {
                return Err(SessionError::Claimed { id: self.id.clone(), owner: holder });
            }
            let ttl_ms = i64::try_from(ttl.as_millis()).unwrap_or(i64::MAX);
            let body = json!({"owner": owner, "expires_ms": now.saturating_add(ttl_ms)}).to_string();
            let tmp = self.claim.with_extension("claim.tmp");
            {
                let mut f = File::create(&tmp)?;
                f.write_all(body.as_bytes())?;
                f.sync_all()?;
            }
            fs::rename(&tmp, &self.claim)?;
            Ok(())
        })
    }

    /// Fails with [`SessionError::Claimed`] unless the claim file still names `owner`.
    pub(crate) fn check_held(&self, owner: &str) -> Result<(), SessionError> {
        match self.current()? {
            Some((holder, _)) if holder == owner => Ok(()),
            Some((holder, _)) => Err(SessionError::Claimed { id: self.id.clone(), owner: holder }),
            None => Err(SessionError::Claimed { id: self.id.clone(), owner: String::new() }),
        }
    }

    pub(crate) fn release(&self, owner: &str) -> Result<(), SessionError> {
        self.with_lock(|| {
            if self.current()?.is_some_and(|(holder, _)| holder == owner) {
                fs::remove_file(&self.claim)?;
            }
            Ok(())
        })
    }

    pub(crate) fn remove(&self) {
        let _ = fs::remove_file(&self.claim);
        self.lock.remove();
    }
}
