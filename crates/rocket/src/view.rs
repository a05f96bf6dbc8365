//! What one reader may see of a Rocket game: the per-player [`View`] that
//! every output is drawn from (the JSON view of `docs/state-json.md` is
//! this type serialized; the status block is drawn from it alone, the
//! sentences of events from it and the board's names, and the map and the
//! picture from it and the board).
//!
//! The one thing hidden in Rocket is money (rulings 13). Whose money a
//! reader sees is decided once, in [`view`]: the viewer's own, or everyone's
//! once the game is over or with `open_money`. [`PublicPlayer`] has no money
//! field at all.

use serde::Serialize;

use super::board::{Board, Good, LineId, PlaceId, PlaceKind, Terrain};
use super::hex::{Dir, Hex};
use super::scoring::Money;
use super::{Cell, LineStatus, Phase, Rocket};
use engine::{Person, Seat, Viewer};

/// A Rocket game as one reader (a player, or a spectator) may see it.
#[derive(Clone, Debug, Serialize)]
pub struct View {
    /// Who reads it.
    #[serde(skip)]
    reader: Viewer,
    /// Each player's money where this reader may see it, by seat.
    #[serde(skip)]
    money: Vec<Option<Money>>,
    /// Everyone's money is shown to everyone.
    #[serde(skip)]
    money_public: bool,
    pub(super) game: Option<String>,
    pub(super) kind: &'static str,
    pub(super) board: BoardView,
    pub(super) options: Vec<&'static str>,
    pub(super) phase: &'static str,
    pub(super) finished: bool,
    pub(super) viewer: Option<String>,
    pub(super) players: Vec<PlayerView>,
    pub(super) lines: Vec<LineView>,
    pub(super) cities: Vec<CityView>,
    pub(super) stations: Vec<StationView>,
    pub(super) track: Vec<TrackView>,
    pub(super) tiles_left: u8,
    pub(super) tiles_laid: u8,
    pub(super) supplementary_shares_left: u8,
    pub(super) passengers_left: u8,
    pub(super) turn: TurnView,
    pub(super) awaiting: Vec<AwaitedView>,
    pub(super) veto: Option<VetoView>,
    pub(super) result: Option<ResultView>,
    /// The pieces on the board, for the map and the picture; not in the
    /// JSON view, which lists them by hex.
    #[serde(skip)]
    pub(super) table: Table,
}

/// What stands on the board, as everyone sees it: the pieces, with
/// nothing private among them (rulings 13: only money is), which the map
/// and the picture are drawn from.
#[derive(Clone, Debug)]
pub(super) struct Table {
    /// What stands on each hex, in the board's order.
    cells: Vec<Cell>,
    /// Each line's locomotive, by line.
    locomotives: Vec<Locomotive>,
    /// Goods tokens still on each city, by place and good.
    city_tokens: Vec<[u8; 4]>,
}

/// Where a line's locomotive stands, and which way it faces.
#[derive(Clone, Copy, Debug)]
pub(super) struct Locomotive {
    /// Its hex (None once its line is dissolved).
    pub(super) at: Option<Hex>,
    /// Its facing (None while on its starting town).
    pub(super) facing: Option<Dir>,
}

impl Table {
    fn of(g: &Rocket) -> Table {
        Table {
            cells: g.cells.clone(),
            locomotives: g
                .lines
                .iter()
                .map(|l| Locomotive {
                    at: l.locomotive,
                    facing: l.facing,
                })
                .collect(),
            city_tokens: g.city_tokens.clone(),
        }
    }

    /// What stands on `hex` of `board` (nothing, on a board the view is
    /// not of).
    pub(super) fn cell(&self, board: &Board, hex: Hex) -> &Cell {
        const EMPTY: Cell = Cell {
            track: None,
            tile: None,
            station: None,
            locomotive: None,
        };
        self.cells.get(board.index(hex)).unwrap_or(&EMPTY)
    }

    /// Line `l`'s locomotive.
    pub(super) fn locomotive(&self, l: LineId) -> Locomotive {
        self.locomotives
            .get(l.index())
            .copied()
            .unwrap_or(Locomotive {
                at: None,
                facing: None,
            })
    }

    /// The goods tokens left on `city`, by good.
    pub(super) fn city_tokens(&self, city: PlaceId) -> [u8; 4] {
        self.city_tokens
            .get(city.index())
            .copied()
            .unwrap_or_default()
    }
}

