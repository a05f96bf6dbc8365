//! The scheduler: for each game whose time has come (an index in the store,
//! so a cycle does no work for the others), send reminders, deal with missed
//! deadlines by the game's policy, warn players whose absence ends, and plan
//! the next look.

use chrono::{DateTime, Utc};

use super::pipeline::{self, Stored};
use super::report::{self, MailContext};
use super::{Ctx, ServiceError, bots, orders};
use crate::clock::{ClockSettings, Policy, Wait};
use crate::engine::{Actor, AnyGame, SKIP_ORDER, Seat, WaitKind};
use crate::mail::OutMail;
use crate::store::{Change, EntryKind, GameId, GameMeta, GameRecord, LogEntry};

/// A notice to the moderators of a game (`game_moderators` and the
/// site's), in each moderator's thread of the game: `subject` opens the
/// text, since the thread's subject stays the same.
pub fn to_moderators(
    ctx: &Ctx<'_>,
    id: &GameId,
    game_moderators: &[String],
    subject: &str,
    text: &str,
    now: DateTime<Utc>,
) -> Result<Vec<OutMail>, ServiceError> {
    let meta = ctx.store.meta(id)?;
    let stop = if subject.ends_with(['.', '?', '!']) {
        ""
    } else {
        "."
    };
    let text = format!(
        "{subject}{stop}\n\n{text}\n\n-- \nStationmaster, for {id}. Moderator commands: reply to this mail, or `stationmaster mod {id} …`.\n"
    );
    let html = report::notice_html(ctx, &text, None)?;
    let mail = report::ModeratorMail {
        what: "mod",
        text: &text,
        html: &html,
        picture: None,
        attachment: None,
    };
    report::to_each_moderator(ctx, id, &meta, game_moderators, &mail, now)
}

/// `1 deadline`, `3 deadlines`.
fn deadlines(n: u32) -> String {
    if n == 1 {
        format!("{n} deadline")
    } else {
        format!("{n} deadlines")
    }
}

/// Looks at one game at `now`; the change to commit, if any.
pub fn tick(
    ctx: &Ctx<'_>,
    id: &GameId,
    now: DateTime<Utc>,
) -> Result<Option<Change>, ServiceError> {
    // A game forming by mail has only its expiry.
    if ctx.store.forming(id)?.is_some() {
        return super::site::expire(ctx, id, now);
    }
    run(ctx, id, now, None)
}

/// A moderator's `skip`: every awaited player is treated as if their
/// deadline had passed now, and a `wait` policy counts as `skip`.
pub fn skip_awaited(
    ctx: &Ctx<'_>,
    id: &GameId,
    moderator: &str,
    now: DateTime<Utc>,
) -> Result<Change, ServiceError> {
    skip_awaited_because(ctx, id, moderator, None, now)
}

/// [`skip_awaited`], with the moderator's reason (written into the log
/// beside each player passed over).
pub fn skip_awaited_because(
    ctx: &Ctx<'_>,
    id: &GameId,
    moderator: &str,
    why: Option<&str>,
    now: DateTime<Utc>,
) -> Result<Change, ServiceError> {
    run(ctx, id, now, Some((moderator, why))).map(|c| c.unwrap_or_default())
}

/// Why `seat` was passed over (or, under `wait`, waited for), for the log
/// and the reports (after the player's name): a missed deadline and the
/// policy that applied, or a moderator's skip. Kept in the log and read
/// later, so `when` is the deadline's time alone, never "60 minutes ago".
fn passed_over(
    game: &str,
    kind: WaitKind,
    policy: Policy,
    forced_by: Option<(&str, Option<&str>)>,
    when: &str,
    away_until: Option<String>,
) -> String {
    let entry = crate::registry::find(game).ok();
    let what = match (kind, policy) {
        (WaitKind::Turn, Policy::Wait) => {
            "the game waits for them, and the moderators were told".to_string()
        }
        (WaitKind::Turn, Policy::Default) => entry
            .map_or("the game's default order is given for them", |e| {
                e.default_turn
            })
            .to_string(),
        (_, Policy::Bot) => "the bot played for them".to_string(),
        (WaitKind::Turn, _) => entry
            .map_or("the rest of the turn is skipped", |e| e.skip_turn)
            .to_string(),
        (kind, _) => entry
            .map_or("it is passed over", |e| e.wait(kind).missed)
            .to_string(),
    };
    match forced_by {
        Some((m, why)) => format!(
            "was skipped by moderator {m}{}: {what}",
            why.map(|w| format!(" ({w})")).unwrap_or_default()
        ),
        None => {
            let held = away_until
                .map(|to| format!(", after their absence until {to}"))
                .unwrap_or_default();
            let under = match kind {
                WaitKind::Turn => format!("under the game's `{}` policy ", policy.name()),
                _ => String::new(),
            };
            format!(
                "missed the deadline of their {} ({when}{held}); {under}{what}",
                crate::registry::wait_name(game, kind)
            )
        }
    }
}

