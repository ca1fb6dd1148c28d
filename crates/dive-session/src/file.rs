//! [`FileStore`]: one JSONL file a session.
//!
//! Line 1 is `{"line_type":"header","data":{…session info…}}`; every later line is
//! `{"line_type":"turn","data":{…turn record…}}`. Recording a new turn appends one line in a
//! single write; replacing the open turn rewrites the file through a temporary file, fsync,
//! rename and a directory fsync, so a crash leaves either the old or the new file. On open, a
//! torn final line (a crash mid-append) is dropped and the file healed; corruption anywhere
//! else is a [`SessionError::Corrupt`] naming the line, and the file is left untouched. Lines
//! of types from newer versions are kept and written back unchanged.
//!
//! Claims are `{id}.claim` files replaced under an OS lock on `{id}.claim.lock`. File I/O
//! runs inline in the returned futures (appends are one small write).

use std::collections::HashMap;
use std::fs::{self, File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use dive_core::{
    BoxFuture, ListOptions, Session, SessionClaimer, SessionError, SessionInfo, SessionPage, SessionSnapshot,
    SessionStore, Turn, TurnStore, future::ready, validate_session_id,
};
use serde_json::{Value, json};

use crate::claim::ClaimFiles;
use crate::log::{SessionLog, page_of};

/// Sessions stored as JSONL files in a directory.
#[derive(Debug, Clone)]
pub struct FileStore {
    dir: PathBuf,
    fsync_appends: bool,
    live: Arc<Mutex<HashMap<String, Arc<FileSession>>>>,
}

impl FileStore {
    /// A store in `dir` (created when missing).
    ///
    /// # Errors
    /// [`SessionError::Io`] when the directory cannot be created.
    pub fn new(dir: impl Into<PathBuf>) -> Result<Self, SessionError> {
        let dir = dir.into();
        fs::create_dir_all(&dir)?;
        Ok(Self { dir, fsync_appends: false, live: Arc::default() })
    }

    /// Also fsync every append (slower; survives power loss, not just process crashes).
    #[must_use]
    pub fn with_fsync_appends(mut self, fsync: bool) -> Self {
        self.fsync_appends = fsync;
        self
    }

    fn path(&self, id: &str) -> PathBuf {
        self.dir.join(format!("{id}.jsonl"))
    }

    fn open_sync(&self, id: &str) -> Result<Arc<FileSession>, SessionError> {
        validate_session_id(id)?;
        let mut live = self.live.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(s) = live.get(id) {
            return Ok(Arc::clone(s));
        }
        let path = self.path(id);
        let state = if path.exists() { read_file(&path)? } else { FileState::new(id) };
        let session = Arc::new(FileSession {
            id: id.to_owned(),
            path,
            fsync_appends: self.fsync_appends,
            claims: ClaimFiles::new(&self.dir, id),
            state: Mutex::new(state),
        });
        live.insert(id.to_owned(), Arc::clone(&session));
        Ok(session)
    }
}

#[derive(Debug)]
struct FileState {
    log: SessionLog,
    /// Lines of unknown types, with the number of turns before them.
    foreign: Vec<(usize, String)>,
    exists: bool,
}

impl FileState {
    fn new(id: &str) -> Self {
        Self { log: SessionLog::new(id), foreign: Vec::new(), exists: false }
    }
}

fn corrupt(path: &Path, line: usize, reason: impl Into<String>) -> SessionError {
    SessionError::Corrupt {
        location: path.display().to_string(),
        line: Some(line as u64),
        reason: reason.into(),
    }
}

fn read_file(path: &Path) -> Result<FileState, SessionError> {
    let text = fs::read_to_string(path)?;
    let ends_clean = text.ends_with('\n');
    let lines: Vec<&str> = text.lines().collect();
    let mut state: Option<FileState> = None;
    let mut heal = false;
    for (i, line) in lines.iter().enumerate() {
        let number = i + 1;
        let last = i + 1 == lines.len();
        let value: Value = match serde_json::from_str(line) {
            Ok(v) => v,
            Err(_) if last && !ends_clean => {
                heal = true; // a torn final append: drop it
                break;
            }
            Err(e) => return Err(corrupt(path, number, format!("not JSON: {e}"))),
        };
        if last && !ends_clean {
            heal = true; // complete but missing its newline: keep and heal
        }
        let kind = value.get("line_type").and_then(Value::as_str).unwrap_or_default().to_owned();
        let data = value.get("data").cloned().unwrap_or(Value::Null);
        match (kind.as_str(), state.as_mut()) {
            ("header", None) => {
                let info: SessionInfo = serde_json::from_value(data)
                    .map_err(|e| corrupt(path, number, format!("bad header: {e}")))?;
                let revision = value.get("revision").and_then(Value::as_u64).unwrap_or(0);
                let mut log = SessionLog::new(info.id.clone());
                log.info = info;
                log.revision = revision;
                state = Some(FileState { log, foreign: Vec::new(), exists: true });
            }
            (_, None) => return Err(corrupt(path, number, "the first line is not a session header")),
            ("turn", Some(s)) => {
                let turn: Turn = serde_json::from_value(data)
                    .map_err(|e| corrupt(path, number, format!("bad turn: {e}")))?;
                s.log.revision = s.log.revision.max(turn.revision);
                match s.log.turns.iter().position(|t| t.id == turn.id) {
                    Some(p) => s.log.turns[p] = turn,
                    None => s.log.turns.push(turn),
                }
            }
            (_, Some(s)) => s.foreign.push((s.log.turns.len(), (*line).to_owned())),
        }
    }
    let mut state = state.ok_or_else(|| corrupt(path, 1, "the file has no session header"))?;
    state.log.refresh_info();
    if heal {
        rewrite(path, &state)?;
        state.exists = true;
    }
    Ok(state)
}

fn header_line(state: &FileState) -> Result<String, SessionError> {
    Ok(serde_json::to_string(&json!({
        "line_type": "header",
        "revision": state.log.revision,
        "data": state.log.info,
    }))?)
}

fn turn_line(turn: &Turn) -> Result<String, SessionError> {
    Ok(serde_json::to_string(&json!({"line_type": "turn", "data": turn}))?)
}

fn rewrite(path: &Path, state: &FileState) -> Result<(), SessionError> {
    let mut text = header_line(state)?;
    text.push('\n');
    for (i, turn) in state.log.turns.iter().enumerate() {
        for (_, line) in state.foreign.iter().filter(|(at, _)| *at == i) {
            text.push_str(line);
            text.push('\n');
        }
        text.push_str(&turn_line(turn)?);
        text.push('\n');
    }
    for (_, line) in state.foreign.iter().filter(|(at, _)| *at >= state.log.turns.len()) {
        text.push_str(line);
        text.push('\n');
    }
    let tmp = path.with_extension("jsonl.tmp");
    {
        let mut f = File::create(&tmp)?;
        f.write_all(text.as_bytes())?;
        f.sync_all()?;
    }
    fs::rename(&tmp, path)?;
    if let Some(dir) = path.parent()
        && let Ok(d) = File::open(dir)
    {
        // Directory fsync makes the rename durable; not supported on every platform.
        let _ = d.sync_all();
    }
    Ok(())
}

/// A session backed by a JSONL file (see the module docs for the format).
#[derive(Debug)]
pub struct FileSession {
    id: String,
    path: PathBuf,
    fsync_appends: bool,
    claims: ClaimFiles,
    state: Mutex<FileState>,
}

impl FileSession {
    fn lock(&self) -> MutexGuard<'_, FileState> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Applies a write to a copy of the log, persists it, then adopts it: a failed write
    /// leaves memory and file as they were.
    fn write(
        &self,
        apply: impl FnOnce(&mut SessionLog) -> Result<u64, SessionError>,
    ) -> Result<u64, SessionError> {
        let mut state = self.lock();
        let mut next = state.log.clone();
        let turns_before = next.turns.len();
        let revision = apply(&mut next)?;
        // A write either appends one turn or changes existing ones (which needs a rewrite).
        let appended = next.turns.len() == turns_before + 1 && state.exists;
        let candidate = FileState { log: next, foreign: std::mem::take(&mut state.foreign), exists: true };
        let result = if appended { self.append(&candidate) } else { rewrite(&self.path, &candidate) };
        match result {
            Ok(()) => {
                *state = candidate;
                Ok(revision)
            }
            Err(e) => {
                state.foreign = candidate.foreign;
                Err(e)
            }
        }
    }

    fn append(&self, state: &FileState) -> Result<(), SessionError> {
        let Some(turn) = state.log.turns.last() else { return Ok(()) };
        let mut line = turn_line(turn)?;
        line.push('\n');
        let mut f = OpenOptions::new().append(true).open(&self.path)?;
        f.write_all(line.as_bytes())?;
        if self.fsync_appends {
            f.sync_data()?;
        }
        Ok(())
    }
}

impl Session for FileSession {
    fn id(&self) -> &str {
        &self.id
    }

    fn load(&self) -> BoxFuture<'_, Result<SessionSnapshot, SessionError>> {
        let needs_recovery = self.lock().log.has_running_turn();
        let result = if needs_recovery {
            self.write(|log| {
                log.recover_running_turn();
                Ok(log.revision)
            })
            .map(|_| self.lock().log.snapshot())
        } else {
            Ok(self.lock().log.snapshot())
        };
        ready(result)
    }

    fn save_turn<'a>(&'a self, turn: &'a Turn) -> BoxFuture<'a, Result<u64, SessionError>> {
        ready(self.write(|log| log.record(turn)))
    }

    fn as_turn_store(&self) -> Option<&dyn TurnStore> {
        Some(self)
    }

    fn as_claimer(&self) -> Option<&dyn SessionClaimer> {
        Some(self)
    }
}