#[derive(Clone, Debug, Serialize)]
pub(super) struct BoardView {
    pub(super) name: String,
    pub(super) reconstruction: bool,
    pub(super) columns: u8,
    pub(super) rows: u8,
}

/// What everyone may see of a player.
#[derive(Clone, Debug, Serialize)]
pub(super) struct PublicPlayer {
    pub(super) name: String,
    pub(super) seat: u8,
    pub(super) shares: std::collections::BTreeMap<String, u8>,
    pub(super) supplementary_shares: std::collections::BTreeMap<String, u8>,
    pub(super) tokens: std::collections::BTreeMap<&'static str, u8>,
    pub(super) tokens_by_city:
        std::collections::BTreeMap<String, std::collections::BTreeMap<&'static str, u8>>,
    pub(super) passengers: u8,
    pub(super) stations_on_board: u8,
    pub(super) stations_in_supply: u8,
}

#[derive(Clone, Debug, Serialize)]
pub(super) struct PlayerView {
    #[serde(flatten)]
    pub(super) public: PublicPlayer,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) money: Option<u32>,
}

#[derive(Clone, Debug, Serialize)]
pub(super) struct LineView {
    pub(super) id: String,
    pub(super) name: String,
    pub(super) colour: String,
    pub(super) status: &'static str,
    pub(super) merged_into: Option<String>,
    pub(super) locomotive: Option<String>,
    pub(super) facing: Option<&'static str>,
    pub(super) on_starting_town: bool,
    pub(super) board_shares: u8,
    pub(super) connected: Vec<String>,
    pub(super) value: usize,
}

#[derive(Clone, Debug, Serialize)]
pub(super) struct CityView {
    pub(super) name: String,
    pub(super) hex: String,
    pub(super) tokens_left: std::collections::BTreeMap<&'static str, u8>,
}

#[derive(Clone, Debug, Serialize)]
pub(super) struct StationView {
    pub(super) hex: String,
    pub(super) player: String,
    pub(super) line: Option<String>,
}

#[derive(Clone, Debug, Serialize)]
pub(super) struct TrackView {
    pub(super) hex: String,
    pub(super) line: String,
}

#[derive(Clone, Debug, Serialize)]
pub(super) struct TurnView {
    pub(super) number: u32,
    pub(super) active_player: String,
    pub(super) actions_left: u8,
    pub(super) extended: Vec<String>,
}

#[derive(Clone, Debug, Serialize)]
pub(super) struct AwaitedView {
    pub(super) player: String,
    pub(super) what: String,
    pub(super) deadline: Option<String>,
}

#[derive(Clone, Debug, Serialize)]
pub(super) struct VetoView {
    pub(super) line: String,
    pub(super) from: String,
    pub(super) chosen: String,
    pub(super) options: Vec<String>,
    pub(super) called_by: Option<String>,
    pub(super) high_bid: Option<BidView>,
}

#[derive(Clone, Debug, Serialize)]
pub(super) struct BidView {
    pub(super) player: String,
    pub(super) shares: u8,
    pub(super) hex: String,
}

#[derive(Clone, Debug, Serialize)]
pub(super) struct ResultView {
    pub(super) reason: String,
    pub(super) placings: Vec<PlacingView>,
}

#[derive(Clone, Debug, Serialize)]
pub(super) struct PlacingView {
    pub(super) player: String,
    pub(super) place: u8,
    pub(super) money: Money,
    pub(super) during_game: Money,
    pub(super) end_game: Money,
}

impl View {
    /// The reader's seat; `None` for anyone who plays none.
    pub fn seat(&self) -> Option<Seat> {
        self.reader.seat()
    }

    /// `seat`'s money, if this reader may see it.
    pub fn money(&self, seat: Seat) -> Option<Money> {
        self.money.get(seat.index()).copied().flatten()
    }

    /// True if everyone's money is shown to everyone.
    pub fn money_public(&self) -> bool {
        self.money_public
    }

    /// The name of the player in `seat`, as everyone sees it.
    pub fn name(&self, seat: Seat) -> String {
        self.players
            .get(seat.index())
            .map_or_else(|| seat.to_string(), |p| p.public.name.clone())
    }

