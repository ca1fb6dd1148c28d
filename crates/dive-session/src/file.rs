//! [`FileStore`]: one JSONL file a session (the format is described in
//! `docs/guides/sessions.md`).
//!
//! Line 1 is `{"line_type":"header","version":1,"revision":N,"data":{…session info…}}`;
//! every later line is an event: `{"line_type":"turn","data":{…turn record…}}`,
//! `{"line_type":"compaction","data":{…}}`, or `{"line_type":"step","data":{…turn…}}` (a step
//! checkpoint of the running last turn, replacing its earlier record on read). Recording a new
//! event or a step appends one line in a single write; any other change rewrites the file
//! through a temporary file, fsync, rename and a directory fsync, so a crash leaves either the
//! old or the new file. On open, a torn final line (a crash mid-append) is dropped and the
//! file healed; corruption anywhere else is a [`SessionError::Corrupt`] naming the file and
//! line, and the file is left untouched. Lines of types from newer versions are kept and
//! written back unchanged.
//!
//! Every write holds an OS lock on `{id}.jsonl.lock` from its check to its last byte, and a
//! session notices when another process changed its file (size, time or inode differ from
//! what it last read or wrote) and re-reads it first, so processes sharing a directory never
//! lose each other's writes: a stale `checkpoint_turn` fails with
//! [`SessionError::RevisionConflict`], and a torn line is healed only while no one appends.
//! Claims are `{id}.claim` files replaced under an OS lock on `{id}.claim.lock`; a session
//! that holds a claim refuses to write once the claim file names another owner. File I/O runs
//! inline in the returned futures (an append is one small write).

use std::collections::HashMap;
use std::fs::{self, File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, SystemTime};

use dive_core::{
    BoxFuture, ListOptions, Session, SessionClaimer, SessionDocument, SessionEdit, SessionError,
    SessionEvent, SessionHistory, SessionInfo, SessionPage, SessionSnapshot, SessionStore, StoreCapabilities,
    Turn, TurnStatus, TurnStore, future::ready, validate_session_id,
};
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::json;

use crate::claim::ClaimFiles;
use crate::os_lock::OsLock;
use dive_session_log::{SessionLog, page_of};

/// The header `version` this library writes and the newest it reads.
const FILE_VERSION: u64 = 1;

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

    /// The directory holding the session files.
    #[must_use]
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    fn path(&self, id: &str) -> PathBuf {
        self.dir.join(format!("{id}.jsonl"))
    }

    fn lock_path(&self, id: &str) -> PathBuf {
        self.dir.join(format!("{id}.jsonl.lock"))
    }

    fn live(&self) -> MutexGuard<'_, HashMap<String, Arc<FileSession>>> {
        self.live.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn open_sync(&self, id: &str) -> Result<Arc<FileSession>, SessionError> {
        validate_session_id(id)?;
        let mut live = self.live();
        if let Some(s) = live.get(id) {
            return Ok(Arc::clone(s));
        }
        let path = self.path(id);
        let os_lock = OsLock::new(self.lock_path(id));
        let state = FileState::read_or_new(&path, id, Some(&os_lock))?;
        let session = Arc::new(FileSession {
            id: id.to_owned(),
            path,
            fsync_appends: self.fsync_appends,
            claims: ClaimFiles::new(&self.dir, id),
            held_claim: Mutex::new(None),
            os_lock,
            state: Mutex::new(state),
            run_lock: dive_core::SessionLock::new(),
        });
        live.insert(id.to_owned(), Arc::clone(&session));
        Ok(session)
    }

    fn import_sync(&self, document: &SessionDocument) -> Result<Arc<FileSession>, SessionError> {
        let log = SessionLog::import(document)?;
        let id = log.id().to_owned();
        let session = self.open_sync(&id)?;
        {
            let mut state = session.lock();
            let _held = session.os_lock.hold()?;
            if Fingerprint::of(&session.path)?.is_some() {
                return Err(SessionLog::exists_error(&id));
            }
            let mut imported = FileState { log, foreign: Vec::new(), seen: None };
            imported.seen = Some(rewrite(&session.path, &imported)?);
            *state = imported;
        }
        Ok(session)
    }
}

/// What identifies the version of a file we last read or wrote.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Fingerprint {
    len: u64,
    modified: Option<SystemTime>,
    inode: u64,
}

