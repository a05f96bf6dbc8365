//! What happens in a game of Rocket, as events, and each event as a sentence
//! for one reader: amounts paid to others stay private (rulings 13).

use serde::{Deserialize, Serialize};

use super::board::{Board, Good, LineId, PlaceId};
use super::hex::Hex;
use super::scoring::Money;
use super::view::View;
use engine::Seat;

/// Why someone was paid.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum PaymentCause {
    /// A city was connected: its token holders (rules, Scoring 1).
    City {
        /// The city.
        city: PlaceId,
        /// The line that connected it.
        line: LineId,
    },
    /// A railway town was connected: the line's station holders (Scoring 2).
    Town {
        /// The town.
        town: PlaceId,
        /// The line that connected it.
        line: LineId,
    },
    /// A merger: the dissolved line's shareholders (Scoring 3).
    Merger {
        /// The line that dissolved.
        dissolved: LineId,
        /// The line that survived.
        survivor: LineId,
    },
    /// End of game: passenger tokens.
    EndPassengers,
    /// End of game: goods tokens of one kind.
    EndGoods {
        /// The good.
        good: Good,
    },
    /// End of game: stations linked to a line.
    EndStations {
        /// The line.
        line: LineId,
    },
    /// End of game: shares of a line.
    EndShares {
        /// The line.
        line: LineId,
    },
}

/// Something that happened. Fields are named for what they hold (`player`
/// is the seat who acted or is concerned), so only the variants carry docs.
#[allow(missing_docs)]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum Event {
    /// A goods token was taken from a city (action A).
    TokenTaken {
        player: Seat,
        city: PlaceId,
        good: Good,
    },
    /// A station was placed from the supply (action B).
    StationPlaced { player: Seat, hex: Hex },
    /// A station was moved (action B).
    StationMoved { player: Seat, from: Hex, to: Hex },
    /// A locomotive was moved (action C1).
    LocomotiveMoved {
        player: Seat,
        line: LineId,
        from: Hex,
        to: Hex,
    },
    /// The mover took a share.
    ShareTaken { player: Seat, line: LineId },
    /// The board had no share of the line left.
    NoShareLeft { player: Seat, line: LineId },
    /// The shareholders are asked whether they call a veto round on the
    /// move of `mover` (None in logs written before the mover was kept).
    VetoAsked {
        line: LineId,
        hex: Hex,
        players: Vec<Seat>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        mover: Option<Seat>,
    },
    /// A shareholder answered `no veto`.
    VetoDeclined { player: Seat },
    /// A veto round was called.
    VetoCalled { player: Seat, line: LineId },
    /// A player was passed over in the veto round: fewer real shares of
    /// the line than the least bid they could make (rulings 7: bids are
    /// paid in real shares). `line` is None in logs written before the
    /// reason was kept; `held` and `supplementary` are the player's real
    /// and supplementary shares of it, `needed` the least bid.
    CannotBid {
        player: Seat,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        line: Option<LineId>,
        #[serde(default)]
        held: u8,
        #[serde(default)]
        supplementary: u8,
        #[serde(default)]
        needed: u8,
    },
    /// A bid.
    BidMade { player: Seat, shares: u8, hex: Hex },
    /// A pass in the veto round.
    BidPassed { player: Seat },
    /// The veto round's winner paid and placed the locomotive.
    VetoWon {
        player: Seat,
        line: LineId,
        shares: u8,
        hex: Hex,
        discarded: bool,
    },
    /// The active player took a passenger token.
    PassengerTaken {
        player: Seat,
        hex: Hex,
        station_of: Seat,
    },
    /// A track tile was laid.
    TrackLaid { line: LineId, hex: Hex },
    /// A place was connected to a line.
    Connected { line: LineId, place: PlaceId },
    /// A payment (the amount is private to the payee).
    Paid {
        player: Seat,
        amount: Money,
        cause: PaymentCause,
    },
    /// A player placed in a scoring (first or second, or tied), but their
    /// part of the payment was under £1,000 and rounded down to nothing
    /// (rulings 1): said, so that no placing goes untold.
    PaidNothing { player: Seat, cause: PaymentCause },
    /// A scoring that paid nobody: nobody held any of what was scored.
    NobodyPaid { cause: PaymentCause },
    /// Two lines merged. `board_shares`: the dissolved line's shares left
    /// on the board, which leave the game (None in logs written before
    /// they were counted here).
    Merged {
        dissolved: LineId,
        survivor: LineId,
        hex: Hex,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        board_shares: Option<u8>,
    },
    /// Shares of a dissolved line exchanged 2 for 1: `returned` shares of
    /// `dissolved` (None in logs written before it was kept) for
    /// `received` shares of `line`, the survivor, and
    /// `received_supplementary` supplementary ones standing for it.
    SharesExchanged {
        player: Seat,
        returned: u8,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        dissolved: Option<LineId>,
        line: LineId,
        received: u8,
        received_supplementary: u8,
    },
    /// A line became isolated and its board shares were discarded.
    Isolated { line: LineId, discarded: u8 },
    /// A new turn.
    TurnBegan { player: Seat, number: u32 },
    /// A player had no legal action and lost the rest of the turn.
    TurnSkipped { player: Seat },
    /// A player's turn ended before its actions were taken: a missed
    /// deadline, or a moderator's `skip` (the log entry says which).
    TurnLost { player: Seat },
    /// The game ended.
    GameEnded { reason: String },
    /// Goods tokens of unconnected cities were discarded at the end.
    TokensDiscarded { player: Seat, count: u8 },
    /// The winner or winners.
    Winner { players: Vec<Seat> },
}

