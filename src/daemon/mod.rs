//! The daemon: poll the inbound transport, handle each mail (authenticate,
//! apply orders, answer), commit everything a mail causes in one
//! transaction, send the replies (from a second thread, as soon as they are
//! durable, while the next mails are handled), mark the mails done, and
//! drain the outbox to the outbound transport with retries.
//!
//! Exactly once: a mail's Message-ID receipt is committed with its effects
//! and its outgoing mail; a mail is marked done only after that commit; a
//! mail whose receipt exists is never applied again. A crash at any point
//! loses nothing and applies nothing twice; outgoing mail is sent at least
//! once.
//!
//! This module sees the mail transports only through [`Inbound`] and
//! [`Outbound`].

pub mod archive;
pub mod commands;
mod dispatch;
pub mod moderator;
pub mod orders;
pub mod quarantine;
pub mod report;
pub mod scheduler;

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::Duration;

use chrono::{DateTime, Utc};

use crate::clock::{Clock, ClockSettings};
use crate::config::Config;
use crate::engine::{Seat, Setup};
use crate::mail::compose::ComposeError;
use crate::mail::templates::{TemplateError, Templates};
use crate::mail::{Inbound, Outbound, TransportError};
use crate::registry::BoardSource;
use crate::store::{
    BatchRejected, Change, GameId, GameMeta, GameUpdate, LogEntry, NewGame, OutboxItem, Store,
    StoreError,
};
use report::MailContext;