impl Fingerprint {
    fn of(path: &Path) -> Result<Option<Self>, SessionError> {
        match fs::metadata(path) {
            Ok(m) => {
                #[cfg(unix)]
                let inode = std::os::unix::fs::MetadataExt::ino(&m);
                #[cfg(not(unix))]
                let inode = 0;
                Ok(Some(Self { len: m.len(), modified: m.modified().ok(), inode }))
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(e.into()),
        }
    }
}

#[derive(Debug)]
struct FileState {
    log: SessionLog,
    /// Lines of unknown types, with the number of events before them.
    foreign: Vec<(usize, String)>,
    /// The file as last read or written (`None`: no file yet).
    seen: Option<Fingerprint>,
}

impl FileState {
    /// Reads the file (a new state when there is none). A torn final line is healed under
    /// the OS lock, re-reading first: what looked torn may be another process's append in
    /// progress. `lock` is `None` when the caller already holds it.
    fn read_or_new(path: &Path, id: &str, lock: Option<&OsLock>) -> Result<Self, SessionError> {
        if Fingerprint::of(path)?.is_none() {
            return Ok(Self { log: SessionLog::new(id), foreign: Vec::new(), seen: None });
        }
        let (state, torn) = read_file(path)?;
        if !torn {
            return Ok(state);
        }
        let _held = lock.map(OsLock::hold).transpose()?;
        let (mut state, torn) = if lock.is_some() { read_file(path)? } else { (state, torn) };
        if torn {
            state.seen = Some(rewrite(path, &state)?);
        }
        Ok(state)
    }
}

fn corrupt(path: &Path, line: usize, reason: impl Into<String>) -> SessionError {
    SessionError::Corrupt {
        location: path.display().to_string(),
        line: Some(line as u64),
        reason: reason.into(),
    }
}

/// Parses a session file; the flag says whether its last line is torn (or lacks its newline)
/// and the file needs healing.
fn read_file(path: &Path) -> Result<(FileState, bool), SessionError> {
    let text = fs::read_to_string(path)?;
    let seen = Fingerprint::of(path)?;
    let ends_clean = text.ends_with('\n');
    let lines: Vec<&str> = text.lines().collect();
    let mut doc: Option<SessionDocument> = None;
    let mut foreign = Vec::new();
    let mut heal = false;
    for (i, line) in lines.iter().enumerate() {
        let number = i + 1;
        let last = i + 1 == lines.len();
        // Two typed passes (the line type, then the payload) are several times faster than
        // building a `Value` for every line.
        let head: LineHead = match serde_json::from_str(line) {
            Ok(v) => v,
            Err(_) if last && !ends_clean => {
                heal = true; // a torn final append: drop it
                break;
            }
            Err(e) => return Err(corrupt(path, number, format!("not a JSON line: {e}"))),
        };
        if last && !ends_clean {
            heal = true; // complete but missing its newline: keep and heal
        }
        let Some(doc) = doc.as_mut() else {
            if head.line_type != "header" {
                return Err(corrupt(path, number, "the first line is not a session header"));
            }
            let version = head.version.unwrap_or(1);
            if version > FILE_VERSION {
                return Err(corrupt(
                    path,
                    number,
                    format!("written by a newer version (file version {version}); not changed"),
                ));
            }
            let info: SessionInfo = payload(path, number, line, "header")?;
            let mut header = SessionDocument::new(info.id.clone());
            header.info = info;
            header.revision = head.revision.unwrap_or(0);
            doc = Some(header);
            continue;
        };
        let event = match head.line_type.as_str() {
            "turn" | "step" => SessionEvent::Turn(payload(path, number, line, "turn")?),
            "compaction" => SessionEvent::Compaction(payload(path, number, line, "compaction")?),
            _ => {
                foreign.push((doc.events.len(), (*line).to_owned()));
                continue;
            }
        };
        doc.revision = doc.revision.max(event.revision());
        // A record whose id is already there replaces it (step checkpoints, later versions).
        let same = |e: &SessionEvent| e.id() == event.id();
        match doc.events.last().filter(|e| same(e)).map(|_| doc.events.len() - 1) {
            Some(p) => doc.events[p] = event,
            None => match doc.events.iter().position(same) {
                Some(p) => doc.events[p] = event,
                None => doc.events.push(event),
            },
        }
    }
    let doc = doc.ok_or_else(|| corrupt(path, 1, "the file has no session header"))?;
    Ok((FileState { log: SessionLog::from_stored(doc), foreign, seen }, heal))
}

/// The fields of a line other than its payload (which is skipped unparsed).
#[derive(Deserialize)]
struct LineHead {
    line_type: String,
    #[serde(default)]
    version: Option<u64>,
    #[serde(default)]
    revision: Option<u64>,
}

/// A line's payload.
#[derive(Deserialize)]
struct LineData<T> {
    data: T,
}

fn payload<T: DeserializeOwned>(
    path: &Path,
    number: usize,
    line: &str,
    what: &str,
) -> Result<T, SessionError> {
    serde_json::from_str::<LineData<T>>(line)
        .map(|l| l.data)
        .map_err(|e| corrupt(path, number, format!("bad {what}: {e}")))
}

fn header_line(state: &FileState) -> Result<String, SessionError> {
    Ok(serde_json::to_string(&json!({
        "line_type": "header",
        "version": FILE_VERSION,
        "revision": state.log.revision(),
        "data": state.log.info(),
    }))?)
}

fn event_line(event: &SessionEvent, step: bool) -> Result<String, SessionError> {
    let mut line = match event {
        SessionEvent::Turn(t) if step => serde_json::to_string(&json!({"line_type": "step", "data": t}))?,
        SessionEvent::Turn(t) => serde_json::to_string(&json!({"line_type": "turn", "data": t}))?,
        SessionEvent::Compaction(c) => serde_json::to_string(&json!({"line_type": "compaction", "data": c}))?,
        other => {
            return Err(SessionError::Rejected(format!(
                "the file store cannot write the event {:?}",
                other.id()
            )));
        }
    };
    line.push('\n');
    Ok(line)
}

fn rewrite(path: &Path, state: &FileState) -> Result<Fingerprint, SessionError> {
    let mut text = header_line(state)?;
    text.push('\n');
    let events = &state.log.document().events;
    for (i, event) in events.iter().enumerate() {
        for (_, line) in state.foreign.iter().filter(|(at, _)| *at == i) {
            text.push_str(line);
            text.push('\n');
        }
        text.push_str(&event_line(event, false)?);
    }
    for (_, line) in state.foreign.iter().filter(|(at, _)| *at >= events.len()) {
        text.push_str(line);
        text.push('\n');
    }
    let tmp = path.with_extension("jsonl.tmp");
    let written = (|| {
        let mut f = File::create(&tmp)?;
        f.write_all(text.as_bytes())?;
        f.sync_all()?;
        fs::rename(&tmp, path)
    })();
    if let Err(e) = written {
        let _ = fs::remove_file(&tmp);
        return Err(e.into());
    }
    if let Some(dir) = path.parent()
        && let Ok(d) = File::open(dir)
    {
        // Directory fsync makes the rename durable; not supported on every platform.
        let _ = d.sync_all();
    }
    Fingerprint::of(path)?.ok_or_else(|| corrupt(path, 0, "the file vanished after it was written"))
}

/// How a write reaches the file.
enum Persist {
    Append { step: bool },
    Rewrite,
}

/// A session backed by a JSONL file (see the module docs for the format).
#[derive(Debug)]
pub struct FileSession {
    id: String,
    path: PathBuf,
    fsync_appends: bool,
    claims: ClaimFiles,
    held_claim: Mutex<Option<String>>,
    /// Held across every check-and-write (and every re-read), so store instances in other
    /// processes never interleave with ours.
    os_lock: OsLock,
    /// Runs on this session serialise (the store keeps one object per live id).
    run_lock: dive_core::SessionLock,
    state: Mutex<FileState>,
}

impl FileSession {
    fn lock(&self) -> MutexGuard<'_, FileState> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Re-reads the file when another process changed it since we last read or wrote it.
    /// `locked`: the caller holds the OS lock.
    fn sync_from_disk(&self, state: &mut FileState, locked: bool) -> Result<(), SessionError> {
        let now = Fingerprint::of(&self.path)?;
        if now != state.seen {
            let lock = (!locked).then_some(&self.os_lock);
            *state = FileState::read_or_new(&self.path, &self.id, lock)?;
        }
        Ok(())
    }

