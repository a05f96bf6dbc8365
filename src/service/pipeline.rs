//! One way through (issue 37): every change to a running game, whoever
//! makes it (a player's mail, the operator's `order`, a moderator, the
//! clock at a deadline), goes through [`apply`]: the lines run through
//! [`orders::run`] (or the change its caller made), and what it writes:
//! the log entries of the orders applied, each with its true source (a
//! held order keeps the mail it came in), the acts around them, the new
//! state and bookkeeping, and the reports each player gets, as one
//! [`Change`]. The callers differ only in what they ask of it, each an
//! [`Options`] field; what a change writes is written once.

use chrono::{DateTime, Utc};

use super::report::{self, MailContext, ReplySection};
use super::{Ctx, ServiceError, bots, delivery, orders, web};
use crate::engine::{Actor, AnyGame, Seat, Viewer};
use crate::mail::OutMail;
use crate::mail::compose::FileAttachment;
use crate::store::{
    BatchRejected, Change, EntryKind, GameId, GameMeta, GameRecord, GameUpdate, Loaded, LogEntry,
    StoreError,
};

/// A game as stored, where every change starts: the game at its snapshot
/// and its bookkeeping.
pub struct Stored {
    /// The record, the game and where its log ends.
    pub loaded: Loaded,
    /// The bookkeeping (its clock's next look is the scheduler's index).
    pub meta: GameMeta,
}

impl Stored {
    /// Game `id` as stored.
    pub fn load(ctx: &Ctx<'_>, id: &GameId) -> Result<Stored, ServiceError> {
        let loaded = ctx.store.load(id)?;
        let meta = ctx.store.meta(id)?;
        Ok(Stored { loaded, meta })
    }
}

/// What a change applies.
pub enum Input<'a> {
    /// A seat's lines, given by the actor: each applied now, held for its
    /// moment, or the whole batch refused ([`orders::run`]), starting from
    /// `meta` (the stored bookkeeping, or what the mail changed of it
    /// first: an absence, a choice of reports).
    Lines {
        /// Whose orders.
        seat: Seat,
        /// The lines.
        lines: &'a [String],
        /// The bookkeeping they start from.
        meta: GameMeta,
    },
    /// A change its caller made: a moderator's act (the game as it was, or
    /// as an undo replays it), the clock's orders for players passed over.
    Made {
        /// The game after it.
        game: Box<dyn AnyGame>,
        /// Its bookkeeping after it.
        meta: GameMeta,
        /// The orders applied, and notes.
        batch: orders::Batch,
    },
}

/// How one caller's change differs from another's.
pub struct Options<'a> {
    /// Notes for players after the orders' own: an absence declared (every
    /// player is told), a moderator's act.
    pub notes: Vec<(Seat, String)>,
    /// Orders given for a seat by someone else (a moderator's `as`): the
    /// seat is told `TEXT: the orders given and held.`
    pub given_for: Option<(Seat, String)>,
    /// An act that goes before the orders in the log: a moderator's
    /// command (`as`: the orders come after it).
    pub act: Option<LogEntry>,
    /// Entries after the orders: table talk, what the clock did, an undo.
    pub then: Vec<LogEntry>,
    /// Why orders were given: `(first, end, why)` over the batch's applied
    /// orders (the clock's orders for a player passed over).
    pub whys: Vec<(usize, usize, String)>,
    /// The seats whose player let a deadline pass (the clock's own look,
    /// not a moderator's `skip`), for their records.
    pub missed: Vec<Seat>,
    /// The answer to the mail that made the change, in its sender's report.
    pub reply: Option<&'a Reply>,
    /// Who gets a report; `None`: nobody (the caller mails whom it must).
    pub to: Option<Recipients>,
    /// What the change carries besides the game: mails that go before the
    /// reports, contacts, the address index, a seat changing hands.
    pub with: Change,
}

impl Default for Options<'_> {
    /// No notes, acts or answer; reports to those concerned.
    fn default() -> Self {
        Options {
            notes: Vec::new(),
            given_for: None,
            act: None,
            then: Vec::new(),
            whys: Vec::new(),
            missed: Vec::new(),
            reply: None,
            to: Some(Recipients::Concerned),
            with: Change::default(),
        }
    }
}

/// The answer to a player's mail: its reply section, filled in with what
/// the batch did for them.
pub struct Reply {
    /// The sender.
    pub seat: Seat,
    /// The section so far: the mail's subject, its notes, what was not read.
    pub section: ReplySection,
    /// What they asked for besides: help, history, the address answered.
    pub asked: MailContext,
    /// The thread: the mail answered and its references.
    pub thread: (String, Vec<String>),
    /// Lines read beside the orders (an absence, commands), echoed after
    /// them.
    pub understood: Vec<String>,
    /// True if the mail did something besides orders (an absence).
    pub applied: bool,
}

