//! Inbound from an IMAP mailbox, with the `imap` 3.0 crate over our own
//! TCP and rustls streams (its builder cannot take a private CA).

use std::io::{self, Read, Write};
use std::net::TcpStream;
use std::sync::Arc;
use std::time::Duration;

use ::imap::{Client, Session};
use rustls::ClientConfig;

use super::net::{self, Stream};
use super::{require_safe, security_name, server_name, tls};
use crate::config::{InboundConfig, Security, password};
use crate::{Inbound, RawMail, TransportError, Watch};

/// The most messages one [`Imap`] fetch returns; the rest come with the
/// next one. Keeps memory bounded when a big mailbox is first pointed at.
pub const IMAP_FETCH_LIMIT: usize = 100;

/// An IMAP mailbox read as an inbound transport.
///
/// Security: `tls` is implicit TLS (port 993), `starttls` upgrades a plain
/// connection with the STARTTLS command before logging in (port 143), and
/// `plain` is refused unless the host is a loopback address. Certificates
/// are always verified, against the system's roots (its bundle and
/// certificate folder, or `$SSL_CERT_FILE` and `$SSL_CERT_DIR` when set: see
/// `tls::client_config`) plus the optional `ca_file`.
///
/// [`fetch`](Inbound::fetch) selects the mailbox and returns, oldest (lowest
/// UID) first and at most [`IMAP_FETCH_LIMIT`] at a time, the messages not
/// flagged `\Seen` (or, when `processed_mailbox` is set, every message left
/// in the mailbox), read with `BODY.PEEK[]` so reading marks nothing. The
/// handle is the UID. [`done`](Inbound::done) moves the message to
/// `processed_mailbox` (`UID MOVE`, or `COPY` + `\Deleted` + `EXPUNGE` on
/// servers without MOVE), or else flags it `\Seen`. `processed_mailbox` is
/// created at connect if missing.
///
/// If the connection broke between two calls (a server timeout, a restart),
/// the call reconnects and tries once more. If the mailbox's UIDVALIDITY
/// changed meanwhile, `done` refuses the old UIDs (a transient error), so a
/// wrong message is never marked; the next fetch sees everything again.
/// Mailbox names are sent as given (ASCII; no modified UTF-7).
pub struct Imap {
    host: String,
    port: u16,
    security: Security,
    user: String,
    password: String,
    mailbox: String,
    processed: Option<String>,
    quarantine: String,
    tls: Option<Arc<ClientConfig>>,
    server: String,
    session: Option<Session<Stream>>,
    /// UIDVALIDITY at the last SELECT.
    validity: Option<u32>,
    /// UIDVALIDITY when the handles of the last fetch were read.
    fetched_validity: Option<u32>,
    has_move: bool,
    has_uidplus: bool,
    has_idle: bool,
    /// Connections opened so far.
    opened: usize,
    /// `[inbound] timeout_seconds`.
    timeout: Duration,
}

impl std::fmt::Debug for Imap {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Imap")
            .field("server", &self.server)
            .field("security", &self.security)
            .field("user", &self.user)
            .field("mailbox", &self.mailbox)
            .field("processed", &self.processed)
            .field("connected", &self.session.is_some())
            .finish_non_exhaustive()
    }
}

/// What one IMAP operation did wrong.
enum Failure {
    /// Ours (the transport error is final).
    Ours(TransportError),
    /// The server's or the connection's.
    Imap(::imap::Error),
}

impl From<::imap::Error> for Failure {
    fn from(e: ::imap::Error) -> Self {
        Failure::Imap(e)
    }
}

