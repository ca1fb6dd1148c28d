//! Property: however the network splits a stream into reads, the decoded response is the same.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use bytes::Bytes;
use dive_core::{ModelResponse, ResponseAccumulator};
use futures::StreamExt;
use proptest::prelude::*;

const FIXTURES: [&str; 2] = [
    include_str!("../fixtures/thinking_text_tool.sse"),
    include_str!("../fixtures/web_search_citations.sse"),
];

fn decode(chunks: Vec<Bytes>) -> ModelResponse {
    let input = futures::stream::iter(chunks.into_iter().map(Ok::<_, std::io::Error>));
    let mut events = dive_anthropic::events(Box::pin(dive_provider::decode_sse("anthropic", input)), None);
    let mut acc = ResponseAccumulator::new();
    futures::executor::block_on(async {
        while let Some(e) = events.next().await {
            acc.add(&e.unwrap()).unwrap();
        }
    });
    assert!(acc.is_complete());
    acc.into_response()
}

fn split(text: &str, cuts: &[usize]) -> Vec<Bytes> {
    let bytes = text.as_bytes();
    let mut points: Vec<usize> = cuts.iter().map(|c| c % (bytes.len() + 1)).collect();
    points.extend([0, bytes.len()]);
    points.sort_unstable();
    points.dedup();
    points.windows(2).map(|w| Bytes::copy_from_slice(&bytes[w[0]..w[1]])).collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    #[test]
    fn any_chunking_decodes_to_the_same_response(which in 0usize..2, cuts in proptest::collection::vec(any::<usize>(), 0..200)) {
        let text = FIXTURES[which];
        let whole = decode(vec![Bytes::copy_from_slice(text.as_bytes())]);
        prop_assert_eq!(decode(split(text, &cuts)), whole);
    }
}
