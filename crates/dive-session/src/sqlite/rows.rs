//! Reading and writing sessions as rows, on the worker thread. Every write is one `IMMEDIATE`
//! transaction that first compares the stored revision with the cached one (re-reading the
//! session when another process moved it on), then applies the shared [`SessionLog`] rules,
//! then writes only what changed (usually one event row and the session row).

use std::collections::HashMap;
use std::time::Duration;

use dive_core::{
    ListOptions, SessionDocument, SessionError, SessionEvent, SessionInfo, SessionPage, Timestamp,
};
use rusqlite::{Connection, OptionalExtension, Transaction, TransactionBehavior, params};
use serde_json::{Map, Value};

use super::{DAMAGED_LOCATION, backend};
use dive_session_log::SessionLog;

/// The connection and the sessions it has read (the worker thread's state).
#[derive(Debug)]
pub(crate) struct Db {
    conn: Connection,
    cache: HashMap<String, SessionLog>,
    /// Set once SQLite reported the file damaged: from then on nothing is written to it.
    damaged: Option<String>,
}

fn corrupt(id: &str, seq: Option<i64>, reason: impl Into<String>) -> SessionError {
    let location = match seq {
        Some(seq) => format!("events (session {id:?}, seq {seq})"),
        None => format!("sessions (id {id:?})"),
    };
    SessionError::Corrupt { location, line: None, reason: reason.into() }
}

fn stored_revision(tx: &Transaction<'_>, id: &str) -> Result<Option<u64>, SessionError> {
    tx.query_row("SELECT revision FROM sessions WHERE id = ?1", [id], |r| r.get::<_, i64>(0))
        .optional()
        .map_err(backend)
        .map(|r| r.map(|v| u64::try_from(v).unwrap_or(0)))
}

fn read_session(tx: &Transaction<'_>, id: &str) -> Result<Option<SessionLog>, SessionError> {
    let row = tx
        .query_row(
            "SELECT title, created_at, updated_at, revision, forked_from, metadata FROM sessions WHERE id = ?1",
            [id],
            |r| {
                Ok((
                    r.get::<_, Option<String>>(0)?,
                    r.get::<_, i64>(1)?,
                    r.get::<_, i64>(2)?,
                    r.get::<_, i64>(3)?,
                    r.get::<_, Option<String>>(4)?,
                    r.get::<_, String>(5)?,
                ))
            },
        )
        .optional()
        .map_err(backend)?;
    let Some((title, created, updated, revision, forked_from, metadata)) = row else { return Ok(None) };
    let mut info = SessionInfo::new(id);
    info.title = title;
    info.created_at = Timestamp::from_millis(created);
    info.updated_at = Timestamp::from_millis(updated);
    info.forked_from = forked_from;
    info.metadata = serde_json::from_str::<Map<String, Value>>(&metadata)
        .map_err(|e| corrupt(id, None, format!("bad metadata: {e}")))?;
    let mut doc = SessionDocument::new(id);
    doc.info = info;
    doc.revision = u64::try_from(revision).unwrap_or(0);
    let mut stmt = tx
        .prepare_cached("SELECT seq, kind, data FROM events WHERE session_id = ?1 ORDER BY seq")
        .map_err(backend)?;
    let mut rows = stmt.query([id]).map_err(backend)?;
    while let Some(row) = rows.next().map_err(backend)? {
        let seq: i64 = row.get(0).map_err(backend)?;
        let kind: String = row.get(1).map_err(backend)?;
        let data: String = row.get(2).map_err(backend)?;
        let event = match kind.as_str() {
            "turn" => serde_json::from_str(&data).map(SessionEvent::Turn),
            "compaction" => serde_json::from_str(&data).map(SessionEvent::Compaction),
            other => return Err(corrupt(id, Some(seq), format!("unknown event kind {other:?}"))),
        }
        .map_err(|e| corrupt(id, Some(seq), format!("bad {kind}: {e}")))?;
        doc.events.push(event);
    }
    Ok(Some(SessionLog::from_stored(doc)))
}

