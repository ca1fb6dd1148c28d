//! Sessions as rows: a `sessions` row (summary and revision) and one `events` row per turn or
//! compaction. A write changes only what the shared [`SessionLog`] rules changed (usually
//! one event row and the session row).

use deadpool_postgres::Transaction;
use dive_core::{SessionDocument, SessionError, SessionEvent, SessionInfo, Timestamp};
use dive_session_log::SessionLog;
use serde_json::{Map, Value};

use crate::error::Error;

fn corrupt(id: &str, seq: Option<i64>, reason: impl Into<String>) -> SessionError {
    let location = match seq {
        Some(seq) => format!("events (session {id:?}, seq {seq})"),
        None => format!("sessions (id {id:?})"),
    };
    SessionError::Corrupt { location, line: None, reason: reason.into() }
}

pub(crate) fn as_u64(v: i64) -> u64 {
    u64::try_from(v).unwrap_or(0)
}

pub(crate) fn as_i64(v: u64) -> i64 {
    i64::try_from(v).unwrap_or(i64::MAX)
}

/// Makes sure the session row exists and locks it for this transaction; returns the stored
/// revision (0 for a session never written).
pub(crate) async fn lock_session(tx: &Transaction<'_>, id: &str) -> Result<u64, Error> {
    let stmt = tx
        .prepare_cached(
            "INSERT INTO sessions (id, created_at, updated_at, revision, event_count, suspended, metadata)
             VALUES ($1, $2, $2, 0, 0, false, '{}')
             ON CONFLICT (id) DO UPDATE SET revision = sessions.revision
             RETURNING revision",
        )
        .await?;
    let row = tx.query_one(&stmt, &[&id, &Timestamp::now().as_millis()]).await?;
    Ok(as_u64(row.get(0)))
}

/// The stored revision, `None` when the session has no row.
pub(crate) async fn stored_revision(tx: &Transaction<'_>, id: &str) -> Result<Option<u64>, Error> {
    let stmt = tx.prepare_cached("SELECT revision FROM sessions WHERE id = $1").await?;
    Ok(tx.query_opt(&stmt, &[&id]).await?.map(|r| as_u64(r.get(0))))
}

/// Reads a whole session, `None` when it has no row.
pub(crate) async fn read_session(tx: &Transaction<'_>, id: &str) -> Result<Option<SessionLog>, Error> {
    let stmt = tx
        .prepare_cached(
            "SELECT title, created_at, updated_at, revision, forked_from, metadata FROM sessions WHERE id = $1",
        )
        .await?;
    let Some(row) = tx.query_opt(&stmt, &[&id]).await? else { return Ok(None) };
    let mut info = SessionInfo::new(id);
    info.title = row.get(0);
    info.created_at = Timestamp::from_millis(row.get(1));
    info.updated_at = Timestamp::from_millis(row.get(2));
    info.forked_from = row.get(4);
    let metadata: String = row.get(5);
    info.metadata = serde_json::from_str::<Map<String, Value>>(&metadata)
        .map_err(|e| corrupt(id, None, format!("bad metadata: {e}")))?;
    let mut doc = SessionDocument::new(id);
    doc.info = info;
    doc.revision = as_u64(row.get(3));
    let stmt =
        tx.prepare_cached("SELECT seq, kind, data FROM events WHERE session_id = $1 ORDER BY seq").await?;
    for row in tx.query(&stmt, &[&id]).await? {
        let seq: i64 = row.get(0);
        let kind: &str = row.get(1);
        let data: &str = row.get(2);
        let event = match kind {
            "turn" => serde_json::from_str(data).map(SessionEvent::Turn),
            "compaction" => serde_json::from_str(data).map(SessionEvent::Compaction),
            other => return Err(corrupt(id, Some(seq), format!("unknown event kind {other:?}")).into()),
        }
        .map_err(|e| corrupt(id, Some(seq), format!("bad {kind}: {e}")))?;
        doc.events.push(event);
    }
    Ok(Some(SessionLog::from_stored(doc)))
}

pub(crate) async fn write_session_row(tx: &Transaction<'_>, doc: &SessionDocument) -> Result<(), Error> {
    let info = &doc.info;
    let stmt = tx
        .prepare_cached(
            "INSERT INTO sessions (id, title, created_at, updated_at, revision, event_count, suspended, forked_from, metadata)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
             ON CONFLICT (id) DO UPDATE SET title = excluded.title, created_at = excluded.created_at,
               updated_at = excluded.updated_at, revision = excluded.revision, event_count = excluded.event_count,
               suspended = excluded.suspended, forked_from = excluded.forked_from, metadata = excluded.metadata",
        )
        .await?;
    tx.execute(
        &stmt,
        &[
            &info.id,
            &info.title,
            &info.created_at.as_millis(),
            &info.updated_at.as_millis(),
            &as_i64(doc.revision),
            &as_i64(info.event_count),
            &info.suspended,
            &info.forked_from,
            &serde_json::to_string(&info.metadata)?,
        ],
    )
    .await?;
    Ok(())
}

pub(crate) async fn write_event(
    tx: &Transaction<'_>,
    id: &str,
    seq: usize,
    event: &SessionEvent,
) -> Result<(), Error> {
    let (kind, data) = match event {
        SessionEvent::Turn(t) => ("turn", serde_json::to_string(t)?),
        SessionEvent::Compaction(c) => ("compaction", serde_json::to_string(c)?),
        other => {
            return Err(SessionError::Rejected(format!(
                "the PostgreSQL store cannot write the event {:?}",
                other.id()
            ))
            .into());
        }
    };
    let stmt = tx
        .prepare_cached(
            "INSERT INTO events (session_id, seq, event_id, kind, revision, data) VALUES ($1, $2, $3, $4, $5, $6)
             ON CONFLICT (session_id, seq) DO UPDATE SET event_id = excluded.event_id, kind = excluded.kind,
               revision = excluded.revision, data = excluded.data",
        )
        .await?;
    let seq = i64::try_from(seq).unwrap_or(i64::MAX);
    tx.execute(&stmt, &[&id, &seq, &event.id(), &kind, &as_i64(event.revision()), &data]).await?;
    Ok(())
}

/// Writes what changed between an old event count and `doc`.
pub(crate) async fn write_changes(
    tx: &Transaction<'_>,
    doc: &SessionDocument,
    before: usize,
) -> Result<(), Error> {
    let id = doc.info.id.as_str();
    write_session_row(tx, doc).await?; // first: events reference it
    let after = doc.events.len();
    if after + 1 == before {
        let from = i64::try_from(after).unwrap_or(i64::MAX);
        tx.execute("DELETE FROM events WHERE session_id = $1 AND seq >= $2", &[&id, &from]).await?;
    } else if after == before + 1 || (after == before && after > 0) {
        // One new event, or the last one replaced (title and metadata edits rewrite it
        // unchanged: one small row).
        if let Some(last) = doc.events.last() {
            write_event(tx, id, after - 1, last).await?;
        }
    } else if after != before {
        write_all_events(tx, doc).await?;
    }
    Ok(())
}

/// Replaces every event row of `doc`'s session.
pub(crate) async fn write_all_events(tx: &Transaction<'_>, doc: &SessionDocument) -> Result<(), Error> {
    let id = doc.info.id.as_str();
    tx.execute("DELETE FROM events WHERE session_id = $1", &[&id]).await?;
    for (seq, event) in doc.events.iter().enumerate() {
        write_event(tx, id, seq, event).await?;
    }
    Ok(())
}
