//! `KvStore` passes the session store conformance suite of `dive-test`, and every check of
//! what it declares ran.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use dive_core::{SessionStore, StoreCapabilities};
use dive_test::conformance::session_store_conformance;
use downstream_example::KvStore;

#[test]
fn the_kv_store_follows_every_rule_it_declares() {
    let report = futures::executor::block_on(session_store_conformance(KvStore::new));
    assert_eq!(
        KvStore::new().capabilities(),
        StoreCapabilities::none()
            .with_turn_store()
            .with_history()
            .with_compaction()
            .with_fork()
            .with_import()
    );
    for check in [
        "round_trip",
        "revisions",
        "open_turns",
        "suspension",
        "recovery",
        "listing",
        "ids",
        "concurrent_writers",
        "history",
        "compaction",
        "remove_last_turn",
        "export_import",
    ] {
        assert!(report.passed.contains(&check), "{check} did not run: {report:?}");
    }
}
