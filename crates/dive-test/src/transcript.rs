//! [`assert_transcript_kept`]: what every compaction test checks of the session afterwards.

use dive_core::{Message, Session};

/// For compaction tests: the session's full transcript holds the text of every original
/// message, in order (`texts`, one a message), and `compactions` compaction records; returns
/// the active window, which the caller checks starts where the compaction left it.
///
/// # Panics
/// When the session keeps no history, cannot be read, or its transcript differs.
pub async fn assert_transcript_kept(
    session: &dyn Session,
    texts: &[&str],
    compactions: usize,
) -> Vec<Message> {
    let history =
        session.as_history().unwrap_or_else(|| panic!("the session {} keeps no history", session.id()));
    let doc = history.document().await.unwrap_or_else(|e| panic!("reading the session: {e}"));
    let kept: Vec<String> = doc.all_messages().iter().map(Message::text).collect();
    assert_eq!(kept, texts, "the transcript lost or changed messages");
    assert_eq!(doc.compactions().count(), compactions, "compaction records");
    doc.messages()
}
