//! What happens in a game of Rocket, as events, and each event as a sentence
//! for one reader: amounts paid to others stay private (rulings 13).

use serde::{Deserialize, Serialize};

use super::board::{Board, Good, LineId, PlaceId};
use super::hex::Hex;
use super::scoring::Money;
use super::view::View;
use engine::{Person, Seat};

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
    let who = |s: &Seat| view.who(*s);
    let line = |l: &LineId| b.line(*l).id.clone();
    let place = |p: &PlaceId| b.place(*p).name.clone();
    // `player` does something: "You take …", "ben takes …".
    let does = |player: &Seat, (you, other): (&str, &str), rest: String| {
        format!("{} {rest}", who(player).does(you, other))
    };
    const TAKE: (&str, &str) = ("take", "takes");
    const MOVE: (&str, &str) = ("move", "moves");
    match event {
        Event::TokenTaken { player, city, good } => does(
            player,
            TAKE,
            format!("a {good} token from {}.", place(city)),
        ),
        Event::StationPlaced { player, hex } => {
            does(player, ("place", "places"), format!("a station on {hex}."))
        }
        Event::StationMoved { player, from, to } => {
            does(player, MOVE, format!("a station from {from} to {to}."))
        }
        Event::LocomotiveMoved {
            player,
            line: l,
            from,
            to,
        } => does(player, MOVE, format!("{} from {from} to {to}.", line(l))),
        Event::ShareTaken { player, line: l } => {
            does(player, TAKE, format!("{} share.", a_or_an(&line(l))))
        }
        Event::NoShareLeft { player, line: l } => no_share_left(&who(player), &line(l)),
        Event::VetoAsked {
            line: l,
            hex,
            players,
            mover,
        } => veto_asked(view, &line(l), *hex, players, *mover),
        Event::VetoDeclined { player } => veto_declined(&who(player)),
        Event::VetoCalled { player, line: l } => does(
            player,
            ("call", "calls"),
            format!("a veto round on {}.", line(l)),
        ),
        Event::CannotBid {
            player,
            line: Some(l),
            held,
            supplementary,
            needed,
        } => cannot_bid(view, *player, &line(l), (*held, *supplementary), *needed),
        Event::CannotBid { player, .. } => {
            let p = who(player);
            format!(
                "{} cannot bid (not enough real shares) and {}.",
                p.subject(),
                p.verb("pass", "passes")
            )
        }
        Event::BidMade {
            player,
            shares,
            hex,
        } => bid_made(&who(player), *shares, *hex),
        Event::BidPassed { player } => format!("{}.", who(player).does("pass", "passes")),
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
        Event::TurnBegan { player, number } => turn_began(&who(player), *number),
        Event::TurnSkipped { player } => turn_skipped(&who(player)),
        Event::TurnLost { player } => {
            format!(
                "{} the rest of the turn.",
                who(player).does("lose", "loses")
            )
        }
        Event::GameEnded { reason } => format!("The game ends: {reason}."),
        Event::TokensDiscarded { player, count } => tokens_discarded(&who(player), *count),
        Event::Winner { players } => winners(&players.iter().map(who).collect::<Vec<_>>()),
    }
}

/// `p` answered the veto question `no veto`.
fn veto_declined(p: &Person) -> String {
    if p.is_reader() {
        "You answer no veto.".to_string()
    } else {
        format!("{}: no veto.", p.subject())
    }
}

/// Turn `number` began, `p`'s.
fn turn_began(p: &Person, number: u32) -> String {
    if p.is_reader() {
        format!("Turn {number}: your turn.")
    } else {
        format!("Turn {number}: {} to play.", p.subject())
    }
}

/// `p` had no legal action.
fn turn_skipped(p: &Person) -> String {
    format!(
        "{} no legal action and {} skipped.",
        p.does("have", "has"),
        p.verb("are", "is")
    )
}

/// No share of `line` left on the board for `p`, who moved it.
fn no_share_left(p: &Person, line: &str) -> String {
    format!(
        "{} no share: none of {line} is left on the board.",
        p.does("get", "gets")
    )
}

/// A bid in the veto round.
fn bid_made(p: &Person, shares: u8, hex: Hex) -> String {
    format!(
        "{} {} for {hex}.",
        p.does("bid", "bids"),
        plural(shares, "share", "shares")
    )
}