fn write_session_row(tx: &Transaction<'_>, doc: &SessionDocument) -> Result<(), SessionError> {
    let info = &doc.info;
    tx.prepare_cached(
        "INSERT INTO sessions (id, title, created_at, updated_at, revision, event_count, suspended, forked_from, metadata)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)
         ON CONFLICT (id) DO UPDATE SET title = excluded.title, updated_at = excluded.updated_at,
           revision = excluded.revision, event_count = excluded.event_count, suspended = excluded.suspended,
           forked_from = excluded.forked_from, metadata = excluded.metadata",
    )
    .map_err(backend)?
    .execute(params![
        info.id,
        info.title,
        info.created_at.as_millis(),
        info.updated_at.as_millis(),
        i64::try_from(doc.revision).unwrap_or(i64::MAX),
        i64::try_from(info.event_count).unwrap_or(i64::MAX),
        info.suspended,
        info.forked_from,
        serde_json::to_string(&info.metadata)?,
    ])
    .map_err(backend)?;
    Ok(())
}

fn write_event(tx: &Transaction<'_>, id: &str, seq: usize, event: &SessionEvent) -> Result<(), SessionError> {
    let (kind, data) = match event {
        SessionEvent::Turn(t) => ("turn", serde_json::to_string(t)?),
        SessionEvent::Compaction(c) => ("compaction", serde_json::to_string(c)?),
        other => {
            return Err(SessionError::Rejected(format!(
                "the SQLite store cannot write the event {:?}",
                other.id()
            )));
        }
    };
    tx.prepare_cached(
        "INSERT OR REPLACE INTO events (session_id, seq, event_id, kind, revision, data) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
    )
    .map_err(backend)?
    .execute(params![
        id,
        i64::try_from(seq).unwrap_or(i64::MAX),
        event.id(),
        kind,
        i64::try_from(event.revision()).unwrap_or(i64::MAX),
        data
    ])
    .map_err(backend)?;
    Ok(())
}

/// Writes what changed between an old event count and `doc`.
fn write_changes(tx: &Transaction<'_>, doc: &SessionDocument, before: usize) -> Result<(), SessionError> {
    let id = doc.info.id.as_str();
    write_session_row(tx, doc)?; // first: events reference it
    let after = doc.events.len();
    if after + 1 == before {
        tx.execute("DELETE FROM events WHERE session_id = ?1 AND seq >= ?2", params![id, after as i64])
            .map_err(backend)?;
    } else if after == before + 1 || (after == before && after > 0) {
        // One new event, or the last one replaced (title and metadata edits rewrite it
        // unchanged: one small row).
        if let Some(last) = doc.events.last() {
            write_event(tx, id, after - 1, last)?;
        }
    } else if after != before {
        tx.execute("DELETE FROM events WHERE session_id = ?1", [id]).map_err(backend)?;
        for (seq, event) in doc.events.iter().enumerate() {
            write_event(tx, id, seq, event)?;
        }
    }
    Ok(())
}

/// Fails unless the lease `held` (owner, attempt) is still the current one.
fn check_claim(tx: &Transaction<'_>, id: &str, held: Option<&(String, u64)>) -> Result<(), SessionError> {
    let Some((owner, attempt)) = held else { return Ok(()) };
    let holder: Option<(String, i64)> = tx
        .query_row("SELECT owner, attempt FROM claims WHERE session_id = ?1", [id], |r| {
            Ok((r.get(0)?, r.get(1)?))
        })
        .optional()
        .map_err(backend)?;
    match holder {
        Some((h, a)) if h == *owner && u64::try_from(a).ok() == Some(*attempt) => Ok(()),
        other => {
            Err(SessionError::Claimed { id: id.to_owned(), owner: other.map(|(h, _)| h).unwrap_or_default() })
        }
    }
}

impl Db {
    pub(crate) fn new(conn: Connection) -> Self {
        Self { conn, cache: HashMap::new(), damaged: None }
    }

    /// Remembers that SQLite found the file damaged (see [`is_file_damage`]).
    pub(crate) fn mark_damaged(&mut self, reason: String) {
        self.damaged.get_or_insert(reason);
    }