fn cause_text(b: &Board, cause: &PaymentCause) -> String {
    let line = |l: &LineId| b.line(*l).id.clone();
    match cause {
        PaymentCause::City { city, line: l } => {
            format!(
                "{}'s tokens ({} connected to {})",
                b.place(*city).name,
                b.place(*city).name,
                line(l)
            )
        }
        PaymentCause::Town { town, line: l } => {
            format!(
                "stations on {} ({} connected)",
                line(l),
                b.place(*town).name
            )
        }
        PaymentCause::Merger {
            dissolved,
            survivor,
        } => {
            format!(
                "shares of {} (merged into {})",
                line(dissolved),
                line(survivor)
            )
        }
        PaymentCause::EndPassengers => "passenger tokens".to_string(),
        PaymentCause::EndGoods { good } => format!("{good} tokens"),
        PaymentCause::EndStations { line: l } => format!("stations on {}", line(l)),
        PaymentCause::EndShares { line: l } => format!("shares of {}", line(l)),
    }
}

/// A line's name with its article, as the name is said: a line's name is
/// read letter by letter, so `an L&Y`, `an NER`, `an LSWR`, `an SER`, but
/// `a GWR`, `a GER`.
fn a_or_an(name: &str) -> String {
    let an = name
        .chars()
        .next()
        .is_some_and(|c| "AEFHILMNORSX".contains(c.to_ascii_uppercase()));
    format!("{} {name}", if an { "an" } else { "a" })
}

fn plural(n: u8, one: &str, many: &str) -> String {
    if n == 1 {
        format!("1 {one}")
    } else {
        format!("{n} {many}")
    }
}