impl Reply {
    /// The section with what `batch` applied and held for the sender.
    fn answer(&self, batch: &orders::Batch) -> Answer<'_> {
        let seat = self.seat;
        let mut section = self.section.clone();
        section.understood = batch
            .applied
            .iter()
            .filter(|(s, _)| *s == seat)
            .map(|(_, a)| a.order.clone())
            .collect();
        section
            .understood
            .extend(batch.held.iter().map(|h| h.line.clone()));
        section.understood.extend(batch.lapsed.iter().cloned());
        section.understood.extend(self.understood.iter().cloned());
        section.applied = batch.applied.iter().any(|(s, _)| *s == seat) || self.applied;
        section.held = batch.held.iter().map(|h| h.describe()).collect();
        Answer {
            seat,
            section,
            asked: &self.asked,
            thread: &self.thread,
        }
    }
}

/// A reply as the reports carry it: the section filled in.
struct Answer<'r> {
    seat: Seat,
    section: ReplySection,
    asked: &'r MailContext,
    thread: &'r (String, Vec<String>),
}

/// A change applied: what to commit, and what the caller tells.
pub struct Applied {
    /// The update, its reports and whatever [`Options::with`] carried.
    pub change: Change,
    /// What the orders did.
    pub batch: orders::Batch,
    /// The game after them.
    pub game: Box<dyn AnyGame>,
}

/// Applies `input` from `actor` to game `id`, as `stored` before it: the
/// change to commit with its reports, or the line that refused the batch
/// (nothing applied, nothing held, nothing written).
pub fn apply(
    ctx: &Ctx<'_>,
    id: &GameId,
    stored: &Stored,
    input: Input<'_>,
    actor: Actor,
    options: Options<'_>,
    now: DateTime<Utc>,
) -> Result<Result<Applied, BatchRejected>, ServiceError> {
    let mut back = Vec::new();
    let (mut game, mut meta, mut batch) = match input {
        Input::Lines { seat, lines, meta } => {
            let mut meta = meta;
            // The bot played for them as the game stood: their orders
            // end it (not an `autopilot on` in the same mail).
            let for_them =
                !stored.meta.is_bot(seat) && bots::why(&stored.meta, seat, now).is_some();
            if actor.is_players() && !lines.is_empty() && for_them {
                let names = stored.loaded.game.player_names();
                let name = names.get(seat.index()).map_or("", String::as_str);
                back = bots::player_is_back(&mut meta, seat, (name, names.len()), now);
            }
            match orders::run(&*stored.loaded.game, &meta, seat, lines, &actor) {
                Ok(ran) => ran,
                Err(rejected) => return Ok(Err(rejected)),
            }
        }
        Input::Made { game, meta, batch } => (game, meta, batch),
    };
    // Then the seats the bot plays, while the game awaits one.
    let settings = ctx.config.bots.settings();
    let seed = (
        stored.loaded.record.setup.seed,
        stored.loaded.seq,
        &settings,
    );
    let played = bots::play(&mut game, &mut meta, &mut batch, seed, now);
    batch.notes.extend(back);
    batch.notes.extend(options.notes);
    if let Some((seat, text)) = options.given_for {
        let mut gave: Vec<String> = batch
            .given
            .iter()
            .filter_map(|i| batch.applied.get(*i))
            .map(|(_, a)| a.order.clone())
            .collect();
        gave.extend(batch.held.iter().map(|h| h.line.clone()));
        batch
            .notes
            .push((seat, format!("{text}: {}.", gave.join("; "))));
    }
    let old_fire = stored.meta.clock.next_fire;
    let base_seq = stored.loaded.seq;
    let mut update = game_update(id, base_seq, old_fire, &batch, &*game, meta, now, &actor)?;
    // The entries follow `batch.applied` one to one.
    for (first, end, why) in options.whys {
        for entry in update.entries.iter_mut().take(end).skip(first) {
            entry.why = Some(why.clone());
        }
    }
    for (at, why) in &played {
        if let Some(entry) = update.entries.get_mut(*at) {
            entry.why = Some(why.to_string());
        }
    }
    for entry in options.then {
        update.push(entry);
    }
    update.missed = options.missed;
    // The records take the game's end once: in the update that ends it.
    let was_over = stored.meta.aborted
        || matches!(
            stored.loaded.game.status(),
            crate::engine::Status::Finished(_)
        );
    if update.over && !was_over {
        update.ended = Some(match game.status() {
            crate::engine::Status::Finished(placings) => crate::store::Ending::Finished(placings),
            crate::engine::Status::Active(_) => crate::store::Ending::Aborted,
        });
    }
    if let Some(act) = options.act {
        update.push_first(act);
    }
    let mut change = options.with;
    // A change that had nothing to tell but brought on the bot's moves
    // (the clock at an absence with the bot) tells everyone.
    let to = match (options.to, played.is_empty()) {
        (None, false) => Some(Recipients::All),
        (to, _) => to,
    };
    if let Some(to) = to {
        let answer = options.reply.map(|r| r.answer(&batch));
        let reports = Reports::new(ctx, id, &update, &*game, &batch, answer, to, now)?;
        change.outbox.extend(reports.write(&mut update)?);
    }
    change.update = Some(update);
    Ok(Ok(Applied {
        change,
        batch,
        game,
    }))
}

