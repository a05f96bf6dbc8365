//! What happens in a game of Linie 1, as events, and each event as a
//! sentence for one reader. Nothing in an event is secret: the line and
//! route cards appear only in `TripStarted`, when the player shows them
//! (rulings 4). Sentences are drawn from the reader's [`View`], so "you"
//! and names are decided in one place.

use serde::{Deserialize, Serialize};

use super::Place;
use super::data::{BuildingId, Components, LineId, Paths, RouteCardId, Square, TerminalId, TileId};
use super::view::View;
use engine::Seat;

/// Something that happened. Fields are named for what they hold (`player`
/// is the seat who acted), so only the variants carry docs.
#[allow(missing_docs)]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum Event {
    /// A tile laid on an empty square.
    Laid {
        player: Seat,
        square: Square,
        tile: TileId,
        paths: Paths,
    },
    /// A building's stop sign put on the tile just laid (rulings 3).
    StopSign {
        building: BuildingId,
        square: Square,
    },
    /// A board tile exchanged; the old one went to the hand (rulings 2).
    Exchanged {
        player: Seat,
        square: Square,
        old_tile: TileId,
        old_paths: Paths,
        tile: TileId,
        paths: Paths,
    },
    /// A tile drawn, from the supply (`from` none) or an open hand.
    Drew {
        player: Seat,
        tile: TileId,
        from: Option<Seat>,
    },
    /// No tile fitted: `laid` tiles of the turn were laid before the pass
    /// (0 or 1; 0 in logs written before it was kept).
    Passed {
        player: Seat,
        #[serde(default)]
        laid: u8,
    },
    /// A missed deadline or a moderator's skip.
    TurnSkipped { player: Seat },
    /// The next player's turn began (turn `number`), as Rocket's log says it.
    TurnBegan { player: Seat, number: u32 },
    /// The inaugural trip began: the cards are shown (rulings 4, 5).
    TripStarted {
        player: Seat,
        line: LineId,
        route: RouteCardId,
        stops: Vec<BuildingId>,
        terminal: TerminalId,
    },
    /// A die was rolled, or the last result repeated (variants 1, 2).
    Rolled {
        player: Seat,
        value: u8,
        repeated: bool,
    },
    /// A tram moved; `counted` are required stops it stopped at.
    Moved {
        player: Seat,
        places: Vec<Place>,
        distance: u8,
        counted: Vec<BuildingId>,
    },
    /// A tram that could no longer finish was taken off (Stationmaster ruling 5).
    TramOff { player: Seat },
    /// The trip is finished: the game is won.
    Won { player: Seat, terminal: TerminalId },
    /// Nobody could go on: the game ended with no winner (Stationmaster ruling 1).
    Blocked,
}

/// `event` as a sentence for the reader of `view`.
pub(super) fn describe(d: &Components, view: &View, event: &Event) -> String {
    let who = |s: &Seat| view.who(*s).subject().to_string();
    match event {
        Event::Laid {
            player,
            square,
            tile: t,
            paths,
        } => {
            format!(
                "{} laid a {} ({paths}) on {square}.",
                who(player),
                tile_name(d, *t)
            )
        }
        Event::StopSign { building, square } => format!(
            "The stop sign of building {} went to {square}.",
            d.building(*building).letter
        ),
        Event::Exchanged {
            player,
            square,
            old_tile,
            old_paths,
            tile: t,
            paths,
        } => format!(
            "{} exchanged the {} ({old_paths}) on {square} for a {} ({paths}).",
            who(player),
            tile_name(d, *old_tile),
            tile_name(d, *t)
        ),
        Event::Drew { player, tile, from } => drew(d, view, *player, *tile, *from),
        Event::Passed { player, laid: 0 } => {
            format!("{} could lay no tile and passed.", who(player))
        }
        // One tile laid, and none of the hand fitted for the second.
        Event::Passed { player, .. } => {
            format!("{} could lay no second tile and passed.", who(player))
        }
        Event::TurnSkipped { player } => {
            format!("{} turn was skipped.", view.who(*player).possessive())
        }
        Event::TurnBegan { player, number } => {
            let p = view.who(*player);
            if p.is_reader() {
                format!("Turn {number}: your turn.")
            } else {
                format!("Turn {number}: {} to play.", p.subject())
            }
        }
        Event::TripStarted {
            player,
            line,
            route,
            stops,
            terminal,
        } => format!(
            "{} started the inaugural trip from terminal {}: line {}, route card {}, stops {}.",
            who(player),
            d.terminal(*terminal).name,
            d.lines[line.index()].number,
            d.routes[route.index()].name,
            letters(d, stops)
        ),
        Event::Rolled {
            player,
            value,
            repeated: false,
        } => {
            format!("{} rolled {value}.", who(player))
        }
        Event::Rolled {
            player,
            value,
            repeated: true,
        } => {
            format!("{} repeated the last result, {value}.", who(player))
        }
        Event::Moved {
            player,
            places,
            distance,
            counted,
        } => moved(d, view, *player, places, *distance, counted),
        // Stationmaster ruling 5: a tram may still reach its terminal and
        // yet have no way on through the stops it has still to make.
        Event::TramOff { player } => format!(
            "{} tram cannot finish its trip from there (no way on reaches its terminal through the stops still to make): it is taken off and starts again from a terminal next turn.",
            view.who(*player).possessive()
        ),
        Event::Won { player, terminal } => format!(
            "{} reached terminal {} and won the game!",
            who(player),
            d.terminal(*terminal).name
        ),
        Event::Blocked => {
            "Nobody could lay a tile or move a tram: the game ends with no winner.".into()
        }
    }
}

