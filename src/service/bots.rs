//! Where the engine's bot plays (issue 36; docs/game-masters.md, "Bots"):
//! a seat a bot holds (`--player NAME=bot`, `new … bots=N`, a moderator's
//! `replace PLAYER bot`), a player's seat while they have it play for them
//! (`autopilot on`, `away … bot`), and a missed turn under the `bot`
//! policy (the scheduler's, [`order_for`]).
//!
//! Every change goes through the one pipeline, and the pipeline calls
//! [`play`] after the change's own orders: whenever the game then awaits a
//! seat the bot plays, the bot gives that seat's order, the held orders
//! it brings on apply, and so on until the game awaits a person (or is
//! over). So a bot answers at once, within the change that made its turn
//! come, whatever made it (a player's mail, a moderator, a deadline).
//!
//! The bot's orders go into the log as any other, with the source
//! [`Actor::Bot`] and a why that every report shows (`Robbie: extend …
//! (Robbie is played by the bot)`); `verify` replays them as it replays
//! any order. The bot is deterministic: its seed is the game's seed and the
//! number of log entries before its order ([`crate::engine::bot::seed`]),
//! so the same game asked again gives the same order. It reads the game
//! only through the seat's own view (`Game::determinize`), never a secret.

use chrono::{DateTime, Utc};

use super::orders::{self, Batch};
use crate::engine::bot::{self, Settings};
use crate::engine::{Actor, AnyGame, Seat, Status};
use crate::store::GameMeta;

/// The address a bot's seat is given (`--player Robbie=bot`, `new rocket
/// bots=2`, `replace PLAYER bot`): no mail goes to it, and the players'
/// records know it for a bot's, having no `@` (`store::records`).
pub const BOT_ADDRESS: &str = "bot";

/// True if `address` seats a bot ([`BOT_ADDRESS`], in any case).
pub fn is_bot_address(address: &str) -> bool {
    address.trim().eq_ignore_ascii_case(BOT_ADDRESS)
}

/// The most orders the bots give in one change: a guard against a game
/// that would never await a person again (every seat a bot's is refused
/// at `new`; a whole game of Linie 1 is some 200 orders).
pub const MOST_ORDERS: usize = 2_000;

/// Why the bot played `seat`, as the log keeps it after the player's name
/// (`Robbie is played by the bot`), or None if it does not play them now.
pub fn why(meta: &GameMeta, seat: Seat, now: DateTime<Utc>) -> Option<&'static str> {
    if meta.is_bot(seat) {
        Some("is played by the bot")
    } else if meta.on_autopilot(seat) {
        Some("left the move to the bot (autopilot)")
    } else if meta.clock.bot_away(seat, now) {
        Some("is away; the bot played for them")
    } else {
        None
    }
}

/// The bot's order for `seat` of `game` now, in canonical text, at
/// `settings` (`[bots]` in the config), seeded by the game's seed and the
/// `entries` in its log so far.
pub fn order_for(
    game: &dyn AnyGame,
    seat: Seat,
    (game_seed, entries): (u64, u64),
    settings: &Settings,
) -> Option<String> {
    let seed = bot::seed(game_seed, entries, seat);
    game.bot_order(seat, seed, settings)
}

/// What [`play`] did: the places (in the batch's `applied`) of the
/// bot's orders, each with why.
pub type Played = Vec<(usize, &'static str)>;

/// Plays every seat the bot plays while the game awaits one (see the
/// module's notes), after the change's own orders: `game` and `meta` as
/// the change leaves them, its `batch` extended with the bot's orders
/// (each released with the source [`Actor::Bot`]) and what they bring
/// on; `log_len` is the number of entries the log has before the change,
/// `settings` the bot's (`[bots]`).
/// Nothing while the game is paused, aborted or over.
pub fn play(
    game: &mut Box<dyn AnyGame>,
    meta: &mut GameMeta,
    batch: &mut Batch,
    (game_seed, log_len, settings): (u64, u64, &Settings),
    now: DateTime<Utc>,
) -> Played {
    let mut played = Vec::new();
    while played.len() < MOST_ORDERS {
        if meta.paused.is_some() || meta.aborted || matches!(game.status(), Status::Finished(_)) {
            break;
        }
        let awaited = game.awaiting();
        let Some((seat, why)) = awaited
            .iter()
            .find_map(|a| why(meta, a.seat, now).map(|w| (a.seat, w)))
        else {
            break;
        };
        let entries = log_len + batch.applied.len() as u64;
        let Some(line) = order_for(&**game, seat, (game_seed, entries), settings) else {
            break;
        };
        match game.apply_line(seat, &line) {
            Ok(applied) => {
                let at = batch.applied.len();
                batch.released.push((at, Actor::Bot));
                batch.applied.push((seat, applied));
                played.push((at, why));
            }
            Err(e) => {
                // The bot gives only legal orders (tests/all/bots.rs): a
                // refusal is a bug, and the game waits for a person.
                tracing::error!(%line, error = %e, "the bot's order was refused");
                break;
            }
        }
        orders::flush_queues(game, meta, batch);
    }
    played
}

/// The bot stops playing for `seat`'s player, who sent orders (issue 36:
/// "it stops the moment they send an order"): their autopilot off, and
/// an absence of theirs under way goes on without the bot. The notes to tell, if it
/// played for them: to them, and to the others (`name` plays again).
pub fn player_is_back(
    meta: &mut GameMeta,
    seat: Seat,
    (name, players): (&str, usize),
    now: DateTime<Utc>,
) -> Vec<(Seat, String)> {
    let autopilot = meta.on_autopilot(seat);
    if autopilot {
        meta.set_autopilot(seat, false);
    }
    // An absence still to come keeps its bot.
    let away = meta.clock.bot_away(seat, now) && meta.clock.bot_away_ends(seat);
    if !autopilot && !away {
        return Vec::new();
    }
    (0..players)
        .map(|s| {
            let s = Seat(s as u8);
            let text = if s == seat {
                "You sent orders, so the bot no longer plays for you (`autopilot on` hands it your turns again).".to_string()
            } else {
                format!("{name} is back at the table: the bot no longer plays for them.")
            };
            (s, text)
        })
        .collect()
}