impl Imap {
    /// Connects, logs in, selects the mailbox (and creates
    /// `processed_mailbox` if it is set and missing).
    ///
    /// Errors: [`TransportError::Config`] for plain towards a non-loopback
    /// host, a missing user or password, or an unusable `ca_file`;
    /// [`TransportError::Connect`] if the server cannot be reached or its
    /// certificate is not trusted; [`TransportError::Refused`] if the login
    /// or the mailbox is refused.
    pub fn connect(cfg: &InboundConfig) -> Result<Self, TransportError> {
        let host = cfg
            .host
            .trim()
            .trim_start_matches('[')
            .trim_end_matches(']')
            .to_string();
        require_safe(cfg.security, &host, "[inbound] imap")?;
        if cfg.user.is_empty() {
            return Err(TransportError::Config(
                "[inbound] imap: no user configured".to_string(),
            ));
        }
        let pw = password(&cfg.password, &cfg.password_env);
        if pw.is_empty() {
            return Err(TransportError::Config(format!(
                "[inbound] imap: user {} has no password (set password, or password_env{})",
                cfg.user,
                if cfg.password_env.is_empty() {
                    String::new()
                } else {
                    format!(": ${} is empty or unset", cfg.password_env)
                }
            )));
        }
        let tls = match cfg.security {
            Security::Plain => None,
            Security::Tls | Security::Starttls => Some(tls::client_config(cfg.ca_file.as_deref())?),
        };
        let mailbox = match cfg.mailbox.trim() {
            "" => "INBOX".to_string(),
            m => m.to_string(),
        };
        let processed = Some(cfg.processed_mailbox.trim())
            .filter(|p| !p.is_empty())
            .map(str::to_string);
        if processed.as_deref() == Some(mailbox.as_str()) {
            return Err(TransportError::Config(format!(
                "[inbound] imap: processed_mailbox is the mailbox read ({mailbox})"
            )));
        }
        let mut imap = Imap {
            server: server_name(&host, cfg.port),
            host,
            port: cfg.port,
            security: cfg.security,
            user: cfg.user.clone(),
            password: pw,
            mailbox,
            processed,
            quarantine: match cfg.quarantine_mailbox.trim() {
                "" => "Quarantine".to_string(),
                q => q.to_string(),
            },
            tls,
            session: None,
            validity: None,
            fetched_validity: None,
            has_move: false,
            has_uidplus: false,
            has_idle: false,
            opened: 0,
            timeout: crate::config::timeout(cfg.timeout_seconds),
        };
        let session = imap.open()?;
        imap.session = Some(session);
        Ok(imap)
    }

    /// A second, not yet connected [`Imap`] on the same mailbox.
    fn twin(&self) -> Imap {
        Imap {
            host: self.host.clone(),
            port: self.port,
            security: self.security,
            user: self.user.clone(),
            password: self.password.clone(),
            mailbox: self.mailbox.clone(),
            processed: self.processed.clone(),
            quarantine: self.quarantine.clone(),
            tls: self.tls.clone(),
            server: self.server.clone(),
            session: None,
            validity: None,
            fetched_validity: None,
            has_move: self.has_move,
            has_uidplus: self.has_uidplus,
            has_idle: self.has_idle,
            opened: 0,
            timeout: self.timeout,
        }
    }

    /// `host:port`.
    pub fn server(&self) -> &str {
        &self.server
    }

    /// Logs out politely (dropping an [`Imap`] just closes the connection).
    pub fn logout(mut self) -> Result<(), TransportError> {
        match self.session.take() {
            Some(mut s) => s.logout().map_err(|e| self.error(e)),
            None => Ok(()),
        }
    }

    fn connect_error(&self, message: impl std::fmt::Display) -> TransportError {
        TransportError::Connect {
            server: self.server.clone(),
            message: message.to_string(),
        }
    }

    /// A connection failure from an I/O error: a read or write that ran
    /// out of the timeout is said to be a server that did not answer.
    fn io_error(&self, e: &io::Error) -> TransportError {
        self.connect_error(net::io_text(e, self.timeout))
    }

    /// A TCP connection with timeouts.
    fn tcp(&self) -> Result<TcpStream, TransportError> {
        net::tcp(&self.host, self.port, &self.server, self.timeout)
    }

    /// TLS over `tcp`, handshake done (so certificate errors show here).
    fn tls_wrap(&self, tcp: TcpStream) -> Result<Stream, TransportError> {
        let Some(config) = &self.tls else {
            return Err(TransportError::Config(
                "internal: TLS asked for without a TLS configuration".to_string(),
            ));
        };
        net::tls_wrap(config, &self.host, tcp, &self.server, "[inbound] imap")
    }