impl SessionClaimer for FileSession {
    fn claim<'a>(
        &'a self,
        owner: &'a str,
        ttl: std::time::Duration,
    ) -> BoxFuture<'a, Result<(), SessionError>> {
        ready(self.claims.claim(owner, ttl))
    }

    fn release<'a>(&'a self, owner: &'a str) -> BoxFuture<'a, Result<(), SessionError>> {
        ready(self.claims.release(owner))
    }
}

impl TurnStore for FileSession {
    fn checkpoint_turn<'a>(
        &'a self,
        expected_revision: u64,
        turn: &'a Turn,
    ) -> BoxFuture<'a, Result<u64, SessionError>> {
        ready(self.write(|log| log.checkpoint(expected_revision, turn)))
    }
}

impl SessionStore for FileStore {
    fn open<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Arc<dyn Session>, SessionError>> {
        ready(self.open_sync(id).map(|s| s as Arc<dyn Session>))
    }

    fn list<'a>(&'a self, options: &'a ListOptions) -> BoxFuture<'a, Result<SessionPage, SessionError>> {
        let result = (|| {
            let mut infos = Vec::new();
            // Every `{id}.jsonl` in the directory, including sessions other processes wrote.
            for entry in fs::read_dir(&self.dir)? {
                let path = entry?.path();
                let Some(id) =
                    path.file_name().and_then(|n| n.to_str()).and_then(|n| n.strip_suffix(".jsonl"))
                else {
                    continue;
                };
                if validate_session_id(id).is_err() {
                    continue;
                }
                infos.push(self.open_sync(id)?.lock().log.info.clone());
            }
            Ok(page_of(infos, options))
        })();
        ready(result)
    }

    fn delete<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<(), SessionError>> {
        let result = validate_session_id(id).and_then(|()| {
            self.live.lock().unwrap_or_else(PoisonError::into_inner).remove(id);
            ClaimFiles::new(&self.dir, id).remove();
            match fs::remove_file(self.path(id)) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(SessionError::Io(e)),
                _ => Ok(()),
            }
        });
        ready(result)
    }
}
