//! The operator's configuration: `config.toml`, read into plain serde structs
//! and checked before anything is opened. Every key has a default, so with no
//! file at all Stationmaster runs on the embedded defaults (a local sled
//! database under `var/`). `config.toml.example` documents every key.

use std::path::{Path, PathBuf};

use serde::Deserialize;

/// The whole configuration.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Config {
    /// Where games are kept.
    pub store: StoreConfig,
    /// Where board data is read from.
    pub games: GamesConfig,
    /// Stationmaster's own address.
    pub mail: MailConfig,
    /// Where mail comes from.
    pub inbound: InboundConfig,
    /// Where mail goes.
    pub outbound: OutboundConfig,
    /// The poll loop.
    pub daemon: DaemonConfig,
    /// Mail templates.
    pub templates: TemplatesConfig,
    /// Deadline defaults for new games.
    pub deadlines: crate::clock::ClockSettings,
    /// The site: its moderators.
    pub site: SiteConfig,
    /// What one sender, or everyone together, can make us send.
    pub limits: LimitsConfig,
}

/// `[limits]`: so that forged senders cannot turn the server into a source
/// of backscatter, and a flood from one address delays nobody else.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct LimitsConfig {
    /// Help replies (to mail naming no game, or from a stranger) in all,
    /// per hour; each address gets at most one per
    /// `[daemon] help_interval_hours` besides.
    pub help_per_hour: u32,
    /// Alerts to a player or moderator whose key was used from another
    /// address, in all, per hour.
    pub alerts_per_hour: u32,
    /// At most one alert per key in this many hours.
    pub alert_interval_hours: u64,
    /// Mails from one address handled in one cycle; the rest wait for the
    /// next cycles.
    pub mails_per_sender_per_cycle: usize,
}

impl Default for LimitsConfig {
    fn default() -> Self {
        LimitsConfig {
            help_per_hour: 30,
            alerts_per_hour: 30,
            alert_interval_hours: 24,
            mails_per_sender_per_cycle: 20,
        }
    }
}

/// `[site]`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SiteConfig {
    /// Addresses of moderators of every game.
    pub moderators: Vec<String>,
}

/// `[mail]`: the address players write to and mail comes from.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct MailConfig {
    /// The address, e.g. `stationmaster@example.org`. Replies to a player go
    /// out with a plus-address Reply-To (`stationmaster+GAME.TOKEN@…`).
    pub address: String,
    /// The display name on mail sent.
    pub name: String,
}

impl Default for MailConfig {
    fn default() -> Self {
        MailConfig {
            address: "stationmaster@localhost".to_string(),
            name: "Stationmaster".to_string(),
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
        }
    }
}

/// `[daemon]`.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct DaemonConfig {
    /// Seconds `run` sleeps between polls.
    pub poll_seconds: u64,
    /// At most one help reply per address in this many hours (to mail that
    /// names no game, or comes from an unknown sender).
    pub help_interval_hours: u64,
    /// Attempts to send a mail before it is given up and logged.
    pub send_attempts: u32,
}

impl Default for DaemonConfig {
    fn default() -> Self {
        DaemonConfig {
            poll_seconds: 60,
            help_interval_hours: 24,
            send_attempts: 12,
        }
    }
}

/// `[templates]`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct TemplatesConfig {
    /// A folder with the operator's own copies of the templates in
    /// `templates/`; a template missing there is taken from the built-in copy.
    pub dir: Option<PathBuf>,
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

/// `[store]`: the sled database.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct StoreConfig {
    /// The database folder (created if missing).
    pub path: PathBuf,
    /// Where finished games are archived (one folder per game).
    pub archive: PathBuf,
}

impl Default for StoreConfig {
    fn default() -> Self {
        StoreConfig {
            path: PathBuf::from("var/db"),
            archive: PathBuf::from("var/archive"),
        }
    }
}

/// `[games]`: board data.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct GamesConfig {
    /// The folder with one folder per game (`rocket/board.toml`); a board
    /// missing there is taken from the copy built into the binary.
    pub boards: PathBuf,
}

impl Default for GamesConfig {
    fn default() -> Self {
        GamesConfig {
            boards: PathBuf::from("games"),
        }
    }
}

/// A configuration that cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The file could not be read.
    #[error("cannot read the config file {path}: {source}")]
    Read {
        /// The file.
        path: String,
        /// Why.
        source: std::io::Error,
    },
    /// The file is not valid, with the line where known.
    #[error("config file {path}{}: {message}", .line.map(|l| format!(", line {l}")).unwrap_or_default())]
    Invalid {
        /// The file.
        path: String,
        /// The line, from 1.
        line: Option<usize>,
        /// What is wrong.
        message: String,
    },
}

impl Config {
    /// Reads `path`, or gives the embedded defaults when `path` is None.
    pub fn load(path: Option<&Path>) -> Result<Config, ConfigError> {
        let Some(path) = path else {
            return Ok(Config::default());
        };
        let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Read {
            path: path.display().to_string(),
            source,
        })?;
        Config::parse(&path.display().to_string(), &text)
    }

    /// Reads a configuration from its text; `path` names it in errors.
    pub fn parse(path: &str, text: &str) -> Result<Config, ConfigError> {
        let config: Config = toml::from_str(text).map_err(|e| ConfigError::Invalid {
            path: path.to_string(),
            line: e
                .span()
                .map(|s| text[..s.start.min(text.len())].matches('\n').count() + 1),
            message: e.message().trim().to_string(),
        })?;
        config
            .deadlines
            .check()
            .map_err(|message| ConfigError::Invalid {
                path: path.to_string(),
                line: None,
                message: format!("[deadlines] {message}"),
            })?;
        Ok(config)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_file_means_the_embedded_defaults() {
        let c = Config::load(None).unwrap();
        assert_eq!(c.store.path, PathBuf::from("var/db"));
        assert_eq!(c.games.boards, PathBuf::from("games"));
    }

    #[test]
    fn the_example_file_is_a_valid_config() {
        let text = include_str!("../config.toml.example");
        Config::parse("config.toml.example", text).unwrap();
    }

    #[test]
    fn an_unknown_key_is_refused_with_its_line() {
        let e = Config::parse("c.toml", "[store]\npath = \"x\"\nsize = 3\n").unwrap_err();
        let text = e.to_string();
        assert!(text.contains("c.toml, line 3"), "{text}");
        assert!(text.contains("size"), "{text}");
    }
}