    /// STARTTLS on the raw connection, before the IMAP client takes it over
    /// (the `imap` crate does not expose the command on an unauthenticated
    /// client). Reads byte by byte, so nothing after the OK is swallowed.
    fn starttls(&self, tcp: &mut TcpStream) -> Result<(), TransportError> {
        let greeting = read_line(tcp).map_err(|e| self.io_error(&e))?;
        if !greeting.starts_with("* OK") {
            return Err(self.refused(format!("unexpected greeting: {greeting}"), false));
        }
        tcp.write_all(b"s0 STARTTLS\r\n")
            .map_err(|e| self.io_error(&e))?;
        for _ in 0..100 {
            let line = read_line(tcp).map_err(|e| self.io_error(&e))?;
            if let Some(rest) = line.strip_prefix("s0 ") {
                if rest.len() >= 2 && rest[..2].eq_ignore_ascii_case("OK") {
                    return Ok(());
                }
                return Err(self.refused(format!("STARTTLS refused: {rest}"), false));
            }
        }
        Err(self.connect_error("no answer to STARTTLS"))
    }

    fn refused(&self, message: String, transient: bool) -> TransportError {
        TransportError::Refused {
            server: self.server.clone(),
            message,
            transient,
        }
    }

    /// Opens a new session: connect, TLS as configured, login, capabilities,
    /// processed mailbox, SELECT.
    fn open(&mut self) -> Result<Session<Stream>, TransportError> {
        self.opened += 1;
        let mut tcp = self.tcp()?;
        let client = match self.security {
            Security::Plain => self.greeted(Stream::Plain(tcp))?,
            Security::Tls => {
                let stream = self.tls_wrap(tcp)?;
                self.greeted(stream)?
            }
            Security::Starttls => {
                self.starttls(&mut tcp)?;
                // The greeting was read before STARTTLS; none comes after it.
                Client::new(self.tls_wrap(tcp)?)
            }
        };
        let mut session = client
            .login(&self.user, &self.password)
            .map_err(|(e, _)| self.error_about(e, &format!("login as {}", self.user)))?;
        let caps = session.capabilities().map_err(|e| self.error(e))?;
        self.has_move = caps.has_str("MOVE");
        self.has_uidplus = caps.has_str("UIDPLUS");
        self.has_idle = caps.has_str("IDLE");
        drop(caps);
        if let Some(processed) = self.processed.clone() {
            match Self::find_or_create(&mut session, &processed) {
                Ok(true) => {
                    tracing::info!(server = %self.server, mailbox = %processed, "imap: created the processed mailbox");
                }
                Ok(false) => {}
                Err(e) => {
                    return Err(self.error_about(
                        e,
                        &format!("cannot create the processed_mailbox {processed}"),
                    ));
                }
            }
        }
        let mb = session
            .select(&self.mailbox)
            .map_err(|e| self.error_in(e, &self.mailbox))?;
        self.validity = mb.uid_validity;
        Ok(session)
    }

    /// Makes sure `mailbox` exists: STATUS, and CREATE when STATUS says NO.
    /// Another session may create it between the two (two processes
    /// connecting at once, or a server whose STATUS said NO for a reason of
    /// its own): when CREATE fails, STATUS is asked again, and a mailbox that
    /// is there now is as good as one we made (RFC 5530's ALREADYEXISTS).
    /// Says whether it created the mailbox. The error is CREATE's where
    /// STATUS still says NO, else the connection's. (A STATUS answered OK
    /// without its untagged line, as a server that spells the name its own
    /// way may, still says the mailbox is there.)
    fn find_or_create(s: &mut Session<Stream>, mailbox: &str) -> Result<bool, ::imap::Error> {
        match s.status(mailbox, "(MESSAGES)") {
            Ok(_) | Err(::imap::Error::MissingStatusResponse) => return Ok(false),
            Err(::imap::Error::No(_)) => {}
            Err(e) => return Err(e),
        }
        let refused = match s.create(mailbox) {
            Ok(()) => return Ok(true),
            Err(e) => e,
        };
        match s.status(mailbox, "(MESSAGES)") {
            Ok(_) | Err(::imap::Error::MissingStatusResponse) => Ok(false),
            Err(::imap::Error::No(_)) => Err(refused),
            Err(e) => Err(e),
        }
    }