/// What can stop the daemon or a command.
#[derive(Debug, thiserror::Error)]
pub enum DaemonError {
    /// The store.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// A mail transport.
    #[error(transparent)]
    Transport(#[from] TransportError),
    /// A template.
    #[error(transparent)]
    Template(#[from] TemplateError),
    /// Composing a mail.
    #[error(transparent)]
    Compose(#[from] ComposeError),
    /// Setting a game up.
    #[error(transparent)]
    Setup(#[from] crate::engine::SetupError),
    /// A setting or argument that cannot be used.
    #[error("{0}")]
    Invalid(String),
}

/// What the handling of mail needs: the store, the config, the templates and
/// the boards.
pub struct Ctx<'a> {
    /// The database.
    pub store: &'a Store,
    /// The configuration.
    pub config: &'a Config,
    /// The mail templates.
    pub templates: &'a Templates,
    /// Where boards come from.
    pub boards: &'a BoardSource,
}

/// A new secret token: 10 letters and digits from the system's random source.
pub fn new_token() -> Result<String, DaemonError> {
    use std::io::Read;
    const ALPHABET: &[u8] = b"abcdefghijkmnpqrstuvwxyz23456789";
    let mut bytes = [0u8; 10];
    std::fs::File::open("/dev/urandom")
        .and_then(|mut f| f.read_exact(&mut bytes))
        .map_err(|e| TransportError::Io {
            path: "/dev/urandom".to_string(),
            source: e,
        })?;
    Ok(bytes
        .iter()
        .map(|b| ALPHABET[usize::from(*b) % ALPHABET.len()] as char)
        .collect())
}

/// A Message-ID for mail we send: the game, what the mail is, a number
/// never handed out before by this database, and random letters drawn once
/// per run of the program, so that a database never repeats an id, and a
/// fresh one started in a later run does not repeat an id a mail program
/// has seen already.
pub fn message_id(ctx: &Ctx<'_>, game: &str, what: &str) -> Result<String, DaemonError> {
    static RUN: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    let run = match RUN.get() {
        Some(r) => r,
        None => {
            let token = new_token()?;
            RUN.get_or_init(|| token)
        }
    };
    Ok(format!(
        "{game}.{what}.{}.{run}@{}",
        ctx.store.unique()?,
        crate::mail::compose::domain(&ctx.config.mail)
    ))
}

/// Composes `draft` from our address with a fresh Message-ID (see
/// [`message_id`]): every mail the daemon sends goes through here.
pub fn compose_mail(
    ctx: &Ctx<'_>,
    game: &str,
    what: &str,
    draft: &crate::mail::compose::Draft,
    now: DateTime<Utc>,
) -> Result<crate::mail::OutMail, DaemonError> {
    let id = message_id(ctx, game, what)?;
    Ok(crate::mail::compose::compose(
        draft,
        &ctx.config.mail,
        &id,
        now,
    )?)
}

/// Creates a game: its record, each player's secret token, and a welcome
/// mail to each player (with their first report), in one commit.
pub fn create_game(
    ctx: &Ctx<'_>,
    setup: &Setup,
    clock: ClockSettings,
    moderators: Vec<String>,
    now: DateTime<Utc>,
) -> Result<GameId, DaemonError> {
    for p in &setup.players {
        crate::mail::compose::check_address(&p.email)?;
    }
    for m in &moderators {
        crate::mail::compose::check_address(m)?;
    }
    clock.check().map_err(DaemonError::Invalid)?;
    let (record, game) = ctx.store.prepare(setup, ctx.boards, now)?;
    let n = setup.players.len();
    let tokens = (0..n).map(|_| new_token()).collect::<Result<Vec<_>, _>>()?;
    let mut meta = GameMeta {
        tokens,
        queued: vec![crate::store::Held::default(); n],
        reported: vec![0; n],
        clock: Clock::new(clock, n),
        moderators,
        ..GameMeta::default()
    };
    meta.clock.sync(&game.awaiting(), now);
    let mut outbox = Vec::new();
    // Every moderator, the game's and the site's, gets a key for this game.
    for m in scheduler::moderators(ctx, &meta.moderators) {
        let token = new_token()?;
        let mail = moderator::welcome(ctx, &record.id, &m, &token, now)?;
        // Their welcome is the root of their thread.
        meta.moderator_welcome_ids
            .insert(m.to_ascii_lowercase(), mail.message_id.clone());
        meta.moderator_tokens.insert(m.to_ascii_lowercase(), token);
        outbox.push(mail);
    }
    let map = game.render_map();
    for s in 0..n {
        let mail = MailContext {
            welcome: true,
            ..MailContext::default()
        };
        let welcome = report::player_mail(
            ctx,
            &record.id,
            &record,
            &meta,
            &*game,
            &map,
            Seat(s as u8),
            mail,
            None,
            now,
        )?;
        // The root of the player's thread.
        meta.welcome_ids.push(welcome.message_id.clone());
        outbox.push(welcome);
    }
    let id = record.id.clone();
    ctx.store.commit(&Change {
        new_game: Some(NewGame {
            record,
            initial: game.snapshot()?,
            meta,
        }),
        outbox,
        ..Change::default()
    })?;
    Ok(id)
}

/// Orders applied from the command line (`stationmaster order`): as by
/// mail, all or nothing, and every player gets a report by mail.
pub fn apply_local(
    ctx: &Ctx<'_>,
    id: &GameId,
    seat: Seat,
    lines: &[String],
    now: DateTime<Utc>,
) -> Result<(orders::Batch, Box<dyn crate::engine::AnyGame>), LocalApplyError> {
    let loaded = ctx.store.load(id).map_err(DaemonError::from)?;
    let meta = ctx.store.meta(id).map_err(DaemonError::from)?;
    let old_fire = meta.clock.next_fire;
    let (game, meta, batch) = orders::run(&*loaded.game, &meta, seat, lines)?;
    if batch.applied.is_empty() && batch.held.is_empty() {
        return Ok((batch, game));
    }
    let mut change = Change::default();
    let mut update = game_update(
        id,
        loaded.seq,
        old_fire,
        &batch,
        &*game,
        meta,
        now,
        Some("command line"),
    )?;
    change.outbox = reports(
        ctx,
        id,
        &mut update,
        &*game,
        &batch,
        None,
        Recipients::Concerned,
        now,
    )?;
    change.update = Some(update);
    ctx.store.commit(&change).map_err(DaemonError::from)?;
    Ok((batch, game))
}

/// Why orders from the command line were not applied.
#[derive(Debug, thiserror::Error)]
pub enum LocalApplyError {
    /// A line was refused.
    #[error(transparent)]
    Rejected(#[from] BatchRejected),
    /// Something else failed.
    #[error(transparent)]
    Daemon(#[from] DaemonError),
}

/// The `source` of log entries a missed deadline caused.
pub const DEADLINE_SOURCE: &str = "deadline";

/// The log entries and state a batch leaves.
#[allow(clippy::too_many_arguments)]
fn game_update(
    id: &GameId,
    base_seq: u64,
    old_fire: Option<DateTime<Utc>>,
    batch: &orders::Batch,
    game: &dyn crate::engine::AnyGame,
    mut meta: GameMeta,
    now: DateTime<Utc>,
    source: Option<&str>,
) -> Result<GameUpdate, DaemonError> {
    let names = game.player_names();
    if source.is_none_or(|s| s != DEADLINE_SOURCE && !s.starts_with("moderator")) {
        // A player who acts is no longer missing deadlines.
        for (seat, _) in &batch.applied {
            if let Some(m) = meta.clock.misses.get_mut(seat.index()) {
                *m = 0;
            }
        }
    }
    meta.clock.sync(&game.awaiting(), now);
    let entries = batch
        .applied
        .iter()
        .enumerate()
        .map(|(k, (seat, a))| LogEntry {
            seq: base_seq + 1 + k as u64,
            turn: a.turn,
            at: now,
            seat: *seat,
            player: names.get(seat.index()).cloned().unwrap_or_default(),
            order: a.order.clone(),
            events: a.events.clone(),
            source: source.map(str::to_string),
            kind: crate::store::EntryKind::Order,
            why: None,
            prev: String::new(),
            hash: String::new(),
        })
        .collect();
    game.check_invariants().map_err(|e| StoreError::Corrupt {
        game: id.0.clone(),
        message: format!("engine invariant broken: {e}"),
    })?;
    Ok(GameUpdate {
        id: id.clone(),
        base_seq,
        entries,
        state: game.snapshot()?,
        state_version: game.state_version(),
        meta,
        old_fire,
    })
}

/// Who gets a report from [`reports`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Recipients {
    /// Every player (a moderator's act, a deadline, `resend`).
    All,
    /// Every player if the game changed; else only those with a note and
    /// the player replied to: a mail that only stores a waiting order or a
    /// standing answer tells nobody else anything.
    Concerned,
}

/// A report to every player after a change: what happened since their last
/// report, their map and hints. The `reply` (a seat, its section and the
/// threading) goes into that player's report.
#[allow(clippy::too_many_arguments)]
fn reports(
    ctx: &Ctx<'_>,
    id: &GameId,
    update: &mut GameUpdate,
    game: &dyn crate::engine::AnyGame,
    batch: &orders::Batch,
    reply: Option<(Seat, MailContext, (String, Vec<String>))>,
    to: Recipients,
    now: DateTime<Utc>,
) -> Result<Vec<crate::mail::OutMail>, DaemonError> {
    let record = ctx.store.record(id)?;
    let new_seq = update.base_seq + update.entries.len() as u64;
    let mut out = Vec::new();
    let map = game.render_map();
    let changed = !update.entries.is_empty();
    for s in 0..record.setup.players.len() {
        let seat = Seat(s as u8);
        let concerned = changed
            || batch.notes.iter().any(|(n, _)| *n == seat)
            || reply.as_ref().is_some_and(|(rs, _, _)| *rs == seat);
        if to == Recipients::Concerned && !concerned {
            continue;
        }
        let last = update.meta.reported.get(s).copied().unwrap_or(0);
        let mut entries = if last < update.base_seq {
            ctx.store.log_since(id, last)?
        } else {
            Vec::new()
        };
        entries.extend(update.entries.iter().filter(|e| e.seq > last).cloned());
        let mut mail = MailContext {
            events: report::event_lines(game, &entries, Some(seat)).map_err(StoreError::from)?,
            notes: batch
                .notes
                .iter()
                .filter(|(n, _)| *n == seat)
                .map(|(_, t)| t.clone())
                .collect(),
            ..MailContext::default()
        };
        let mut threading = None;
        if let Some((rs, asked, thread)) = &reply
            && *rs == seat
        {
            mail.reply = asked.reply.clone();
            mail.help = asked.help.clone();
            mail.history = asked.history.clone();
            threading = Some(thread.clone());
        }
        out.push(report::player_mail(
            ctx,
            id,
            &record,
            &update.meta,
            game,
            &map,
            seat,
            mail,
            threading,
            now,
        )?);
        if let Some(r) = update.meta.reported.get_mut(s) {
            *r = new_seq;
        }
    }
    // Orders that end the game: the moderators hear of it too (a finished
    // game takes no more orders, so this happens once).
    if !batch.applied.is_empty() && matches!(game.status(), crate::engine::Status::Finished(_)) {
        out.extend(report::game_over_to_moderators(
            ctx,
            id,
            &record,
            &update.meta,
            game,
            now,
        )?);
    }
    Ok(out)
}

/// True if `from` plays in or moderates game `game`.
fn takes_part(ctx: &Ctx<'_>, game: Option<&str>, from: &str) -> Result<bool, DaemonError> {
    let Some(game) = game else { return Ok(false) };
    let id = GameId(game.to_ascii_lowercase());
    if ctx.store.games_of(from)?.contains(&id) {
        return Ok(true);
    }
    match ctx.store.meta(&id) {
        Ok(meta) => Ok(moderator::is_moderator(ctx, &meta, from)),
        Err(StoreError::NoSuchGame(_)) => Ok(false),
        Err(e) => Err(e.into()),
    }
}

/// While fewer mails than this wait for the sender, a cycle makes its
/// changes durable and hands their mail over at once (see
/// [`Daemon::process`]); a mail's reports to four players keep the sender
/// busy meanwhile.
const HAND_OVER_BELOW: usize = 4;

/// A sent mail leaves the outbox at once, but durably only at the next
/// flush, made after this many sent mails (and whenever the sender runs out
/// of mail): a crash while sending can make the next run send again at most
/// this many mails, each with the same Message-ID and bytes. A flush for
/// every mail sent cost a fifth of the daemon's own work.
pub const SENT_PER_FLUSH: usize = 8;

/// How many outbox mails [`Daemon::drain`] reads at a time: a few hundred
/// KB of mail in memory, however long the queue (10,000 welcome mails read
/// whole took some 250 MB).
pub const DRAIN_BATCH: usize = 32;

/// Sends outbox mails one by one, keeping count of removals not yet made
/// durable (see [`SENT_PER_FLUSH`]).
struct Sending<'a> {
    store: &'a Store,
    outbound: &'a mut dyn Outbound,
    config: &'a Config,
    now: DateTime<Utc>,
    unflushed: usize,
    sent: usize,
    failed: usize,
}

impl<'a> Sending<'a> {
    fn new(
        store: &'a Store,
        outbound: &'a mut dyn Outbound,
        config: &'a Config,
        now: DateTime<Utc>,
    ) -> Self {
        Sending {
            store,
            outbound,
            config,
            now,
            unflushed: 0,
            sent: 0,
            failed: 0,
        }
    }

    /// Sends one mail and takes it out of the outbox. A failure is
    /// recorded for a later try with a growing delay, or the mail is given
    /// up (not transient, or `[daemon] send_attempts` reached).
    fn deliver(&mut self, key: u64, mut item: OutboxItem) -> Result<(), DaemonError> {
        match self.outbound.send(&item.mail()) {
            Ok(()) => {
                self.store.outbox_sent(key)?;
                self.sent += 1;
                self.unflushed += 1;
                if self.unflushed >= SENT_PER_FLUSH {
                    self.flush()?;
                }
            }
            Err(e) => {
                self.failed += 1;
                self.unflushed += 1;
                item.attempts += 1;
                item.last_error = Some(e.to_string());
                if !e.is_transient() || item.attempts >= self.config.daemon.send_attempts {
                    tracing::error!(to = ?item.to, error = %e, attempts = item.attempts, "mail given up");
                    self.store.outbox_retry(key, None)?;
                } else {
                    let delay = 30i64.saturating_mul(1 << item.attempts.min(7));
                    item.next_try = self.now + chrono::Duration::seconds(delay.min(3600));
                    tracing::warn!(to = ?item.to, error = %e, retry_in = delay, "mail not sent; will retry");
                    self.store.outbox_retry(key, Some(&item))?;
                }
            }
        }
        Ok(())
    }

    /// Makes the removals so far durable.
    fn flush(&mut self) -> Result<(), DaemonError> {
        if self.unflushed > 0 {
            self.store.flush()?;
            self.unflushed = 0;
        }
        Ok(())
    }
}

/// What one poll cycle did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CycleReport {
    /// Mails fetched.
    pub fetched: usize,
    /// Mails that changed a game.
    pub applied: usize,
    /// Mails skipped: already handled, auto-replies, unreadable.
    pub skipped: usize,
    /// Mails sent.
    pub sent: usize,
    /// Mails that failed to send this time (they stay in the outbox).
    pub failed: usize,
    /// Mails put in quarantine.
    pub quarantined: usize,
    /// Mails left for a later cycle: their sender sent more than
    /// `[limits] mails_per_sender_per_cycle`.
    pub deferred: usize,
    /// Games whose deadlines, reminders or absences were looked at.
    pub scheduled: usize,
}

/// The daemon: transports, store, config and templates together.
pub struct Daemon {
    store: Store,
    config: Config,
    templates: Templates,
    boards: BoardSource,
    inbound: Box<dyn Inbound>,
    outbound: Box<dyn Outbound>,
}

impl Daemon {
    /// A daemon over these parts.
    pub fn new(
        store: Store,
        config: Config,
        templates: Templates,
        boards: BoardSource,
        inbound: Box<dyn Inbound>,
        outbound: Box<dyn Outbound>,
    ) -> Daemon {
        Daemon {
            store,
            config,
            templates,
            boards,
            inbound,
            outbound,
        }
    }

    /// The store.
    pub fn store(&self) -> &Store {
        &self.store
    }

    /// What handling mail needs, borrowed from the daemon.
    pub fn ctx(&self) -> Ctx<'_> {
        Ctx {
            store: &self.store,
            config: &self.config,
            templates: &self.templates,
            boards: &self.boards,
        }
    }

    /// One cycle: fetch and handle every waiting mail, send what it causes,
    /// mark the mails done, run the scheduler, and drain the outbox. `stop`
    /// is checked between mails and between mails sent, so a signal ends
    /// the cycle after the mail in hand (the scheduler and the drain are
    /// left out); replies not yet sent wait in the outbox for the next run.
    ///
    /// Replies go out while later mails are handled: a second thread sends
    /// each mail the moment the change that made it is durable. Changes are
    /// committed one by one and made durable together (one flush) whenever
    /// the sender has next to nothing left to send, so the flushes are few
    /// while the mail server is the bottleneck, and a reply never waits
    /// long. A mail is marked done after the cycle's last flush.
    pub fn process(
        &mut self,
        now: DateTime<Utc>,
        stop: &AtomicBool,
    ) -> Result<CycleReport, DaemonError> {
        let mut report = CycleReport::default();
        let mails = self.inbound.fetch()?;
        report.fetched = mails.len();
        let mut handled_mails = Vec::new();
        // Mails that failed for the last time, and why: put aside after
        // the cycle.
        let mut poisoned: Vec<(crate::mail::RawMail, String)> = Vec::new();
        let mut per_sender: std::collections::HashMap<String, usize> =
            std::collections::HashMap::new();
        let mut touched: Vec<GameId> = Vec::new();
        let Daemon {
            store,
            config,
            templates,
            boards,
            inbound,
            outbound,
        } = self;
        let ctx = Ctx {
            store,
            config,
            templates,
            boards,
        };
        let waiting = AtomicUsize::new(0);
        // No mail, no sending thread (an idle poll stays cheap).
        let (sent, failed) = if mails.is_empty() {
            (0, 0)
        } else {
            std::thread::scope(|scope| -> Result<(usize, usize), DaemonError> {
                let (to_sender, from_handler) = mpsc::channel::<Vec<(u64, OutboxItem)>>();
                let sender = std::thread::Builder::new()
                    .name("sender".to_string())
                    .spawn_scoped(scope, || {
                        let mut sending = Sending::new(store, outbound.as_mut(), config, now);
                        'batches: for batch in from_handler {
                            for (key, item) in batch {
                                if stop.load(Ordering::SeqCst) {
                                    // Left in the outbox for the next run
                                    // (`process` does not drain after a stop).
                                    break 'batches;
                                }
                                sending.deliver(key, item)?;
                                waiting.fetch_sub(1, Ordering::SeqCst);
                            }
                            if waiting.load(Ordering::SeqCst) == 0 {
                                // Nothing more to send for now.
                                sending.flush()?;
                            }
                        }
                        sending.flush()?;
                        Ok::<_, DaemonError>((sending.sent, sending.failed))
                    })
                    .map_err(|e| {
                        DaemonError::Invalid(format!("cannot start the sending thread: {e}"))
                    })?;
                let handling = (|| -> Result<(), DaemonError> {
                    // Committed but not yet durable: not to be sent yet.
                    let mut unflushed: Vec<(u64, OutboxItem)> = Vec::new();
                    let hand_over =
                        |unflushed: &mut Vec<(u64, OutboxItem)>| -> Result<(), DaemonError> {
                            store.flush()?;
                            if !unflushed.is_empty() {
                                waiting.fetch_add(unflushed.len(), Ordering::SeqCst);
                                // A sender that stopped early has dropped its end: the
                                // mails stay in the outbox.
                                let _ = to_sender.send(std::mem::take(unflushed));
                            }
                            Ok(())
                        };
                    for raw in mails {
                        // A sender that ended early failed: stop handling, so
                        // that its error comes out now (the rest of the mail
                        // stays in the inbox).
                        if stop.load(Ordering::SeqCst) || sender.is_finished() {
                            break;
                        }
                        if let Some(why) = &raw.unreadable {
                            if quarantine::failed(store, &raw, why, now)? {
                                let why = why.clone();
                                poisoned.push((raw, why));
                            }
                            continue;
                        }
                        let parsed = crate::mail::ingest::parse(&raw.bytes);
                        // A flood from one address waits for later cycles
                        // (but a game's own players and moderators are
                        // never held back: their mails keep their order).
                        if let Ok(sender) = &parsed
                            && let Some(from) = &sender.from
                        {
                            let n = per_sender.entry(from.clone()).or_insert(0usize);
                            *n += 1;
                            if *n > config.limits.mails_per_sender_per_cycle
                                && !takes_part(&ctx, sender.game.as_deref(), from)?
                            {
                                if *n == config.limits.mails_per_sender_per_cycle + 1 {
                                    tracing::warn!(%from, "more mail from one address than [limits] mails_per_sender_per_cycle: the rest waits for the next cycles");
                                }
                                report.deferred += 1;
                                continue;
                            }
                        }
                        match dispatch::handle(&ctx, &raw.bytes, parsed, now) {
                            Ok(handled) => {
                                tracing::info!(mail = %raw.handle, outcome = %handled.summary, "mail handled");
                                if let Some(change) = &handled.change {
                                    match store.commit_unflushed(change) {
                                        Ok(items) => {
                                            unflushed.extend(items);
                                            if let Some(u) = &change.update
                                                && !touched.contains(&u.id)
                                            {
                                                touched.push(u.id.clone());
                                            }
                                        }
                                        Err(StoreError::Conflict(game)) => {
                                            // Someone changed the game meanwhile:
                                            // leave the mail for the next cycle.
                                            tracing::warn!(%game, "game changed while a mail was handled; will retry");
                                            continue;
                                        }
                                        // The storage itself: stop the cycle.
                                        Err(e @ StoreError::Db(_)) => return Err(e.into()),
                                        // This mail's own data: it fails, the
                                        // others go on.
                                        Err(e) => {
                                            let why = e.to_string();
                                            if quarantine::failed(store, &raw, &why, now)? {
                                                poisoned.push((raw, why));
                                            }
                                            continue;
                                        }
                                    }
                                }
                                if handled.changed_game {
                                    report.applied += 1;
                                } else {
                                    report.skipped += 1;
                                }
                            }
                            // Storage trouble stops the cycle; the mail stays.
                            Err(e @ DaemonError::Store(StoreError::Db(_))) => return Err(e),
                            Err(e) => {
                                // An internal error: the mail stays for
                                // another try, or goes to quarantine.
                                let why = e.to_string();
                                if quarantine::failed(store, &raw, &why, now)? {
                                    poisoned.push((raw, why));
                                }
                                continue;
                            }
                        }
                        store.mail_handled(&raw.handle)?;
                        handled_mails.push(raw.handle);
                        if !unflushed.is_empty() && waiting.load(Ordering::SeqCst) < HAND_OVER_BELOW
                        {
                            hand_over(&mut unflushed)?;
                        }
                    }
                    hand_over(&mut unflushed)
                })();
                // The sender ends when its channel closes; it is joined here
                // whatever happened, so its own error is not lost.
                drop(to_sender);
                let sending = sender.join().unwrap_or_else(|_| {
                    Err(DaemonError::Invalid(
                        "the sending thread panicked".to_string(),
                    ))
                });
                match (handling, sending) {
                    (Ok(()), sending) => sending,
                    (Err(e), Ok(_)) => Err(e),
                    (Err(e), Err(also)) => {
                        tracing::error!(error = %also, "sending failed as well");
                        Err(e)
                    }
                }
            })?
        };
        // Every change is durable now (the last hand-over flushed).
        inbound.done_all(&handled_mails)?;
        for (raw, why) in &poisoned {
            quarantine::put_aside(&self.store, self.inbound.as_mut(), raw, why, now)?;
            report.quarantined += 1;
        }
        for id in &touched {
            self.archive(id);
        }
        if stop.load(Ordering::SeqCst) {
            report.sent = sent;
            report.failed = failed;
            return Ok(report);
        }
        report.scheduled = self.schedule(now)?;
        let (more_sent, more_failed) = self.drain(now)?;
        report.sent = sent + more_sent;
        report.failed = failed + more_failed;
        Ok(report)
    }

