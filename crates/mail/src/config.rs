//! The mail layer's settings: `[mail]`, `[inbound]` and `[outbound]` of
//! the operator's `config.toml`, which the application's configuration
//! reads and hands to the transports and the composer here.

use std::path::PathBuf;

use serde::Deserialize;

/// `[mail]`: the address players write to and mail comes from.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct MailConfig {
    /// The address, e.g. `stationmaster@example.org`. Replies to a player go
    /// out with a plus-address Reply-To (`stationmaster+GAME.TOKEN@…`).
    pub address: String,
    /// The display name on mail sent.
    pub name: String,
    /// Reports carry a picture of the board (a PNG at the top of the HTML
    /// part), for games that draw one; off: text and HTML only.
    pub pictures: bool,
}

impl Default for MailConfig {
    fn default() -> Self {
        MailConfig {
            address: "stationmaster@localhost".to_string(),
            name: "Stationmaster".to_string(),
            pictures: true,
        }
    }
}

/// How a connection to a mail server is secured.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Security {
    /// TLS from the first byte (IMAPS 993, SMTPS 465).
    #[default]
    Tls,
    /// Plain first, then STARTTLS (IMAP 143, submission 587).
    Starttls,
    /// No encryption: refused unless the host is a loopback address.
    Plain,
}

/// Which inbound transport.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum InboundKind {
    /// A Maildir folder (the embedded default).
    #[default]
    Maildir,
    /// An IMAP mailbox.
    Imap,
}

/// `[inbound]`.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct InboundConfig {
    /// `maildir` or `imap`.
    pub kind: InboundKind,
    /// The Maildir folder (with `new`, `cur`, `tmp`; created if missing).
    pub maildir: PathBuf,
    /// IMAP server host.
    pub host: String,
    /// IMAP port (993 for TLS, 143 for STARTTLS or plain).
    pub port: u16,
    /// `tls`, `starttls` or `plain` (plain only towards loopback).
    pub security: Security,
    /// Login name.
    pub user: String,
    /// Password (or use `password_env`).
    pub password: String,
    /// The name of an environment variable holding the password.
    pub password_env: String,
    /// The mailbox to read.
    pub mailbox: String,
    /// If set, processed mail is moved to this mailbox; otherwise it is
    /// flagged `\Seen` and only unseen mail is read.
    pub processed_mailbox: String,
    /// The authserv-id of the operator's own mail server (e.g.
    /// `mx.example.org`): mail whose `Authentication-Results` from that
    /// server say SPF, DKIM or DMARC failed is ignored, never answered.
    /// Empty: such headers are not looked at.
    pub trust_authentication_results: String,
    /// IMAP: where mail that cannot be handled after a few tries is moved
    /// (created when first needed).
    pub quarantine_mailbox: String,
    /// Extra PEM root certificate to trust (a private CA), besides the
    /// system's web roots.
    pub ca_file: Option<PathBuf>,
    /// How long a connect, a read or a write may wait for the server, in
    /// seconds (at least 1).
    pub timeout_seconds: u64,
}

impl Default for InboundConfig {
    fn default() -> Self {
        InboundConfig {
            kind: InboundKind::Maildir,
            maildir: PathBuf::from("var/inbox"),
            host: String::new(),
            port: 993,
            security: Security::Tls,
            user: String::new(),
            password: String::new(),
            password_env: String::new(),
            mailbox: "INBOX".to_string(),
            processed_mailbox: String::new(),
            trust_authentication_results: String::new(),
            quarantine_mailbox: "Quarantine".to_string(),
            ca_file: None,
            timeout_seconds: DEFAULT_TIMEOUT_SECONDS,
        }
    }
}

/// Which outbound transport.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum OutboundKind {
    /// One `.eml` file per mail in a folder (the embedded default).
    #[default]
    Files,
    /// An SMTP server.
    Smtp,
}

/// `[outbound]`.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct OutboundConfig {
    /// `files` or `smtp`.
    pub kind: OutboundKind,
    /// The folder for `.eml` files (created if missing).
    pub dir: PathBuf,
    /// SMTP server host.
    pub host: String,
    /// SMTP port (465 for TLS, 587 for STARTTLS, 25 or other for plain).
    pub port: u16,
    /// `tls`, `starttls` or `plain` (plain only towards loopback).
    pub security: Security,
    /// Login name (empty: no AUTH).
    pub user: String,
    /// Password (or use `password_env`).
    pub password: String,
    /// The name of an environment variable holding the password.
    pub password_env: String,
    /// Extra PEM root certificate to trust (a private CA).
    pub ca_file: Option<PathBuf>,
    /// How long a connect, a read or a write may wait for the server, in
    /// seconds (at least 1).
    pub timeout_seconds: u64,
}

impl Default for OutboundConfig {
    fn default() -> Self {
        OutboundConfig {
            kind: OutboundKind::Files,
            dir: PathBuf::from("var/outbox"),
            host: String::new(),
            port: 587,
            security: Security::Starttls,
            user: String::new(),
            password: String::new(),
            password_env: String::new(),
            ca_file: None,
            timeout_seconds: DEFAULT_TIMEOUT_SECONDS,
        }
    }
}

/// `timeout_seconds` of `[inbound]` and `[outbound]` where the file says
/// nothing: long enough for a slow server's greeting, short enough that a
/// silent one holds a cycle up for half a minute at most.
pub const DEFAULT_TIMEOUT_SECONDS: u64 = 30;

/// A `timeout_seconds` as the transports use it: at least a second
/// (the configuration check refuses 0).
pub fn timeout(seconds: u64) -> std::time::Duration {
    std::time::Duration::from_secs(seconds.max(1))
}

/// The password of a server: the `password` key, else the environment
/// variable named by `password_env`.
pub fn password(password: &str, password_env: &str) -> String {
    if !password.is_empty() || password_env.is_empty() {
        return password.to_string();
    }
    std::env::var(password_env).unwrap_or_default()
}

/// True if `host` is a loopback address or `localhost`: the only place plain
/// (unencrypted) connections may go.
pub fn is_loopback(host: &str) -> bool {
    if host.eq_ignore_ascii_case("localhost") {
        return true;
    }
    host.trim_matches(|c| c == '[' || c == ']')
        .parse::<std::net::IpAddr>()
        .map(|ip| ip.is_loopback())
        .unwrap_or(false)
}
