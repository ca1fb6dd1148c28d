//! TLS (feature `tls`, enabled for this crate's tests): the store connects through rustls to
//! the local server's certificate (Debian's `ssl-cert-snakeoil`, `CN=localhost`) trusted as a
//! root, and the server reports the connection encrypted; with an empty root store the
//! connection is refused rather than made in the clear.
#![cfg(feature = "tls")]
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::sync::Arc;

use common::TestSchema;
use dive_postgres::rustls::pki_types::CertificateDer;
use dive_postgres::rustls::pki_types::pem::PemObject;
use dive_postgres::rustls::{self, ClientConfig, RootCertStore};
use dive_postgres::{Error, PostgresConfig, PostgresStore};

const SERVER_CERT: &str = "/etc/ssl/certs/ssl-cert-snakeoil.pem";

fn tls(roots: RootCertStore) -> ClientConfig {
    ClientConfig::builder_with_provider(Arc::new(rustls::crypto::ring::default_provider()))
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_root_certificates(roots)
        .with_no_client_auth()
}

fn config(schema: &TestSchema) -> PostgresConfig {
    // The certificate names `localhost`; `sslmode=require` forbids falling back to plain text.
    let url = format!("{} host=localhost sslmode=require application_name={}", common::url(), schema.name);
    PostgresConfig::new(&url).unwrap().with_schema(&schema.name).unwrap().with_pool_size(2)
}

#[test]
fn the_store_connects_over_tls_and_refuses_an_untrusted_server() {
    if !common::available("tls") {
        return;
    }
    let Ok(pem) = std::fs::read(SERVER_CERT) else {
        let line =
            format!("\n!!!!!!!! SKIPPED tls: no {SERVER_CERT} (the server's certificate) here !!!!!!!!\n");
        assert!(!std::env::var("CI").is_ok_and(|v| v == "true"), "{line}");
        let _ = std::io::Write::write_all(&mut std::io::stderr(), line.as_bytes());
        return;
    };
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    rt.block_on(async {
        let schema = TestSchema::new("tls");
        let mut roots = RootCertStore::empty();
        roots.add(CertificateDer::from_pem_slice(&pem).unwrap()).unwrap();
        let store = PostgresStore::connect(&config(&schema).with_tls(tls(roots))).await.unwrap();
        assert_eq!(store.schema_version().await.unwrap(), dive_postgres::latest_version());
        let sql = format!(
            "SELECT COUNT(*), bool_and(s.ssl), min(s.version) FROM pg_stat_ssl s JOIN pg_stat_activity a USING (pid)
             WHERE a.application_name = '{}'",
            schema.name
        );
        let seen = schema.execute(&sql).await;
        let (connections, all_tls, version): (i64, Option<bool>, Option<String>) =
            (seen[0].get(0), seen[0].get(1), seen[0].get(2));
        assert!(connections >= 1, "the store's pooled connection is open");
        assert_eq!(all_tls, Some(true), "the server saw only TLS connections from the store ({version:?})");
        let refused = PostgresStore::connect(&config(&schema).with_tls(tls(RootCertStore::empty()))).await.unwrap_err();
        assert!(matches!(refused, Error::Pool(_)), "{refused}");
    });
}