    /// A client whose greeting has been read and checked.
    fn greeted(&self, stream: Stream) -> Result<Client<Stream>, TransportError> {
        let mut client = Client::new(stream);
        let greeting = client.read_greeting().map_err(|e| self.error(e))?;
        let text = String::from_utf8_lossy(&greeting);
        if !text.starts_with("* OK") {
            return Err(self.refused(format!("unexpected greeting: {}", text.trim_end()), false));
        }
        Ok(client)
    }

    /// Sorts an `imap` error into ours.
    fn error(&self, e: ::imap::Error) -> TransportError {
        match e {
            ::imap::Error::No(no) => {
                let lower = no.information.to_ascii_lowercase();
                let transient = lower.contains("temporar") || lower.contains("try again");
                self.refused(no.information, transient)
            }
            ::imap::Error::Bad(bad) => self.refused(bad.information, false),
            ::imap::Error::Validate(v) => self.refused(v.to_string(), false),
            ::imap::Error::Bye(bye) => {
                self.connect_error(format!("the server hung up: {}", bye.information))
            }
            ::imap::Error::Io(e) => self.io_error(&e),
            e => self.connect_error(e),
        }
    }

    /// [`Imap::error`] naming the mailbox.
    fn error_in(&self, e: ::imap::Error, mailbox: &str) -> TransportError {
        self.error_about(e, &format!("mailbox {mailbox}"))
    }

    /// [`Imap::error`], a refusal's message saying what was refused.
    fn error_about(&self, e: ::imap::Error, what: &str) -> TransportError {
        match self.error(e) {
            TransportError::Refused {
                server,
                message,
                transient,
            } => TransportError::Refused {
                server,
                message: format!("{what}: {message}"),
                transient,
            },
            other => other,
        }
    }

    /// A handle as a UID.
    fn uid(&self, handle: &str) -> Result<u32, TransportError> {
        handle
            .trim()
            .parse::<u32>()
            .ok()
            .filter(|u| *u > 0)
            .ok_or_else(|| self.refused(format!("{handle:?} is not an IMAP UID"), false))
    }

    /// Creates `mailbox` if the server does not have it.
    fn ensure_mailbox(&self, s: &mut Session<Stream>, mailbox: &str) -> Result<(), Failure> {
        if Self::find_or_create(s, mailbox)? {
            tracing::info!(server = %self.server, %mailbox, "imap: created a mailbox");
        }
        Ok(())
    }

    /// Moves the messages `set` (UIDs) of the selected mailbox to `target`:
    /// `UID MOVE`, or `COPY` + `\Deleted` + `EXPUNGE` without MOVE.
    fn move_uids(&self, s: &mut Session<Stream>, set: &str, target: &str) -> Result<(), Failure> {
        if self.has_move {
            s.uid_mv(set, target)?;
        } else {
            s.uid_copy(set, target)?;
            s.uid_store(set, "+FLAGS (\\Deleted)")?;
            if self.has_uidplus {
                s.uid_expunge(set)?;
            } else {
                s.expunge()?;
            }
        }
        Ok(())
    }

    /// Selects the mailbox read again, after a visit elsewhere.
    fn reselect(&mut self, s: &mut Session<Stream>, mailbox: &str) -> Result<(), Failure> {
        let mb = s.select(mailbox)?;
        self.validity = mb.uid_validity;
        Ok(())
    }

    /// Runs `op` on the session, opening one if needed. If a session kept
    /// from an earlier call turns out broken, reconnects and runs `op` once
    /// more.
    fn run<R>(
        &mut self,
        mut op: impl FnMut(&mut Session<Stream>, &mut Self) -> Result<R, Failure>,
    ) -> Result<R, TransportError> {
        let mut reused = self.session.is_some();
        loop {
            let mut session = match self.session.take() {
                Some(s) => s,
                None => self.open()?,
            };
            match op(&mut session, self) {
                Ok(r) => {
                    self.session = Some(session);
                    return Ok(r);
                }
                Err(Failure::Ours(e)) => {
                    self.session = Some(session);
                    return Err(e);
                }
                Err(Failure::Imap(e)) => {
                    if !is_broken(&e) {
                        self.session = Some(session);
                        return Err(self.error(e));
                    }
                    // The session is dropped here, closing the connection.
                    if reused {
                        tracing::info!(server = %self.server, error = %e, "imap: connection lost, reconnecting");
                        reused = false;
                        continue;
                    }
                    return Err(self.error(e));
                }
            }
        }
    }