fn run(
    ctx: &Ctx<'_>,
    id: &GameId,
    now: DateTime<Utc>,
    forced_by: Option<(&str, Option<&str>)>,
) -> Result<Option<Change>, ServiceError> {
    let stored = Stored::load(ctx, id)?;
    if forced_by.is_none() && (stored.meta.paused.is_some() || stored.meta.aborted) {
        return Ok(None);
    }
    let mut look = Look::new(ctx, id, &stored, forced_by, now);
    // Missed deadlines, one at a time: each may change who is awaited.
    for _ in 0..64 {
        let Some(wait) = look.meta.clock.missed(now).into_iter().next() else {
            break;
        };
        look.missed(&wait)?;
    }
    let reminders = look.remind();
    let record = &stored.loaded.record;
    let mails = notes_alone(ctx, id, record, &look.meta, &*look.game, reminders, now)?;
    look.outbox.extend(mails);
    look.absences();
    look.meta.clock.plan();
    look.write().map(Some)
}

/// One look of the clock's at a game, or a moderator's `skip`: what it
/// does, gathered until [`Look::write`] writes it.
struct Look<'a, 'c> {
    ctx: &'a Ctx<'c>,
    id: &'a GameId,
    stored: &'a Stored,
    /// A moderator's skip (who, why); None: the clock's own look.
    forced_by: Option<(&'a str, Option<&'a str>)>,
    now: DateTime<Utc>,
    /// Every player's name, in seat order.
    names: Vec<String>,
    /// The deadline settings.
    settings: ClockSettings,
    /// The game as the look leaves it.
    game: Box<dyn AnyGame>,
    /// Its bookkeeping.
    meta: GameMeta,
    /// The orders given for players passed over, and the waiting orders
    /// whose moment they brought.
    batch: orders::Batch,
    /// Mails before the reports: to the moderators.
    outbox: Vec<OutMail>,
    /// What each player is told.
    to_players: Vec<(Seat, String)>,
    /// What the clock did besides orders, for the turn log.
    acts: Vec<(Seat, String)>,
    /// Orders given for players passed over: (first, end) in
    /// `batch.applied`, and why, for their log entries.
    reasons: Vec<(usize, usize, String)>,
    /// The seats whose deadline passed (not a moderator's skip), one a
    /// deadline, for the players' records.
    missed: Vec<Seat>,
}

impl<'a, 'c> Look<'a, 'c> {
    fn new(
        ctx: &'a Ctx<'c>,
        id: &'a GameId,
        stored: &'a Stored,
        forced_by: Option<(&'a str, Option<&'a str>)>,
        now: DateTime<Utc>,
    ) -> Look<'a, 'c> {
        let mut meta = stored.meta.clone();
        if forced_by.is_some() {
            for w in meta.clock.waits.iter_mut() {
                w.due = now;
                w.late = false;
            }
        }
        Look {
            ctx,
            id,
            stored,
            forced_by,
            now,
            names: stored.loaded.game.player_names(),
            settings: meta.clock.settings.clone(),
            game: stored.loaded.game.clone_box(),
            meta,
            batch: orders::Batch::default(),
            outbox: Vec::new(),
            to_players: Vec::new(),
            acts: Vec::new(),
            reasons: Vec::new(),
            missed: Vec::new(),
        }
    }