    fn check_claim(&self) -> Result<(), SessionError> {
        let held = self.held_claim.lock().unwrap_or_else(PoisonError::into_inner).clone();
        match held {
            Some(owner) => self.claims.check_held(&owner),
            None => Ok(()),
        }
    }

    /// Applies a write to the log and persists it. When persisting fails the in-memory state
    /// is marked unknown, so the next operation re-reads the file (the write may have landed).
    fn write(
        &self,
        apply: impl FnOnce(&mut SessionLog) -> Result<u64, SessionError>,
    ) -> Result<u64, SessionError> {
        self.check_claim()?;
        let mut state = self.lock();
        let _held = self.os_lock.hold()?;
        self.sync_from_disk(&mut state, true)?;
        let before = state.log.document().events.len();
        let last_was_running = state.log.has_running_turn();
        let last_id = state.log.document().events.last().map(|e| e.id().to_owned());
        let revision = apply(&mut state.log)?;
        let events = &state.log.document().events;
        let exists = state.seen.is_some();
        let persist = match events.last() {
            Some(_) if exists && events.len() == before + 1 => Persist::Append { step: false },
            Some(SessionEvent::Turn(t))
                if exists
                    && events.len() == before
                    && last_was_running
                    && t.status == TurnStatus::Running
                    && last_id.as_deref() == Some(t.id.as_str()) =>
            {
                Persist::Append { step: true }
            }
            _ => Persist::Rewrite,
        };
        let result = match persist {
            Persist::Append { step } => self.append(&state, step),
            Persist::Rewrite => rewrite(&self.path, &state),
        };
        match result {
            Ok(seen) => {
                state.seen = Some(seen);
                Ok(revision)
            }
            Err(e) => {
                // Unknown whether it landed: force a re-read before anything else.
                state.seen = Some(Fingerprint { len: u64::MAX, modified: None, inode: 0 });
                Err(e)
            }
        }
    }