/// The event as a sentence for the reader of `view`; empty for events not
/// worth telling. Names and amounts of money come from the view, the
/// names of lines and places from the board.
pub(super) fn describe(b: &Board, view: &View, event: &Event) -> String {
    let who = |s: &Seat| view.name(*s);
    let line = |l: &LineId| b.line(*l).id.clone();
    let place = |p: &PlaceId| b.place(*p).name.clone();
    match event {
        Event::TokenTaken { player, city, good } => {
            format!("{} takes a {good} token from {}.", who(player), place(city))
        }
        Event::StationPlaced { player, hex } => {
            format!("{} places a station on {hex}.", who(player))
        }
        Event::StationMoved { player, from, to } => {
            format!("{} moves a station from {from} to {to}.", who(player))
        }
        Event::LocomotiveMoved {
            player,
            line: l,
            from,
            to,
        } => {
            format!("{} moves {} from {from} to {to}.", who(player), line(l))
        }
        Event::ShareTaken { player, line: l } => {
            format!("{} takes {} share.", who(player), a_or_an(&line(l)))
        }
        Event::NoShareLeft { player, line: l } => no_share_left(&who(player), &line(l)),
        Event::VetoAsked {
            line: l,
            hex,
            players,
            mover,
        } => veto_asked(view, &line(l), *hex, players, *mover),
        Event::VetoDeclined { player } => format!("{}: no veto.", who(player)),
        Event::VetoCalled { player, line: l } => {
            format!("{} calls a veto round on {}.", who(player), line(l))
        }
        Event::CannotBid {
            player,
            line: Some(l),
            held,
            supplementary,
            needed,
        } => cannot_bid(view, *player, &line(l), (*held, *supplementary), *needed),
        Event::CannotBid { player, .. } => format!(
            "{} cannot bid (not enough real shares) and passes.",
            who(player)
        ),
        Event::BidMade {
            player,
            shares,
            hex,
        } => bid_made(&who(player), *shares, *hex),
        Event::BidPassed { player } => format!("{} passes.", who(player)),
        Event::VetoWon {
            player,
            line: l,
            shares,
            hex,
            discarded,
        } => veto_won(&who(player), &line(l), *shares, *hex, *discarded),
        Event::PassengerTaken {
            player,
            hex,
            station_of,
        } => passenger_taken(&who(player), *hex, &who(station_of)),
        Event::TrackLaid { line: l, hex } => track_laid(&line(l), *hex),
        Event::Connected { line: l, place: p } => {
            format!("{} is connected to {}.", place(p), line(l))
        }
        Event::Paid {
            player,
            amount,
            cause,
        } => paid(view, *player, *amount, &cause_text(b, cause)),
        Event::PaidNothing { player, cause } => paid_nothing(view, *player, &cause_text(b, cause)),
        Event::NobodyPaid { cause } => format!("Nobody is paid for {}.", cause_text(b, cause)),
        Event::Merged {
            dissolved,
            survivor,
            hex,
            board_shares,
        } => merged(&line(dissolved), &line(survivor), *hex, *board_shares),
        Event::SharesExchanged {
            player,
            returned,
            dissolved,
            line: l,
            received,
            received_supplementary,
        } => {
            let (d, s) = (dissolved.as_ref().map(line), line(l));
            let received = (*received, *received_supplementary);
            shares_exchanged(&who(player), *returned, d.as_deref(), &s, received)
        }
        Event::Isolated { line: l, discarded } => isolated(&line(l), *discarded),
        Event::TurnBegan { player, number } => format!("Turn {number}: {} to play.", who(player)),
        Event::TurnSkipped { player } => {
            format!("{} has no legal action and is skipped.", who(player))
        }
        Event::TurnLost { player } => {
            format!("{} loses the rest of the turn.", who(player))
        }
        Event::GameEnded { reason } => format!("The game ends: {reason}."),
        Event::TokensDiscarded { player, count } => tokens_discarded(&who(player), *count),
        Event::Winner { players } => winners(&players.iter().map(&who).collect::<Vec<_>>()),
    }
}

/// No share of `line` left on the board for `name`, who moved it.
fn no_share_left(name: &str, line: &str) -> String {
    format!("{name} gets no share: none of {line} is left on the board.")
}

/// A bid in the veto round.
fn bid_made(name: &str, shares: u8, hex: Hex) -> String {
    format!(
        "{name} bids {} for {hex}.",
        plural(shares, "share", "shares")
    )
}

