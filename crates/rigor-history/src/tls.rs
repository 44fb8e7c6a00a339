//! TLS to a PostgreSQL server with rustls: the server's certificate is checked against the CA
//! file `PGSSLROOTCERT` names (libpq's variable), else against the Mozilla roots.

use std::sync::Arc;

use rustls::RootCertStore;
use rustls::pki_types::CertificateDer;
use rustls::pki_types::pem::PemObject;
use tokio_postgres_rustls::MakeRustlsConnect;

use crate::error::{HistoryError, Result};

/// A TLS connector for the `postgres` client.
pub(crate) fn connector(shown: &str) -> Result<MakeRustlsConnect> {
    let bad = |message: String| HistoryError::Tls {
        url: shown.to_string(),
        message,
    };
    let mut roots = RootCertStore::empty();
    match std::env::var_os("PGSSLROOTCERT") {
        Some(file) => {
            let certs = CertificateDer::pem_file_iter(&file)
                .and_then(|certs| certs.collect::<Result<Vec<_>, _>>())
                .map_err(|e| bad(format!("{}: {e}", file.to_string_lossy())))?;
            for c in certs {
                roots
                    .add(c)
                    .map_err(|e| bad(format!("{}: {e}", file.to_string_lossy())))?;
            }
        }
        None => roots.extend(webpki_roots::TLS_SERVER_ROOTS.iter().cloned()),
    }
    let config = rustls::ClientConfig::builder_with_provider(Arc::new(
        rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .map_err(|e| bad(e.to_string()))?
    .with_root_certificates(roots)
    .with_no_client_auth();
    Ok(MakeRustlsConnect::new(config))
}