    /// Writes the archive of a game that is over (errors are logged: the
    /// game itself is safe in the store).
    fn archive(&self, id: &GameId) {
        match archive::write(&self.store, id, &self.config.store.archive) {
            Ok(Some(dir)) => tracing::info!(game = %id, dir = %dir.display(), "game archived"),
            Ok(None) => {}
            Err(e) => tracing::error!(game = %id, error = %e, "archive not written"),
        }
    }

    /// The scheduler: every game whose next deadline, reminder or absence
    /// is due by `now` (and only those) is looked at.
    pub fn schedule(&mut self, now: DateTime<Utc>) -> Result<usize, DaemonError> {
        let due = self.store.due_games(now)?;
        let ctx = self.ctx();
        for id in &due {
            match scheduler::tick(&ctx, id, now) {
                Ok(Some(change)) => match self.store.commit(&change) {
                    Ok(()) => {
                        if let Err(e) = archive::write(&self.store, id, &self.config.store.archive)
                        {
                            tracing::error!(game = %id, error = %e, "archive not written");
                        }
                    }
                    Err(StoreError::Conflict(game)) => {
                        tracing::warn!(%game, "game changed while its deadlines were handled; next cycle");
                    }
                    Err(e) => return Err(e.into()),
                },
                Ok(None) => {}
                Err(e) => tracing::error!(game = %id, error = %e, "deadlines could not be handled"),
            }
        }
        Ok(due.len())
    }