    fn append(&self, state: &FileState, step: bool) -> Result<Fingerprint, SessionError> {
        let Some(event) = state.log.document().events.last() else {
            return Err(corrupt(&self.path, 0, "nothing to append"));
        };
        let line = event_line(event, step)?;
        let mut f = OpenOptions::new().append(true).open(&self.path)?;
        f.write_all(line.as_bytes())?;
        if self.fsync_appends {
            f.sync_data()?;
        }
        Fingerprint::of(&self.path)?
            .ok_or_else(|| corrupt(&self.path, 0, "the file vanished after an append"))
    }

    fn read<T>(&self, f: impl FnOnce(&SessionLog) -> T) -> Result<T, SessionError> {
        let mut state = self.lock();
        self.sync_from_disk(&mut state, false)?;
        Ok(f(&state.log))
    }
}

impl Session for FileSession {
    fn id(&self) -> &str {
        &self.id
    }

    fn run_lock(&self) -> Option<dive_core::SessionLock> {
        Some(self.run_lock.clone())
    }

    fn load(&self) -> BoxFuture<'_, Result<SessionSnapshot, SessionError>> {
        let result = match self.read(SessionLog::has_running_turn) {
            Ok(true) => self
                .write(|log| {
                    log.recover_running_turn();
                    Ok(log.revision())
                })
                .and_then(|_| self.read(SessionLog::snapshot)),
            Ok(false) => self.read(SessionLog::snapshot),
            Err(e) => Err(e),
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

    fn as_history(&self) -> Option<&dyn SessionHistory> {
        Some(self)
    }
}

impl SessionHistory for FileSession {
    fn document(&self) -> BoxFuture<'_, Result<SessionDocument, SessionError>> {
        ready(self.read(|log| log.document().clone()))
    }

    fn edit<'a>(
        &'a self,
        expected_revision: Option<u64>,
        edit: &'a SessionEdit,
    ) -> BoxFuture<'a, Result<u64, SessionError>> {
        ready(self.write(|log| log.edit(expected_revision, edit)))
    }
}

impl SessionClaimer for FileSession {
    fn claim<'a>(&'a self, owner: &'a str, ttl: Duration) -> BoxFuture<'a, Result<(), SessionError>> {
        let result = self.claims.claim(owner, ttl).map(|()| {
            *self.held_claim.lock().unwrap_or_else(PoisonError::into_inner) = Some(owner.to_owned());
        });
        ready(result)
    }

    fn release<'a>(&'a self, owner: &'a str) -> BoxFuture<'a, Result<(), SessionError>> {
        let mut held = self.held_claim.lock().unwrap_or_else(PoisonError::into_inner);
        if held.as_deref() == Some(owner) {
            *held = None;
        }
        drop(held);
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
    fn capabilities(&self) -> StoreCapabilities {
        StoreCapabilities::all()
    }

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
                infos.push(self.open_sync(id)?.read(|log| log.info().clone())?);
            }
            Ok(page_of(infos, options))
        })();
        ready(result)
    }

    fn delete<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<(), SessionError>> {
        let result = validate_session_id(id).and_then(|()| {
            self.live().remove(id);
            ClaimFiles::new(&self.dir, id).remove();
            OsLock::new(self.lock_path(id)).remove();
            match fs::remove_file(self.path(id)) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(SessionError::Io(e)),
                _ => Ok(()),
            }
        });
        ready(result)
    }

    fn import<'a>(
        &'a self,
        document: &'a SessionDocument,
    ) -> BoxFuture<'a, Result<Arc<dyn Session>, SessionError>> {
        ready(self.import_sync(document).map(|s| s as Arc<dyn Session>))
    }
}
