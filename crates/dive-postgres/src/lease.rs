//! Leases with fencing: one `claims` row per session holds the owner, an attempt number that
//! only grows, and an expiry on the database's clock. Taking a lease over (after expiry or
//! release) raises the attempt; every fenced write checks, inside its own transaction and
//! with the row locked against a concurrent takeover, that its attempt is still the current
//! one. So once a takeover commits, nothing written under an older attempt lands.

use std::time::Duration;

use deadpool_postgres::Transaction;
use dive_core::Timestamp;

use crate::error::{Error, Result};
use crate::rows::{as_i64, as_u64};

/// A held lease on a session: who holds it, the fencing attempt, until when.
///
/// Every write made under it carries the attempt and is refused ([`Error::LeaseLost`], or
/// `SessionError::Claimed` from a session) once a newer attempt exists.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Lease {
    /// The session.
    pub session_id: String,
    /// The holder (unique per worker, e.g. host and pid).
    pub owner: String,
    /// The fencing attempt: raised by every takeover, never lowered.
    pub attempt: u64,
    /// When it lapses unless renewed (the database's clock).
    pub expires_at: Timestamp,
}

fn ttl_ms(ttl: Duration) -> i64 {
    i64::try_from(ttl.as_millis()).unwrap_or(i64::MAX).max(1)
}

/// How a lease is taken.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Take {
    /// Renew when the owner already holds a live lease (same attempt), else take over.
    ClaimOrRenew,
    /// Always a new attempt (a queue claim: the previous holder's lease has lapsed).
    TakeOver,
}

/// Takes (or renews) the lease of `session_id` for `owner`; `Ok(None)` while another owner's
/// lease is live.
pub(crate) async fn take(
    tx: &Transaction<'_>,
    session_id: &str,
    owner: &str,
    ttl: Duration,
    how: Take,
) -> Result<Option<Lease>> {
    let renew_same_owner = how == Take::ClaimOrRenew;
    let stmt = tx
        .prepare_cached(
            "INSERT INTO claims AS c (session_id, owner, attempt, expires_at)
             VALUES ($1, $2, 1, clock_timestamp() + $3::bigint * interval '1 millisecond')
             ON CONFLICT (session_id) DO UPDATE SET
               attempt = CASE WHEN $4 AND c.owner = excluded.owner AND c.expires_at > clock_timestamp()
                         THEN c.attempt ELSE c.attempt + 1 END,
               owner = excluded.owner,
               expires_at = excluded.expires_at
             WHERE c.owner IS NULL OR c.expires_at <= clock_timestamp() OR ($4 AND c.owner = excluded.owner)
             RETURNING attempt, (extract(epoch FROM expires_at) * 1000)::bigint",
        )
        .await?;
    let row = tx.query_opt(&stmt, &[&session_id, &owner, &ttl_ms(ttl), &renew_same_owner]).await?;
    Ok(row.map(|r| Lease {
        session_id: session_id.to_owned(),
        owner: owner.to_owned(),
        attempt: as_u64(r.get(0)),
        expires_at: Timestamp::from_millis(r.get(1)),
    }))
}

/// The current holder of a session's lease (empty when none).
pub(crate) async fn holder(tx: &Transaction<'_>, session_id: &str) -> Result<String> {
    let row = tx
        .query_opt(
            "SELECT owner FROM claims WHERE session_id = $1 AND owner IS NOT NULL AND expires_at > clock_timestamp()",
            &[&session_id],
        )
        .await?;
    Ok(row.and_then(|r| r.get::<_, Option<String>>(0)).unwrap_or_default())
}

/// Extends `lease` by `ttl` if it is still the current attempt.
pub(crate) async fn renew(tx: &Transaction<'_>, lease: &Lease, ttl: Duration) -> Result<Lease> {
    let stmt = tx
        .prepare_cached(
            "UPDATE claims SET expires_at = clock_timestamp() + $4::bigint * interval '1 millisecond'
             WHERE session_id = $1 AND owner = $2 AND attempt = $3
             RETURNING (extract(epoch FROM expires_at) * 1000)::bigint",
        )
        .await?;
    let row =
        tx.query_opt(&stmt, &[&lease.session_id, &lease.owner, &as_i64(lease.attempt), &ttl_ms(ttl)]).await?;
    match row {
        Some(r) => Ok(Lease { expires_at: Timestamp::from_millis(r.get(0)), ..lease.clone() }),
        None => Err(lost(tx, lease).await),
    }
}

/// Fails with [`Error::LeaseLost`] unless `lease` is still the current attempt; locks the
/// claim row (shared) so no takeover commits before this transaction does.
pub(crate) async fn check(tx: &Transaction<'_>, lease: &Lease) -> Result<()> {
    let stmt = tx.prepare_cached("SELECT owner, attempt FROM claims WHERE session_id = $1 FOR SHARE").await?;
    let row = tx.query_opt(&stmt, &[&lease.session_id]).await?;
    let current = row.map(|r| (r.get::<_, Option<String>>(0), as_u64(r.get(1))));
    match current {
        Some((Some(owner), attempt)) if owner == lease.owner && attempt == lease.attempt => Ok(()),
        other => Err(Error::LeaseLost {
            session_id: lease.session_id.clone(),
            attempt: lease.attempt,
            holder: other.and_then(|(owner, _)| owner).unwrap_or_default(),
        }),
    }
}

/// Releases `lease` if it is still the current attempt (the attempt number is kept, so a
/// later holder gets a higher one).
pub(crate) async fn release(tx: &Transaction<'_>, lease: &Lease) -> Result<()> {
    tx.execute(
        "UPDATE claims SET owner = NULL, expires_at = NULL WHERE session_id = $1 AND owner = $2 AND attempt = $3",
        &[&lease.session_id, &lease.owner, &as_i64(lease.attempt)],
    )
    .await?;
    Ok(())
}

/// Releases whatever lease `owner` holds on `session_id`.
pub(crate) async fn release_owner(tx: &Transaction<'_>, session_id: &str, owner: &str) -> Result<()> {
    tx.execute(
        "UPDATE claims SET owner = NULL, expires_at = NULL WHERE session_id = $1 AND owner = $2",
        &[&session_id, &owner],
    )
    .await?;
    Ok(())
}

async fn lost(tx: &Transaction<'_>, lease: &Lease) -> Error {
    let holder = holder(tx, &lease.session_id).await.unwrap_or_default();
    Error::LeaseLost { session_id: lease.session_id.clone(), attempt: lease.attempt, holder }
}