    /// `seat` as this reader reads them: in the second person for
    /// themselves, by name for anyone else (issue 38).
    pub fn who(&self, seat: Seat) -> Person {
        Person::new(self.name(seat), self.reader == Viewer::Player(seat))
    }
}

/// The view for `viewer`: the one place where what a reader may see is
/// decided; `over`: the game was stopped (aborted), and nothing is secret
/// any more.
pub(super) fn view(g: &Rocket, viewer: Viewer, over: bool) -> View {
    let b = g.board();
    let name = |s: Seat| g.player(s).name.clone();
    // Rulings 13: money is private, unless open_money or the game is over.
    let money_public = over || g.money_public();
    let money: Vec<Option<Money>> = (0..g.players().len())
        .map(|i| {
            let seat = Seat(i as u8);
            (money_public || viewer == Viewer::Player(seat)).then_some(g.player(seat).money)
        })
        .collect();
    let players = (0..g.players().len())
        .map(|i| player_view(g, Seat(i as u8), money[i]))
        .collect();
    let (stations, track) = stations_and_track(g);
    View {
        reader: viewer,
        money,
        money_public,
        game: None,
        kind: "rocket",
        board: BoardView {
            name: b.name.clone(),
            reconstruction: b.reconstruction,
            columns: b.columns,
            rows: b.rows,
        },
        options: option_names(g),
        phase: phase_name(g.phase()),
        finished: g.result().is_some(),
        viewer: viewer.seat().map(name),
        players,
        lines: b.line_ids().map(|l| line_view(g, l)).collect(),
        cities: city_views(g),
        stations,
        track,
        tiles_left: super::TRACK_TILES - g.tiles_laid(),
        tiles_laid: g.tiles_laid(),
        supplementary_shares_left: g.supplementary_pool(),
        passengers_left: g.passengers_left(),
        turn: TurnView {
            number: g.turn().number,
            active_player: name(g.turn().active),
            actions_left: g.turn().actions_left,
            extended: g
                .turn()
                .extended
                .iter()
                .map(|l| b.line(*l).id.clone())
                .collect(),
        },
        awaiting: g
            .awaited()
            .into_iter()
            .map(|a| AwaitedView {
                player: name(a.seat),
                what: a.what,
                deadline: None,
            })
            .collect(),
        veto: veto_view(g),
        result: result_view(g),
        table: Table::of(g),
    }
}

/// What the reader sees of the player in `seat`: everything but money,
/// and `money` where they may see it.
fn player_view(g: &Rocket, seat: Seat, money: Option<Money>) -> PlayerView {
    let b = g.board();
    let line_id = |l: super::LineId| b.line(l).id.clone();
    let p = g.player(seat);
    let shares = b
        .line_ids()
        .filter(|l| p.shares[l.index()] > 0)
        .map(|l| (line_id(l), p.shares[l.index()]))
        .collect();
    let supplementary = b
        .line_ids()
        .filter(|l| p.supplementary[l.index()] > 0)
        .map(|l| (line_id(l), p.supplementary[l.index()]))
        .collect();
    let tokens = Good::ALL
        .iter()
        .map(|good| (good.name(), p.goods(*good)))
        .collect();
    let tokens_by_city = b
        .cities()
        .filter(|c| p.tokens[c.index()].iter().any(|n| *n > 0))
        .map(|c| {
            let held = p.tokens[c.index()];
            let goods = Good::ALL
                .iter()
                .filter(|g| held[g.index()] > 0)
                .map(|g| (g.name(), held[g.index()]))
                .collect();
            (b.place(c).name.clone(), goods)
        })
        .collect();
    PlayerView {
        public: PublicPlayer {
            name: p.name.clone(),
            seat: seat.0 + 1,
            shares,
            supplementary_shares: supplementary,
            tokens,
            tokens_by_city,
            passengers: p.passengers,
            stations_on_board: super::STATIONS_PER_PLAYER - p.stations_in_supply,
            stations_in_supply: p.stations_in_supply,
        },
        money: money.map(Money::pounds),
    }
}