/// A change to game `id`'s bookkeeping (`meta`) alone: nothing of the
/// game, no log entry, the clock as it was.
pub fn meta_update(
    id: &GameId,
    loaded: &crate::store::Loaded,
    meta: crate::store::GameMeta,
) -> Result<crate::store::GameUpdate, ServiceError> {
    Ok(crate::store::GameUpdate {
        id: id.clone(),
        base_seq: loaded.seq,
        entries: Vec::new(),
        state: loaded.game.snapshot()?,
        state_version: loaded.game.state_version(),
        old_fire: meta.clock.next_fire,
        meta,
        // Bookkeeping alone ends no game.
        over: false,
        missed: Vec::new(),
        ended: None,
    })
}

/// The log entries and state a batch leaves.
#[allow(clippy::too_many_arguments)]
fn game_update(
    id: &GameId,
    base_seq: u64,
    old_fire: Option<DateTime<Utc>>,
    batch: &orders::Batch,
    game: &dyn AnyGame,
    mut meta: GameMeta,
    now: DateTime<Utc>,
    source: &Actor,
) -> Result<GameUpdate, ServiceError> {
    let names = game.player_names();
    if source.is_players() {
        // A player who acts is no longer missing deadlines.
        for (seat, _) in &batch.applied {
            meta.clock.run_of_misses_ends(*seat);
        }
    }
    meta.clock.sync(&game.awaiting(), now);
    if meta.paused.is_some() || meta.aborted {
        // A stopped game is in no deadline's way: out of the scheduler's
        // index until it is resumed (which syncs the clock again), or the
        // index would hand it to every cycle once its old time passed.
        meta.clock.next_fire = None;
    }
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
            // A held order released now keeps the mail it came in.
            source: Some(
                batch
                    .released
                    .iter()
                    .find(|(i, _)| *i == k)
                    .map_or(source, |(_, from)| from)
                    .clone(),
            ),
            kind: EntryKind::Order,
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
        over: meta.aborted || matches!(game.status(), crate::engine::Status::Finished(_)),
        meta,
        old_fire,
        missed: Vec::new(),
        ended: None,
    })
}

/// Who gets a report after a change.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Recipients {
    /// Every player (a moderator's act, a deadline, `resend`).
    All,
    /// Every player if the game changed; else only those with a note and
    /// the player replied to: a mail that only stores a waiting order or a
    /// standing answer tells nobody else anything.
    Concerned,
    /// Every player, the full report whatever they chose (`resend`).
    Every,
}

/// The reports after a change: to every player what happened since their
/// last report, their map and hints, and the answer to the mail that made
/// it in its sender's; to the observers the spectator's page; to the
/// moderators the end of the game.
struct Reports<'a, 'c> {
    ctx: &'a Ctx<'c>,
    id: &'a GameId,
    record: GameRecord,
    game: &'a dyn AnyGame,
    batch: &'a orders::Batch,
    answer: Option<Answer<'a>>,
    to: Recipients,
    map: report::Board,
    ended: Option<report::Ended>,
    /// The archive the last mails attach, where the games are not on the
    /// web ([`web::archive_attachment`]).
    archive: Option<FileAttachment>,
    now: DateTime<Utc>,
}

impl<'a, 'c> Reports<'a, 'c> {
    #[allow(clippy::too_many_arguments)]
    fn new(
        ctx: &'a Ctx<'c>,
        id: &'a GameId,
        update: &GameUpdate,
        game: &'a dyn AnyGame,
        batch: &'a orders::Batch,
        answer: Option<Answer<'a>>,
        to: Recipients,
        now: DateTime<Utc>,
    ) -> Result<Reports<'a, 'c>, ServiceError> {
        let record = ctx.store.record(id)?;
        let ended = report::ended_after(ctx.store, update, game)?;
        let archive = web::last_mail_archive(ctx, &record, update, game, ended.as_ref())?;
        Ok(Reports {
            record,
            map: report::Board::new(ctx, game, &update.entries),
            ended,
            archive,
            ctx,
            id,
            game,
            batch,
            answer,
            to,
            now,
        })
    }

