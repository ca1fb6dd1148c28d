//! [`EffectJournal`]: intent before effect. A tool with an external effect records its
//! intent (`pending`, keyed by the stable effect id the engine hands it in
//! `ToolContext::effect_id`) before acting, passes the same id downstream as an idempotency
//! key, then delivers its result. Delivery is idempotent: the same result again changes
//! nothing, a different one is refused.

use serde_json::Value;

use crate::error::{Error, Result};
use crate::lease::{self, Lease};
use crate::rows::{as_i64, as_u64};
use crate::store::PostgresStore;

/// What [`EffectJournal::begin`] found.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Intent {
    /// The intent is recorded for the first time: run the effect.
    New,
    /// An earlier attempt recorded the intent and never delivered a result: the effect may
    /// have happened. Run it again only through a downstream that deduplicates by the
    /// effect id (or check downstream first).
    Unfinished {
        /// The lease attempt that recorded it before, when it was fenced.
        earlier_attempt: Option<u64>,
    },
    /// The effect already finished with this result: do not run it again.
    Done(Value),
}

/// What [`EffectJournal::finish`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Delivery {
    /// The result is recorded.
    Recorded,
    /// The same result was already recorded; nothing changed.
    Duplicate,
}

/// The intent-before-effect journal of a [`PostgresStore`].
///
/// ```no_run
/// # async fn demo(store: dive_postgres::PostgresStore, lease: dive_postgres::Lease) -> Result<(), dive_postgres::Error> {
/// use dive_postgres::Intent;
/// let effects = store.effects();
/// let effect_id = "chat/turn-1/call-1"; // from ToolContext::effect_id()
/// match effects.begin(effect_id, Some(&lease)).await? {
///     Intent::Done(result) => println!("already done: {result}"),
///     _ => {
///         // … charge the card, passing effect_id as the idempotency key …
///         effects.finish(effect_id, &serde_json::json!({"charged": 42}), Some(&lease)).await?;
///     }
/// }
/// # Ok(()) }
/// ```
#[derive(Debug, Clone)]
pub struct EffectJournal {
    store: PostgresStore,
}

impl EffectJournal {
    pub(crate) fn new(store: PostgresStore) -> Self {
        Self { store }
    }

    /// Records the intent to run effect `effect_id` (committed before this returns), or
    /// reports what an earlier attempt left. With a `lease` it is fenced: refused once a
    /// newer attempt holds the session.
    ///
    /// # Errors
    /// [`Error::LeaseLost`]; [`Error::Pool`], [`Error::Database`].
    pub async fn begin(&self, effect_id: &str, lease: Option<&Lease>) -> Result<Intent> {
        let mut client = self.store.client().await?;
        let tx = client.transaction().await?;
        if let Some(lease) = lease {
            lease::check(&tx, lease).await?;
        }
        let stmt = tx
            .prepare_cached(
                "INSERT INTO effects AS e (effect_id, session_id, status, attempt) VALUES ($1, $2, 'pending', $3)
                 ON CONFLICT (effect_id) DO UPDATE SET attempt = COALESCE(excluded.attempt, e.attempt)
                   WHERE e.status = 'pending'
                 RETURNING (xmax = 0), (SELECT attempt FROM effects WHERE effect_id = $1)",
            )
            .await?;
        let session_id = lease.map(|l| l.session_id.as_str());
        let attempt = lease.map(|l| as_i64(l.attempt));
        let row = tx.query_opt(&stmt, &[&effect_id, &session_id, &attempt]).await?;
        let intent = match row {
            Some(row) if row.get::<_, bool>(0) => Intent::New,
            Some(row) => Intent::Unfinished { earlier_attempt: row.get::<_, Option<i64>>(1).map(as_u64) },
            None => {
                let done =
                    tx.query_one("SELECT result FROM effects WHERE effect_id = $1", &[&effect_id]).await?;
                Intent::Done(done.get::<_, Option<Value>>(0).unwrap_or(Value::Null))
            }
        };
        tx.commit().await?;
        Ok(intent)
    }

    /// Delivers effect `effect_id`'s result. A second delivery of the same result changes
    /// nothing ([`Delivery::Duplicate`]).
    ///
    /// # Errors
    /// [`Error::EffectConflict`] when a different result is already recorded,
    /// [`Error::NoIntent`] when no intent was recorded, [`Error::LeaseLost`] (with a lease).
    pub async fn finish(&self, effect_id: &str, result: &Value, lease: Option<&Lease>) -> Result<Delivery> {
        let mut client = self.store.client().await?;
        let tx = client.transaction().await?;
        if let Some(lease) = lease {
            lease::check(&tx, lease).await?;
        }
        let stmt = tx
            .prepare_cached(
                "UPDATE effects SET status = 'done', result = $2, completed_at = now()
                 WHERE effect_id = $1 AND status = 'pending'",
            )
            .await?;
        if tx.execute(&stmt, &[&effect_id, result]).await? == 1 {
            tx.commit().await?;
            return Ok(Delivery::Recorded);
        }
        let row = tx.query_opt("SELECT result FROM effects WHERE effect_id = $1", &[&effect_id]).await?;
        match row.map(|r| r.get::<_, Option<Value>>(0)) {
            None => Err(Error::NoIntent(effect_id.to_owned())),
            Some(Some(stored)) if &stored == result => Ok(Delivery::Duplicate),
            Some(_) => Err(Error::EffectConflict { effect_id: effect_id.to_owned() }),
        }
    }

    /// The recorded result of `effect_id`, `None` while pending or unknown.
    ///
    /// # Errors
    /// [`Error::Pool`], [`Error::Database`].
    pub async fn result(&self, effect_id: &str) -> Result<Option<Value>> {
        let client = self.store.client().await?;
        let row = client
            .query_opt("SELECT result FROM effects WHERE effect_id = $1 AND status = 'done'", &[&effect_id])
            .await?;
        Ok(row.and_then(|r| r.get::<_, Option<Value>>(0)))
    }
}
