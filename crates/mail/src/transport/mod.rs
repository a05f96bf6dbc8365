//! The transports: where mail comes from and where it goes, behind the
//! [`Inbound`] and [`Outbound`] traits.
//!
//! This module owns every byte that crosses a mail server or a mail folder,
//! and nothing above that: it hands over and takes raw RFC 5322 messages
//! ([`RawMail`](super::RawMail), [`OutMail`](super::OutMail)) and never parses them.
//!
//! | type | direction | what | handle |
//! |---|---|---|---|
//! | [`Maildir`] | in | a local Maildir folder (`new`, `cur`, `tmp`) | the file name |
//! | [`Imap`] | in | an IMAP mailbox (TLS, STARTTLS, or plain towards loopback) | the UID |
//! | [`MemoryInbound`] | in | a shared in-memory queue, for tests | a counter |
//! | [`EmlFiles`] | out | one `<Message-ID>.eml` file per mail in a folder | |
//! | [`Smtp`] | out | an SMTP server (TLS, STARTTLS, or plain towards loopback), one session kept open, PIPELINING where offered | |
//! | [`MemoryOutbound`] | out | a shared in-memory list, for tests | |
//!
//! [`inbound`] and [`outbound`] build the transport the configuration names;
//! [`check_inbound`] and [`check_outbound`] try it for real (log in, select,
//! EHLO and AUTH, or write to the folder) for `stationmaster check-config`.
//!
//! Security rules, enforced here and not left to the configuration: TLS
//! always verifies the server's certificate (the system's roots from
//! `/etc/ssl/certs/ca-certificates.crt` plus an optional private CA in
//! `ca_file`), and an unencrypted connection is refused with
//! [`TransportError::Config`] unless the host is a loopback address.
//!
//! Every network connect, read and write has a timeout: `timeout_seconds`
//! of `[inbound]` and `[outbound]`, 30 by default.

use std::path::Path;

use crate::config::{InboundConfig, InboundKind, OutboundConfig, OutboundKind, Security};

use super::{Inbound, Outbound, TransportError};

mod files;
mod imap;
mod maildir;
mod memory;
mod net;
mod smtp;
mod tls;

pub use files::EmlFiles;
pub use imap::{IDLE_REFRESH, IMAP_FETCH_LIMIT, Imap, ImapWatcher};
pub use maildir::Maildir;
pub use memory::{MemoryInbound, MemoryOutbound};
pub use smtp::Smtp;

/// Builds the inbound transport `cfg.kind` names: a [`Maildir`] (created if
/// missing) or an [`Imap`] connection (logged in, mailbox selected).
pub fn inbound(cfg: &InboundConfig) -> Result<Box<dyn Inbound>, TransportError> {
    Ok(match cfg.kind {
        InboundKind::Maildir => Box::new(Maildir::open(&cfg.maildir)?),
        InboundKind::Imap => Box::new(Imap::connect(cfg)?),
    })
}

/// Builds the outbound transport `cfg.kind` names: [`EmlFiles`] (the folder
/// is created if missing) or [`Smtp`] (checked, but not connected: the first
/// [`Outbound::send`] opens the session the later ones reuse).
pub fn outbound(cfg: &OutboundConfig) -> Result<Box<dyn Outbound>, TransportError> {
    Ok(match cfg.kind {
        OutboundKind::Files => Box::new(EmlFiles::open(&cfg.dir)?),
        OutboundKind::Smtp => Box::new(Smtp::connect(cfg)?),
    })
}

/// Tries the inbound side for real and describes it in one line (without
/// an `inbound:` prefix; the caller adds it): for a
/// Maildir, creates it and checks it is writable; for IMAP, connects, logs
/// in, selects the mailbox (and finds or creates `processed_mailbox`), counts
/// the mail waiting and logs out.
pub fn check_inbound(cfg: &InboundConfig) -> Result<String, TransportError> {
    match cfg.kind {
        InboundKind::Maildir => {
            let mut m = Maildir::open(&cfg.maildir)?;
            files::check_writable(&cfg.maildir.join("tmp"))?;
            let waiting = m.fetch_handles()?.len();
            Ok(format!(
                "maildir {} (writable, {waiting} message(s) waiting)",
                cfg.maildir.display()
            ))
        }
        InboundKind::Imap => imap::check(cfg),
    }
}

/// Tries the outbound side for real and describes it in one line (without
/// an `outbound:` prefix): for
/// files, creates the folder and checks it is writable; for SMTP, connects,
/// says EHLO, does STARTTLS or TLS and AUTH as configured, then QUIT.
pub fn check_outbound(cfg: &OutboundConfig) -> Result<String, TransportError> {
    match cfg.kind {
        OutboundKind::Files => {
            EmlFiles::open(&cfg.dir)?;
            files::check_writable(&cfg.dir)?;
            Ok(format!(".eml files in {} (writable)", cfg.dir.display()))
        }
        OutboundKind::Smtp => Smtp::connect(cfg)?.check(),
    }
}

/// Refuses an unencrypted connection to anything but loopback.
fn require_safe(security: Security, host: &str, what: &str) -> Result<(), TransportError> {
    if host.trim().is_empty() {
        return Err(TransportError::Config(format!(
            "{what}: no host configured"
        )));
    }
    if security == Security::Plain && !crate::config::is_loopback(host) {
        return Err(TransportError::Config(format!(
            "{what}: security = \"plain\" would send the password and the mail unencrypted to {host}; \
             plain is only allowed towards a loopback address (127.0.0.1, ::1, localhost): \
             use \"tls\" or \"starttls\""
        )));
    }
    Ok(())
}

/// The `host:port` that errors name.
fn server_name(host: &str, port: u16) -> String {
    if host.contains(':') && !host.starts_with('[') {
        format!("[{host}]:{port}")
    } else {
        format!("{host}:{port}")
    }
}

/// An I/O error on `path`.
fn io_error(path: &Path, cause: std::io::Error) -> TransportError {
    TransportError::Io {
        path: path.display().to_string(),
        cause,
    }
}

/// The security setting as the config file spells it.
fn security_name(s: Security) -> &'static str {
    match s {
        Security::Tls => "tls",
        Security::Starttls => "starttls",
        Security::Plain => "plain",
    }
}
