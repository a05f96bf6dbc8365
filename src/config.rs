//! The operator's configuration: `config.toml`, read into plain serde structs
//! and checked before anything is opened. Every key has a default, so with no
//! file at all Stationmaster runs on the embedded defaults (a local sled
//! database under `var/`). `config.toml.example` documents every key.

use std::path::{Path, PathBuf};

use serde::Deserialize;

// The mail layer's sections live with it (crates/mail); named here as
// they always were.
pub use crate::mail::config::{
    InboundConfig, InboundKind, MailConfig, OutboundConfig, OutboundKind, Security, is_loopback,
    password,
};

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
    #[serde(deserialize_with = "crate::clock::read_settings")]
    pub deadlines: crate::clock::ClockSettings,
    /// The site: its moderators.
    pub site: SiteConfig,
    /// What one sender, or everyone together, can make us send.
    pub limits: LimitsConfig,
    /// The games on the web: a static site of their pages.
    pub web: WebConfig,
    /// The engine's bot.
    pub bots: BotsConfig,
}

/// `[bots]`: how hard the engine's bot thinks (issue 36).
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct BotsConfig {
    /// The search's iterations for one order: its strength, and its cost
    /// in proportion. The default is the setting docs/performance.md
    /// measured ("Bots").
    pub iterations: u32,
}

impl Default for BotsConfig {
    fn default() -> Self {
        BotsConfig {
            iterations: crate::engine::bot::Settings::default().iterations,
        }
    }
}

impl BotsConfig {
    /// The bot's settings: the engine's default with these iterations.
    pub fn settings(&self) -> crate::engine::bot::Settings {
        crate::engine::bot::Settings {
            iterations: self.iterations.max(1),
            ..crate::engine::bot::Settings::default()
        }
    }
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
    /// Table talk (`say`, `tell`) one player may send in one game per
    /// hour; over it, the message is not sent and the player is told.
    pub messages_per_hour: u32,
    /// Addresses that never asked (invitations, address confirmations,
    /// moderator and seat keys to a new address) that one sender's mail
    /// may have the server write to per hour; `help_per_hour` bounds them
    /// all together (docs/operators.md, "Security").
    pub unasked_per_sender_per_hour: u32,
    /// Observers (`watch`) one game may have.
    pub observers_per_game: u32,
    /// Games one address may watch at once.
    pub observers_per_address: u32,
}

impl Default for LimitsConfig {
    fn default() -> Self {
        LimitsConfig {
            help_per_hour: 30,
            alerts_per_hour: 30,
            alert_interval_hours: 24,
            mails_per_sender_per_cycle: 20,
            messages_per_hour: 10,
            unasked_per_sender_per_hour: 10,
            observers_per_game: 20,
            observers_per_address: 5,
        }
    }
}

/// `[site]`: its moderators, and who may make games by mail.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SiteConfig {
    /// Addresses of moderators of every game.
    pub moderators: Vec<String>,
    /// Who may make a game by mail (`new`).
    pub create: CreatePolicy,
    /// With `create = "listed"`: the addresses (`alice@example.org`) and
    /// domains (`example.org`, or `@example.org`) that may.
    pub creators: Vec<String>,
    /// How many games forming (made, not started) one address may hold
    /// (0: none).
    pub forming_per_address: u32,
    /// How long a game made by mail waits to be started before it
    /// expires, e.g. `7d`.
    pub forming_expires: crate::clock::Span,
}

impl Default for SiteConfig {
    fn default() -> Self {
        SiteConfig {
            moderators: Vec::new(),
            create: CreatePolicy::Anyone,
            creators: Vec::new(),
            forming_per_address: 2,
            forming_expires: crate::clock::Span(7 * 24 * 60),
        }
    }
}

/// Who may make a game by mail: `[site] create`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CreatePolicy {
    /// Any address.
    #[default]
    Anyone,
    /// The addresses and domains of `[site] creators`.
    Listed,
    /// Nobody by mail: only the operator, with `stationmaster new`.
    Operator,
}