/// A passenger token taken by `name` from `owner`'s station on `hex`.
fn passenger_taken(name: &str, hex: Hex, owner: &str) -> String {
    format!("{name} takes a passenger token ({owner}'s station on {hex}).")
}

/// Goods tokens of cities connected to no line, discarded at the end.
fn tokens_discarded(name: &str, count: u8) -> String {
    format!(
        "{name} discards {} of cities connected to no line.",
        plural(count, "goods token", "goods tokens")
    )
}

/// The winner, or those who share the win.
fn winners(names: &[String]) -> String {
    match names {
        [one] => format!("{one} wins."),
        _ => format!("{} share the win.", names.join(" and ")),
    }
}

/// The veto question put to `players` on the move of `line` to `hex` by
/// `mover` (unknown in older logs).
fn veto_asked(view: &View, line: &str, hex: Hex, players: &[Seat], mover: Option<Seat>) -> String {
    let names: Vec<String> = players.iter().map(|s| view.name(*s)).collect();
    match mover {
        Some(m) => format!(
            "{} may call a veto round on {} move of {line} to {hex}.",
            names.join(", "),
            if view.seat() == Some(m) {
                "your".to_string()
            } else {
                format!("{}'s", view.name(m))
            },
        ),
        None => format!(
            "{} may call a veto round on {line}'s move to {hex}.",
            names.join(", "),
        ),
    }
}

/// `player` passed over in the veto round on `line`: too few real shares
/// of it (they hold `real` and `supplementary` ones) for the least bid,
/// `needed` (rulings 7: bids are paid in real shares).
fn cannot_bid(
    view: &View,
    player: Seat,
    line: &str,
    (real, supplementary): (u8, u8),
    needed: u8,
) -> String {
    let you = view.seat() == Some(player);
    let (name, holds) = if you {
        ("You".to_string(), "hold")
    } else {
        (view.name(player), "holds")
    };
    match (real, supplementary) {
        (0, 0) => format!(
            "{name} {holds} no {line} share, so cannot bid, and {} passed over.",
            if you { "are" } else { "is" }
        ),
        (0, _) => format!(
            "{name} {holds} only supplementary {line} shares, which cannot be bid, \
             and {} passed over.",
            if you { "are" } else { "is" }
        ),
        (n, s) => format!(
            "{name} cannot bid: a bid must now be at least {}, and {} {holds} only {}{}; \
             passed over.",
            plural(needed, "share", "shares"),
            if you {
                "you".to_string()
            } else {
                view.name(player)
            },
            plural(
                n,
                &format!("real {line} share"),
                &format!("real {line} shares")
            ),
            if s > 0 {
                " (supplementary shares cannot be bid)"
            } else {
                ""
            }
        ),
    }
}

/// The veto round won by `name` with `shares`, paid back to the board or
/// `discarded` where the line is isolated.
fn veto_won(name: &str, line: &str, shares: u8, hex: Hex, discarded: bool) -> String {
    format!(
        "{name} wins the veto round with {} and puts {line} on {hex}; the shares are {}.",
        plural(shares, "share", "shares"),
        if discarded {
            "discarded (the line is isolated)"
        } else {
            "back on the board"
        }
    )
}

/// A track tile of `line` laid on `hex`.
fn track_laid(line: &str, hex: Hex) -> String {
    // "a" or "an": ASCII, so its first byte is a whole letter.
    let named = a_or_an(line);
    format!(
        "{}{} track tile is laid on {hex}.",
        named[..1].to_uppercase(),
        &named[1..]
    )
}

/// A payment: its amount only to the payee, or to everyone where money is
/// open (rulings 13).
fn paid(view: &View, player: Seat, amount: Money, cause: &str) -> String {
    if view.seat() == Some(player) {
        format!("You receive {amount} for {cause}.")
    } else if view.money(player).is_some() {
        format!("{} receives {amount} for {cause}.", view.name(player))
    } else {
        format!("{} is paid for {cause}.", view.name(player))
    }
}

