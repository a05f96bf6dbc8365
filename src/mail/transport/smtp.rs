//! Outbound over SMTP, with lettre.

use lettre::Transport;
use lettre::address::{Address, Envelope};
use lettre::transport::smtp::SmtpTransport;
use lettre::transport::smtp::authentication::Credentials;
use lettre::transport::smtp::client::{Certificate, Tls, TlsParameters};

use super::{TIMEOUT, require_safe, security_name, server_name, tls::read_pem_certs};
use crate::config::{OutboundConfig, Security, password};
use crate::mail::{OutMail, Outbound, TransportError};

/// Mail sent to an SMTP server: implicit TLS (`security = "tls"`, port
/// 465), STARTTLS required (`"starttls"`, port 587), or no encryption
/// (`"plain"`, only towards a loopback address). Certificates are verified
/// against the web's roots plus the optional `ca_file`. AUTH is used when
/// `user` is set.
///
/// Each [`send`](Outbound::send) opens a connection, sends the message as
/// it is (`send_raw`, the envelope from [`OutMail::from`] and
/// [`OutMail::to`]) and closes it. Errors: a 4xx reply is
/// [`TransportError::Refused`] with `transient: true`, a 5xx one with
/// `transient: false`; a connection, TLS or timeout failure is
/// [`TransportError::Connect`].
pub struct Smtp {
    transport: SmtpTransport,
    server: String,
    description: String,
}

impl std::fmt::Debug for Smtp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Smtp")
            .field("server", &self.server)
            .field("description", &self.description)
            .finish()
    }
}

impl Smtp {
    /// Checks the configuration and builds the transport. This does not
    /// connect yet (every send does); [`check_outbound`](super::check_outbound)
    /// does, for `check-config`. Errors: [`TransportError::Config`] for plain
    /// towards a non-loopback host, a user without a password, or an
    /// unusable `ca_file`; [`TransportError::Io`] if `ca_file` cannot be read.
    pub fn connect(cfg: &OutboundConfig) -> Result<Self, TransportError> {
        let host = cfg.host.trim();
        require_safe(cfg.security, host, "[outbound] smtp")?;
        let server = server_name(host, cfg.port);
        let mut builder = SmtpTransport::builder_dangerous(host)
            .port(cfg.port)
            .timeout(Some(TIMEOUT));
        if cfg.security != Security::Plain {
            let mut params = TlsParameters::builder(host.to_string());
            if let Some(ca) = &cfg.ca_file {
                // Read and check it here for a clear error; lettre parses it again.
                read_pem_certs(ca)?;
                let pem = std::fs::read(ca).map_err(|e| super::io_error(ca, e))?;
                let cert = Certificate::from_pem(&pem).map_err(|e| {
                    TransportError::Config(format!("ca_file {}: {e}", ca.display()))
                })?;
                params = params.add_root_certificate(cert);
            }
            let params = params
                .build_rustls()
                .map_err(|e| TransportError::Config(format!("TLS setup for {server}: {e}")))?;
            builder = builder.tls(match cfg.security {
                Security::Tls => Tls::Wrapper(params),
                _ => Tls::Required(params),
            });
        }
        let mut auth = String::from("no AUTH");
        if !cfg.user.is_empty() {
            let pw = password(&cfg.password, &cfg.password_env);
            if pw.is_empty() {
                return Err(TransportError::Config(format!(
                    "[outbound] smtp: user {} has no password (set password, or password_env{})",
                    cfg.user,
                    if cfg.password_env.is_empty() {
                        String::new()
                    } else {
                        format!(": ${} is empty or unset", cfg.password_env)
                    }
                )));
            }
            auth = format!("AUTH as {}", cfg.user);
            builder = builder.credentials(Credentials::new(cfg.user.clone(), pw));
        }
        let description = format!(
            "smtp {server} ({}{}, {auth})",
            security_name(cfg.security),
            match (&cfg.ca_file, cfg.security) {
                (_, Security::Plain) => String::new(),
                (Some(ca), _) => format!(", certificate verified, extra CA {}", ca.display()),
                (None, _) => ", certificate verified".to_string(),
            }
        );
        Ok(Smtp {
            transport: builder.build(),
            server,
            description,
        })
    }

    /// Connects, says EHLO, does TLS and AUTH as configured, and quits.
    pub(super) fn check(&self) -> Result<String, TransportError> {
        match self.transport.test_connection() {
            Ok(true) => Ok(format!("{}: ok", self.description)),
            Ok(false) => Err(TransportError::Connect {
                server: self.server.clone(),
                message: "the connection did not answer NOOP".to_string(),
            }),
            Err(e) => Err(map_error(&self.server, &e)),
        }
    }
}

/// Sorts a lettre error into ours.
fn map_error(server: &str, e: &lettre::transport::smtp::Error) -> TransportError {
    let message = e.to_string();
    if e.is_transient() || e.is_permanent() {
        TransportError::Refused {
            server: server.to_string(),
            message,
            transient: e.is_transient(),
        }
    } else if e.is_client() {
        // Nothing usable on the server's side, e.g. no AUTH mechanism in common.
        TransportError::Refused {
            server: server.to_string(),
            message,
            transient: false,
        }
    } else if e.is_response() {
        // A reply lettre could not read: the session is broken, try again later.
        TransportError::Refused {
            server: server.to_string(),
            message,
            transient: true,
        }
    } else {
        // Connection, network, TLS, timeout.
        TransportError::Connect {
            server: server.to_string(),
            message,
        }
    }
}

/// An envelope address; an empty sender is the null reverse path `<>`.
fn address(server: &str, a: &str, what: &str) -> Result<Address, TransportError> {
    a.trim()
        .parse::<Address>()
        .map_err(|e| TransportError::Refused {
            server: server.to_string(),
            message: format!("invalid envelope {what} address {a:?}: {e}"),
            transient: false,
        })
}

impl Outbound for Smtp {
    fn send(&mut self, mail: &OutMail) -> Result<(), TransportError> {
        let from = if mail.from.trim().is_empty() {
            None
        } else {
            Some(address(&self.server, &mail.from, "sender")?)
        };
        let to = mail
            .to
            .iter()
            .map(|t| address(&self.server, t, "recipient"))
            .collect::<Result<Vec<_>, _>>()?;
        let envelope = Envelope::new(from, to).map_err(|e| TransportError::Refused {
            server: self.server.clone(),
            message: format!("cannot build the envelope: {e}"),
            transient: false,
        })?;
        self.transport
            .send_raw(&envelope, &mail.bytes)
            .map(|_| ())
            .map_err(|e| map_error(&self.server, &e))
    }
}
