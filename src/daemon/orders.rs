//! Applying a player's orders: in order, all or nothing, except that orders
//! sent behind an interruption (Rocket's veto question and round) wait in a
//! queue and apply when that player is next awaited, with the player told if
//! they became illegal.

use crate::engine::{AnyGame, Applied, Seat};
use crate::store::{BatchRejected, GameMeta};

/// What a batch of orders did.
#[derive(Debug, Default)]
pub struct Batch {
    /// Orders applied, by whom (queued orders of other players included).
    pub applied: Vec<(Seat, Applied)>,
    /// The sender's lines that now wait in the queue.
    pub queued: Vec<String>,
    /// Notes for players about their queued orders.
    pub notes: Vec<(Seat, String)>,
}

fn is_awaited(game: &dyn AnyGame, seat: Seat) -> bool {
    game.awaiting().iter().any(|a| a.seat == seat)
}

/// Applies `lines` as `seat`'s orders to a copy of `game`; returns the game
/// and bookkeeping after them, or the first refused line (nothing applied).
pub fn run(
    game: &dyn AnyGame,
    meta: &GameMeta,
    seat: Seat,
    lines: &[String],
) -> Result<(Box<dyn AnyGame>, GameMeta, Batch), BatchRejected> {
    let mut work = game.clone_box();
    let mut meta = meta.clone();
    let mut batch = Batch::default();
    for (i, line) in lines.iter().enumerate() {
        if work.interrupted() && !is_awaited(&*work, seat) {
            batch.queued = lines[i..].to_vec();
            break;
        }
        let applied = work
            .apply_line(seat, line)
            .map_err(|rejected| BatchRejected {
                line_no: i + 1,
                rejected,
            })?;
        batch.applied.push((seat, applied));
    }
    if let Some(q) = meta.queued.get_mut(seat.index()) {
        q.extend(batch.queued.iter().cloned());
    }
    flush_queues(&mut work, &mut meta, &mut batch);
    Ok((work, meta, batch))
}

/// Applies waiting orders of players who are awaited again, until none can
/// go. A queue that fails is dropped and its player told why.
pub fn flush_queues(work: &mut Box<dyn AnyGame>, meta: &mut GameMeta, batch: &mut Batch) {
    loop {
        if work.interrupted() {
            return;
        }
        let ready = (0..meta.queued.len())
            .map(|s| Seat(s as u8))
            .find(|s| !meta.queued[s.index()].is_empty() && is_awaited(&**work, *s));
        let Some(seat) = ready else { return };
        let lines = std::mem::take(&mut meta.queued[seat.index()]);
        let mut trial = work.clone_box();
        let mut applied = Vec::new();
        let mut requeue = Vec::new();
        let mut failed = None;
        for (i, line) in lines.iter().enumerate() {
            if trial.interrupted() && !is_awaited(&*trial, seat) {
                requeue = lines[i..].to_vec();
                break;
            }
            match trial.apply_line(seat, line) {
                Ok(a) => applied.push((seat, a)),
                Err(e) => {
                    failed = Some(format!("`{line}`: {e}"));
                    break;
                }
            }
        }
        match failed {
            Some(why) => batch.notes.push((
                seat,
                format!(
                    "Your waiting orders ({}) were not applied and have been dropped: {why}",
                    lines.join("; ")
                ),
            )),
            None => {
                let done: Vec<String> = applied.iter().map(|(_, a)| a.order.clone()).collect();
                batch.notes.push((
                    seat,
                    format!("Your waiting orders were applied: {}.", done.join("; ")),
                ));
                batch.applied.extend(applied);
                meta.queued[seat.index()] = requeue;
                *work = trial;
            }
        }
    }
}
