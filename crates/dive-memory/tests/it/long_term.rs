//! Long-term memory: recall by similarity with threshold, budget, filter and scope; roles and
//! blocks kept; idempotent writes; chunks; hybrid fusion and recency on both stores.
#![allow(clippy::unwrap_used)]

use std::sync::Arc;
use std::time::Duration;

use dive_core::{Content, MediaSource, Message, Role, SearchOptions, VectorRecord, VectorStore};
#[cfg(feature = "sqlite")]
use dive_memory::SqliteVectorStore;
use dive_memory::{CREATED_AT_KEY, FixedSize, Hybrid, InMemoryVectorStore, LongTerm, MESSAGE_KEY, Retrieval};
use dive_test::HashEmbedder;

fn facts() -> Vec<Message> {
    vec![
        Message::user("My cat is called Miso and she is three years old."),
        Message::user("The staging database runs on port 5433."),
        Message::assistant("Your flight to Oslo leaves on Friday at nine."),
        Message::user("I prefer answers in British English."),
    ]
}

fn memory(store: impl VectorStore + 'static) -> LongTerm {
    LongTerm::new(HashEmbedder::new(512), store)
}

#[tokio::test]
async fn recalls_the_closest_message_with_its_role_and_blocks() {
    let store = InMemoryVectorStore::new();
    let m = memory(store.clone());
    let chart = Message::new(
        Role::Assistant,
        vec![
            Content::text("Revenue chart for the third quarter."),
            Content::image(MediaSource::Base64 {
                media_type: "image/png".into(),
                data: "iVBORw0KGgo=".into(),
            }),
        ],
    );
    let mut all = facts();
    all.push(chart.clone());
    assert_eq!(m.remember(&all).await.unwrap(), 5);
    let hits = m.recall("what port does the staging database use", &Retrieval::new(1)).await.unwrap();
    assert_eq!(hits[0].record.message.text(), "The staging database runs on port 5433.");
    let hits = m.recall("when does my flight to Oslo leave", &Retrieval::new(2)).await.unwrap();
    assert_eq!(hits[0].record.message.role, Role::Assistant, "the role is kept");
    let hits = m.recall("third quarter revenue chart", &Retrieval::new(1)).await.unwrap();
    assert_eq!(hits[0].record.message, chart, "every block is kept, not only text");
    // Writing the same messages again writes the same ids: nothing new.
    m.remember(&all).await.unwrap();
    assert_eq!(store.len(), 5);
}

#[tokio::test]
async fn threshold_budget_and_filter() {
    let m = memory(InMemoryVectorStore::new());
    m.remember(&facts()).await.unwrap();
    let q = "what is my cat called";
    let all = m.recall(q, &Retrieval::new(4)).await.unwrap();
    assert_eq!(all.len(), 4);
    assert!(all.windows(2).all(|w| w[0].score >= w[1].score));
    let best = all[0].score;
    let strict = m.recall(q, &Retrieval::new(4).with_min_score(best - 1e-4)).await.unwrap();
    assert_eq!(strict.len(), 1, "only the best clears a threshold just under its score");
    // The budget cuts at the first memory that does not fit (each of these is ~17-18 tokens).
    let one = m.recall(q, &Retrieval::new(4).with_token_budget(20)).await.unwrap();
    assert_eq!(one.len(), 1);
    let none = m.recall(q, &Retrieval::new(4).with_token_budget(5)).await.unwrap();
    assert!(none.is_empty());
    let assistant_only = m.recall(q, &Retrieval::new(4).with_filter("role", "assistant")).await.unwrap();
    assert_eq!(assistant_only.len(), 1);
    assert_eq!(assistant_only[0].record.message.role, Role::Assistant);
}

#[tokio::test]
async fn scopes_keep_users_apart_in_one_store() {
    let store = Arc::new(InMemoryVectorStore::new());
    let embedder = Arc::new(HashEmbedder::new(256));
    let ada = LongTerm::from_arcs(embedder.clone(), store.clone()).with_scope("user", "ada");
    let bob = LongTerm::from_arcs(embedder, store.clone()).with_scope("user", "bob");
    ada.remember(&[Message::user("my cat is Miso")]).await.unwrap();
    bob.remember(&[Message::user("my cat is Rex")]).await.unwrap();
    let hits = bob.recall("my cat", &Retrieval::new(5)).await.unwrap();
    assert_eq!(hits.len(), 1);
    assert_eq!(hits[0].record.message.text(), "my cat is Rex");
    assert_eq!(store.len(), 2, "the same scope key, different values: two records");
}

