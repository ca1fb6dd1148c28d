//! Any split of a stream into network reads (including inside UTF-8 characters) decodes to
//! the same response.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::{decode_bytes, fixture};
use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    #[test]
    fn any_chunking_decodes_to_the_same_response(size in 1usize..400, which in 0usize..4) {
        let name = [
            "thinking_parallel_calls.sse",
            "text_trailing_signature.sse",
            "safety_stop.sse",
            "recorded/pydantic-ai-google-web-search-stream.sse",
        ][which];
        let bytes = std::fs::read(fixture(name)).unwrap();
        let (_, whole, e1) = decode_bytes(&bytes, bytes.len());
        let (_, split, e2) = decode_bytes(&bytes, size);
        prop_assert!(e1.is_none() && e2.is_none());
        prop_assert_eq!(whole.into_response(), split.into_response());
    }
}