/// The line `l`: where its locomotive stands, its status and what it
/// connects.
fn line_view(g: &Rocket, l: super::LineId) -> LineView {
    let b = g.board();
    let line = g.line(l);
    let info = b.line(l);
    let (status, merged_into) = match line.status {
        LineStatus::Active => ("active", None),
        LineStatus::Isolated => ("isolated", None),
        LineStatus::Dissolved { into } => ("dissolved", Some(b.line(into).id.clone())),
    };
    LineView {
        id: info.id.clone(),
        name: info.name.clone(),
        colour: info.colour.clone(),
        status,
        merged_into,
        locomotive: line.locomotive.map(|h| h.to_string()),
        facing: line.facing.map(|d| d.name()),
        on_starting_town: line.locomotive == Some(b.place(info.start).hex),
        board_shares: line.board_shares,
        connected: line
            .connected
            .iter()
            .map(|p| b.place(*p).name.clone())
            .collect(),
        value: g.value(l),
    }
}

/// The cities, in the board's order, with the goods tokens left on each.
fn city_views(g: &Rocket) -> Vec<CityView> {
    g.board()
        .places
        .iter()
        .enumerate()
        .filter(|(_, p)| matches!(p.kind, PlaceKind::City(_)))
        .map(|(i, p)| {
            let left = g.city_tokens(super::PlaceId(i as u8));
            CityView {
                name: p.name.clone(),
                hex: p.hex.to_string(),
                tokens_left: Good::ALL
                    .iter()
                    .map(|good| (good.name(), left[good.index()]))
                    .collect(),
            }
        })
        .collect()
}

/// The stations and the track on the board, hex by hex.
fn stations_and_track(g: &Rocket) -> (Vec<StationView>, Vec<TrackView>) {
    let b = g.board();
    let line_id = |l: super::LineId| b.line(l).id.clone();
    let mut stations = Vec::new();
    let mut track = Vec::new();
    for i in 0..b.hex_count() {
        let hex = b.hex_at(i);
        if b.terrain(hex) != Terrain::Land {
            continue;
        }
        let c = g.cell(hex);
        if let Some(s) = c.station {
            stations.push(StationView {
                hex: hex.to_string(),
                player: g.player(s).name.clone(),
                line: c.track.or(c.locomotive).map(line_id),
            });
        }
        if let Some(l) = c.track {
            track.push(TrackView {
                hex: hex.to_string(),
                line: line_id(l),
            });
        }
    }
    (stations, track)
}

/// The move in question while the veto question or round is open.
fn veto_view(g: &Rocket) -> Option<VetoView> {
    let name = |s: Seat| g.player(s).name.clone();
    let (Phase::VetoQuestion { extension, .. } | Phase::VetoRound { extension, .. }) = g.phase()
    else {
        return None;
    };
    Some(VetoView {
        line: g.board().line(extension.line).id.clone(),
        from: extension.from.to_string(),
        chosen: extension.chosen.to_string(),
        options: extension.options.iter().map(|h| h.to_string()).collect(),
        called_by: match g.phase() {
            Phase::VetoRound { called_by, .. } => Some(name(*called_by)),
            _ => None,
        },
        high_bid: match g.phase() {
            Phase::VetoRound {
                high: Some(bid), ..
            } => Some(BidView {
                player: name(bid.seat),
                shares: bid.shares,
                hex: bid.hex.to_string(),
            }),
            _ => None,
        },
    })
}

/// The phase's name in the JSON view.
fn phase_name(phase: &Phase) -> &'static str {
    match phase {
        Phase::Actions => "actions",
        Phase::VetoQuestion { .. } => "veto_question",
        Phase::VetoRound { .. } => "veto_round",
        Phase::Finished => "finished",
    }
}

/// The options switched on, by name.
fn option_names(g: &Rocket) -> Vec<&'static str> {
    let mut options = Vec::new();
    if g.options().veto_defend_only {
        options.push("veto_defend_only");
    }
    if g.options().open_money {
        options.push("open_money");
    }
    options
}

/// The end, once the game is over: why, and the placings with the scores.
fn result_view(g: &Rocket) -> Option<ResultView> {
    g.result().map(|r| ResultView {
        reason: r.reason.clone(),
        placings: r
            .placings
            .iter()
            .map(|p| {
                let s = &r.scores[p.seat.index()];
                PlacingView {
                    player: g.player(p.seat).name.clone(),
                    place: p.place,
                    money: s.total,
                    during_game: s.during_game,
                    end_game: s.end_game,
                }
            })
            .collect(),
    })
}