    /// Every report, each player's marked as sent in `update`.
    fn write(self, update: &mut GameUpdate) -> Result<Vec<OutMail>, ServiceError> {
        let new_seq = update.base_seq + update.entries.len() as u64;
        let mut out = Vec::new();
        for s in 0..self.record.setup.players.len() {
            let seat = Seat(s as u8);
            // A bot's seat has nobody to mail.
            if update.meta.is_bot(seat) {
                continue;
            }
            if let Some(mail) = self.to_player(update, seat)? {
                out.push(mail);
                if let Some(r) = update.meta.reported.get_mut(s) {
                    *r = new_seq;
                }
            }
        }
        let (ctx, id, now) = (self.ctx, self.id, self.now);
        out.extend(delivery::to_observers(
            ctx,
            id,
            &self.record,
            update,
            self.game,
            &self.map,
            self.archive.as_ref(),
            now,
        )?);
        // Orders that end the game: the moderators hear of it too (a finished
        // game takes no more orders, so this happens once).
        if !self.batch.applied.is_empty()
            && let Some(finished @ report::Ended::Finished(_)) = &self.ended
        {
            out.extend(report::game_over_to_moderators(
                ctx,
                id,
                &self.record,
                &update.meta,
                self.game,
                (finished, self.archive.as_ref()),
                &self.map,
                now,
            )?);
        }
        Ok(out)
    }

    /// True if the answer goes to `seat`.
    fn answers(&self, seat: Seat) -> bool {
        self.answer.as_ref().is_some_and(|a| a.seat == seat)
    }

    /// The form of `seat`'s mail: nothing for one this change does not
    /// concern, else what they chose.
    fn form(&self, update: &GameUpdate, seat: Seat) -> delivery::Form {
        let concerned = !update.entries.is_empty()
            || self.batch.notes.iter().any(|(n, _)| *n == seat)
            || self.answers(seat);
        if self.to == Recipients::Concerned && !concerned {
            return delivery::Form::Nothing;
        }
        let (awaited, over) = delivery::awaits_or_over(self.game, &update.meta, seat);
        match self.to {
            Recipients::Every => delivery::Form::Full,
            _ => delivery::form_for(
                update.meta.reports_of(seat),
                awaited,
                self.answers(seat),
                over,
            ),
        }
    }

    /// `seat`'s mail, if they get one.
    fn to_player(&self, update: &GameUpdate, seat: Seat) -> Result<Option<OutMail>, ServiceError> {
        let form = self.form(update, seat);
        if form == delivery::Form::Nothing {
            // `reports turn`: their next report tells them what happened.
            return Ok(None);
        }
        let mut mail = self.since_last(update, seat, form == delivery::Form::Full)?;
        let (ctx, id, now) = (self.ctx, self.id, self.now);
        if form == delivery::Form::Short {
            if mail.events.is_empty() && mail.notes.is_empty() {
                return Ok(None);
            }
            return Ok(Some(delivery::short_mail(
                ctx,
                id,
                &self.record,
                &update.meta,
                self.game,
                seat,
                &mail.events,
                &mail.notes,
                self.ended.as_ref(),
                now,
            )?));
        }
        let mut threading = None;
        if let Some(answer) = &self.answer
            && answer.seat == seat
        {
            let asked = answer.asked;
            mail.reply = Some(answer.section.clone());
            mail.help = asked.help.clone();
            mail.moves_asked = asked.moves_asked.clone();
            mail.history = asked.history.clone();
            mail.to = asked.to.clone();
            threading = Some(answer.thread.clone());
        }
        mail.attachment = self.archive.clone();
        Ok(Some(report::player_mail(
            ctx,
            id,
            &self.record,
            &update.meta,
            self.game,
            &self.map,
            seat,
            mail,
            threading,
            now,
        )?))
    }

    /// What happened since `seat`'s last report, and their notes; with
    /// `status`, the status block too (both from one view).
    fn since_last(
        &self,
        update: &GameUpdate,
        seat: Seat,
        status: bool,
    ) -> Result<MailContext, ServiceError> {
        let last = update.meta.reported.get(seat.index()).copied().unwrap_or(0);
        let mut entries = if last < update.base_seq {
            self.ctx.store.log_since(self.id, last)?
        } else {
            Vec::new()
        };
        entries.extend(update.entries.iter().filter(|e| e.seq > last).cloned());
        let (events, status) =
            report::event_lines_and_status(self.game, &entries, Viewer::Player(seat), status)
                .map_err(StoreError::from)?;
        Ok(MailContext {
            events,
            status,
            ended: self.ended.clone(),
            notes: self
                .batch
                .notes
                .iter()
                .filter(|(n, _)| *n == seat)
                .map(|(_, t)| t.clone())
                .collect(),
            ..MailContext::default()
        })
    }
}
