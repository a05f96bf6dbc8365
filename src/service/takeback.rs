//! `takeback`: a player takes back their own last mail's orders, as at a
//! table where a slip is put right before anyone else moves. It is done
//! only while nobody else has acted since and nothing that mail's orders
//! did showed anything random or secret (what each game's events show, it
//! says: [`crate::engine::Game::revealed`]); else it is refused with the
//! reason. The orders stay in the log, the takeback after them as an undo
//! of them, so the log replays to the game as it stood before that mail.

use chrono::{DateTime, Utc};

use super::pipeline::Stored;
use super::{Ctx, ServiceError};
use crate::engine::{Actor, Seat};
use crate::store::{EntryKind, GameId, GameMeta, Held, Loaded, LogEntry, effective_orders};

/// A takeback worked out: the game as it stood before the mail, and what
/// to write.
pub struct TakenBack {
    /// The game as it stood before the mail, with its bookkeeping as
    /// stored (the player's waiting orders go: [`without_waiting`]).
    pub stored: Stored,
    /// The log entry: an undo of the mail's orders, by the player's mail.
    pub entry: LogEntry,
    /// The player's waiting orders and standing answer, dropped with it.
    pub dropped: Vec<String>,
}

/// `seat`'s last mail's orders in game `id` as `stored`, taken back by
/// `from` (the mail that says `takeback`); or, refused, why, in words that
/// follow "`takeback` was not done: ".
pub fn take_back(
    ctx: &Ctx<'_>,
    id: &GameId,
    stored: &Stored,
    seat: Seat,
    from: &Actor,
    now: DateTime<Utc>,
) -> Result<Result<TakenBack, String>, ServiceError> {
    let log = ctx.store.log(id)?;
    let game = &*stored.loaded.game;
    let names = game.player_names();
    let mail = match last_mail(&log, seat, &names) {
        Ok(mail) => mail,
        Err(why) => return Ok(Err(why)),
    };
    for e in &mail {
        if let Some(what) = game.revealed(&e.events)? {
            return Ok(Err(format!(
                "your orders showed {what}, and what was seen cannot be unseen"
            )));
        }
    }
    let orders: Vec<&str> = mail.iter().map(|e| e.order.as_str()).collect();
    let entry = LogEntry::act(
        seat,
        names.get(seat.index()).cloned().unwrap_or_default(),
        super::report::takeback_text(&orders),
        from.clone(),
        EntryKind::Undo {
            count: mail.len() as u32,
        },
        now,
        game.turn_number(),
    );
    let mut with = log.clone();
    with.push(entry.clone());
    let before = ctx.store.replay(id, &with)?;
    let dropped = stored
        .meta
        .queued
        .get(seat.index())
        .map(|held| {
            let standing = held.standing.iter();
            held.batches
                .iter()
                .flatten()
                .chain(standing)
                .cloned()
                .collect()
        })
        .unwrap_or_default();
    Ok(Ok(TakenBack {
        stored: Stored {
            loaded: Loaded {
                record: stored.loaded.record.clone(),
                game: before,
                seq: stored.loaded.seq,
            },
            meta: stored.meta.clone(),
        },
        entry,
        dropped,
    }))
}

/// The orders `seat`'s last mail applied when it was read, if they can
/// be taken back: the last orders in effect, all of them from one mail of
/// theirs, with nothing but talk and acts after them (no order of anyone
/// else's, no undo). Else why not.
fn last_mail<'l>(
    log: &'l [LogEntry],
    seat: Seat,
    names: &[String],
) -> Result<Vec<&'l LogEntry>, String> {
    let effective = effective_orders(log);
    let Some(last) = effective.last() else {
        return Err("no orders have been given yet".to_string());
    };
    if last.seat != seat {
        let name = names.get(last.seat.index()).map_or("another player", |n| n);
        return Err(format!("{name} has acted since"));
    }
    if !matches!(last.source, Some(Actor::Mail(_))) {
        return Err(format!(
            "your last orders were not your mail's: {}",
            who_gave(last)
        ));
    }
    let same = |e: &&&LogEntry| e.source == last.source && e.at == last.at;
    let run = effective.iter().rev().take_while(same).count();
    let mine: Vec<&LogEntry> = effective[effective.len() - run..].to_vec();
    if effective.iter().filter(same).count() > run {
        // Another player's waiting orders came between the mail's own.
        return Err("others' orders were applied between yours".to_string());
    }
    if log
        .iter()
        .filter(|e| e.seq > last.seq)
        .any(|e| matches!(e.kind, EntryKind::Order | EntryKind::Undo { .. }))
    {
        return Err("the game has changed since".to_string());
    }
    Ok(mine)
}

/// Who gave orders that were not the player's mail's, in words.
fn who_gave(e: &LogEntry) -> String {
    match &e.source {
        Some(Actor::Deadline) => "the game played them for you at a missed deadline".to_string(),
        Some(Actor::Moderator(_)) => "a moderator gave them for you".to_string(),
        Some(Actor::CommandLine) => "they were given on the server".to_string(),
        _ => "where they came from is not known".to_string(),
    }
}

/// `meta` with `seat`'s waiting orders and standing answer dropped: they
/// were written for the game as the mail taken back left it.
pub fn without_waiting(meta: &GameMeta, seat: Seat) -> GameMeta {
    let mut meta = meta.clone();
    if let Some(held) = meta.queued.get_mut(seat.index()) {
        *held = Held::default();
    }
    meta
}
