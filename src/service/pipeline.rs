//! One way through (issue 37): every change to a running game, whoever
//! makes it (a player's mail, the operator's `order`, a moderator, the
//! clock at a deadline), is written here: the log entries of the orders
//! applied, each with its true source (a held order keeps the mail it came
//! in), the acts around them, the new state and bookkeeping, and the
//! reports each player gets, as one [`GameUpdate`] and its mails. The
//! callers differ only in what they decide to apply; what a change writes
//! is written once.

use chrono::{DateTime, Utc};

use super::report::MailContext;
use super::{Ctx, Recipients, ServiceError, orders};
use crate::engine::{Actor, AnyGame, Seat};
use crate::mail::OutMail;
use crate::store::{GameId, GameMeta, GameUpdate, LogEntry};

/// A change to one game, decided: what the game and its bookkeeping are
/// after it, what was applied, and by whom.
pub struct Step<'a> {
    /// The game after the change.
    pub game: &'a dyn AnyGame,
    /// Its bookkeeping after the change.
    pub meta: GameMeta,
    /// The orders applied (held ones released among them) and the notes
    /// for players.
    pub batch: &'a orders::Batch,
    /// Who made the change.
    pub actor: Actor,
    /// An act that goes before the orders in the log: a moderator's
    /// command (`as`: the orders come after it).
    pub act: Option<LogEntry>,
    /// Entries after the orders: table talk, what the clock did.
    pub then: Vec<LogEntry>,
    /// Why orders were given: `(first, end, why)` over `batch.applied`
    /// (the clock's orders for a player passed over).
    pub whys: Vec<(usize, usize, String)>,
    /// The answer to the mail that made the change: its sender, what they
    /// asked, and its thread.
    pub reply: Option<(Seat, MailContext, (String, Vec<String>))>,
    /// Who gets a report; `None`: nobody (the caller mails whom it must).
    pub to: Option<Recipients>,
}

impl<'a> Step<'a> {
    /// A change by `actor`: `batch` applied, leaving `game` and `meta`;
    /// no act, no other entries, no answer, reports to those concerned.
    pub fn new(
        game: &'a dyn AnyGame,
        meta: GameMeta,
        batch: &'a orders::Batch,
        actor: Actor,
    ) -> Step<'a> {
        Step {
            game,
            meta,
            batch,
            actor,
            act: None,
            then: Vec::new(),
            whys: Vec::new(),
            reply: None,
            to: Some(Recipients::Concerned),
        }
    }
}

/// Writes `step` onto game `id`, whose log ended at `base_seq` and whose
/// clock was to fire at `old_fire` before it: the update to commit and
/// the reports to send.
pub fn write(
    ctx: &Ctx<'_>,
    id: &GameId,
    base_seq: u64,
    old_fire: Option<DateTime<Utc>>,
    step: Step<'_>,
    now: DateTime<Utc>,
) -> Result<(GameUpdate, Vec<OutMail>), ServiceError> {
    let mut update = super::game_update(
        id,
        base_seq,
        old_fire,
        step.batch,
        step.game,
        step.meta,
        now,
        &step.actor,
    )?;
    // The entries follow `batch.applied` one to one.
    for (first, end, why) in step.whys {
        for entry in update.entries.iter_mut().take(end).skip(first) {
            entry.why = Some(why.clone());
        }
    }
    for entry in step.then {
        update.push(entry);
    }
    if let Some(act) = step.act {
        update.push_first(act);
    }
    let outbox = match step.to {
        Some(to) => super::reports(
            ctx,
            id,
            &mut update,
            step.game,
            step.batch,
            step.reply,
            to,
            now,
        )?,
        None => Vec::new(),
    };
    Ok((update, outbox))
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
    })
}
