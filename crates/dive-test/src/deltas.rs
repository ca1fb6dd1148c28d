//! Streaming a response's text as several deltas, the way real providers do, so code that
//! reads a stream is tested against text arriving in pieces and not only as one event.

use dive_core::{ContentDelta, ModelResponse, StreamEvent};

/// The events a provider would stream for `response`, with each text block split into
/// `pieces` deltas of about equal length, cut only at character boundaries. A text shorter
/// than `pieces` characters gets one delta per character; `pieces` of 0 or 1 gives the single
/// delta of [`StreamEvent::sequence_for`].
///
/// ```
/// use dive_core::{ContentDelta, ModelResponse, ResponseAccumulator, StreamEvent};
/// use dive_test::text_in_deltas;
///
/// let events = text_in_deltas(&ModelResponse::text("Hello, world!"), 3);
/// let deltas: Vec<&str> = events
///     .iter()
///     .filter_map(|e| match e {
///         StreamEvent::ContentBlockDelta { delta: ContentDelta::TextDelta { text }, .. } => Some(text.as_str()),
///         _ => None,
///     })
///     .collect();
/// assert_eq!(deltas, ["Hello", ", wo", "rld!"]);
///
/// let mut acc = ResponseAccumulator::new();
/// for event in &events {
///     acc.add(event).unwrap();
/// }
/// assert_eq!(acc.into_response().text_content(), "Hello, world!");
/// ```
#[must_use]
pub fn text_in_deltas(response: &ModelResponse, pieces: usize) -> Vec<StreamEvent> {
    let mut events = Vec::new();
    for event in StreamEvent::sequence_for(response) {
        match event {
            StreamEvent::ContentBlockDelta { index, delta: ContentDelta::TextDelta { text } } => {
                events.extend(split(&text, pieces).into_iter().map(|text| StreamEvent::ContentBlockDelta {
                    index,
                    delta: ContentDelta::TextDelta { text },
                }));
            }
            other => events.push(other),
        }
    }
    events
}

/// `text` cut into `pieces` parts of about equal character counts (the earlier parts one
/// longer when it does not divide evenly); never an empty part.
fn split(text: &str, pieces: usize) -> Vec<String> {
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    let count = chars.len();
    let pieces = pieces.clamp(1, count.max(1));
    let (size, longer) = (count / pieces, count % pieces);
    let mut starts: Vec<usize> = Vec::with_capacity(pieces + 1);
    let mut at = 0;
    for i in 0..pieces {
        starts.push(chars.get(at).map_or(text.len(), |(byte, _)| *byte));
        at += size + usize::from(i < longer);
    }
    starts.push(text.len());
    starts.windows(2).map(|w| text[w[0]..w[1]].to_owned()).filter(|s| !s.is_empty()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pieces_cut_at_character_boundaries_and_join_back() {
        let parts = split("héllo wörld ✓", 4);
        assert_eq!(parts, ["héll", "o w", "örl", "d ✓"]);
        assert_eq!(parts.concat(), "héllo wörld ✓");
    }

    #[test]
    fn more_pieces_than_characters_gives_one_a_character() {
        assert_eq!(split("abc", 10), ["a", "b", "c"]);
        assert_eq!(split("abc", 0), ["abc"]);
    }
}