#[tokio::test]
async fn chunks_are_embedded_one_by_one_and_recalled_once_per_message() {
    let store = InMemoryVectorStore::new();
    let m = memory(store.clone()).with_chunker(FixedSize::new(60, 10));
    let long = Message::user(
        "The release train leaves every second Tuesday. Hotfixes go out on demand. \
         The on-call rota is kept in the ops calendar and changes on Mondays. \
         Penguins are flightless birds of the southern hemisphere.",
    );
    let n = m.remember(std::slice::from_ref(&long)).await.unwrap();
    assert!(n >= 3, "{n} chunks");
    assert_eq!(store.len(), n);
    let hits = m.recall("penguins flightless birds", &Retrieval::new(3)).await.unwrap();
    assert_eq!(hits.len(), 1, "chunks of one message come back as one memory");
    assert_eq!(hits[0].record.message, long, "the whole message, not the chunk");
    assert!(
        hits[0].record.metadata["text"].as_str().unwrap().contains("Penguins"),
        "the best chunk is the hit"
    );
}

async fn hybrid_finds_an_exact_term_the_vectors_rank_low(store: impl VectorStore + 'static) {
    let m = memory(store).with_hybrid(Hybrid::new());
    // Many notes that look like the query (shared word pieces, not shared words); one holds
    // the exact error code the user asks about.
    let mut notes: Vec<Message> = (0..12)
        .map(|i| {
            Message::user(format!("deployments {i}: deploying pipelines, deployed pipelining, redeploys"))
        })
        .collect();
    notes.push(Message::user("ticket about error E4312 seen once"));
    m.remember(&notes).await.unwrap();
    let q = "deploy pipeline failed with E4312";
    let vector_only = memory_view(&m, q).await;
    let hits = m.recall(q, &Retrieval::new(3)).await.unwrap();
    let ids: Vec<String> = hits.iter().map(|h| h.record.message.text()).collect();
    assert!(ids.iter().any(|t| t.contains("E4312")), "keyword fusion surfaces the exact term: {ids:?}");
    assert!(
        !vector_only.iter().take(3).any(|t| t.contains("E4312")),
        "vectors alone rank it lower: {vector_only:?}"
    );
}

async fn memory_view(m: &LongTerm, q: &str) -> Vec<String> {
    let v = HashEmbedder::new(512).vector(q);
    m.store()
        .search(&v, 13, &SearchOptions::default())
        .await
        .unwrap()
        .into_iter()
        .map(|h| h.record.message.text())
        .collect()
}

#[tokio::test]
async fn hybrid_in_memory() {
    hybrid_finds_an_exact_term_the_vectors_rank_low(InMemoryVectorStore::new()).await;
}

#[cfg(feature = "sqlite")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hybrid_sqlite() {
    let dir = tempfile::tempdir().unwrap();
    hybrid_finds_an_exact_term_the_vectors_rank_low(
        SqliteVectorStore::open(dir.path().join("m.db")).unwrap(),
    )
    .await;
}

#[tokio::test]
async fn recency_decay_prefers_the_newer_of_two_equal_memories() {
    let store = InMemoryVectorStore::new();
    let embedder = HashEmbedder::new(256);
    let now = dive_core::Timestamp::now().as_millis();
    let day = 86_400_000;
    // Same vector for both; ties rank by id, so without decay "a-old" comes first.
    for (id, text, age) in [
        ("a-old", "the wifi password is hunter2", 30 * day),
        ("b-new", "the wifi password is correct-horse", 0),
    ] {
        let r = VectorRecord::new(id, embedder.vector("the wifi password"), Message::user(text))
            .with_metadata(CREATED_AT_KEY, now - age)
            .with_metadata(MESSAGE_KEY, id)
            .with_metadata("text", text);
        store.upsert(vec![r]).await.unwrap();
    }
    let m = LongTerm::new(embedder, store);
    let q = "what is the wifi password";
    let plain = m.clone().with_hybrid(Hybrid::new().with_weights(1.0, 0.0));
    let hits = plain.recall(q, &Retrieval::new(2)).await.unwrap();
    assert_eq!(hits[0].record.id, "a-old", "no decay: the tie keeps its order");
    let decayed =
        m.with_hybrid(Hybrid::new().with_weights(1.0, 0.0).with_recency(Duration::from_secs(7 * 86_400)));
    let hits = decayed.recall(q, &Retrieval::new(2)).await.unwrap();
    assert_eq!(hits[0].record.id, "b-new", "decay puts the fresh memory first");
    assert!(hits[1].score < hits[0].score / 10.0, "30 days at a 7-day half-life is under a tenth");
}
