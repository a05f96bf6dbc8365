//! Applying a player's orders. Each line is applied now, held for a moment
//! that will come, or refused at once, as the game's [`Timing`] says:
//! - `Now`: applied; a refusal refuses the whole batch (nothing applied,
//!   nothing held);
//! - `Queue`: held, with every line after it in the batch, until the game
//!   next awaits the player (Rocket: the mover's next action, behind a
//!   veto question or round);
//! - `Standing`: kept as the player's standing answer for their place in a
//!   round (Rocket: a bid or pass), applied when that place comes;
//! - `Never`: the batch is refused at once, with the rule.
//!
//! An answer sent ahead for an interruption that is not, or no longer,
//! under way (Rocket: `pass` once the veto question closed without a
//! round) lapses instead ([`crate::engine::Game::lapsed`]): dropped, its
//! player told in a sentence that is news, not a refusal, and the rest of
//! the mail applied.
//!
//! Held orders live in [`GameMeta::queued`], seen by nobody but their
//! sender. After every applied order the held orders of every player are
//! looked at again: a line that fails drops itself and the lines after it
//! from the same mail, and its player is told which; what applied before
//! it stays applied.

use crate::engine::{Actor, AnyGame, Applied, OrderError, OrderRejected, RuleError, Seat, Timing};
use crate::store::{BatchRejected, GameMeta, Held};

/// What a batch of orders did.
#[derive(Debug, Default)]
pub struct Batch {
    /// Orders applied, by whom (held orders of other players included).
    pub applied: Vec<(Seat, Applied)>,
    /// Of those, the places (in `applied`) of the orders of the lines
    /// given; the others were waiting, and their moment came.
    pub given: Vec<usize>,
    /// Of the others, those whose source is known: the place (in
    /// `applied`) and the mail (or command line, or moderator) that sent
    /// the order when it was held, which the log names, not the mail that
    /// released it.
    pub released: Vec<(usize, Actor)>,
    /// The sender's lines now held, each with why.
    pub held: Vec<HeldLine>,
    /// The sender's lines that lapsed (see [`crate::engine::Game::lapsed`]),
    /// echoed in the reply; a note says why.
    pub lapsed: Vec<String>,
    /// Notes for players about their held orders.
    pub notes: Vec<(Seat, String)>,
}

/// A line of the sender's that waits, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HeldLine {
    /// The line as written.
    pub line: String,
    /// Why it waits and when it applies, for the player.
    pub why: String,
    /// True for a standing answer (which a later one replaces).
    pub standing: bool,
}

impl HeldLine {
    /// The line and why, as a reply shows it.
    pub fn describe(&self) -> String {
        format!("{}: {}.", self.line, self.why)
    }
}

fn is_awaited(game: &dyn AnyGame, seat: Seat) -> bool {
    game.awaiting().iter().any(|a| a.seat == seat)
}

/// A rule's sentence with the rule, as a note shows it: `… (rules, C2).`
fn because(error: &RuleError) -> String {
    format!("{} ({}).", error.message.trim_end_matches('.'), error.rule)
}

/// The reason of a refusal, as a note shows it.
fn reason(rejected: &OrderRejected) -> String {
    match rejected {
        OrderRejected::Parse(e) => format!("{}.", e.message.trim_end_matches('.')),
        OrderRejected::Rule { error, .. } => because(error),
    }
}

fn held_of(meta: &mut GameMeta, seat: Seat) -> &mut Held {
    if meta.queued.len() <= seat.index() {
        meta.queued.resize(seat.index() + 1, Held::default());
    }
    &mut meta.queued[seat.index()]
}