    fn kind(&self) -> &str {
        &self.stored.loaded.record.setup.kind
    }

    fn name(&self, seat: Seat) -> String {
        self.names.get(seat.index()).cloned().unwrap_or_default()
    }

    /// The deadline `wait` has passed (or a moderator skips it): the
    /// game's policy applies, and the waiting orders it brings on.
    fn missed(&mut self, wait: &Wait) -> Result<(), ServiceError> {
        let seat = wait.seat;
        let settings = &self.settings;
        let away_until = self
            .meta
            .clock
            .away
            .get(seat.index())
            .and_then(|a| a.as_ref())
            .filter(|a| a.from <= wait.due)
            .map(|a| settings.when(a.to));
        if self.forced_by.is_none() {
            self.meta.clock.missed_one(seat);
            self.missed.push(seat);
        }
        // A veto question means `no veto`, a bid `pass`; a moderator's skip
        // overrides `wait`.
        // The policy in force when the deadline started, as players were
        // told a change of it applies to deadlines that start afterwards.
        // Under `bot` the bot answers questions and rounds too; a
        // moderator's skip is a skip.
        let policy = match (wait.kind, wait.policy(settings), self.forced_by) {
            (WaitKind::Turn, Policy::Wait | Policy::Bot, Some(_)) => Policy::Skip,
            (WaitKind::Turn, p, _) => p,
            (_, Policy::Bot, None) => Policy::Bot,
            _ => Policy::Default,
        };
        match policy {
            Policy::Wait => self.wait_for(wait, away_until)?,
            Policy::Skip | Policy::Default | Policy::Bot => {
                self.pass_over(wait, policy, away_until)
            }
        }
        // Asked at a missed deadline only, not at a moderator's skip.
        if self.forced_by.is_none()
            && let Some(misses) = self.meta.clock.ask_to_replace(seat)
        {
            self.ask_to_replace(seat, misses)?;
        }
        orders::flush_queues(&mut self.game, &mut self.meta, &mut self.batch);
        self.meta.clock.sync(&self.game.awaiting(), self.now);
        Ok(())
    }

    /// The `wait` policy: the game waits for the player, who is told, and
    /// so are the moderators.
    fn wait_for(&mut self, wait: &Wait, away_until: Option<String>) -> Result<(), ServiceError> {
        let (ctx, id, now, seat) = (self.ctx, self.id, self.now, wait.seat);
        if let Some(w) = self
            .meta
            .clock
            .waits
            .iter_mut()
            .find(|w| w.seat == seat && w.kind == wait.kind)
        {
            w.late = true;
        }
        let why = passed_over(
            self.kind(),
            wait.kind,
            Policy::Wait,
            None,
            &self.settings.when(wait.due),
            away_until,
        );
        self.acts.push((seat, why));
        let name = self.name(seat);
        // For the mails of this moment; the log gets `settings.when`.
        let when = self.settings.describe(wait.due, now);
        let wait_name = crate::registry::wait_name(self.kind(), wait.kind);
        self.to_players.push((seat, format!("Your deadline for your {wait_name} passed at {when}. The game waits for you; the moderators have been told.")));
        self.outbox.extend(to_moderators(
            ctx,
            id,
            &self.meta.moderators,
            &format!("{name} missed a deadline"),
            &format!("{name}'s deadline for their {wait_name} passed at {when}. This game's policy is `wait`: nothing happens until they act, or you act for them: reply to this mail with `skip` (or `as {name} ORDER` to give their orders), or on the server `stationmaster mod {id} skip`."),
            now,
        )?);
        Ok(())
    }

