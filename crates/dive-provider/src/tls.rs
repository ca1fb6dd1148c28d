//! The platform certificate verifier, loaded at the first TLS handshake rather than when a
//! client is built: a provider that only ever speaks plain HTTP (a local model server) never
//! reads or parses the system's trust store, and building a provider costs no file I/O.

use std::fmt;
use std::sync::{Arc, OnceLock};

use rustls::DigitallySignedStruct;
use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::crypto::{CryptoProvider, verify_tls12_signature, verify_tls13_signature};
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};

/// A [`ServerCertVerifier`] that builds the platform verifier (the system's trust store) the
/// first time a server certificate is checked, and reuses it after.
///
/// Handshake signatures are checked with the crypto provider's algorithms, which need no
/// trust store, exactly as the platform verifier checks them. When the trust store cannot be
/// loaded, every certificate check fails with that reason (a TLS error the caller reports),
/// rather than the client build.
///
/// ```
/// use std::sync::Arc;
/// use dive_provider::LazyPlatformVerifier;
/// let provider = Arc::new(rustls::crypto::ring::default_provider());
/// let verifier = LazyPlatformVerifier::new(Arc::clone(&provider));
/// assert!(!verifier.is_loaded());
/// let tls = rustls::ClientConfig::builder_with_provider(provider)
///     .with_safe_default_protocol_versions()
///     .unwrap()
///     .dangerous()
///     .with_custom_certificate_verifier(Arc::new(verifier))
///     .with_no_client_auth();
/// # drop(tls);
/// ```
pub struct LazyPlatformVerifier {
    provider: Arc<CryptoProvider>,
    inner: OnceLock<Result<rustls_platform_verifier::Verifier, rustls::Error>>,
}

impl LazyPlatformVerifier {
    /// A verifier on `provider`'s algorithms; the trust store is not read yet.
    #[must_use]
    pub fn new(provider: Arc<CryptoProvider>) -> Self {
        Self { provider, inner: OnceLock::new() }
    }

    /// Whether the trust store has been loaded (a certificate was checked).
    #[must_use]
    pub fn is_loaded(&self) -> bool {
        self.inner.get().is_some()
    }

    fn platform(&self) -> Result<&rustls_platform_verifier::Verifier, rustls::Error> {
        self.inner
            .get_or_init(|| {
                rustls_platform_verifier::Verifier::new(Arc::clone(&self.provider)).map_err(|e| {
                    rustls::Error::General(format!(
                        "the system's CA certificates could not be loaded ({e}); install the \
                         platform's CA bundle (ca-certificates) or set SSL_CERT_FILE"
                    ))
                })
            })
            .as_ref()
            .map_err(Clone::clone)
    }
}

impl fmt::Debug for LazyPlatformVerifier {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LazyPlatformVerifier").field("loaded", &self.is_loaded()).finish_non_exhaustive()
    }
}

impl ServerCertVerifier for LazyPlatformVerifier {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        server_name: &ServerName<'_>,
        ocsp_response: &[u8],
        now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        self.platform()?.verify_server_cert(end_entity, intermediates, server_name, ocsp_response, now)
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        verify_tls12_signature(message, cert, dss, &self.provider.signature_verification_algorithms)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        verify_tls13_signature(message, cert, dss, &self.provider.signature_verification_algorithms)
    }

    fn supported_verify_schemes(&self) -> Vec<rustls::SignatureScheme> {
        self.provider.signature_verification_algorithms.supported_schemes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ring() -> Arc<CryptoProvider> {
        Arc::new(rustls::crypto::ring::default_provider())
    }

    #[test]
    fn the_trust_store_is_read_at_the_first_certificate_check_only() {
        let verifier = LazyPlatformVerifier::new(ring());
        assert!(!verifier.is_loaded());
        // Signature schemes come from the crypto provider, not the trust store.
        let platform = rustls_platform_verifier::Verifier::new(ring()).unwrap();
        assert_eq!(verifier.supported_verify_schemes(), platform.supported_verify_schemes());
        assert!(!verifier.is_loaded());

        let name = ServerName::try_from("example.com").unwrap();
        let garbage = CertificateDer::from(vec![0x30, 0x03, 0x02, 0x01, 0x01]);
        let ours = verifier.verify_server_cert(&garbage, &[], &name, &[], UnixTime::now());
        let theirs = platform.verify_server_cert(&garbage, &[], &name, &[], UnixTime::now());
        assert!(verifier.is_loaded());
        assert_eq!(ours.unwrap_err(), theirs.unwrap_err(), "the same verdict as the platform verifier");
    }
}
