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

pub mod commands;
pub mod demo;
mod dispatch;
pub mod socket;

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, mpsc};
use std::time::Duration;

use chrono::{DateTime, Utc};

use crate::config::Config;
use crate::mail::ingest::Incoming;
use crate::mail::templates::Templates;
use crate::mail::{Inbound, Outbound, RawMail};
use crate::registry::BoardSource;
use crate::store::{GameId, OutboxItem, Store, StoreError};

pub use crate::service::{
    Ctx, LocalApplyError, ServiceError as DaemonError, apply_local, archive, create_game,
    moderator, orders, quarantine, report, scheduler, web,
};

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

/// Mails a cycle holds for the sender at most before it makes its changes
/// durable and hands them over all the same: a batch holds its mails whole
/// (a report with its picture is some 90 KB), and a handler faster than
/// the sender held a whole cycle's: 400 mails, the storage bench's peak
/// memory 70.5 MiB against 44.0 with these bounds (32 mails and 2 batches:
/// 65.5).
const HAND_OVER_AT_MOST: usize = 8;

/// Batches handed over that may wait for the sender before the handler
/// waits too.
const BATCHES_WAITING: usize = 1;

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
    /// The way out failed (the mail server cannot be reached, the
    /// outbox's folder cannot be written): the other mails wait in the
    /// outbox for the next cycle, untried, instead of each waiting out the
    /// server's timeout in turn.
    down: bool,
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
            down: false,
        }
    }

    /// Sends one mail and takes it out of the outbox. A failure is
    /// recorded for a later try with a growing delay, or the mail is given
    /// up (not transient, or `[daemon] send_attempts` reached).
    fn deliver(&mut self, key: u64, mut item: OutboxItem) -> Result<(), DaemonError> {
        if self.down {
            return Ok(());
        }
        match item.lend_mail(|mail| self.outbound.send(mail)) {
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
                if matches!(
                    e,
                    crate::mail::TransportError::Connect { .. }
                        | crate::mail::TransportError::Io { .. }
                ) {
                    self.down = true;
                    tracing::warn!(error = %e, "mail cannot be sent now: the rest waits in the outbox for the next cycle");
                }
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

/// Rung by whatever brings the daemon work between its cycles (the IMAP
/// watcher when mail arrives, the command socket when the command line
/// asks something), so that its wait ends at once rather than at its next
/// look. A ring is kept until the wait that takes it.
#[derive(Clone, Debug, Default)]
pub struct Doorbell(Arc<(Mutex<bool>, Condvar)>);

impl Doorbell {
    /// Ends the current or the next [`Doorbell::wait`].
    pub fn ring(&self) {
        let (rung, bell) = &*self.0;
        *rung
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = true;
        bell.notify_all();
    }

    /// Waits until the bell rings or `timeout` passes; true if it rang.
    pub fn wait(&self, timeout: Duration) -> bool {
        let (rung, bell) = &*self.0;
        let guard = rung
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let (mut guard, _) = bell
            .wait_timeout_while(guard, timeout, |rung| !*rung)
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        std::mem::take(&mut *guard)
    }
}

/// How long the daemon's wait between cycles goes at most without looking
/// whether it is to stop (a signal does not ring the [`Doorbell`]).
const STOP_CHECK: Duration = Duration::from_millis(100);

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

impl CycleReport {
    /// What the cycle did, in the sentences `stationmaster process`
    /// prints.
    pub fn summary(&self) -> String {
        format!(
            "{} mail(s) read: {} changed a game, {} answered without a change or ignored; {} mail(s) sent, {} waiting to be sent again.\n{}",
            self.fetched,
            self.applied,
            self.skipped,
            self.sent,
            self.failed,
            if self.quarantined > 0 {
                format!(
                    "{} mail(s) could not be handled and were put in quarantine (`stationmaster quarantine`).\n",
                    self.quarantined
                )
            } else {
                String::new()
            }
        )
    }
}

/// The daemon: transports, store, config and templates together.
pub struct Daemon {
    store: Store,
    config: Config,
    templates: Templates,
    boards: BoardSource,
    inbound: Box<dyn Inbound>,
    outbound: Box<dyn Outbound>,
    doorbell: Doorbell,
    /// The web pages have been brought up to date since the daemon
    /// started ([`web::catch_up`]).
    web_caught_up: bool,
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
            doorbell: Doorbell::default(),
            web_caught_up: false,
        }
    }

    /// The bell that ends the wait of [`Daemon::run_with`] between cycles:
    /// ring it after handing the daemon work for its `idle` (see
    /// [`socket`]).
    pub fn doorbell(&self) -> Doorbell {
        self.doorbell.clone()
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
        let mails = self.inbound.fetch()?;
        let mut intake = Intake::new(mails.len());
        // No mail, no sending thread (an idle poll stays cheap).
        let (sent, failed, down) = if mails.is_empty() {
            (0, 0, false)
        } else {
            self.handle_and_send(mails, &mut intake, now, stop)?
        };
        let Intake {
            mut report,
            done,
            poisoned,
            ended,
            changed,
            ..
        } = intake;
        // Every change is durable now (the last hand-over flushed).
        self.inbound.done_all(&done)?;
        for (raw, why) in &poisoned {
            quarantine::put_aside(&self.store, self.inbound.as_mut(), raw, why, now)?;
            report.quarantined += 1;
        }
        for id in &ended {
            self.archive(id);
        }
        self.web(&changed);
        if stop.load(Ordering::SeqCst) {
            report.sent = sent;
            report.failed = failed;
            return Ok(report);
        }
        self.key_site_moderators(now)?;
        report.scheduled = self.schedule(now)?;
        // Mail that could not go out waits for the next cycle.
        let (more_sent, more_failed) = match down {
            true => (0, 0),
            false => self.drain_until(now, stop)?,
        };
        report.sent = sent + more_sent;
        report.failed = failed + more_failed;
        Ok(report)
    }

    /// The mail of a cycle that fetched some (see [`Daemon::process`]):
    /// handled here, what it causes sent from a second thread as soon as
    /// it is durable. What was sent, what failed to go, and whether the
    /// way out is down.
    fn handle_and_send(
        &mut self,
        mails: Vec<RawMail>,
        intake: &mut Intake,
        now: DateTime<Utc>,
        stop: &AtomicBool,
    ) -> Result<Sent, DaemonError> {
        let Daemon {
            store,
            config,
            templates,
            boards,
            outbound,
            ..
        } = self;
        let ctx = Ctx {
            store,
            config,
            templates,
            boards,
        };
        let waiting = AtomicUsize::new(0);
        let store: &Store = store;
        std::thread::scope(|scope| -> Result<Sent, DaemonError> {
            // One batch at most waits for the sender: the handler waits
            // for it beyond that (a batch holds its mails whole).
            let (to_sender, from_handler) =
                mpsc::sync_channel::<Vec<(u64, OutboxItem)>>(BATCHES_WAITING);
            let sender = std::thread::Builder::new()
                .name("sender".to_string())
                .spawn_scoped(scope, || {
                    let sending = Sending::new(store, outbound.as_mut(), config, now);
                    send_batches(sending, from_handler, &waiting, stop)
                })
                .map_err(|e| {
                    DaemonError::Invalid(format!("cannot start the sending thread: {e}"))
                })?;
            let hand = HandOver {
                store,
                to_sender,
                waiting: &waiting,
            };
            let handling = intake.handle_all(&ctx, mails, now, stop, &sender, &hand);
            // The sender ends when its channel closes; it is joined here
            // whatever happened, so its own error is not lost.
            drop(hand);
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
        })
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

    /// The web pages of the games `changed` by this cycle (once the
    /// changes are durable), and the index; at the daemon's first cycle,
    /// every page that is missing or behind its game too (errors are
    /// logged: the games themselves are safe in the store).
    fn web(&mut self, changed: &[GameId]) {
        if !self.web_caught_up {
            self.web_caught_up = true;
            match web::catch_up(&self.ctx()) {
                Ok(0) => {}
                Ok(n) => tracing::info!(pages = n, "web pages brought up to date"),
                Err(e) => tracing::error!(error = %e, "web pages not brought up to date"),
            }
        }
        web::refresh(&self.ctx(), changed);
    }

    /// Keys for the site's moderators (`[site] moderators`) in every game
    /// that runs without one: looked at only when the list holds an
    /// address not looked for before (an operator added a moderator), so
    /// a cycle pays nothing otherwise. A game that changed meanwhile is
    /// looked at again next cycle.
    pub fn key_site_moderators(&mut self, now: DateTime<Utc>) -> Result<usize, DaemonError> {
        let mut wanted: Vec<String> = self
            .config
            .site
            .moderators
            .iter()
            .map(|m| m.trim().to_ascii_lowercase())
            .collect();
        wanted.sort();
        wanted.dedup();
        let keyed = self.store.site_moderators_keyed()?;
        let new: Vec<&String> = wanted.iter().filter(|m| !keyed.contains(m)).collect();
        if new.is_empty() {
            if keyed != wanted {
                // One taken off the list: forget it, so that it is looked
                // for again if it comes back.
                self.store.set_site_moderators_keyed(&wanted)?;
            }
            return Ok(0);
        }
        let ctx = self.ctx();
        let mut sent = 0;
        let mut done = true;
        for id in ctx.store.ids()? {
            for address in &new {
                match moderator::key_site_moderator(&ctx, &id, address, now) {
                    Ok(Some(change)) => match ctx.store.commit(&change) {
                        Ok(()) => sent += 1,
                        Err(StoreError::Conflict(game)) => {
                            tracing::warn!(%game, "game changed while a moderator's key was made; next cycle");
                            done = false;
                        }
                        Err(e) => return Err(e.into()),
                    },
                    Ok(None) => {}
                    // Logged once: the game is not looked at again for
                    // this address (a cycle must not read every game
                    // again for one that cannot be read).
                    Err(e) => {
                        tracing::error!(game = %id, moderator = %address, error = %e, "no key made for a moderator of the site");
                    }
                }
            }
        }
        if done {
            self.store.set_site_moderators_keyed(&wanted)?;
        }
        if sent > 0 {
            tracing::info!(keys = sent, "keys sent to moderators of the site");
        }
        Ok(sent)
    }

    /// The scheduler: every game whose next deadline, reminder or absence
    /// is due by `now` (and only those) is looked at.
    pub fn schedule(&mut self, now: DateTime<Utc>) -> Result<usize, DaemonError> {
        let due = self.store.due_games(now)?;
        let ctx = self.ctx();
        let mut changed = Vec::new();
        for id in &due {
            match scheduler::tick(&ctx, id, now) {
                Ok(Some(change)) => match self.store.commit(&change) {
                    Ok(()) => {
                        if change.update.as_ref().is_some_and(|u| u.over) {
                            self.archive(id);
                        }
                        changed.push(id.clone());
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
        web::refresh(&ctx, &changed);
        Ok(due.len())
    }

    /// Sends what the outbox holds that is due; failures are retried later
    /// with growing delays, and given up after `[daemon] send_attempts`.
    /// The outbox is read [`DRAIN_BATCH`] mails at a time, so memory stays
    /// flat however many mails wait.
    pub fn drain(&mut self, now: DateTime<Utc>) -> Result<(usize, usize), DaemonError> {
        self.drain_until(now, &AtomicBool::new(false))
    }

    /// [`Daemon::drain`], ended after the mail in hand once `stop` is set
    /// (a signal): the rest waits in the outbox for the next run, instead
    /// of holding up the stop by every mail's send (each up to the mail
    /// server's timeout, while it does not answer).
    pub fn drain_until(
        &mut self,
        now: DateTime<Utc>,
        stop: &AtomicBool,
    ) -> Result<(usize, usize), DaemonError> {
        let mut sending = Sending::new(&self.store, self.outbound.as_mut(), &self.config, now);
        let mut after = None;
        'batches: loop {
            let batch = self.store.outbox_due(now, after, DRAIN_BATCH)?;
            let Some((last, _)) = batch.last() else { break };
            after = Some(*last);
            for (key, item) in batch {
                if stop.load(Ordering::SeqCst) {
                    break 'batches;
                }
                sending.deliver(key, item)?;
            }
        }
        sending.flush()?;
        Ok((sending.sent, sending.failed))
    }

    /// Runs until `stop` is set: process, then wait for the next mail (see
    /// [`Daemon::run_with`]). `clock` gives the time.
    pub fn run(
        &mut self,
        stop: &AtomicBool,
        clock: &dyn Fn() -> DateTime<Utc>,
    ) -> Result<(), DaemonError> {
        self.run_with(stop, clock, &mut |_| {})
    }

    /// As [`Daemon::run`], and between cycles the daemon calls `idle`
    /// each time its [`Doorbell`] rings, and at least every tenth of a
    /// second: the command line's requests are run there (`idle` must not
    /// wait for them; whoever hands it one rings the bell).
    ///
    /// A cycle that handled mail is followed at once by another (more may
    /// have come meanwhile, or been left for the next fetch). Otherwise the
    /// daemon waits `[daemon] poll_seconds` before it looks again, unless
    /// the inbound transport has a [`Watch`](crate::mail::Watch) (IMAP
    /// IDLE): that runs on a thread of its own and ends the wait the moment
    /// a new mail arrives (it rings the doorbell). Polling stays as the
    /// fallback: the deadlines are looked at every `poll_seconds` either
    /// way.
    pub fn run_with(
        &mut self,
        stop: &AtomicBool,
        clock: &dyn Fn() -> DateTime<Utc>,
        idle: &mut dyn FnMut(&Daemon),
    ) -> Result<(), DaemonError> {
        let (wake, woken) = mpsc::channel::<()>();
        let quit = std::sync::Arc::new(AtomicBool::new(false));
        if let Some(watch) = self.inbound.watcher() {
            spawn_watcher(
                watch,
                wake,
                self.doorbell.clone(),
                std::sync::Arc::clone(&quit),
            );
        }
        // The watcher thread ends soon after this (at its next wake-up).
        struct Quit(std::sync::Arc<AtomicBool>);
        impl Drop for Quit {
            fn drop(&mut self) {
                self.0.store(true, Ordering::SeqCst);
            }
        }
        let _quit = Quit(quit);
        // Whether a cycle has gone through: a refusal before it is a
        // mistake in the config, and ends `run`; one after it (a mailbox
        // deleted, a password changed while it runs) is the server's
        // state, logged each cycle until it is put right.
        let mut worked = false;
        while !stop.load(Ordering::SeqCst) {
            let mut again = false;
            match self.process(clock(), stop) {
                Ok(r) => {
                    worked = true;
                    if r.fetched > 0 || r.sent > 0 || r.failed > 0 {
                        tracing::info!(
                            fetched = r.fetched,
                            applied = r.applied,
                            skipped = r.skipped,
                            sent = r.sent,
                            failed = r.failed,
                            quarantined = r.quarantined,
                            deferred = r.deferred,
                            "cycle"
                        );
                    }
                    again = r.applied + r.skipped + r.quarantined > 0;
                }
                Err(DaemonError::Transport(e @ crate::mail::TransportError::Io { .. })) => {
                    // A Maildir or `.eml` folder: no server to reach.
                    tracing::warn!(error = %e, "mail folder cannot be used; trying again next cycle");
                }
                Err(DaemonError::Transport(e)) if e.is_transient() => {
                    tracing::warn!(error = %e, "mail server unreachable; trying again next cycle");
                }
                Err(DaemonError::Transport(e)) if worked => {
                    tracing::error!(error = %e, "the mail server refuses what worked before; trying again next cycle");
                }
                Err(e) => return Err(e),
            }
            if again {
                // Let a command-line request in between two busy cycles.
                idle(self);
                continue;
            }
            let until =
                std::time::Instant::now() + Duration::from_secs(self.config.daemon.poll_seconds);
            while !stop.load(Ordering::SeqCst) {
                let left = until.saturating_duration_since(std::time::Instant::now());
                if left.is_zero() {
                    break;
                }
                // Rung by the watcher (new mail) or the command socket (a
                // request for `idle`); what rang is looked at either way.
                self.doorbell.wait(left.min(STOP_CHECK));
                idle(self);
                if woken.try_recv().is_ok() {
                    while woken.try_recv().is_ok() {}
                    break;
                }
            }
        }
        tracing::info!("stopped");
        Ok(())
    }
}

/// What the sender's thread reports at its end: mails sent, mails that
/// failed to go, and whether the way out is down.
type Sent = (usize, usize, bool);

/// The sender's side of a cycle: sends each batch the handler hands over,
/// and makes the removals from the outbox durable whenever nothing more
/// waits to be sent.
fn send_batches(
    mut sending: Sending<'_>,
    batches: mpsc::Receiver<Vec<(u64, OutboxItem)>>,
    waiting: &AtomicUsize,
    stop: &AtomicBool,
) -> Result<Sent, DaemonError> {
    'batches: for batch in batches {
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
    Ok((sending.sent, sending.failed, sending.down))
}

/// The handler's end of the way to the sender's thread.
struct HandOver<'a> {
    store: &'a Store,
    to_sender: mpsc::SyncSender<Vec<(u64, OutboxItem)>>,
    /// Mails handed over and not yet sent.
    waiting: &'a AtomicUsize,
}

impl HandOver<'_> {
    /// Makes every change committed so far durable, and hands the mails
    /// they hold (`unflushed`) to the sender.
    fn hand_over(&self, unflushed: &mut Vec<(u64, OutboxItem)>) -> Result<(), DaemonError> {
        self.store.flush()?;
        if !unflushed.is_empty() {
            self.waiting.fetch_add(unflushed.len(), Ordering::SeqCst);
            // A sender that stopped early has dropped its end: the
            // mails stay in the outbox.
            let _ = self.to_sender.send(std::mem::take(unflushed));
        }
        Ok(())
    }
}

/// The handler's side of a cycle: what its mails came to, and what is left
/// to do with them once every change is durable.
struct Intake {
    /// The cycle's counts so far.
    report: CycleReport,
    /// Mails from each address so far.
    per_sender: HashMap<String, usize>,
    /// Mails handled: marked done after the cycle's last flush.
    done: Vec<String>,
    /// Mails that failed for the last time, and why: put aside after the
    /// cycle.
    poisoned: Vec<(RawMail, String)>,
    /// Games a mail of this cycle ended: their archives are due.
    ended: Vec<GameId>,
    /// Games a mail of this cycle changed or started: their web pages are
    /// due.
    changed: Vec<GameId>,
}

impl Intake {
    /// A cycle's, before its `fetched` mails are handled.
    fn new(fetched: usize) -> Intake {
        Intake {
            report: CycleReport {
                fetched,
                ..CycleReport::default()
            },
            per_sender: HashMap::new(),
            done: Vec::new(),
            poisoned: Vec::new(),
            ended: Vec::new(),
            changed: Vec::new(),
        }
    }

    /// Handles `mails` in turn, handing their changes' mail over whenever
    /// the sender runs short or enough waits; until `stop`, or until the
    /// `sender` ended early (it failed: its error comes out now, and the
    /// rest of the mail stays in the inbox).
    fn handle_all(
        &mut self,
        ctx: &Ctx<'_>,
        mails: Vec<RawMail>,
        now: DateTime<Utc>,
        stop: &AtomicBool,
        sender: &std::thread::ScopedJoinHandle<'_, Result<Sent, DaemonError>>,
        hand: &HandOver<'_>,
    ) -> Result<(), DaemonError> {
        // Committed but not yet durable: not to be sent yet.
        let mut unflushed: Vec<(u64, OutboxItem)> = Vec::new();
        for raw in mails {
            if stop.load(Ordering::SeqCst) || sender.is_finished() {
                break;
            }
            if self.handle(ctx, raw, now, &mut unflushed)?
                && !unflushed.is_empty()
                && (hand.waiting.load(Ordering::SeqCst) < HAND_OVER_BELOW
                    || unflushed.len() >= HAND_OVER_AT_MOST)
            {
                hand.hand_over(&mut unflushed)?;
            }
        }
        hand.hand_over(&mut unflushed)
    }

    /// Handles one mail and commits what it caused, its mails kept in
    /// `unflushed`: true if it is done, false if it waits for a later
    /// cycle or failed.
    fn handle(
        &mut self,
        ctx: &Ctx<'_>,
        raw: RawMail,
        now: DateTime<Utc>,
        unflushed: &mut Vec<(u64, OutboxItem)>,
    ) -> Result<bool, DaemonError> {
        if let Some(why) = raw.unreadable.clone() {
            self.failed(ctx.store, raw, why, now)?;
            return Ok(false);
        }
        let parsed = crate::mail::ingest::parse(&raw.bytes);
        if let Ok(mail) = &parsed
            && self.held_back(ctx, mail)?
        {
            return Ok(false);
        }
        let handled = match dispatch::handle(ctx, &raw.bytes, parsed, now) {
            Ok(handled) => handled,
            // Storage trouble stops the cycle; the mail stays.
            Err(e @ DaemonError::Store(StoreError::Db(_))) => return Err(e),
            Err(e) => {
                // An internal error: the mail stays for another try, or
                // goes to quarantine.
                self.failed(ctx.store, raw, e.to_string(), now)?;
                return Ok(false);
            }
        };
        tracing::info!(mail = %raw.handle, outcome = %handled.summary, "mail handled");
        if let Some(change) = &handled.change {
            match ctx.store.commit_unflushed(change) {
                Ok(items) => {
                    unflushed.extend(items);
                    if let Some(u) = &change.update
                        && u.over
                        && !self.ended.contains(&u.id)
                    {
                        self.ended.push(u.id.clone());
                    }
                    let made = change.new_game.as_ref().map(|g| &g.record.id);
                    for id in change
                        .update
                        .as_ref()
                        .map(|u| &u.id)
                        .into_iter()
                        .chain(made)
                    {
                        if !self.changed.contains(id) {
                            self.changed.push(id.clone());
                        }
                    }
                }
                Err(StoreError::Conflict(game)) => {
                    // Someone changed the game meanwhile: leave the mail
                    // for the next cycle.
                    tracing::warn!(%game, "game changed while a mail was handled; will retry");
                    return Ok(false);
                }
                // The storage itself: stop the cycle.
                Err(e @ StoreError::Db(_)) => return Err(e.into()),
                // This mail's own data: it fails, the others go on.
                Err(e) => {
                    self.failed(ctx.store, raw, e.to_string(), now)?;
                    return Ok(false);
                }
            }
        }
        if handled.changed_game {
            self.report.applied += 1;
        } else {
            self.report.skipped += 1;
        }
        ctx.store.mail_handled(&raw.handle)?;
        self.done.push(raw.handle);
        Ok(true)
    }

    /// A flood from one address waits for later cycles (but a game's own
    /// players and moderators are never held back: their mails keep their
    /// order): true if `mail` waits.
    fn held_back(&mut self, ctx: &Ctx<'_>, mail: &Incoming) -> Result<bool, DaemonError> {
        let Some(from) = &mail.from else {
            return Ok(false);
        };
        let limit = ctx.config.limits.mails_per_sender_per_cycle;
        let n = self.per_sender.entry(from.clone()).or_insert(0);
        *n += 1;
        if *n <= limit || takes_part(ctx, mail.game.as_deref(), from)? {
            return Ok(false);
        }
        if *n == limit + 1 {
            tracing::warn!(%from, "more mail from one address than [limits] mails_per_sender_per_cycle: the rest waits for the next cycles");
        }
        self.report.deferred += 1;
        Ok(true)
    }

    /// Mail `raw` failed, for `why`: it stays for another try, or, the
    /// last time, is put aside after the cycle.
    fn failed(
        &mut self,
        store: &Store,
        raw: RawMail,
        why: String,
        now: DateTime<Utc>,
    ) -> Result<(), DaemonError> {
        if quarantine::failed(store, &raw, &why, now)? {
            self.poisoned.push((raw, why));
        }
        Ok(())
    }
}

/// How long the watcher thread waits after its connection failed before it
/// tries again, the first time; the wait doubles up to [`WATCH_RETRY_MAX`]
/// while it keeps failing (the daemon polls meanwhile).
const WATCH_RETRY: Duration = Duration::from_secs(1);
const WATCH_RETRY_MAX: Duration = Duration::from_secs(60);

/// Runs `watch` on a thread of its own until `quit`, sending on `wake` and
/// ringing `doorbell` each time new mail may have arrived. Errors are
/// logged and the watch tried again later; if the thread cannot start, the
/// daemon just polls.
fn spawn_watcher(
    mut watch: Box<dyn crate::mail::Watch>,
    wake: mpsc::Sender<()>,
    doorbell: Doorbell,
    quit: std::sync::Arc<AtomicBool>,
) {
    let started = std::thread::Builder::new()
        .name("watcher".to_string())
        .spawn(move || {
            let mut failing = false;
            let mut retry = WATCH_RETRY;
            while !quit.load(Ordering::SeqCst) {
                match watch.wait(crate::mail::transport::IDLE_REFRESH) {
                    Ok(true) => {
                        if wake.send(()).is_err() {
                            break;
                        }
                        doorbell.ring();
                    }
                    Ok(false) => {}
                    Err(e) => {
                        if !failing {
                            tracing::warn!(error = %e, "cannot watch the mailbox for new mail; polling until it works again");
                        }
                        failing = true;
                        let until = std::time::Instant::now() + retry;
                        retry = (retry * 2).min(WATCH_RETRY_MAX);
                        while !quit.load(Ordering::SeqCst) && std::time::Instant::now() < until {
                            std::thread::sleep(Duration::from_millis(200));
                        }
                        continue;
                    }
                }
                if failing {
                    tracing::info!("watching the mailbox for new mail again");
                    failing = false;
                    retry = WATCH_RETRY;
                }
            }
        });
    if let Err(e) = started {
        tracing::warn!(error = %e, "cannot start the watcher thread; polling");
    }
}