/// Applies `lines` as `seat`'s orders, sent by `from`, to a copy of
/// `game`; returns the game and bookkeeping after them, or the first
/// refused line (nothing applied, nothing held).
pub fn run(
    game: &dyn AnyGame,
    meta: &GameMeta,
    seat: Seat,
    lines: &[String],
    from: &Actor,
) -> Result<(Box<dyn AnyGame>, GameMeta, Batch), BatchRejected> {
    let mut work = game.clone_box();
    let mut meta = meta.clone();
    let mut batch = Batch::default();
    let mut waiting: Vec<String> = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let line = line.trim();
        let refuse = |rejected| BatchRejected {
            line_no: i + 1,
            rejected,
        };
        if line == crate::engine::SKIP_ORDER {
            // The log's record of a missed deadline or a moderator's skip,
            // which replay applies; never a player's order (docs/players.md,
            // "Deadlines").
            return Err(refuse(OrderRejected::Parse(OrderError::new(
                line,
                "`!skip` is how the log records a missed deadline or a moderator's skip, \
                 not an order a player can send (a moderator skips a player with `mod GAME skip`)",
            ))));
        }
        let timing = work.timing_line(seat, line).map_err(refuse)?;
        if !waiting.is_empty() {
            // Behind a held line: it waits with it, whatever it is.
            waiting.push(line.to_string());
            batch.held.push(HeldLine {
                line: line.to_string(),
                why: "waits behind the line before it".to_string(),
                standing: false,
            });
            continue;
        }
        if let Some(note) = work.lapsed_line(seat, line) {
            // An answer sent ahead whose moment is not, or no longer,
            // under way: dropped, the player told, the rest applied.
            batch.notes.push((seat, note));
            batch.lapsed.push(line.to_string());
            continue;
        }
        match timing {
            Timing::Now => {
                let applied = work.apply_line(seat, line).map_err(refuse)?;
                batch.given.push(batch.applied.len());
                batch.applied.push((seat, applied));
                flush_queues(&mut work, &mut meta, &mut batch);
            }
            Timing::Queue(why) => {
                waiting.push(line.to_string());
                batch.held.push(HeldLine {
                    line: line.to_string(),
                    why,
                    standing: false,
                });
            }
            Timing::Standing(why) => {
                let held = held_of(&mut meta, seat);
                held.standing_source = Some(from.clone());
                if let Some(old) = held.standing.replace(line.to_string()) {
                    batch.notes.push((
                        seat,
                        format!("`{line}` replaces your earlier standing answer `{old}`."),
                    ));
                }
                batch.held.retain(|h| !h.standing);
                batch.held.push(HeldLine {
                    line: line.to_string(),
                    why,
                    standing: true,
                });
            }
            Timing::Never(error) => {
                return Err(refuse(OrderRejected::Rule {
                    line: line.to_string(),
                    error,
                }));
            }
        }
    }
    if !waiting.is_empty() {
        held_of(&mut meta, seat).push_batch(waiting, from.clone());
    }
    flush_queues(&mut work, &mut meta, &mut batch);
    Ok((work, meta, batch))
}

/// Applies held orders whose moment has come, and drops those that can no
/// longer apply, until nothing moves. Each player whose held orders
/// applied or were dropped is told.
pub fn flush_queues(work: &mut Box<dyn AnyGame>, meta: &mut GameMeta, batch: &mut Batch) {
    let n = work.player_names().len();
    if meta.queued.len() < n {
        meta.queued.resize(n, Held::default());
    }
    let mut done: Vec<Vec<String>> = vec![Vec::new(); n];
    loop {
        // Standing answers first, each judged on the game as it is now: one
        // kept for a move that has been settled lapses before a waiting
        // order can move a locomotive again.
        let mut moved = false;
        for s in 0..n {
            moved |= standing_step(work, meta, batch, Seat(s as u8));
        }
        if moved {
            continue;
        }
        // Then one waiting order at a time.
        if !(0..n).any(|s| queue_step(work, meta, batch, Seat(s as u8), &mut done[s])) {
            break;
        }
    }
    for (s, done) in done.into_iter().enumerate() {
        tell_applied(batch, Seat(s as u8), done);
    }
    // The game is over (the change that ended it was a veto round's, say,
    // with the mover's next action held behind it): nothing held can ever
    // apply, and each player is told what of theirs was not.
    if matches!(work.status(), crate::engine::Status::Finished(_)) {
        for (s, held) in meta.queued.iter_mut().enumerate() {
            let held = std::mem::take(held);
            let lines: Vec<String> = held
                .batches
                .into_iter()
                .flatten()
                .chain(held.standing)
                .map(|l| format!("`{l}`"))
                .collect();
            if !lines.is_empty() {
                batch.notes.push((
                    Seat(s as u8),
                    format!(
                        "The game is over, so your waiting orders were not applied: {}.",
                        lines.join(", ")
                    ),
                ));
            }
        }
    }
}

