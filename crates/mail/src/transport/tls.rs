//! The rustls client configuration the IMAP side uses: the system's root
//! certificates plus an optional private CA, always verified.

use std::path::Path;
use std::sync::Arc;

use rustls::pki_types::CertificateDer;
use rustls::pki_types::pem::PemObject;
use rustls::{ClientConfig, RootCertStore};

use super::{TransportError, io_error};

/// The certificates in a PEM file; an error if it has none.
pub(super) fn read_pem_certs(path: &Path) -> Result<Vec<CertificateDer<'static>>, TransportError> {
    let bytes = std::fs::read(path).map_err(|e| io_error(path, e))?;
    let certs = CertificateDer::pem_slice_iter(&bytes)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| {
            TransportError::Config(format!(
                "ca_file {}: not a PEM certificate file: {e}",
                path.display()
            ))
        })?;
    if certs.is_empty() {
        return Err(TransportError::Config(format!(
            "ca_file {}: no \"BEGIN CERTIFICATE\" block in it",
            path.display()
        )));
    }
    Ok(certs)
}

/// A client configuration that trusts the system's roots and `ca_file`.
///
/// The system's roots are rustls-native-certs': the file named by
/// `SSL_CERT_FILE` and the folders named by `SSL_CERT_DIR` (a list, `:`
/// between them) when either is set, as OpenSSL reads them; else the
/// system's bundle and certificate folder
/// (`/etc/ssl/certs/ca-certificates.crt` and `/etc/ssl/certs` on Debian,
/// where other systems keep theirs), or the keychain on macOS.
pub(super) fn client_config(ca_file: Option<&Path>) -> Result<Arc<ClientConfig>, TransportError> {
    let mut roots = RootCertStore::empty();
    let system = rustls_native_certs::load_native_certs();
    let (added, ignored) = roots.add_parsable_certificates(system.certs);
    tracing::debug!(added, ignored, "system root certificates");
    // One unreadable file among the roots does not stop the others from
    // being trusted; it matters only when no root is left (below).
    for error in &system.errors {
        tracing::debug!(%error, "system root certificates");
    }
    if let Some(ca) = ca_file {
        let (added, _) = roots.add_parsable_certificates(read_pem_certs(ca)?);
        if added == 0 {
            return Err(TransportError::Config(format!(
                "ca_file {}: no usable certificate in it",
                ca.display()
            )));
        }
    }
    if roots.is_empty() {
        let why = match system.errors.first() {
            Some(error) => format!(" ({error})"),
            None => String::new(),
        };
        return Err(TransportError::Config(format!(
            "no trusted root certificates: none could be read from the system{why} \
             (install ca-certificates, or set SSL_CERT_FILE or SSL_CERT_DIR) \
             and no ca_file is configured"
        )));
    }
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| TransportError::Config(format!("TLS setup: {e}")))?
        .with_root_certificates(roots)
        .with_no_client_auth();
    Ok(Arc::new(config))
}
