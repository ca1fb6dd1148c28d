//! A conformance suite for [`VectorStore`] implementations: every store in this workspace
//! passes it, and authors of their own stores can run it on theirs.
//!
//! Call [`vector_store_conformance`] from a test with any executor and a function that makes
//! a fresh, empty store each time. A failed rule panics naming it; a store without a keyword
//! index (its [`VectorStore::keyword_search`] finds nothing) has the keyword checks skipped
//! and listed in the report.
//!
//! ```
//! use dive_test::vector_store::vector_store_conformance;
//!
//! async fn check_my_store<S: dive_core::VectorStore>(make_store: impl Fn() -> S) {
//!     let report = vector_store_conformance(make_store).await;
//!     assert!(report.passed.contains(&"search order"));
//! }
//! ```

use dive_core::{
    Content, MediaSource, MemoryError, Message, Role, ScoredRecord, SearchOptions, VectorRecord, VectorStore,
};
use serde_json::json;

/// What the suite ran and skipped.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct VectorConformanceReport {
    /// The checks that ran and passed.
    pub passed: Vec<&'static str>,
    /// The checks skipped, with why.
    pub skipped: Vec<(&'static str, &'static str)>,
}

fn record(id: &str, vector: [f32; 3], text: &str) -> VectorRecord {
    VectorRecord::new(id, vector.to_vec(), Message::user(text))
}

fn ids(hits: &[ScoredRecord]) -> Vec<&str> {
    hits.iter().map(|h| h.record.id.as_str()).collect()
}

async fn must<T>(what: &str, r: Result<T, MemoryError>) -> T {
    match r {
        Ok(v) => v,
        Err(e) => panic!("{what}: the store failed: {e}"),
    }
}

/// Runs every check on fresh stores from `make_store`; panics on the first broken rule.
pub async fn vector_store_conformance<S: VectorStore>(make_store: impl Fn() -> S) -> VectorConformanceReport {
    let mut report = VectorConformanceReport::default();
    let none = SearchOptions::default();

    // An empty store finds nothing.
    let store = make_store();
    let hits = must("search of an empty store", store.search(&[1.0, 0.0, 0.0], 5, &none).await).await;
    assert!(hits.is_empty(), "an empty store returned {:?}", ids(&hits));
    report.passed.push("empty store");

    // Best first, k respected, scores descending, cosine (not dot product) similarity.
    let store = make_store();
    must(
        "upsert",
        store
            .upsert(vec![
                record("x", [1.0, 0.0, 0.0], "east"),
                record("xy", [3.0, 3.0, 0.0], "north east"),
                record("y", [0.0, 0.5, 0.0], "north"),
                record("z", [0.0, 0.0, 1.0], "up"),
            ])
            .await,
    )
    .await;
    let hits = must("search", store.search(&[1.0, 0.2, 0.0], 3, &none).await).await;
    assert_eq!(ids(&hits), ["x", "xy", "y"], "hits must be the k closest by cosine, best first");
    assert!(hits.windows(2).all(|w| w[0].score >= w[1].score), "scores must not increase");
    assert!(
        (hits[0].score - 0.980_58).abs() < 1e-3,
        "score must be the cosine similarity, got {}",
        hits[0].score
    );
    let one = must("search k=1", store.search(&[0.0, 0.0, 2.0], 1, &none).await).await;
    assert_eq!(ids(&one), ["z"], "k = 1 returns only the closest");
    report.passed.push("search order");

    // The threshold drops hits below it.
    let hits = must(
        "search with min_score",
        store.search(&[1.0, 0.0, 0.0], 10, &SearchOptions::new().with_min_score(0.5)).await,
    )
    .await;
    assert_eq!(ids(&hits), ["x", "xy"], "min_score 0.5 keeps only hits scoring at least 0.5");
    report.passed.push("min score");

    // Upsert replaces by id.
    must("upsert replacing x", store.upsert(vec![record("x", [0.0, 0.0, -1.0], "down")]).await).await;
    let hits = must("search", store.search(&[1.0, 0.0, 0.0], 10, &none).await).await;
    assert_eq!(hits.len(), 4, "an upsert of an existing id must replace it, not add one");
    assert_eq!(hits[0].record.id, "xy");
    let x = hits.iter().find(|h| h.record.id == "x").map(|h| h.record.message.text());
    assert_eq!(x.as_deref(), Some("down"), "the replaced record's message must be the new one");
    report.passed.push("upsert replaces");

    // Delete removes; unknown ids are not an error.
    must("delete", store.delete(&["xy".to_owned(), "missing".to_owned()]).await).await;
    let hits = must("search", store.search(&[1.0, 1.0, 0.0], 10, &none).await).await;
    assert!(!ids(&hits).contains(&"xy"), "a deleted record must not be found");
    assert_eq!(hits.len(), 3);
    report.passed.push("delete");

    // Metadata filter: every pair must match.
    let store = make_store();
    must(
        "upsert with metadata",
        store
            .upsert(vec![
                record("a", [1.0, 0.0, 0.0], "a").with_metadata("user", "ada").with_metadata("kind", "fact"),
                record("b", [1.0, 0.1, 0.0], "b").with_metadata("user", "bob").with_metadata("kind", "fact"),
                record("c", [1.0, 0.2, 0.0], "c").with_metadata("user", "ada").with_metadata("kind", "chat"),
            ])
            .await,
    )
    .await;
    let filter = SearchOptions::new().with_filter("user", "ada");
    let hits = must("filtered search", store.search(&[0.0, 1.0, 0.0], 10, &filter).await).await;
    assert_eq!(ids(&hits), ["c", "a"], "a filter keeps only records whose metadata holds it");
    let both = SearchOptions::new().with_filter("user", "ada").with_filter("kind", "fact");
    let hits = must("filtered search", store.search(&[0.0, 1.0, 0.0], 10, &both).await).await;
    assert_eq!(ids(&hits), ["a"], "every pair of a filter must match");
    report.passed.push("metadata filter");

    // Roles, every block and metadata survive a round trip.
    let store = make_store();
    let message = Message::new(
        Role::Assistant,
        vec![
            Content::text("here is the chart"),
            Content::image(MediaSource::Base64 {
                media_type: "image/png".into(),
                data: "iVBORw0KGgo=".into(),
            }),
            Content::tool_use("call_1", "plot", json!({"series": [1, 2, 3]})),
        ],
    );
    let stored = VectorRecord::new("m", vec![0.0, 1.0, 0.0], message.clone())
        .with_metadata("session", "s1")
        .with_metadata("nested", json!({"n": 1, "tags": ["a"]}));
    must("upsert", store.upsert(vec![stored.clone()]).await).await;
    let hits = must("search", store.search(&[0.0, 1.0, 0.0], 1, &none).await).await;
    assert_eq!(hits.len(), 1);
    assert_eq!(hits[0].record, stored, "a record must come back exactly as stored (role, blocks, metadata)");
    report.passed.push("round trip");

    // A query vector of the wrong length is refused.
    match store.search(&[1.0, 0.0], 1, &none).await {
        Err(MemoryError::DimensionMismatch { expected: 3, actual: 2 }) => {}
        other => panic!("a query of the wrong dimension must fail with DimensionMismatch, got {other:?}"),
    }
    match store.upsert(vec![VectorRecord::new("w", vec![1.0; 4], Message::user("w"))]).await {
        Err(MemoryError::DimensionMismatch { expected: 3, actual: 4 }) => {}
        other => panic!("a record of the wrong dimension must fail with DimensionMismatch, got {other:?}"),
    }
    report.passed.push("dimensions");

    keyword_checks(&make_store(), &mut report).await;
    report
}