/// A placing whose part of the payment rounded down to nothing (rulings
/// 1).
fn paid_nothing(view: &View, player: Seat, cause: &str) -> String {
    if view.seat() == Some(player) {
        format!(
            "You receive nothing for {cause}: your part of the payment is under £1,000, \
             and payments are whole £1,000 notes."
        )
    } else {
        format!(
            "{} receives nothing for {cause}: their part of the payment is under £1,000, \
             and payments are whole £1,000 notes.",
            view.name(player)
        )
    }
}

/// The line `d` merged into `s` at `hex`, with its shares left on the
/// board (unknown in older logs), which leave the game (rulings 6).
fn merged(d: &str, s: &str, hex: Hex, board_shares: Option<u8>) -> String {
    let Some(left) = board_shares else {
        return format!("{d} merges into {s} at {hex} and is dissolved.");
    };
    format!(
        "{d} merges into {s} at {hex} and is dissolved: its shareholders return their {d} \
         shares and get one {s} share for every two (a single share is worth nothing); {}.",
        match left {
            0 => format!("no {d} share was left on the board"),
            n => format!(
                "the {} left on the board {} the game",
                plural(n, &format!("{d} share"), &format!("{d} shares")),
                if n == 1 { "leaves" } else { "leave" }
            ),
        }
    )
}

/// `name`'s shares of the dissolved line `d` (unknown in older logs)
/// exchanged 2 for 1: `returned` of them for `received` shares of the
/// survivor `s`, real and supplementary (rulings 6).
fn shares_exchanged(
    name: &str,
    returned: u8,
    d: Option<&str>,
    s: &str,
    received: (u8, u8),
) -> String {
    let Some(d) = d else {
        return older_shares_exchanged(name, returned, s, received);
    };
    let (real, supplementary) = received;
    let gave = plural(returned, &format!("{d} share"), &format!("{d} shares"));
    let mut got = Vec::new();
    if real > 0 {
        got.push(plural(real, &format!("{s} share"), &format!("{s} shares")));
    }
    if supplementary > 0 {
        got.push(format!(
            "{} standing for {s}",
            plural(supplementary, "supplementary share", "supplementary shares")
        ));
    }
    let due = returned / 2;
    let short = real + supplementary < due;
    let mut why = Vec::new();
    if returned % 2 == 1 {
        why.push(if returned == 1 {
            "a single share is worth nothing".to_string()
        } else {
            "the odd share is worth nothing".to_string()
        });
    }
    if short {
        why.push(format!(
            "no more {s} shares, supplementary ones included, were left"
        ));
    }
    let got = if got.is_empty() {
        "nothing".to_string()
    } else {
        got.join(" and ")
    };
    let sep = if got == "nothing" { ": " } else { "; " };
    if why.is_empty() {
        format!("{name} returns {gave} and receives {got}.")
    } else {
        format!(
            "{name} returns {gave} and receives {got}{sep}{}.",
            why.join("; ")
        )
    }
}

/// [`shares_exchanged`] as logs written before the dissolved line was
/// kept tell it.
fn older_shares_exchanged(
    name: &str,
    returned: u8,
    s: &str,
    (real, supplementary): (u8, u8),
) -> String {
    let mut got = plural(real, &format!("{s} share"), &format!("{s} shares"));
    if supplementary > 0 {
        got.push_str(&format!(
            " and {} standing for {s}",
            plural(supplementary, "supplementary share", "supplementary shares"),
        ));
    }
    format!(
        "{name} returns {} and receives {got}.",
        plural(returned, "share", "shares")
    )
}

/// `line` isolated (rulings 9), its `discarded` board shares out of the
/// game.
fn isolated(line: &str, discarded: u8) -> String {
    format!(
        "{line} is isolated: it can reach no new place nor another line; {}.",
        match discarded {
            0 => "it has no board shares left to discard".to_string(),
            n => format!(
                "{} discarded",
                plural(n, "board share is", "board shares are")
            ),
        }
    )
}