    /// Refuses any write once the file was found damaged.
    fn writable(&self) -> Result<(), SessionError> {
        match &self.damaged {
            None => Ok(()),
            Some(reason) => Err(SessionError::Corrupt {
                location: DAMAGED_LOCATION.into(),
                line: None,
                reason: format!("{reason} (found earlier; nothing more is written to it)"),
            }),
        }
    }

    fn begin(&mut self) -> Result<Transaction<'_>, SessionError> {
        self.writable()?;
        self.conn.transaction_with_behavior(TransactionBehavior::Immediate).map_err(backend)
    }

    /// Copies the write-ahead log into the database file and truncates the log; `false` when
    /// another connection's readers kept part of it (that connection folds it in later).
    pub(crate) fn checkpoint(&mut self) -> Result<bool, SessionError> {
        self.writable()?;
        let busy: i64 =
            self.conn.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |r| r.get(0)).map_err(backend)?;
        Ok(busy == 0)
    }

    /// The cached log of `id`, re-read when the stored revision differs.
    fn synced<'c>(
        cache: &'c mut HashMap<String, SessionLog>,
        tx: &Transaction<'_>,
        id: &str,
    ) -> Result<&'c mut SessionLog, SessionError> {
        let stored = stored_revision(tx, id)?;
        let fresh = match (cache.get(id), stored) {
            (Some(log), Some(rev)) if log.revision() == rev => None,
            (Some(log), None) if log.revision() == 0 => None,
            (_, Some(_)) => Some(read_session(tx, id)?.unwrap_or_else(|| SessionLog::new(id))),
            (_, None) => Some(SessionLog::new(id)),
        };
        if let Some(log) = fresh {
            cache.insert(id.to_owned(), log);
        }
        cache.get_mut(id).ok_or_else(|| corrupt(id, None, "the session vanished from the cache"))
    }

    /// Reads a session inside a transaction.
    pub(crate) fn read<T>(&mut self, id: &str, f: impl FnOnce(&SessionLog) -> T) -> Result<T, SessionError> {
        let Self { conn, cache, .. } = self;
        let tx = conn.transaction().map_err(backend)?;
        let log = Self::synced(cache, &tx, id)?;
        let out = f(log);
        tx.commit().map_err(backend)?;
        Ok(out)
    }

    /// Applies a write in one transaction; on any failure the cached copy is dropped, so the
    /// next operation re-reads what the database holds.
    pub(crate) fn write(
        &mut self,
        id: &str,
        claim: Option<&(String, u64)>,
        apply: impl FnOnce(&mut SessionLog) -> Result<u64, SessionError>,
    ) -> Result<u64, SessionError> {
        self.writable()?;
        let result = (|| {
            let Self { conn, cache, .. } = self;
            let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate).map_err(backend)?;
            check_claim(&tx, id, claim)?;
            let log = Self::synced(cache, &tx, id)?;
            let before = log.document().events.len();
            let revision = apply(log)?;
            write_changes(&tx, log.document(), before)?;
            tx.commit().map_err(backend)?;
            Ok(revision)
        })();
        if result.is_err() {
            self.cache.remove(id);
        }
        result
    }

    /// Creates a session from a document, refused when the id already has a revision.
    pub(crate) fn import(&mut self, log: SessionLog) -> Result<(), SessionError> {
        let id = log.id().to_owned();
        let tx = self.begin()?;
        if stored_revision(&tx, &id)?.is_some_and(|r| r > 0) {
            return Err(SessionLog::exists_error(&id));
        }
        tx.execute("DELETE FROM events WHERE session_id = ?1", [&id]).map_err(backend)?;
        write_session_row(&tx, log.document())?;
        for (seq, event) in log.document().events.iter().enumerate() {
            write_event(&tx, &id, seq, event)?;
        }
        tx.commit().map_err(backend)?;
        self.cache.insert(id, log);
        Ok(())
    }

    /// A page of sessions, most recently updated first.
    pub(crate) fn list(&mut self, options: &ListOptions) -> Result<SessionPage, SessionError> {
        let filter = options.suspended;
        let total: i64 = self
            .conn
            .query_row("SELECT COUNT(*) FROM sessions WHERE ?1 IS NULL OR suspended = ?1", [filter], |r| {
                r.get(0)
            })
            .map_err(backend)?;
        let limit = options.limit.map_or(-1, |l| i64::try_from(l).unwrap_or(i64::MAX));
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT id, title, created_at, updated_at, event_count, suspended, forked_from, metadata
                 FROM sessions WHERE ?1 IS NULL OR suspended = ?1
                 ORDER BY updated_at DESC, id ASC LIMIT ?2 OFFSET ?3",
            )
            .map_err(backend)?;
        let mut rows = stmt.query(params![filter, limit, options.offset as i64]).map_err(backend)?;
        let mut sessions = Vec::new();
        while let Some(row) = rows.next().map_err(backend)? {
            let id: String = row.get(0).map_err(backend)?;
            let mut info = SessionInfo::new(id.clone());
            info.title = row.get(1).map_err(backend)?;
            info.created_at = Timestamp::from_millis(row.get(2).map_err(backend)?);
            info.updated_at = Timestamp::from_millis(row.get(3).map_err(backend)?);
            info.event_count = u64::try_from(row.get::<_, i64>(4).map_err(backend)?).unwrap_or(0);
            info.suspended = row.get(5).map_err(backend)?;
            info.forked_from = row.get(6).map_err(backend)?;
            let metadata: String = row.get(7).map_err(backend)?;
            info.metadata = serde_json::from_str(&metadata)
                .map_err(|e| corrupt(&id, None, format!("bad metadata: {e}")))?;
            sessions.push(info);
        }
        Ok(SessionPage::new(sessions, usize::try_from(total).unwrap_or(0)))
    }

    /// Deletes a session, its events and its claim.
    pub(crate) fn delete(&mut self, id: &str) -> Result<(), SessionError> {
        let tx = self.begin()?;
        tx.execute("DELETE FROM events WHERE session_id = ?1", [id]).map_err(backend)?;
        tx.execute("DELETE FROM sessions WHERE id = ?1", [id]).map_err(backend)?;
        // The lease row stays (released) so a later holder still gets a higher attempt.
        tx.execute("UPDATE claims SET owner = '', expires_at = 0 WHERE session_id = ?1", [id])
            .map_err(backend)?;
        tx.commit().map_err(backend)?;
        self.cache.remove(id);
        Ok(())
    }

    /// Claims (or renews) a lease row; returns its attempt: the same while `owner` renews a
    /// live lease, one more on every takeover (after it lapsed or was released).
    pub(crate) fn claim(&mut self, id: &str, owner: &str, ttl: Duration) -> Result<u64, SessionError> {
        let tx = self.begin()?;
        let now = Timestamp::now().as_millis();
        let holder: Option<(String, i64, i64)> = tx
            .query_row("SELECT owner, expires_at, attempt FROM claims WHERE session_id = ?1", [id], |r| {
                Ok((r.get(0)?, r.get(1)?, r.get(2)?))
            })
            .optional()
            .map_err(backend)?;
        let attempt = match holder {
            Some((holder, expires, _)) if holder != owner && expires > now => {
                return Err(SessionError::Claimed { id: id.to_owned(), owner: holder });
            }
            Some((_, expires, attempt)) if expires > now => attempt, // the owner renews
            Some((_, _, attempt)) => attempt.saturating_add(1),
            None => 1,
        };
        let ttl_ms = i64::try_from(ttl.as_millis()).unwrap_or(i64::MAX);
        tx.execute(
            "INSERT OR REPLACE INTO claims (session_id, owner, expires_at, attempt) VALUES (?1, ?2, ?3, ?4)",
            params![id, owner, now.saturating_add(ttl_ms), attempt],
        )
        .map_err(backend)?;
        tx.commit().map_err(backend)?;
        Ok(u64::try_from(attempt).unwrap_or(0))
    }

    /// Releases `owner`'s lease (nothing when another owner holds it); the row keeps its
    /// attempt, so the next holder gets a higher one.
    pub(crate) fn release(&mut self, id: &str, owner: &str) -> Result<(), SessionError> {
        self.writable()?;
        self.conn
            .execute(
                "UPDATE claims SET owner = '', expires_at = 0 WHERE session_id = ?1 AND owner = ?2",
                [id, owner],
            )
            .map_err(backend)?;
        Ok(())
    }
}