impl SiteConfig {
    /// True if `address` may make a game by mail.
    pub fn may_create(&self, address: &str) -> bool {
        let address = address.trim().to_ascii_lowercase();
        match self.create {
            CreatePolicy::Anyone => true,
            CreatePolicy::Operator => false,
            CreatePolicy::Listed => {
                let domain = address.rsplit_once('@').map_or("", |(_, d)| d);
                self.creators.iter().any(|c| {
                    let c = c.trim().to_ascii_lowercase();
                    match c.strip_prefix('@') {
                        Some(d) => d == domain,
                        None if c.contains('@') => c == address,
                        None => c == domain,
                    }
                })
            }
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

/// `[web]`: the games on the web (issue 38). With `dir` and `url` both
/// set, the daemon keeps a static site in `dir` (a page per game and an
/// index), which any web server serves at `url`, and every mail about a
/// game links to its page.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct WebConfig {
    /// The folder the pages are written in (created if missing).
    pub dir: Option<PathBuf>,
    /// The address the folder is served at, e.g.
    /// `https://games.example.org/`.
    pub url: Option<String>,
    /// List games not made `watchable` in the index too (their pages are
    /// written either way, at an address only their players' and
    /// moderators' mail gives, and the index then gives it too).
    pub list_unwatchable: bool,
}

impl WebConfig {
    /// The folder and the address, where both are set: the site is kept.
    pub fn site(&self) -> Option<(&Path, &str)> {
        let dir = self.dir.as_deref().filter(|d| !d.as_os_str().is_empty())?;
        let url = self
            .url
            .as_deref()
            .map(str::trim)
            .filter(|u| !u.is_empty())?;
        Some((dir, url))
    }

    /// The address of the page in `folder` (a game's, as
    /// `service::page_address::folder` names it), where the site is kept:
    /// `URL/FOLDER/`.
    pub fn page_url(&self, folder: &str) -> Option<String> {
        let (_, url) = self.site()?;
        Some(format!("{}/{folder}/", url.trim_end_matches('/')))
    }

    /// The problems of the section, one line each naming its key: one of
    /// `dir` and `url` without the other, an address that is no web
    /// address.
    fn problems(&self, out: &mut Vec<String>) {
        let dir = self.dir.as_ref().is_some_and(|d| !d.as_os_str().is_empty());
        let url = self.url.as_deref().map_or("", str::trim);
        if dir && url.is_empty() {
            out.push(
                "[web] url: empty; with [web] dir set, give the address the folder is served at (https://…)"
                    .to_string(),
            );
        }
        if !dir && !url.is_empty() {
            out.push(
                "[web] dir: empty; with [web] url set, give the folder the pages are written in"
                    .to_string(),
            );
        }
        // `https://host…`, with nothing a link in a mail or a page would
        // break at.
        let host = url
            .strip_prefix("https://")
            .or_else(|| url.strip_prefix("http://"))
            .filter(|rest| !rest.is_empty() && !rest.starts_with('/'));
        let plain = !url.contains(|c: char| c.is_whitespace() || "\"<>'`".contains(c));
        if !url.is_empty() && (host.is_none() || !plain) {
            out.push(format!(
                "[web] url: {url:?} is not a web address (https://… or http://…)"
            ));
        }
    }
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
    #[error("cannot read the config file {path}: {cause}")]
    Read {
        /// The file.
        path: String,
        /// Why: said in the message, and so not its `source` (printed
        /// with its chain, the error said it twice).
        cause: std::io::Error,
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
    /// Reads `path`, or gives the embedded defaults when `path` is None,
    /// and refuses values that would break the daemon (see
    /// [`Config::breaking`]).
    pub fn load(path: Option<&Path>) -> Result<Config, ConfigError> {
        let Some(path) = path else {
            return Ok(Config::default());
        };
        Config::parse(&path.display().to_string(), &read_text(path)?)
    }

    /// Reads `path` as TOML into the structs, and checks nothing else:
    /// `check-config` reads a file so, to list all of its problems.
    pub fn read(path: &Path) -> Result<Config, ConfigError> {
        Config::parse_toml(&path.display().to_string(), &read_text(path)?)
    }

    /// Reads a configuration from its text; `path` names it in errors.
    pub fn parse(path: &str, text: &str) -> Result<Config, ConfigError> {
        let config = Config::parse_toml(path, text)?;
        config.refuse_breaking(path, text)?;
        Ok(config)
    }

    fn parse_toml(path: &str, text: &str) -> Result<Config, ConfigError> {
        toml::from_str(text).map_err(|e| {
            // `[deadlines]` is read as a whole (a game's own names for its
            // settings are read too), so its errors point at its heading:
            // find the setting that fails, and its line.
            if let Some((key, message)) = deadlines_fault(text)
                && let Some(line) = key_line(text, "deadlines", &key)
            {
                return ConfigError::Invalid {
                    path: path.to_string(),
                    line: Some(line),
                    message: format!("[deadlines] {key}: {message}"),
                };
            }
            ConfigError::Invalid {
                path: path.to_string(),
                line: e
                    .span()
                    .map(|s| text[..s.start.min(text.len())].matches('\n').count() + 1),
                message: e.message().trim().to_string(),
            }
        })
    }

    /// Refuses what [`Config::breaking`] finds, each problem with the line
    /// of its key in `text` where it is written there.
    fn refuse_breaking(&self, path: &str, text: &str) -> Result<(), ConfigError> {
        let problems = self.breaking();
        let lines: Vec<Option<usize>> = problems
            .iter()
            .map(|p| {
                // "[table] key: why" (or "[table] key value: why").
                let (table, rest) = p.strip_prefix('[')?.split_once("] ")?;
                let key = rest.split([':', ' ']).next()?;
                key_line(text, table, key)
            })
            .collect();
        match (problems.as_slice(), lines.as_slice()) {
            ([], _) => Ok(()),
            ([one], [line]) => Err(ConfigError::Invalid {
                path: path.to_string(),
                line: *line,
                message: one.clone(),
            }),
            _ => Err(ConfigError::Invalid {
                path: path.to_string(),
                line: None,
                message: problems
                    .iter()
                    .zip(&lines)
                    .map(|(p, l)| match l {
                        Some(l) => format!("{p} (line {l})"),
                        None => p.clone(),
                    })
                    .collect::<Vec<_>>()
                    .join("; "),
            }),
        }
    }

    /// The values every command refuses, as they would break the daemon:
    /// a poll loop that never sleeps, mail never sent, mail never read, and
    /// deadline settings that cannot be used. One line each, naming its key.
    pub fn breaking(&self) -> Vec<String> {
        let mut out = Vec::new();
        at_least(
            &mut out,
            "[daemon] poll_seconds",
            self.daemon.poll_seconds,
            1,
        );
        at_least(
            &mut out,
            "[daemon] send_attempts",
            u64::from(self.daemon.send_attempts),
            1,
        );
        at_least(
            &mut out,
            "[inbound] timeout_seconds",
            self.inbound.timeout_seconds,
            1,
        );
        at_least(
            &mut out,
            "[outbound] timeout_seconds",
            self.outbound.timeout_seconds,
            1,
        );
        at_least(
            &mut out,
            "[limits] mails_per_sender_per_cycle",
            self.limits.mails_per_sender_per_cycle as u64,
            1,
        );
        if let Some((key, message)) = self.deadlines.fault() {
            // Named by its key, as every other problem is (the messages of
            // the time zone and of a deadline of no time name none).
            if message.starts_with(key) {
                out.push(format!("[deadlines] {message}"));
            } else {
                out.push(format!("[deadlines] {key}: {message}"));
            }
        }
        out
    }

    /// Every problem that can be seen without touching the network or the
    /// database: [`Config::breaking`], addresses that do not parse, numbers
    /// out of range, a mail server without a host or a port, a password
    /// that is not there, plain connections to another host, files and
    /// folders given that do not exist. One line each, naming its key.
    pub fn problems(&self) -> Vec<String> {
        let mut out = self.breaking();
        let address = |out: &mut Vec<String>, key: &str, value: &str| {
            if value.trim().parse::<lettre::Address>().is_err() {
                out.push(format!("{key}: {value:?} is not a mail address"));
            }
        };
        address(&mut out, "[mail] address", &self.mail.address);
        for m in &self.site.moderators {
            address(&mut out, "[site] moderators", m);
        }
        for c in &self.site.creators {
            let c = c.trim();
            if c.contains('@') && !c.starts_with('@') {
                address(&mut out, "[site] creators", c);
            } else if c.trim_start_matches('@').is_empty()
                || c.trim_start_matches('@').contains(char::is_whitespace)
            {
                out.push(format!(
                    "[site] creators: {c:?} is neither a mail address nor a domain"
                ));
            }
        }
        if self.site.create == CreatePolicy::Listed && self.site.creators.is_empty() {
            out.push(
                "[site] creators: empty, so with create = \"listed\" nobody may make a game by mail"
                    .to_string(),
            );
        }
        if self.site.forming_expires.0 < 60 {
            out.push(format!(
                "[site] forming_expires: {} is too short; at least 1h",
                self.site.forming_expires
            ));
        }
        at_least(
            &mut out,
            "[daemon] help_interval_hours",
            self.daemon.help_interval_hours,
            1,
        );
        at_least(
            &mut out,
            "[limits] alert_interval_hours",
            self.limits.alert_interval_hours,
            1,
        );
        if self.inbound.kind == InboundKind::Imap {
            server(
                &mut out,
                "[inbound]",
                &self.inbound.host,
                self.inbound.port,
                self.inbound.security,
                &self.inbound.user,
                (&self.inbound.password, &self.inbound.password_env),
                self.inbound.ca_file.as_deref(),
            );
            if self.inbound.mailbox.trim().is_empty() {
                out.push("[inbound] mailbox: empty; name the mailbox to read (INBOX)".to_string());
            }
        }
        if self.outbound.kind == OutboundKind::Smtp {
            server(
                &mut out,
                "[outbound]",
                &self.outbound.host,
                self.outbound.port,
                self.outbound.security,
                &self.outbound.user,
                (&self.outbound.password, &self.outbound.password_env),
                self.outbound.ca_file.as_deref(),
            );
        }
        self.web.problems(&mut out);
        if let Some(dir) = &self.templates.dir
            && !dir.is_dir()
        {
            out.push(format!(
                "[templates] dir: {} {}",
                dir.display(),
                if dir.exists() {
                    "is not a folder"
                } else {
                    "does not exist"
                }
            ));
        }
        out
    }

    /// The folders `run` writes to, each with its key: the database, the
    /// archive, the Maildir and `.eml` folder where those are used, and the
    /// web pages' where they are kept.
    pub fn folders(&self) -> Vec<(&'static str, &Path)> {
        let mut out = vec![
            ("[store] path", self.store.path.as_path()),
            ("[store] archive", self.store.archive.as_path()),
        ];
        if let Some(dir) = self
            .web
            .dir
            .as_deref()
            .filter(|d| !d.as_os_str().is_empty())
        {
            out.push(("[web] dir", dir));
        }
        if self.inbound.kind == InboundKind::Maildir {
            out.push(("[inbound] maildir", self.inbound.maildir.as_path()));
        }
        if self.outbound.kind == OutboundKind::Files {
            out.push(("[outbound] dir", self.outbound.dir.as_path()));
        }
        out
    }
}

/// `key: N is too small (at least MIN)`, if `value` is below `min`.
/// The text of the config file at `path`.
fn read_text(path: &Path) -> Result<String, ConfigError> {
    std::fs::read_to_string(path).map_err(|cause| ConfigError::Read {
        path: path.display().to_string(),
        cause,
    })
}

/// The setting of `[deadlines]` that cannot be read, and why, found by
/// reading each setting of the table alone.
fn deadlines_fault(text: &str) -> Option<(String, String)> {
    #[derive(Deserialize)]
    struct Only {
        #[serde(deserialize_with = "crate::clock::read_settings")]
        #[allow(dead_code)]
        deadlines: crate::clock::ClockSettings,
    }
    let table: toml::Table = toml::from_str(text).ok()?;
    let deadlines = table.get("deadlines")?.as_table()?;
    deadlines.iter().find_map(|(key, value)| {
        let one = toml::Table::from_iter([(key.clone(), value.clone())]);
        let whole = toml::Table::from_iter([("deadlines".to_string(), toml::Value::Table(one))]);
        whole
            .try_into::<Only>()
            .err()
            .map(|e| (key.clone(), e.message().trim().to_string()))
    })
}

/// The line (from 1) where `key = …` is written in the table `[table]` of
/// `text` (a deadline setting also under a game's own name for it).
fn key_line(text: &str, table: &str, key: &str) -> Option<usize> {
    let names: Vec<&str> = std::iter::once(key)
        .chain(
            crate::registry::deadline_aliases()
                .filter(|(_, neutral)| table == "deadlines" && *neutral == key)
                .map(|(alias, _)| alias),
        )
        .collect();
    let mut current = String::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if let Some(heading) = line.strip_prefix('[') {
            current = heading
                .split(']')
                .next()
                .unwrap_or_default()
                .trim()
                .to_string();
            continue;
        }
        let Some((name, _)) = line.split_once('=') else {
            continue;
        };
        let name = name.trim().trim_matches(['"', '\'']);
        if current == table && names.contains(&name) {
            return Some(n + 1);
        }
    }
    None
}

fn at_least(out: &mut Vec<String>, key: &str, value: u64, min: u64) {
    if value < min {
        out.push(format!("{key}: {value} is too small (at least {min})"));
    }
}

/// The problems of a mail server's settings under `section`.
#[allow(clippy::too_many_arguments)]
fn server(
    out: &mut Vec<String>,
    section: &str,
    host: &str,
    port: u16,
    security: Security,
    user: &str,
    (password_key, password_env): (&str, &str),
    ca_file: Option<&Path>,
) {
    if host.trim().is_empty() {
        out.push(format!("{section} host: empty; name the mail server"));
    } else if security == Security::Plain && !is_loopback(host) {
        out.push(format!(
            "{section} security: plain (unencrypted) is only allowed towards this machine, not {host}; use tls or starttls"
        ));
    }
    if port == 0 {
        out.push(format!("{section} port: 0 is not a port (1 to 65535)"));
    }
    if !user.is_empty() && password(password_key, password_env).is_empty() {
        if password_env.is_empty() {
            out.push(format!(
                "{section} password: empty; give password or password_env"
            ));
        } else {
            out.push(format!(
                "{section} password_env: the environment variable {password_env} is not set"
            ));
        }
    }
    if let Some(ca) = ca_file
        && !ca.is_file()
    {
        out.push(format!(
            "{section} ca_file: {} does not exist",
            ca.display()
        ));
    }
}

/// Why the folder `path` (for `key`) cannot be used, if it cannot: it
/// must be a folder we can write in, or be one we can make (its nearest
/// existing parent a folder we can write in). Nothing is made or left.
pub fn folder_problem(key: &str, path: &Path) -> Option<String> {
    let mut at = path.to_path_buf();
    let exists = at.exists();
    if exists && !at.is_dir() {
        return Some(format!("{key}: {} is not a folder", path.display()));
    }
    if !exists {
        // The nearest parent that exists.
        loop {
            match at.parent() {
                Some(p) if !p.as_os_str().is_empty() => {
                    at = p.to_path_buf();
                    if at.exists() {
                        break;
                    }
                }
                _ => {
                    at = PathBuf::from(".");
                    break;
                }
            }
        }
        if !at.is_dir() {
            return Some(format!(
                "{key}: {} cannot be made: {} is not a folder",
                path.display(),
                at.display()
            ));
        }
    }
    let probe = at.join(format!(".stationmaster-check-{}", std::process::id()));
    match std::fs::File::create(&probe) {
        Ok(_) => {
            let _ = std::fs::remove_file(&probe);
            None
        }
        Err(e) if exists => Some(format!(
            "{key}: {} cannot be written in: {e}",
            path.display()
        )),
        Err(e) => Some(format!(
            "{key}: {} cannot be made in {}: {e}",
            path.display(),
            at.display()
        )),
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

    #[test]
    fn a_web_section_is_read_and_checked() {
        let c = Config::parse(
            "c.toml",
            "[web]\ndir = \"var/web\"\nurl = \"https://games.example.org/\"\n",
        )
        .unwrap();
        assert_eq!(
            c.web.site(),
            Some((Path::new("var/web"), "https://games.example.org/"))
        );
        assert_eq!(
            c.web.page_url("rocket-1").as_deref(),
            Some("https://games.example.org/rocket-1/")
        );
        assert!(!c.web.list_unwatchable, "off unless the operator says so");
        assert!(c.problems().iter().all(|p| !p.starts_with("[web]")));
        // Without the section: no site, no link.
        assert_eq!(Config::default().web.page_url("rocket-1"), None);
        for (text, key) in [
            ("[web]\ndir = \"var/web\"\n", "[web] url: empty"),
            ("[web]\nurl = \"https://x.org\"\n", "[web] dir: empty"),
            (
                "[web]\ndir = \"w\"\nurl = \"var/web\"\n",
                "[web] url: \"var/web\" is not a web address",
            ),
            (
                "[web]\ndir = \"w\"\nurl = \"https://x.org/a b\"\n",
                "is not a web address",
            ),
        ] {
            let c = Config::parse("c.toml", text).unwrap();
            assert_eq!(c.web.site().is_some(), !key.contains("empty"), "{text}");
            let problems = c.problems();
            assert!(
                problems.iter().any(|p| p.contains(key)),
                "{text}: {problems:?}"
            );
        }
        let e = Config::parse("c.toml", "[web]\nlist = true\n").unwrap_err();
        assert!(e.to_string().contains("line 2"), "{e}");
    }
}