/// A tile type with its article's noun: "straight", "crossing"; "tile
/// with four curves".
fn tile_name(d: &Components, t: TileId) -> String {
    let name = &d.tile(t).name;
    if name.contains(' ') {
        // "straight and left curve": a tile with a straight and a left
        // curve, not "a tile with straight and left curve".
        let name = match name.strip_prefix("straight and ") {
            Some(rest) if rest.starts_with("left ") || rest.starts_with("right ") => {
                format!("a straight and a {rest}")
            }
            Some(rest) => format!("a straight and {rest}"),
            None => name.clone(),
        };
        format!("tile with {name}")
    } else {
        name.clone()
    }
}

/// Buildings by their letters: "A, F, K".
fn letters(d: &Components, bs: &[BuildingId]) -> String {
    bs.iter()
        .map(|b| d.building(*b).letter.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// A tile drawn from the supply (`from` none) or taken from an open hand.
fn drew(d: &Components, view: &View, player: Seat, tile: TileId, from: Option<Seat>) -> String {
    match from {
        // The paths as printed, as the player writes the tile.
        None => format!(
            "{} drew a {} ({}) from the supply.",
            view.who(player).subject(),
            tile_name(d, tile),
            d.tile(tile).paths
        ),
        Some(giver) => format!(
            "{} took a {} ({}) from {} open hand.",
            view.who(player).subject(),
            tile_name(d, tile),
            d.tile(tile).paths,
            view.who(giver).possessive_within()
        ),
    }
}

/// A tram's move through `places`, with the required stops it counted,
/// or the stop sign that ended it.
fn moved(
    d: &Components,
    view: &View,
    player: Seat,
    places: &[Place],
    distance: u8,
    counted: &[BuildingId],
) -> String {
    let place = |p: &Place| match p {
        Place::Square(s) => s.to_string(),
        Place::Terminal(t) => d.terminal(*t).name.clone(),
    };
    let mut s = format!(
        "{} moved {distance} square{}: {}.",
        view.who(player).subject(),
        if distance == 1 { "" } else { "s" },
        places.iter().map(place).collect::<Vec<_>>().join(" ")
    );
    if !counted.is_empty() {
        s.push_str(&format!(" Stopped at {}.", letters(d, counted)));
    } else if let Some(Place::Square(last)) = places.last() {
        // A stop sign of a building not on the route ends the move
        // too (rule book, Viaggio inaugurale): say so, or `move 3` that
        // went 1 square reads as a fault. Stop signs never move, so
        // the view of now tells for the past as well.
        let at = last.to_string();
        if let Some(sign) = view.stop_signs.iter().find(|x| x.square == at) {
            s.push_str(&format!(
                " The stop sign of building {} on {at} ends the move: every tram stops at each stop sign.",
                sign.building
            ));
        }
    }
    s
}