async fn keyword_checks<S: VectorStore>(store: &S, report: &mut VectorConformanceReport) {
    let none = SearchOptions::default();
    must(
        "upsert",
        store
            .upsert(vec![
                record("k1", [1.0, 0.0, 0.0], "the deploy uses blue green rollouts")
                    .with_metadata("team", "ops"),
                record("k2", [0.0, 1.0, 0.0], "lunch is at noon on fridays").with_metadata("team", "all"),
                record("k3", [0.0, 0.0, 1.0], "unrelated")
                    .with_metadata("text", "rollouts are paused during the freeze")
                    .with_metadata("team", "ops"),
            ])
            .await,
    )
    .await;
    let hits = must("keyword search", store.keyword_search("blue green deploy", 10, &none).await).await;
    if hits.is_empty() {
        report.skipped.push(("keywords", "the store has no keyword index (keyword_search finds nothing)"));
        return;
    }
    assert_eq!(hits[0].record.id, "k1", "the record holding every query word must rank first");
    assert!(!ids(&hits).contains(&"k2"), "a record sharing no query word must not match");
    let hits = must("keyword search", store.keyword_search("rollouts", 10, &none).await).await;
    let mut found = ids(&hits);
    found.sort_unstable();
    assert_eq!(found, ["k1", "k3"], "the `text` metadata is what a record's keywords come from");
    let ops = SearchOptions::new().with_filter("team", "all");
    let hits = must("filtered keyword search", store.keyword_search("rollouts lunch", 10, &ops).await).await;
    assert_eq!(ids(&hits), ["k2"], "the filter applies to keyword search too");
    let hits = must("keyword search k=1", store.keyword_search("rollouts", 1, &none).await).await;
    assert_eq!(hits.len(), 1, "k applies to keyword search");
    let hits = must(
        "keyword search with punctuation",
        store.keyword_search("\"blue\" AND (green) OR *", 10, &none).await,
    )
    .await;
    assert_eq!(
        hits.first().map(|h| h.record.id.as_str()),
        Some("k1"),
        "query syntax characters are plain text, never an error"
    );
    report.passed.push("keywords");
}