    /// Connects, counts, describes, logs out: `check-config`.
    pub(super) fn describe(mut self) -> Result<String, TransportError> {
        let mailbox = self.mailbox.clone();
        let (exists, unseen) = self.run(|s, _| {
            let mb = s.select(&mailbox)?;
            let unseen = s.uid_search("UNSEEN")?.len();
            Ok((mb.exists, unseen))
        })?;
        let tls = match self.security {
            Security::Plain => String::new(),
            _ => ", certificate verified".to_string(),
        };
        let after = match &self.processed {
            Some(p) => format!(
                "processed mail is moved to {p} ({})",
                if self.has_move {
                    "MOVE"
                } else {
                    "COPY + EXPUNGE"
                }
            ),
            None => "processed mail is flagged \\Seen".to_string(),
        };
        let line = format!(
            "imap {}@{} ({}{tls}), mailbox {}: {exists} message(s), {unseen} unseen; {after}",
            self.user,
            self.server,
            security_name(self.security),
            self.mailbox
        );
        self.logout()?;
        Ok(line)
    }
}

/// True if the session cannot be used any more.
fn is_broken(e: &::imap::Error) -> bool {
    !matches!(
        e,
        ::imap::Error::No(_) | ::imap::Error::Bad(_) | ::imap::Error::Validate(_)
    )
}

/// One CRLF-terminated line from a raw stream, without buffering past it.
fn read_line(tcp: &mut TcpStream) -> io::Result<String> {
    let mut line = Vec::new();
    let mut byte = [0u8; 1];
    loop {
        if tcp.read(&mut byte)? == 0 {
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                "the server closed the connection",
            ));
        }
        if byte[0] == b'\n' {
            break;
        }
        line.push(byte[0]);
        if line.len() > 16 * 1024 {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                "an endless line from the server",
            ));
        }
    }
    Ok(String::from_utf8_lossy(&line).trim_end().to_string())
}

/// A UID set in IMAP syntax with ranges: `1:3,7,9:10`.
fn uid_set(uids: &[u32]) -> String {
    let mut out = String::new();
    let mut i = 0;
    while i < uids.len() {
        let start = uids[i];
        let mut end = start;
        while i + 1 < uids.len() && uids[i + 1] == end.wrapping_add(1) {
            i += 1;
            end = uids[i];
        }
        if !out.is_empty() {
            out.push(',');
        }
        if start == end {
            out.push_str(&start.to_string());
        } else {
            out.push_str(&format!("{start}:{end}"));
        }
        i += 1;
    }
    out
}

/// How long one IDLE lasts at most before it is ended and begun again
/// (RFC 2177 asks for less than 29 minutes; NAT boxes forget sooner).
pub const IDLE_REFRESH: Duration = Duration::from_secs(300);

/// New mail announced by IMAP IDLE (RFC 2177), on a connection of its own
/// beside the one that fetches: [`Inbound::watcher`] of [`Imap`].
///
/// Each [`wait`](Watch::wait) first asks for the mail still to handle
/// (`UID SEARCH`, as fetch does) and answers `true` at once if a mail
/// arrived that it has not announced yet; otherwise it IDLEs until the
/// server reports a new message (`EXISTS`) or the timeout passes, and asks
/// again. So a mail that lands between two waits is never missed. A broken
/// connection is opened again at the next wait.
pub struct ImapWatcher {
    imap: Imap,
    /// The highest UID announced so far.
    announced: u32,
    /// The connection whose first IDLE was logged.
    logged: usize,
}

impl ImapWatcher {
    /// The highest UID of the mail still to handle, if any.
    fn newest(&mut self) -> Result<Option<u32>, TransportError> {
        let query = if self.imap.processed.is_some() {
            "UNDELETED"
        } else {
            "UNSEEN UNDELETED"
        };
        self.imap.run(|s, _| {
            let uids = s.uid_search(query)?;
            s.take_all_unsolicited().for_each(drop);
            Ok(uids.into_iter().max())
        })
    }
}