    /// Sends what the outbox holds that is due; failures are retried later
    /// with growing delays, and given up after `[daemon] send_attempts`.
    /// The outbox is read [`DRAIN_BATCH`] mails at a time, so memory stays
    /// flat however many mails wait.
    pub fn drain(&mut self, now: DateTime<Utc>) -> Result<(usize, usize), DaemonError> {
        let mut sending = Sending::new(&self.store, self.outbound.as_mut(), &self.config, now);
        let mut after = None;
        loop {
            let batch = self.store.outbox_due(now, after, DRAIN_BATCH)?;
            let Some((last, _)) = batch.last() else { break };
            after = Some(*last);
            for (key, item) in batch {
                sending.deliver(key, item)?;
            }
        }
        sending.flush()?;
        Ok((sending.sent, sending.failed))
    }

    /// Polls until `stop` is set: process, then sleep `[daemon]
    /// poll_seconds` (waking early on `stop`). `clock` gives the time.
    pub fn run(
        &mut self,
        stop: &AtomicBool,
        clock: &dyn Fn() -> DateTime<Utc>,
    ) -> Result<(), DaemonError> {
        self.run_with(stop, clock, &mut |_, pause| std::thread::sleep(pause))
    }

    /// As [`Daemon::run`], but between cycles the daemon waits in `idle`,
    /// given at most a tenth of a second at a time (it may return sooner):
    /// the command line's requests are run there.
    pub fn run_with(
        &mut self,
        stop: &AtomicBool,
        clock: &dyn Fn() -> DateTime<Utc>,
        idle: &mut dyn FnMut(&Daemon, Duration),
    ) -> Result<(), DaemonError> {
        while !stop.load(Ordering::SeqCst) {
            match self.process(clock(), stop) {
                Ok(r) => {
                    if r.fetched > 0 || r.sent > 0 || r.failed > 0 {
                        tracing::info!(?r, "cycle");
                    }
                }
                Err(DaemonError::Transport(e)) if e.is_transient() => {
                    tracing::warn!(error = %e, "mail server unreachable; trying again next cycle");
                }
                Err(e) => return Err(e),
            }
            let until =
                std::time::Instant::now() + Duration::from_secs(self.config.daemon.poll_seconds);
            while !stop.load(Ordering::SeqCst) {
                let left = until.saturating_duration_since(std::time::Instant::now());
                if left.is_zero() {
                    break;
                }
                idle(self, left.min(Duration::from_millis(100)));
            }
        }
        tracing::info!("stopped");
        Ok(())
    }
}