fn tell_applied(batch: &mut Batch, seat: Seat, done: Vec<String>) {
    if !done.is_empty() {
        batch.notes.push((
            seat,
            format!("Your waiting orders were applied: {}.", done.join("; ")),
        ));
    }
}

/// The seat's standing answer: applied if its moment came, dropped if it
/// never can. True if anything changed.
fn standing_step(
    work: &mut Box<dyn AnyGame>,
    meta: &mut GameMeta,
    batch: &mut Batch,
    seat: Seat,
) -> bool {
    let Some(line) = meta.queued[seat.index()].standing.clone() else {
        return false;
    };
    let timing = match work.timing_line(seat, &line) {
        Ok(t) => t,
        Err(e) => Timing::Never(RuleError::new("orders", reason(&e))),
    };
    match timing {
        Timing::Standing(_) | Timing::Queue(_) => false,
        Timing::Now if !is_awaited(&**work, seat) => false,
        Timing::Now => {
            meta.queued[seat.index()].standing = None;
            let source = meta.queued[seat.index()].standing_source.take();
            match work.apply_line(seat, &line) {
                Ok(a) => {
                    batch.notes.push((
                        seat,
                        format!("Your standing answer was applied: {}.", a.order),
                    ));
                    if let Some(source) = source {
                        batch.released.push((batch.applied.len(), source));
                    }
                    batch.applied.push((seat, a));
                }
                Err(e) => batch.notes.push((
                    seat,
                    format!(
                        "Your standing answer `{line}` was not applied: {} You are asked again.",
                        reason(&e)
                    ),
                )),
            }
            true
        }
        Timing::Never(e) => {
            meta.queued[seat.index()].standing = None;
            meta.queued[seat.index()].standing_source = None;
            // No round came: the answer lapses, which is news, not an error.
            let note = work.lapsed_line(seat, &line).unwrap_or_else(|| {
                format!("Your standing answer `{line}` was dropped: {}", because(&e))
            });
            batch.notes.push((seat, note));
            true
        }
    }
}

/// The first of the seat's waiting lines, once the seat is awaited:
/// applied if its moment came; if it fails or never can apply, dropped
/// with the rest of its batch. True if anything changed.
fn queue_step(
    work: &mut Box<dyn AnyGame>,
    meta: &mut GameMeta,
    batch: &mut Batch,
    seat: Seat,
    done: &mut Vec<String>,
) -> bool {
    let held = &meta.queued[seat.index()];
    let Some(line) = held.batches.first().and_then(|b| b.first()).cloned() else {
        return false;
    };
    if !is_awaited(&**work, seat) {
        return false;
    }
    if let Some(note) = work.lapsed_line(seat, &line) {
        // Its moment passed while it waited: it alone lapses.
        meta.queued[seat.index()].remove_first_line();
        tell_applied(batch, seat, std::mem::take(done));
        batch.notes.push((seat, note));
        return true;
    }
    let failed = match work.timing_line(seat, &line) {
        Ok(Timing::Queue(_) | Timing::Standing(_)) => return false,
        Ok(Timing::Now) => match work.apply_line(seat, &line) {
            Ok(a) => {
                done.push(a.order.clone());
                let held = &mut meta.queued[seat.index()];
                if let Some(source) = held.first_source() {
                    batch.released.push((batch.applied.len(), source.clone()));
                }
                batch.applied.push((seat, a));
                held.remove_first_line();
                return true;
            }
            Err(e) => reason(&e),
        },
        Ok(Timing::Never(e)) => because(&e),
        Err(e) => reason(&e),
    };
    let dropped = meta.queued[seat.index()].remove_first();
    tell_applied(batch, seat, std::mem::take(done));
    let mut note = format!("Your waiting order `{line}` was not applied: {failed}");
    if dropped.len() > 1 {
        let rest: Vec<String> = dropped[1..].iter().map(|l| format!("`{l}`")).collect();
        note.push_str(&format!(
            " Dropped with it, as they came after it in the same mail: {}.",
            rest.join(", ")
        ));
    }
    batch.notes.push((seat, note));
    true
}