impl Watch for ImapWatcher {
    fn wait(&mut self, timeout: Duration) -> Result<bool, TransportError> {
        let until = std::time::Instant::now() + timeout;
        loop {
            if let Some(newest) = self.newest()?
                && newest > self.announced
            {
                self.announced = newest;
                return Ok(true);
            }
            let left = until.saturating_duration_since(std::time::Instant::now());
            if left.is_zero() {
                return Ok(false);
            }
            let logged = &mut self.logged;
            let changed = self.imap.run(|s, me| {
                // Once per connection (run may open a new one).
                if *logged != me.opened {
                    *logged = me.opened;
                    tracing::info!(server = %me.server, mailbox = %me.mailbox, "imap: waiting for new mail (IDLE)");
                }
                let outcome = s
                    .idle()
                    .timeout(left.min(IDLE_REFRESH))
                    .keepalive(false)
                    // Our own flags and moves show as FETCH and EXPUNGE:
                    // only a new message ends the wait.
                    .wait_while(|response| {
                        !matches!(
                            response,
                            ::imap::types::UnsolicitedResponse::Exists(_)
                                | ::imap::types::UnsolicitedResponse::Recent(_)
                        )
                    });
                Ok(matches!(
                    outcome?,
                    ::imap::extensions::idle::WaitOutcome::MailboxChanged
                ))
            })?;
            if !changed {
                // Timed out: one last look, then give the caller its turn.
                continue;
            }
        }
    }
}

/// IDLE sets its own read timeout, and none after it: then ours again, so
/// the connection never waits without a limit. IDLE leaves the write
/// timeout alone: it is the configured one (`net::tcp`).
impl ::imap::extensions::idle::SetReadTimeout for Stream {
    fn set_read_timeout(&mut self, timeout: Option<Duration>) -> ::imap::Result<()> {
        let tcp = match self {
            Stream::Plain(s) => s,
            Stream::Tls(s) => s.get_ref(),
        };
        let ours = tcp.write_timeout().map_err(::imap::Error::Io)?;
        let default = crate::config::timeout(crate::config::DEFAULT_TIMEOUT_SECONDS);
        let timeout = Some(timeout.or(ours).unwrap_or(default));
        tcp.set_read_timeout(timeout).map_err(::imap::Error::Io)
    }
}

impl Inbound for Imap {
    fn watcher(&mut self) -> Option<Box<dyn Watch>> {
        if !self.has_idle {
            tracing::info!(server = %self.server, "imap: the server has no IDLE; polling");
            return None;
        }
        Some(Box::new(ImapWatcher {
            imap: self.twin(),
            announced: 0,
            logged: 0,
        }))
    }

    fn fetch(&mut self) -> Result<Vec<RawMail>, TransportError> {
        let mailbox = self.mailbox.clone();
        let query = if self.processed.is_some() {
            "UNDELETED"
        } else {
            "UNSEEN UNDELETED"
        };
        let (validity, mails) = self.run(|s, _| {
            // SELECT again: shows new mail and the current UIDVALIDITY.
            let mb = s.select(&mailbox)?;
            let mut uids: Vec<u32> = s.uid_search(query)?.into_iter().collect();
            uids.sort_unstable();
            uids.truncate(IMAP_FETCH_LIMIT);
            let mut mails = Vec::with_capacity(uids.len());
            if !uids.is_empty() {
                let fetches = s.uid_fetch(uid_set(&uids), "(UID BODY.PEEK[])")?;
                for f in fetches.iter() {
                    let Some(uid) = f.uid.filter(|u| uids.binary_search(u).is_ok()) else {
                        continue;
                    };
                    match f.body() {
                        Some(body) => mails.push((uid, Ok(body.to_vec()))),
                        None => mails.push((uid, Err("the server gave no body".to_string()))),
                    }
                }
            }
            // Flag and expunge news we do not track: do not let them pile up.
            s.take_all_unsolicited().for_each(drop);
            Ok((mb.uid_validity, mails))
        })?;
        self.validity = validity;
        self.fetched_validity = validity;
        let mut mails = mails;
        mails.sort_by_key(|(uid, _)| *uid);
        mails.dedup_by_key(|(uid, _)| *uid);
        Ok(mails
            .into_iter()
            .map(|(uid, bytes)| match bytes {
                Ok(bytes) => RawMail::new(uid.to_string(), bytes),
                Err(why) => RawMail::unreadable(uid.to_string(), format!("UID {uid}: {why}")),
            })
            .collect())
    }