    /// The `skip` or `default` policy: the player's default order for each
    /// action still owed, or a skip; the player is told what it counted as.
    fn pass_over(&mut self, wait: &Wait, policy: Policy, away_until: Option<String>) {
        let seat = wait.seat;
        let first = self.batch.applied.len();
        let reason = passed_over(
            self.kind(),
            wait.kind,
            policy,
            self.forced_by,
            &self.settings.when(wait.due),
            away_until,
        );
        let done = self.play_for(seat, wait.kind, policy);
        let skipped = done.iter().all(|o| o == SKIP_ORDER);
        self.reasons.push((first, self.batch.applied.len(), reason));
        let wait_name = crate::registry::wait_name(self.kind(), wait.kind);
        // For the mails of this moment; the log gets `settings.when`.
        let when = self.settings.describe(wait.due, self.now);
        // A moderator's skip says the skip once; a missed deadline
        // says what became of the turn.
        let told = match (self.forced_by, skipped) {
            (Some((m, _)), true) => format!("A moderator ({m}) skipped your {wait_name}."),
            (Some((m, _)), false) => format!(
                "A moderator ({m}) skipped your {wait_name}; it counted as: {}.",
                done.join("; ")
            ),
            (None, true) => format!(
                "Your deadline for your {wait_name} passed at {when}; the rest of your turn was skipped."
            ),
            (None, false) => format!(
                "Your deadline for your {wait_name} passed at {when}; it counted as: {}.",
                done.join("; ")
            ),
        };
        self.to_players.push((seat, told));
    }

    /// Gives `seat` the default order (under `default`) or the skip for
    /// each action of `kind` still owed; never loops on a game that does
    /// not move on. The orders given.
    fn play_for(&mut self, seat: Seat, kind: WaitKind, policy: Policy) -> Vec<String> {
        let mut done = Vec::new();
        for _ in 0..8 {
            let still = self
                .game
                .awaiting()
                .iter()
                .any(|a| a.seat == seat && a.kind == kind);
            if !still {
                break;
            }
            let line = match policy {
                Policy::Default => self.game.default_order_line(seat),
                Policy::Bot => {
                    let entries = self.stored.loaded.seq + self.batch.applied.len() as u64;
                    let seed = self.stored.loaded.record.setup.seed;
                    let settings = self.ctx.config.bots.settings();
                    bots::order_for(&*self.game, seat, (seed, entries), &settings)
                }
                _ => None,
            }
            .unwrap_or_else(|| SKIP_ORDER.to_string());
            match self.game.apply_line(seat, &line) {
                Ok(applied) => {
                    done.push(applied.order.clone());
                    self.batch.applied.push((seat, applied));
                }
                Err(e) => {
                    tracing::error!(game = %self.id, %line, error = %e, "a deadline's order was refused");
                    break;
                }
            }
        }
        done
    }

    /// `seat` missed `misses` deadlines in a row: the moderators are asked
    /// whether to replace them.
    fn ask_to_replace(&mut self, seat: Seat, misses: u32) -> Result<(), ServiceError> {
        let (id, name) = (self.id, self.name(seat));
        self.acts.push((
            seat,
            format!(
                "missed {} in a row: the moderators were asked to replace them",
                deadlines(misses)
            ),
        ));
        self.outbox.extend(to_moderators(
            self.ctx,
            id,
            &self.meta.moderators,
            &format!("Replace {name}?"),
            &format!("{name} has missed {} in a row. To seat someone else, reply to this mail with `replace {name} NEW-ADDRESS` (on the server: `stationmaster mod {id} replace {name} NEW-ADDRESS`); to keep {name} in the seat, do nothing: you are not asked again for this run of misses.", deadlines(misses)),
            self.now,
        )?);
        Ok(())
    }

    /// Reminders to players who still owe input: each deadline's
    /// marked as sent, and its note, which goes to its player alone
    /// unless orders were given (their report tells them).
    fn remind(&mut self) -> Vec<(Seat, String)> {
        let now = self.now;
        let mut notes = Vec::new();
        // One reminder a deadline, however many of its leads have come (after
        // an outage, several at once): all count as sent.
        for (seat, kind, leads) in self.meta.clock.reminders_due(now) {
            let Some(w) = self
                .meta
                .clock
                .waits
                .iter_mut()
                .find(|w| w.seat == seat && w.kind == kind)
            else {
                continue;
            };
            w.reminded.extend(leads.iter().map(|l| l.0));
            let due = w.due;
            self.acts.push((
                seat,
                // Kept in the log, read later: the time alone, not "in 22
                // hours" (the reminder mail itself says how long is left).
                format!(
                    "{}: deadline {}",
                    crate::store::REMINDER_SENT,
                    self.settings.when(due)
                ),
            ));
            if self.batch.applied.is_empty() {
                let note = format!(
                    "Reminder: your deadline is {}.",
                    self.settings.describe(due, now)
                );
                notes.push((seat, note));
            }
        }
        notes
    }

