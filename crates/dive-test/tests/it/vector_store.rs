//! The vector-store suite accepts a plain correct store written here and rejects stores that
//! break one rule each.
#![allow(clippy::unwrap_used)]

use std::sync::Mutex;

use dive_core::{BoxFuture, MemoryError, ScoredRecord, SearchOptions, VectorRecord, VectorStore};
use dive_test::cosine;
use dive_test::vector_store::vector_store_conformance;

#[derive(Clone, Copy, PartialEq)]
enum Flaw {
    None,
    IgnoresFilter,
    DotProduct,
    AppendsOnUpsert,
}

struct Naive {
    records: Mutex<Vec<VectorRecord>>,
    flaw: Flaw,
}

impl Naive {
    fn new(flaw: Flaw) -> Self {
        Self { records: Mutex::new(Vec::new()), flaw }
    }
}

impl VectorStore for Naive {
    fn upsert(&self, records: Vec<VectorRecord>) -> BoxFuture<'_, Result<(), MemoryError>> {
        let mut all = self.records.lock().unwrap();
        let result = (|| {
            for r in records {
                if let Some(first) = all.first()
                    && first.vector.len() != r.vector.len()
                {
                    return Err(MemoryError::DimensionMismatch {
                        expected: first.vector.len(),
                        actual: r.vector.len(),
                    });
                }
                if self.flaw != Flaw::AppendsOnUpsert {
                    all.retain(|x| x.id != r.id);
                }
                all.push(r);
            }
            Ok(())
        })();
        Box::pin(std::future::ready(result))
    }

    fn search<'a>(
        &'a self,
        vector: &'a [f32],
        k: usize,
        options: &'a SearchOptions,
    ) -> BoxFuture<'a, Result<Vec<ScoredRecord>, MemoryError>> {
        let all = self.records.lock().unwrap();
        if let Some(first) = all.first()
            && first.vector.len() != vector.len()
        {
            let e = MemoryError::DimensionMismatch { expected: first.vector.len(), actual: vector.len() };
            return Box::pin(std::future::ready(Err(e)));
        }
        let mut hits: Vec<ScoredRecord> = all
            .iter()
            .filter(|r| self.flaw == Flaw::IgnoresFilter || r.matches(&options.filter))
            .map(|r| {
                let score = if self.flaw == Flaw::DotProduct {
                    r.vector.iter().zip(vector).map(|(a, b)| a * b).sum()
                } else {
                    cosine(&r.vector, vector)
                };
                ScoredRecord::new(r.clone(), score)
            })
            .filter(|h| options.min_score.is_none_or(|m| h.score >= m))
            .collect();
        hits.sort_by(|a, b| b.score.total_cmp(&a.score));
        hits.truncate(k);
        Box::pin(std::future::ready(Ok(hits)))
    }

    fn delete<'a>(&'a self, ids: &'a [String]) -> BoxFuture<'a, Result<(), MemoryError>> {
        self.records.lock().unwrap().retain(|r| !ids.contains(&r.id));
        Box::pin(std::future::ready(Ok(())))
    }
}

fn run(flaw: Flaw) -> std::thread::Result<dive_test::vector_store::VectorConformanceReport> {
    std::panic::catch_unwind(|| futures::executor::block_on(vector_store_conformance(|| Naive::new(flaw))))
}

#[test]
fn a_correct_store_without_keywords_passes_with_keywords_skipped() {
    let report = run(Flaw::None).unwrap();
    assert_eq!(report.skipped.len(), 1);
    assert_eq!(report.skipped[0].0, "keywords");
    assert!(report.passed.contains(&"dimensions"));
}

#[test]
fn each_broken_rule_fails_the_suite() {
    for flaw in [Flaw::IgnoresFilter, Flaw::DotProduct, Flaw::AppendsOnUpsert] {
        assert!(run(flaw).is_err(), "a flawed store passed");
    }
}