    fn quarantine(&mut self, handle: &str) -> Result<(), TransportError> {
        let uid = self.uid(handle)?;
        let target = self.quarantine.clone();
        self.run(|s, me| {
            me.ensure_mailbox(s, &target)?;
            me.move_uids(s, &uid.to_string(), &target)?;
            s.take_all_unsolicited().for_each(drop);
            Ok(())
        })
    }

    fn quarantined(&mut self) -> Result<Vec<RawMail>, TransportError> {
        let quarantine = self.quarantine.clone();
        let mailbox = self.mailbox.clone();
        let found = self.run(|s, me| {
            if let Err(e) = s.select(&quarantine) {
                return match e {
                    ::imap::Error::No(_) => Ok(Vec::new()),
                    e => Err(e.into()),
                };
            }
            let mut uids: Vec<u32> = s.uid_search("ALL")?.into_iter().collect();
            uids.sort_unstable();
            let mut found = Vec::new();
            if !uids.is_empty() {
                let fetches = s.uid_fetch(uid_set(&uids), "(UID BODY.PEEK[])")?;
                for f in fetches.iter() {
                    if let Some(uid) = f.uid {
                        found.push(match f.body() {
                            Some(b) => RawMail::new(uid.to_string(), b.to_vec()),
                            None => RawMail::unreadable(uid.to_string(), "the server gave no body"),
                        });
                    }
                }
            }
            me.reselect(s, &mailbox)?;
            Ok(found)
        })?;
        Ok(found)
    }

    fn release(&mut self, handle: &str) -> Result<(), TransportError> {
        let uid = self.uid(handle)?;
        let quarantine = self.quarantine.clone();
        let mailbox = self.mailbox.clone();
        self.run(|s, me| {
            s.select(&quarantine)?;
            me.move_uids(s, &uid.to_string(), &mailbox)?;
            me.reselect(s, &mailbox)?;
            Ok(())
        })
    }

    fn done(&mut self, handle: &str) -> Result<(), TransportError> {
        self.done_all(&[handle.to_string()])
    }

    /// All the UIDs in one command (a UID set), so a cycle of a hundred
    /// mails costs one round trip, not a hundred.
    fn done_all(&mut self, handles: &[String]) -> Result<(), TransportError> {
        let mut uids = handles
            .iter()
            .map(|handle| self.uid(handle))
            .collect::<Result<Vec<u32>, _>>()?;
        if uids.is_empty() {
            return Ok(());
        }
        uids.sort_unstable();
        uids.dedup();
        let set = uid_set(&uids);
        let processed = self.processed.clone();
        self.run(|s, me| {
            if me.fetched_validity.is_some() && me.validity != me.fetched_validity {
                return Err(Failure::Ours(me.refused(
                    format!(
                        "mailbox {}: UIDVALIDITY changed since the fetch ({:?} -> {:?}); \
                         UID(s) {set} are not marked, they will be fetched again",
                        me.mailbox, me.fetched_validity, me.validity
                    ),
                    true,
                )));
            }
            match &processed {
                Some(p) => me.move_uids(s, &set, p)?,
                None => {
                    s.uid_store(&set, "+FLAGS (\\Seen)")?;
                }
            }
            s.take_all_unsolicited().for_each(drop);
            Ok(())
        })
    }
}

/// `check-config` for IMAP.
pub(super) fn check(cfg: &InboundConfig) -> Result<String, TransportError> {
    Imap::connect(cfg)?.describe()
}

#[cfg(test)]
mod tests {
    use super::uid_set;

    #[test]
    fn uid_sets_use_ranges() {
        assert_eq!(uid_set(&[1]), "1");
        assert_eq!(uid_set(&[1, 2, 3, 7, 9, 10]), "1:3,7,9:10");
        assert_eq!(uid_set(&[]), "");
    }
}