    /// Absences: a warning a day before the end; forgotten once over.
    fn absences(&mut self) {
        let now = self.now;
        for seat in self.meta.clock.away_ending(now) {
            let to = self.meta.clock.away[seat.index()]
                .as_ref()
                .map(|a| a.to)
                .unwrap_or(now);
            if let Some(Some(a)) = self.meta.clock.away.get_mut(seat.index()) {
                a.warned = true;
            }
            self.acts.push((
                seat,
                format!("warned that their absence ends {}", self.settings.when(to)),
            ));
            self.to_players.push((
                seat,
                format!(
                    "Your absence ends {}; your deadlines run again from then.",
                    self.settings.describe(to, now)
                ),
            ));
        }
        for a in self.meta.clock.away.iter_mut() {
            if a.as_ref().is_some_and(|a| a.to <= now) {
                *a = None;
            }
        }
    }

    /// The look written: the orders given with why, what the clock did in
    /// the turn log after them, a report to every player if the game
    /// changed, else each note to its player alone.
    fn write(self) -> Result<Change, ServiceError> {
        let changed = !self.batch.applied.is_empty();
        let source = self
            .forced_by
            .map_or(Actor::Deadline, |(m, _)| Actor::Moderator(m.to_string()));
        // What the clock did goes into the turn log too, after any orders.
        let turn = self.game.turn_number();
        let then = self
            .acts
            .iter()
            .map(|(seat, text)| {
                let (player, text) = (self.name(*seat), text.clone());
                LogEntry::act(
                    *seat,
                    player,
                    text,
                    source.clone(),
                    EntryKind::Act,
                    self.now,
                    turn,
                )
            })
            .collect();
        let Look {
            ctx,
            id,
            stored,
            now,
            game,
            meta,
            batch,
            outbox,
            to_players,
            reasons,
            missed,
            ..
        } = self;
        let options = pipeline::Options {
            notes: to_players.clone(),
            // Each order given for a player passed over says why.
            whys: reasons,
            missed,
            then,
            // Notes without a change go to their players alone, below.
            to: changed.then_some(pipeline::Recipients::All),
            with: Change {
                outbox,
                ..Change::default()
            },
            ..pipeline::Options::default()
        };
        let input = pipeline::Input::Made { game, meta, batch };
        let applied = match pipeline::apply(ctx, id, stored, input, source, options, now)? {
            Ok(applied) => applied,
            // A change made is never refused.
            Err(rejected) => return Err(ServiceError::Invalid(rejected.to_string())),
        };
        let mut change = applied.change;
        // Nothing was played, not even by the bot: each note alone.
        if applied.batch.applied.is_empty()
            && let Some(update) = &change.update
        {
            let record = &stored.loaded.record;
            let (meta, game) = (&update.meta, &*applied.game);
            let mails = notes_alone(ctx, id, record, meta, game, to_players, now)?;
            change.outbox.extend(mails);
        }
        Ok(change)
    }
}

/// Each note to its player alone, with their report as the game stands
/// (a reminder; what a look that changed nothing of the game tells).
fn notes_alone(
    ctx: &Ctx<'_>,
    id: &GameId,
    record: &GameRecord,
    meta: &GameMeta,
    game: &dyn AnyGame,
    notes: Vec<(Seat, String)>,
    now: DateTime<Utc>,
) -> Result<Vec<OutMail>, ServiceError> {
    let mut map = None;
    let mut out = Vec::new();
    for (seat, note) in notes {
        // A bot's seat has nobody to mail.
        if meta.is_bot(seat) {
            continue;
        }
        let mail = MailContext {
            notes: vec![note],
            ..MailContext::default()
        };
        out.push(report::player_mail(
            ctx,
            id,
            record,
            meta,
            game,
            map.get_or_insert_with(|| report::Board::new(ctx, game, &[])),
            seat,
            mail,
            None,
            now,
        )?);
    }
    Ok(out)
}