/// A passenger token taken by `p` from `owner`'s station on `hex`.
fn passenger_taken(p: &Person, hex: Hex, owner: &Person) -> String {
    format!(
        "{} a passenger token ({} station on {hex}).",
        p.does("take", "takes"),
        owner.possessive_within()
    )
}

/// Goods tokens of cities connected to no line, discarded at the end.
fn tokens_discarded(p: &Person, count: u8) -> String {
    format!(
        "{} {} of cities connected to no line.",
        p.does("discard", "discards"),
        plural(count, "goods token", "goods tokens")
    )
}

/// The winner, or those who share the win.
fn winners(players: &[Person]) -> String {
    match players {
        [one] => format!("{}.", one.does("win", "wins")),
        _ => format!("{} share the win.", people(players)),
    }
}

/// Several players as the subject of a sentence: "You and ben", "ben,
/// cara".
fn people(players: &[Person]) -> String {
    let names = players
        .iter()
        .enumerate()
        .map(|(i, p)| if i == 0 { p.subject() } else { p.object() })
        .collect::<Vec<_>>();
    match names.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
        _ => names.concat(),
    }
}

/// The veto question put to `players` on the move of `line` to `hex` by
/// `mover` (unknown in older logs).
fn veto_asked(view: &View, line: &str, hex: Hex, players: &[Seat], mover: Option<Seat>) -> String {
    let names = people(&players.iter().map(|s| view.who(*s)).collect::<Vec<_>>());
    match mover {
        Some(m) => format!(
            "{names} may call a veto round on {} move of {line} to {hex}.",
            view.who(m).possessive_within(),
        ),
        None => format!("{names} may call a veto round on {line}'s move to {hex}."),
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
    let p = view.who(player);
    let (name, holds, is) = (p.subject(), p.verb("hold", "holds"), p.verb("are", "is"));
    match (real, supplementary) {
        (0, 0) => format!("{name} {holds} no {line} share, so cannot bid, and {is} passed over."),
        (0, _) => format!(
            "{name} {holds} only supplementary {line} shares, which cannot be bid, \
             and {is} passed over."
        ),
        (n, s) => format!(
            "{name} cannot bid: a bid must now be at least {}, and {} {holds} only {}{}; \
             passed over.",
            plural(needed, "share", "shares"),
            p.object(),
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

/// The veto round won by `p` with `shares`, paid back to the board or
/// `discarded` where the line is isolated.
fn veto_won(p: &Person, line: &str, shares: u8, hex: Hex, discarded: bool) -> String {
    format!(
        "{} the veto round with {} and {} {line} on {hex}; the shares are {}.",
        p.does("win", "wins"),
        plural(shares, "share", "shares"),
        p.verb("put", "puts"),
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
    let p = view.who(player);
    if view.money(player).is_some() {
        format!("{} {amount} for {cause}.", p.does("receive", "receives"))
    } else {
        format!("{} paid for {cause}.", p.does("are", "is"))
    }
}

/// A placing whose part of the payment rounded down to nothing (rulings
/// 1).
fn paid_nothing(view: &View, player: Seat, cause: &str) -> String {
    let p = view.who(player);
    format!(
        "{} nothing for {cause}: {} part of the payment is under £1,000, \
         and payments are whole £1,000 notes.",
        p.does("receive", "receives"),
        p.verb("your", "their")
    )
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
    p: &Person,
    returned: u8,
    d: Option<&str>,
    s: &str,
    received: (u8, u8),
) -> String {
    let Some(d) = d else {
        return older_shares_exchanged(p, returned, s, received);
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
    let (returns, receives) = (p.does("return", "returns"), p.verb("receive", "receives"));
    if why.is_empty() {
        format!("{returns} {gave} and {receives} {got}.")
    } else {
        format!(
            "{returns} {gave} and {receives} {got}{sep}{}.",
            why.join("; ")
        )
    }
}

/// [`shares_exchanged`] as logs written before the dissolved line was
/// kept tell it.
fn older_shares_exchanged(
    p: &Person,
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
        "{} {} and {} {got}.",
        p.does("return", "returns"),
        plural(returned, "share", "shares"),
        p.verb("receive", "receives")
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
