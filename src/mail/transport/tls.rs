//! The rustls client configuration the IMAP side uses: the system's root
//! certificates plus an optional private CA, always verified.

use std::path::Path;
use std::sync::Arc;

use rustls::pki_types::CertificateDer;
use rustls::pki_types::pem::PemObject;
use rustls::{ClientConfig, RootCertStore};

use super::{TransportError, io_error};

/// Where Debian (first) and other systems keep their bundle of trusted roots.
/// `SSL_CERT_FILE`, when set, is read instead.
const SYSTEM_BUNDLES: &[&str] = &[
    "/etc/ssl/certs/ca-certificates.crt",
    "/etc/pki/tls/certs/ca-bundle.crt",
    "/etc/ssl/cert.pem",
];

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
pub(super) fn client_config(ca_file: Option<&Path>) -> Result<Arc<ClientConfig>, TransportError> {
    let mut roots = RootCertStore::empty();
    let bundle = std::env::var_os("SSL_CERT_FILE")
        .map(std::path::PathBuf::from)
        .or_else(|| {
            SYSTEM_BUNDLES
                .iter()
                .map(Path::new)
                .find(|p| p.is_file())
                .map(Path::to_path_buf)
        });
    if let Some(bundle) = &bundle
        && let Ok(bytes) = std::fs::read(bundle)
    {
        let certs = CertificateDer::pem_slice_iter(&bytes).filter_map(Result::ok);
        let (added, ignored) = roots.add_parsable_certificates(certs);
        tracing::debug!(bundle = %bundle.display(), added, ignored, "system root certificates");
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
        return Err(TransportError::Config(format!(
            "no trusted root certificates: none of {} could be read (install ca-certificates) \
             and no ca_file is configured",
            SYSTEM_BUNDLES.join(", ")
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
