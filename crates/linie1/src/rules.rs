//! Linie 1's rules: laying and exchanging tiles (rulings 1, 2), stop signs
//! (rulings 3), drawing, the route check that starts an inaugural trip
//! (rulings 5), moving (rulings 6), the die variants (rulings 7), the end.
//!
//! Every order is checked in full before anything changes.

use std::collections::HashSet;

use super::data::{BuildingId, Components, Edge, Paths, Square, TerminalId, TileId};
use super::event::Event;
use super::order::Order;
use super::{DieRule, HAND_SIZE, Laid, Linie1, Outcome, Phase, Place, TILES_PER_TURN, Tram, Trip};
use engine::grammar::counted;
use engine::{RuleError, Seat};

/// The longest move the engine considers: a die's 5 or 6 runs to the next
/// stop sign, and a tram could otherwise circle for ever (Stationmaster
/// ruling 2).
pub const MAX_WALK: u8 = 36;
/// The most moves `legal_orders` lists for a driver (the longest first are
/// kept by the default); moves beyond it are still accepted by `apply`.
const MAX_LISTED_WALKS: usize = 2000;

/// The outcome of a checked move.
struct Walk {
    /// Where the tram ends.
    tram: Tram,
    /// Squares (a terminal counts as one) moved.
    distance: u8,
    /// Required stops counted, as a mask over the route's stops.
    mask: u8,
    /// True if it reached its destination with every stop: the win.
    finished: bool,
}

/// Orders as they are found, all of them or only the first.
struct Found {
    orders: Vec<Order>,
    /// Only the first is wanted.
    first: bool,
}

impl Found {
    /// Adds `order`; true when the search may stop (only the first was
    /// wanted).
    #[inline]
    fn add(&mut self, order: Order) -> bool {
        self.orders.push(order);
        self.first
    }
}

/// A bit set of [`HandOptions::options`] not worked out yet.
const UNKNOWN: u64 = u64::MAX;

/// The orientations a hand's tiles may lie in, in the order they are
/// listed, and for each demand and old tile met so far which of them fit,
/// as bits: most empty squares demand the same as others.
struct HandOptions {
    options: Vec<Paths>,
    /// The options fit in a `u64`'s bits (at most 64, which a hand of
    /// HAND_SIZE tiles never exceeds). The bit sets below only skip
    /// squares and pairs where the loops would list nothing.
    small: bool,
    /// The options that fit the demands `key` (filled as met; at most 256:
    /// four bits of each).
    fitting: [u64; 256],
    /// The options that upgrade the paths `old` (likewise).
    upgrading: [u64; 256],
    /// The options with a track end at each edge.
    touching: [u64; 4],
}

impl HandOptions {
    /// The options of `hand`, each tile once.
    fn new(d: &Components, hand: &[TileId]) -> HandOptions {
        let options: Vec<Paths> = hand
            .iter()
            .flat_map(|t| d.tile(*t).orientations.iter().copied())
            .collect();
        let small = options.len() <= 64;
        let mut touching = [0u64; 4];
        if small {
            for (k, p) in options.iter().enumerate() {
                for e in Edge::ALL {
                    if p.touches(e) {
                        touching[e.index()] |= 1 << k;
                    }
                }
            }
        }
        HandOptions {
            options,
            small,
            fitting: [UNKNOWN; 256],
            upgrading: [UNKNOWN; 256],
            touching,
        }
    }

    /// The options that fit a square's `demands`, as bits.
    #[inline]
    fn fit_bits(&mut self, demands: (u8, u8)) -> u64 {
        let key = usize::from(demands.0 | demands.1 << 4);
        if self.fitting[key] == UNKNOWN {
            self.fitting[key] = self
                .options
                .iter()
                .enumerate()
                .filter(|(_, p)| fits(**p, demands))
                .fold(0, |bits, (k, _)| bits | 1 << k);
        }
        self.fitting[key]
    }

    /// The options that upgrade the paths `old`, as bits.
    #[inline]
    fn upgrade_bits(&mut self, old: Paths) -> u64 {
        let key = usize::from(old.0);
        if self.upgrading[key] == UNKNOWN {
            self.upgrading[key] =
                Linie1::upgrades_indexed(&self.options, old).fold(0, |bits, (k, _)| bits | 1 << k);
        }
        self.upgrading[key]
    }
}

/// A tile fits a square when its track ends meet what the square's sides
/// demand (the same test as `placement_problem`, read once per square
/// instead of once per tile and orientation).
#[inline]
fn fits(paths: Paths, (must, must_not): (u8, u8)) -> bool {
    let ends = paths.ends();
    ends & must == must && ends & must_not == 0
}

impl Linie1 {
    fn name(&self, seat: Seat) -> &str {
        &self.players[seat.index()].name
    }

    fn check_turn(&self, seat: Seat) -> Result<(), RuleError> {
        if self.result.is_some() {
            return Err(RuleError::new(
                "rule book, Fine del gioco",
                "The game is over.",
            ));
        }
        if seat.index() >= self.players.len() {
            return Err(RuleError::new(
                "rule book, Il gioco",
                format!("There is no {seat}."),
            ));
        }
        if seat != self.turn.active {
            let n = self.players.len();
            let previous = Seat(((self.turn.active.index() + n - 1) % n) as u8);
            let active = self.name(self.turn.active);
            // The player whose turn just ended (a third tile in one mail,
            // or a mail after their deadline) is told so: "it is X's
            // turn, not yours" beside their own report saying the game
            // waited for them reads as a contradiction.
            let message = if seat == previous && self.turn.number > 1 {
                format!(
                    "Your turn is over (a turn is two tiles laid, or one move of the tram): it is {active}'s turn now."
                )
            } else {
                format!("It is {active}'s turn, not yours.")
            };
            return Err(RuleError::new("rule book, Il gioco", message));
        }
        Ok(())
    }

    // ----- The board ------------------------------------------------------------

    /// The paths on `s`, with `over` (squares being exchanged together)
    /// taking precedence.
    fn paths_at(&self, s: Square, over: &[(Square, Paths)]) -> Option<Paths> {
        over.iter()
            .find(|(q, _)| *q == s)
            .map(|(_, p)| *p)
            .or_else(|| self.laid(s).map(|l| l.paths))
    }

    /// Why `paths` may not lie on `s` (rulings 1), or None: every track end
    /// faces an empty square, a matching track end, or a terminal leg; none
    /// faces a building or the board's edge; no side without track faces a
    /// neighbour's track end.
    fn placement_problem(
        &self,
        s: Square,
        paths: Paths,
        over: &[(Square, Paths)],
    ) -> Option<String> {
        let d = &self.data;
        self.placement_block(s, paths, over)
            .map(|block| match block {
                Block::OffBoard(e) => format!(
                    "its track would run off the board at the {} side of {s}",
                    side_word(e)
                ),
                Block::TerminalSide(e, t) => format!(
                    "its {} side has no track, but terminal {} enters {s} there",
                    side_word(e),
                    d.terminal(t).name
                ),
                Block::Building(n, b) => format!(
                    "its track would lead into building {} on {n}",
                    d.building(b).letter
                ),
                Block::NoTrackThere(e, n) => format!(
                    "its track at the {} side would meet the tile on {n}, which has no track there",
                    side_word(e)
                ),
                Block::TrackMeets(e, n) => format!(
                    "the track of the tile on {n} would meet its {} side, which has no track",
                    side_word(e)
                ),
            })
    }

    /// The first side (N, E, S, W) that keeps `paths` off `s`, as
    /// [`Linie1::placement_problem`] words it: a code, so that listing the
    /// legal orders writes no sentence for each placement it turns down.
    fn placement_block(&self, s: Square, paths: Paths, over: &[(Square, Paths)]) -> Option<Block> {
        let d = &self.data;
        for e in Edge::ALL {
            let end = paths.touches(e);
            match d.step(s, e) {
                None => {
                    let terminal = d.terminal_at(s, e);
                    if end && terminal.is_none() {
                        return Some(Block::OffBoard(e));
                    }
                    // A terminal's leg is a track end like a neighbour's
                    // (rulings 1): a side without track may not face it,
                    // or the line could never reach that terminal.
                    if !end && let Some((t, _)) = terminal {
                        return Some(Block::TerminalSide(e, t));
                    }
                }
                Some(n) => {
                    if let Some(b) = d.building_at(n) {
                        if end {
                            return Some(Block::Building(n, b));
                        }
                        continue;
                    }
                    let Some(theirs) = self.paths_at(n, over) else {
                        continue;
                    };
                    let their_end = theirs.touches(e.opposite());
                    if end && !their_end {
                        return Some(Block::NoTrackThere(e, n));
                    }
                    if !end && their_end {
                        return Some(Block::TrackMeets(e, n));
                    }
                }
            }
        }
        None
    }

    /// What the sides of the empty or exchanged square `s` demand of a
    /// tile's track ends, with its neighbours as they lie, as edge bits (see
    /// [`Paths::ends`]): (ends it must have, ends it must not have). A tile
    /// fits exactly when [`Linie1::placement_block`] finds nothing, with no
    /// other square exchanged beside it.
    fn side_demands(&self, s: Square) -> (u8, u8) {
        let d = &self.data;
        let (mut must, mut must_not) = (0u8, 0u8);
        for e in Edge::ALL {
            let bit = 1 << e.index();
            match d.step(s, e) {
                None => {
                    if d.terminal_at(s, e).is_some() {
                        must |= bit;
                    } else {
                        must_not |= bit;
                    }
                }
                Some(n) => {
                    if d.building_at(n).is_some() {
                        must_not |= bit;
                    } else if let Some(theirs) = self.laid(n) {
                        if theirs.paths.touches(e.opposite()) {
                            must |= bit;
                        } else {
                            must_not |= bit;
                        }
                    }
                }
            }
        }
        (must, must_not)
    }

    /// [`Linie1::side_demands`] of every square, by index, in one pass
    /// over the board's edges, terminals, buildings and laid tiles (each
    /// one marks the sides of its neighbours that face it) instead of
    /// reading the four neighbours of every square. Meaningless for a
    /// building's own square.
    pub(super) fn all_side_demands(&self) -> Vec<(u8, u8)> {
        let d = &self.data;
        let mut demands = vec![(0u8, 0u8); self.cells.len()];
        // The board's edge: no track may run off it, except into a
        // terminal's leg, which track must meet.
        let (rows, cols) = (usize::from(d.rows), usize::from(d.columns));
        if rows > 0 && cols > 0 {
            for c in 0..cols {
                demands[c].1 |= 1 << Edge::N.index();
                demands[(rows - 1) * cols + c].1 |= 1 << Edge::S.index();
            }
            for r in 0..rows {
                demands[r * cols].1 |= 1 << Edge::W.index();
                demands[r * cols + cols - 1].1 |= 1 << Edge::E.index();
            }
        }
        for t in &d.terminals {
            let bit = 1 << t.side.index();
            for leg in t.legs {
                if d.contains(leg) && d.step(leg, t.side).is_none() {
                    let i = d.index(leg);
                    demands[i].0 |= bit;
                    demands[i].1 &= !bit;
                }
            }
        }
        // A neighbour's building, or tile: track must (or must not) meet
        // its track ends.
        // Row by row; the neighbour across each edge by its index.
        for r in 0..rows {
            for c in 0..cols {
                let i = r * cols + c;
                let building = d.grid[i].is_some();
                let laid = self.cells[i];
                if !building && laid.is_none() {
                    continue;
                }
                let sides = [
                    (Edge::N, r > 0, i.wrapping_sub(cols)),
                    (Edge::E, c + 1 < cols, i + 1),
                    (Edge::S, r + 1 < rows, i + cols),
                    (Edge::W, c > 0, i.wrapping_sub(1)),
                ];
                for (f, on_board, n) in sides {
                    if !on_board {
                        continue;
                    }
                    let bit = 1 << f.opposite().index();
                    let demand = &mut demands[n];
                    match laid {
                        Some(l) if !building && l.paths.touches(f) => demand.0 |= bit,
                        _ => demand.1 |= bit,
                    }
                }
            }
        }
        demands
    }

    fn hand_has(&self, seat: Seat, tiles: &[TileId]) -> bool {
        let hand = &self.players[seat.index()].hand;
        tiles.iter().all(|t| {
            let want = tiles.iter().filter(|x| *x == t).count();
            hand.iter().filter(|x| *x == t).count() >= want
        })
    }

    fn tile_for(&self, seat: Seat, paths: Paths) -> Result<TileId, RuleError> {
        let tile = self.data.tile_with_paths(paths).ok_or_else(|| {
            RuleError::new(
                "components, Tiles",
                format!("No tile shows exactly the paths {paths}."),
            )
        })?;
        if !self.hand_has(seat, &[tile]) {
            return Err(RuleError::new(
                "rule book, Piazzare le tessere",
                format!(
                    "You have no {} tile ({paths}) in your hand.",
                    self.data.tile(tile).name
                ),
            ));
        }
        Ok(tile)
    }

    /// Checks laying `paths` on the empty square `s` (rulings 1).
    fn check_lay(&self, seat: Seat, s: Square, paths: Paths) -> Result<TileId, RuleError> {
        let d = &self.data;
        if !d.contains(s) {
            return Err(RuleError::new(
                "rule book, Piazzare le tessere",
                format!("{s} is off the board."),
            ));
        }
        if let Some(b) = d.building_at(s) {
            return Err(RuleError::new(
                "rulings 1",
                format!(
                    "{s} is building {}: no tile may be laid on it.",
                    d.building(b).letter
                ),
            ));
        }
        if self.laid(s).is_some() {
            return Err(RuleError::new(
                "rulings 2",
                format!("{s} already has a tile; to replace it, write `exchange {s} PATHS`."),
            ));
        }
        let tile = self.tile_for(seat, paths)?;
        if let Some(why) = self.placement_problem(s, paths, &[]) {
            return Err(RuleError::new(
                "rulings 1",
                format!("{paths} may not lie on {s}: {why}."),
            ));
        }
        Ok(tile)
    }

    /// Checks exchanging the tiles of `swaps` (one, or two neighbours
    /// together) for tiles of the hand (rulings 2).
    fn check_exchange(
        &self,
        seat: Seat,
        swaps: &[(Square, Paths)],
    ) -> Result<Vec<TileId>, RuleError> {
        let d = &self.data;
        let mut tiles = Vec::new();
        for &(s, paths) in swaps {
            if !d.contains(s) {
                return Err(RuleError::new(
                    "rulings 2",
                    format!("{s} is off the board."),
                ));
            }
            let Some(old) = self.laid(s) else {
                return Err(RuleError::new(
                    "rulings 2",
                    format!(
                        "{s} has no tile to exchange; to lay one there, write `lay {s} {paths}`."
                    ),
                ));
            };
            let old_type = d.tile(old.tile);
            if old_type.trees {
                return Err(RuleError::new(
                    "rulings 2",
                    format!(
                        "The {} tile on {s} has trees: tiles with trees are never exchanged.",
                        old_type.name
                    ),
                ));
            }
            if !paths.contains(old.paths) || paths == old.paths {
                return Err(RuleError::new(
                    "rulings 2",
                    format!(
                        "{paths} does not keep every path of the tile on {s} ({}) and add one: \
                         an exchange only adds track.",
                        old.paths
                    ),
                ));
            }
            tiles.push(d.tile_with_paths(paths).ok_or_else(|| {
                RuleError::new(
                    "components, Tiles",
                    format!("No tile shows exactly the paths {paths}."),
                )
            })?);
        }
        if !self.hand_has(seat, &tiles) {
            let names: Vec<String> = tiles.iter().map(|t| d.tile(*t).name.clone()).collect();
            return Err(RuleError::new(
                "rulings 2",
                format!("Your hand does not hold the tiles ({}).", names.join(", ")),
            ));
        }
        if let [(a, pa), (b, pb)] = swaps {
            if a == b {
                return Err(RuleError::new("rulings 2", format!("{a} is named twice.")));
            }
            let Some(e) = Edge::ALL.into_iter().find(|e| d.step(*a, *e) == Some(*b)) else {
                return Err(RuleError::new(
                    "rulings 2",
                    format!(
                        "{a} and {b} are not neighbours: only two neighbouring tiles are exchanged together."
                    ),
                ));
            };
            let joined_before = self.laid(*a).is_some_and(|l| l.paths.touches(e))
                && self.laid(*b).is_some_and(|l| l.paths.touches(e.opposite()));
            if joined_before || !(pa.touches(e) && pb.touches(e.opposite())) {
                return Err(RuleError::new(
                    "rule book, Scambiare le tessere",
                    format!(
                        "Two tiles are exchanged together to join two neighbours not yet joined; \
                         {a} and {b} {}.",
                        if joined_before {
                            "are joined already"
                        } else {
                            "would not be joined"
                        }
                    ),
                ));
            }
        }
        for &(s, paths) in swaps {
            if let Some(why) = self.placement_problem(s, paths, swaps) {
                return Err(RuleError::new(
                    "rulings 2",
                    format!("{paths} may not replace the tile on {s}: {why}."),
                ));
            }
        }
        Ok(tiles)
    }

    /// Puts `paths` on `s` from `seat`'s hand, and its stop signs (rulings 3).
    fn put(&mut self, seat: Seat, s: Square, tile: TileId, paths: Paths, events: &mut Vec<Event>) {
        let hand = &mut self.players[seat.index()].hand;
        if let Some(i) = hand.iter().position(|t| *t == tile) {
            hand.remove(i);
        }
        let i = self.data.index(s);
        let old = self.cells[i].replace(Laid { tile, paths });
        if let Some(by) = self.laid_by.get_mut(i) {
            *by = Some(seat);
        }
        match old {
            Some(old) => {
                self.players[seat.index()].hand.push(old.tile);
                events.push(Event::Exchanged {
                    player: seat,
                    square: s,
                    old_tile: old.tile,
                    old_paths: old.paths,
                    tile,
                    paths,
                });
            }
            None => {
                events.push(Event::Laid {
                    player: seat,
                    square: s,
                    tile,
                    paths,
                });
                // Rulings 3: the first tile next to a building gets its sign.
                for e in Edge::ALL {
                    if let Some(n) = self.data.step(s, e)
                        && let Some(b) = self.data.building_at(n)
                        && self.stop_signs[b.index()].is_none()
                    {
                        self.stop_signs[b.index()] = Some(s);
                        events.push(Event::StopSign {
                            building: b,
                            square: s,
                        });
                    }
                }
            }
        }
    }

    // ----- Routes and trams ------------------------------------------------------

    /// Where a tram may go next: one step along a path of its square, never
    /// back the way it came (rulings 6).
    fn next_states(&self, tram: Tram) -> Steps {
        let d = &self.data;
        let mut out = Steps::default();
        let enter = |s: Square, e: Edge, out: &mut Steps| {
            // Leaving `s` across its edge `e`.
            match d.step(s, e) {
                Some(n) => {
                    if self.laid(n).is_some_and(|l| l.paths.touches(e.opposite())) {
                        out.push(Tram {
                            at: Place::Square(n),
                            came_in: Some(e.opposite().index() as u8),
                        });
                    }
                }
                None => {
                    if let Some((t, leg)) = d.terminal_at(s, e) {
                        out.push(Tram {
                            at: Place::Terminal(t),
                            came_in: Some(leg as u8),
                        });
                    }
                }
            }
        };
        match tram.at {
            Place::Square(s) => {
                let (Some(laid), Some(came)) = (self.laid(s), tram.came_in) else {
                    return out;
                };
                let came = Edge::ALL[usize::from(came) % 4];
                for exit in laid.paths.exits_from(came) {
                    enter(s, exit, &mut out);
                }
            }
            Place::Terminal(t) => {
                let term = d.terminal(t);
                // Around the loop and out by the other leg; just put there,
                // out by either.
                let legs = match tram.came_in {
                    Some(leg) => 1 - usize::from(leg).min(1)..2 - usize::from(leg).min(1),
                    None => 0..2,
                };
                for leg in legs {
                    let s = term.legs[leg];
                    if self.laid(s).is_some_and(|l| l.paths.touches(term.side)) {
                        out.push(Tram {
                            at: Place::Square(s),
                            came_in: Some(term.side.index() as u8),
                        });
                    }
                }
            }
        }
        out
    }

    /// True if `seat`'s stops must come in card order (variant 3; Stationmaster
    /// ruling 3).
    pub(super) fn ordered(&self, seat: Seat) -> bool {
        self.options.ordered_stops && self.required_stops(seat).len() >= 3
    }

    /// The stops counted after stopping on `place`, as a mask over the route.
    fn advance(&self, seat: Seat, mask: u8, place: Place) -> u8 {
        let Place::Square(s) = place else { return mask };
        let ordered = self.ordered(seat);
        let mut mask = mask;
        for (i, b) in self.required_stops(seat).iter().enumerate() {
            if mask & (1 << i) == 0
                && self.stop_sign(*b) == Some(s)
                && (!ordered || i == mask.count_ones() as usize)
            {
                mask |= 1 << i;
            }
        }
        mask
    }

    fn full_mask(&self, seat: Seat) -> u8 {
        ((1u16 << self.required_stops(seat).len()) - 1) as u8
    }

    /// The stops `trip` has made, as bits of `full_mask`'s: one for
    /// each of `seat`'s required stops, in the order of their route card.
    pub(super) fn stopped_mask(&self, seat: Seat, trip: &Trip) -> u8 {
        let stops = self.required_stops(seat);
        trip.stopped.iter().fold(0u8, |m, b| {
            let i = stops.iter().position(|x| x == b).unwrap_or(7);
            m | (1 << i)
        })
    }

    fn has_sign(&self, place: Place) -> bool {
        matches!(place, Place::Square(s) if self.stop_signs.contains(&Some(s)))
    }

    /// Whether a tram of `seat` at `from`, with `mask` counted, can still
    /// reach `to` through every remaining stop (rulings 5, 6).
    fn can_finish(&self, seat: Seat, from: Tram, mask: u8, to: TerminalId) -> bool {
        let full = self.full_mask(seat);
        // Every (tram, stops counted) state once: a bit each, by place,
        // the edge or leg it came in by (or none), and the mask.
        let squares = self.data.square_count();
        let masks = usize::from(full | mask) + 1;
        let key = |t: Tram, m: u8| {
            let place = match t.at {
                Place::Square(s) => self.data.index(s),
                Place::Terminal(x) => squares + x.index(),
            };
            // Only what `next_states` reads of it: the edge (mod 4) on a
            // square, or whether it came in by leg 0 into a terminal.
            let came = match (t.at, t.came_in) {
                (_, None) => 4,
                (Place::Square(_), Some(c)) => usize::from(c) % 4,
                (Place::Terminal(_), Some(c)) => usize::from(c).min(1),
            };
            (place * 5 + came) * masks + usize::from(m)
        };
        let states = (squares + self.data.terminals.len()) * 5 * masks;
        let mut seen = vec![0u64; states.div_ceil(64)];
        let mut mark = |t: Tram, m: u8| {
            let k = key(t, m);
            let new = seen[k / 64] & (1 << (k % 64)) == 0;
            seen[k / 64] |= 1 << (k % 64);
            new
        };
        let mut stack = vec![(from, mask)];
        mark(from, mask);
        while let Some((tram, mask)) = stack.pop() {
            for next in self.next_states(tram) {
                let m = self.advance(seat, mask, next.at);
                if next.at == Place::Terminal(to) && m == full {
                    return true;
                }
                if mark(next, m) {
                    stack.push((next, m));
                }
            }
        }
        false
    }

    /// Whether `seat` may start the trip from `t` now: what
    /// [`Linie1::check_route`] allows, without the sentence it writes when
    /// it refuses (listing the legal orders asks it at every turn).
    fn route_open(&self, seat: Seat, t: TerminalId) -> bool {
        let term = self.data.terminal(t);
        if term.line != self.players[seat.index()].line {
            return false;
        }
        let Some(to) = self.other_terminal(seat, t) else {
            return false;
        };
        // A stop with no sign is never counted, so no route can finish.
        if self
            .required_stops(seat)
            .iter()
            .any(|b| self.stop_sign(*b).is_none())
        {
            return false;
        }
        let from = Tram {
            at: Place::Terminal(t),
            came_in: None,
        };
        self.can_finish(seat, from, 0, to)
    }

    /// The other terminal of `seat`'s line.
    fn other_terminal(&self, seat: Seat, t: TerminalId) -> Option<TerminalId> {
        self.data
            .terminals_of(self.players[seat.index()].line)
            .into_iter()
            .find(|x| *x != t)
    }

    /// Checks that `seat` may start the trip from `t`: a route exists from
    /// `t` to the other terminal through every stop (rulings 5). The refusal
    /// says why in a sentence.
    fn check_route(&self, seat: Seat, t: TerminalId) -> Result<TerminalId, RuleError> {
        let d = &self.data;
        let p = &self.players[seat.index()];
        let term = d.terminal(t);
        if term.line != p.line {
            return Err(RuleError::new(
                "rulings 5",
                format!("Terminal {} is not one of your line's.", term.name),
            ));
        }
        let to = self.other_terminal(seat, t).ok_or_else(|| {
            RuleError::new("components, Board", "Your line has no second terminal.")
        })?;
        let from = Tram {
            at: Place::Terminal(t),
            came_in: None,
        };
        if self.can_finish(seat, from, 0, to) {
            return Ok(to);
        }
        let names = (term.name.clone(), d.terminal(to).name.clone());
        let stops = self.required_stops(seat);
        let unsigned: Vec<String> = stops
            .iter()
            .filter(|b| self.stop_sign(**b).is_none())
            .map(|b| d.building(*b).letter.to_string())
            .collect();
        // One citation a refusal, the rule that says why: stop signs
        // (rulings 3), the card's order (Stationmaster ruling 3), else the
        // route check itself (rulings 5).
        let (rule, why) = if !unsigned.is_empty() {
            (
                "rulings 3",
                format!(
                    "building{} {} ha{} no stop sign yet (no tile lies next to {}), so no route can stop there",
                    if unsigned.len() == 1 { "" } else { "s" },
                    unsigned.join(", "),
                    if unsigned.len() == 1 { "s" } else { "ve" },
                    if unsigned.len() == 1 { "it" } else { "them" }
                ),
            )
        } else if !self.joined(from, to) {
            (
                "rulings 5",
                format!(
                    "no track joins terminal {} to terminal {} without a sharp turn",
                    names.0, names.1
                ),
            )
        } else {
            let missed: Vec<String> = stops
                .iter()
                .filter(|b| {
                    let s = self.stop_sign(**b);
                    !self.through(from, to, s)
                })
                .map(|b| {
                    let s = self
                        .stop_sign(*b)
                        .map(|s| s.to_string())
                        .unwrap_or_default();
                    format!("{} (stop sign on {s})", d.building(*b).letter)
                })
                .collect();
            if missed.is_empty() {
                if self.ordered(seat) {
                    (
                        "Stationmaster ruling 3",
                        "no single route passes all your stops in the card's order".to_string(),
                    )
                } else {
                    (
                        "rulings 5",
                        "no single route passes all your stops".to_string(),
                    )
                }
            } else {
                (
                    "rulings 5",
                    format!("no route between them passes {}", missed.join(" or ")),
                )
            }
        };
        Err(RuleError::new(
            rule,
            format!(
                "Your route from {} to {} is not complete: {why}. Lay tiles as usual.",
                names.0, names.1
            ),
        ))
    }

    /// Whether any track leads from `from` to the terminal `to`.
    fn joined(&self, from: Tram, to: TerminalId) -> bool {
        self.reach(from).contains(&Place::Terminal(to))
    }

    /// Whether a route leads from `from` over the square `via` on to `to`.
    fn through(&self, from: Tram, to: TerminalId, via: Option<Square>) -> bool {
        let Some(via) = via else { return false };
        let mut seen: HashSet<(Tram, bool)> = HashSet::new();
        let mut stack = vec![(from, false)];
        while let Some((tram, passed)) = stack.pop() {
            for next in self.next_states(tram) {
                let p = passed || next.at == Place::Square(via);
                if p && next.at == Place::Terminal(to) {
                    return true;
                }
                if seen.insert((next, p)) {
                    stack.push((next, p));
                }
            }
        }
        false
    }

    fn reach(&self, from: Tram) -> HashSet<Place> {
        let mut seen: HashSet<Tram> = HashSet::new();
        let mut places = HashSet::new();
        let mut stack = vec![from];
        while let Some(t) = stack.pop() {
            for n in self.next_states(t) {
                if seen.insert(n) {
                    places.insert(n.at);
                    stack.push(n);
                }
            }
        }
        places
    }

    /// The most squares the next move may take under the main rule: 1 for
    /// the game's first move, else the last move plus one (rulings 6).
    pub fn max_distance(&self) -> u8 {
        // No upper bound but the move's own counter (MAX_WALK bounds only
        // a die's run to the next stop sign).
        self.last_move.map_or(1, |m| m.saturating_add(1))
    }

    /// The longest a move may be now, and whether it must be exactly that
    /// long (die variants) or run to a stop (a die's 5 or 6).
    fn move_limits(&self) -> (u8, Limit) {
        match (self.options.die, &self.phase) {
            (DieRule::None, _) => (self.max_distance(), Limit::AtMost),
            (_, Phase::Drive { roll: Some(r) }) if *r >= 5 => (MAX_WALK, Limit::ToStop),
            (_, Phase::Drive { roll: Some(r) }) => (*r, Limit::Exactly),
            _ => (0, Limit::AtMost),
        }
    }

    /// Checks a move of `seat`'s tram through `places` (rulings 6).
    fn check_walk(&self, seat: Seat, places: &[Place]) -> Result<Walk, RuleError> {
        let (trip, mut tram) = self.tram_to_move(seat)?;
        let (max, limit) = self.move_limits();
        self.check_length(places.len(), max, limit)?;
        let mut mask = self.stopped_mask(seat, trip);
        let full = self.full_mask(seat);
        let mut finished = false;
        for (i, want) in places.iter().enumerate() {
            let last = i + 1 == places.len();
            tram = self.step_to(tram, *want)?;
            mask = self.advance(seat, mask, tram.at);
            if tram.at == Place::Terminal(trip.to) && mask == full {
                finished = true;
                if !last {
                    return Err(RuleError::new(
                        "rule book, Fine del gioco",
                        format!(
                            "Your tram ends its trip at {}: the move stops there.",
                            self.place_name(tram.at)
                        ),
                    ));
                }
            } else if self.has_sign(tram.at) && !last {
                return Err(RuleError::new(
                    "rulings 6",
                    format!(
                        "Your tram stops at the stop sign on {}: a tram stops at every stop sign it enters.",
                        self.place_name(tram.at)
                    ),
                ));
            }
        }
        let stopped_early = finished || self.has_sign(tram.at) || self.next_states(tram).is_empty();
        let n = places.len() as u8;
        Self::check_went_far_enough(n, max, limit, stopped_early)?;
        Ok(Walk {
            tram,
            distance: n,
            mask,
            finished,
        })
    }

    /// `seat`'s trip and its tram, if it may move now: the trip started,
    /// the tram on the board and, with a die, the die rolled (rulings 5
    /// to 7).
    fn tram_to_move(&self, seat: Seat) -> Result<(&Trip, Tram), RuleError> {
        let p = &self.players[seat.index()];
        let (Some(trip), true) = (&p.trip, p.driving) else {
            return Err(RuleError::new(
                "rulings 5",
                "Your tram is not on its way: start your trip first.",
            ));
        };
        let Some(tram) = trip.tram else {
            return Err(RuleError::new(
                "rulings 6",
                "Your tram was taken off the board: start again from one of your terminals.",
            ));
        };
        if self.options.die == DieRule::DieOrRepeat
            && matches!(self.phase, Phase::Drive { roll: None })
        {
            return Err(RuleError::new(
                "rulings 7",
                "Roll the die first, or repeat the last result: write `roll` or `repeat`.",
            ));
        }
        Ok((trip, tram))
    }

    /// A move of `n` squares is at least one, and at most `max` (rulings 6,
    /// or the die's).
    fn check_length(&self, n: usize, max: u8, limit: Limit) -> Result<(), RuleError> {
        if n == 0 {
            return Err(RuleError::new(
                "rulings 6",
                "A move goes at least one square.",
            ));
        }
        if n > usize::from(max) {
            // One citation, added where the sentence is put together: the
            // main rule's limit (rulings 6) or the die's (rulings 7).
            return Err(match limit {
                Limit::AtMost => RuleError::new(
                    "rulings 6",
                    format!(
                        "Your tram may move at most {} now: {}.",
                        squares(max),
                        match self.last_move {
                            Some(m) => format!("the last move was {m}, plus one"),
                            None => "the first move of the game goes one square".to_string(),
                        }
                    ),
                ),
                _ => RuleError::new(
                    "rulings 7",
                    format!("The die allows {} this move.", squares(max)),
                ),
            });
        }
        Ok(())
    }

    /// The tram at `tram` one step on, to the place `want`, where the
    /// track leads there.
    #[inline]
    fn step_to(&self, tram: Tram, want: Place) -> Result<Tram, RuleError> {
        let next = self.next_states(tram);
        if let Some(t) = next.iter().find(|t| t.at == want) {
            return Ok(*t);
        }
        let ways: Vec<String> = next.iter().map(|t| self.place_name(t.at)).collect();
        Err(RuleError::new(
            "rulings 6",
            format!(
                "From {} your tram cannot go on to {}: the track leads only to {}.",
                self.place_name(tram.at),
                self.place_name(want),
                if ways.is_empty() {
                    "nowhere".to_string()
                } else {
                    ways.join(" or ")
                }
            ),
        ))
    }

    /// A move of `n` squares shorter than the die's `max` is one that a
    /// stop sign, the terminal or the track's end stopped early.
    fn check_went_far_enough(
        n: u8,
        max: u8,
        limit: Limit,
        stopped_early: bool,
    ) -> Result<(), RuleError> {
        match limit {
            Limit::Exactly if n < max && !stopped_early => Err(RuleError::new(
                "Stationmaster ruling 2",
                format!(
                    "The die says {max}: your tram must go {} unless a stop sign, your terminal or the end of the track stops it first.",
                    squares(max)
                ),
            )),
            Limit::ToStop if n < max && !stopped_early => Err(RuleError::new(
                "rulings 7",
                "A 5 or 6 runs on to the next stop sign (or your terminal, or the end of the track).",
            )),
            _ => Ok(()),
        }
    }

    /// A place's name as players write it: a square, or a terminal like `1W`.
    pub(super) fn place_name(&self, p: Place) -> String {
        match p {
            Place::Square(s) => s.to_string(),
            Place::Terminal(t) => format!("terminal {}", self.data.terminal(t).name),
        }
    }

    /// Every move the active driver may make, by DFS in edge order (N, E,
    /// S, W), at most [`MAX_LISTED_WALKS`].
    fn walks(&self, seat: Seat) -> Vec<Vec<Place>> {
        let p = &self.players[seat.index()];
        let Some(trip) = &p.trip else {
            return Vec::new();
        };
        let Some(tram) = trip.tram else {
            return Vec::new();
        };
        let (max, limit) = self.move_limits();
        if max == 0 {
            return Vec::new();
        }
        let mask = self.stopped_mask(seat, trip);
        let mut out = Vec::new();
        let mut path = Vec::new();
        self.dfs(seat, trip.to, tram, mask, max, limit, &mut path, &mut out);
        out
    }

    #[allow(clippy::too_many_arguments)]
    fn dfs(
        &self,
        seat: Seat,
        to: TerminalId,
        tram: Tram,
        mask: u8,
        max: u8,
        limit: Limit,
        path: &mut Vec<Place>,
        out: &mut Vec<Vec<Place>>,
    ) {
        for next in self.next_states(tram) {
            if out.len() >= MAX_LISTED_WALKS {
                return;
            }
            path.push(next.at);
            let m = self.advance(seat, mask, next.at);
            let finished = next.at == Place::Terminal(to) && m == self.full_mask(seat);
            let stop = finished || self.has_sign(next.at);
            let n = path.len() as u8;
            let ends = stop || self.next_states(next).is_empty();
            let may_end = match limit {
                Limit::AtMost => true,
                Limit::Exactly | Limit::ToStop => ends || n == max,
            };
            if may_end {
                out.push(path.clone());
            }
            if !stop && n < max {
                self.dfs(seat, to, next, m, max, limit, path, out);
            }
            path.pop();
        }
    }

    // ----- Orders ------------------------------------------------------------------

    /// Applies `order` of `seat`, or refuses it with no change.
    pub(super) fn apply_order(
        &mut self,
        seat: Seat,
        order: &Order,
    ) -> Result<Vec<Event>, RuleError> {
        // The bot's guess was of the position before.
        self.guesses = super::bot::Guesses::default();
        if *order == Order::Skip {
            return self.skip(seat);
        }
        self.check_turn(seat)?;
        let mut events = Vec::new();
        match order {
            Order::Lay { square, paths } => {
                let laid = self.laying(seat)?;
                let tile = self.check_lay(seat, *square, *paths)?;
                self.put(seat, *square, tile, *paths, &mut events);
                self.passes = 0;
                self.after_action(seat, laid + 1, &mut events);
            }
            Order::Exchange { swaps } => {
                let laid = self.laying(seat)?;
                if swaps.is_empty() || swaps.len() > 2 {
                    return Err(RuleError::new(
                        "rulings 2",
                        "Exchange one tile, or two neighbours together.",
                    ));
                }
                if laid + swaps.len() as u8 > TILES_PER_TURN {
                    return Err(RuleError::new(
                        "rulings 2",
                        "Two tiles exchanged together are both tiles of your turn; you have one left.",
                    ));
                }
                let tiles = self.check_exchange(seat, swaps)?;
                for (&(s, paths), tile) in swaps.iter().zip(tiles) {
                    self.put(seat, s, tile, paths, &mut events);
                }
                self.passes = 0;
                self.after_action(seat, laid + swaps.len() as u8, &mut events);
            }
            Order::Pass => {
                let laid = self.laying(seat)?;
                let start = if laid == 0 && !self.players[seat.index()].driving {
                    self.starts(seat).into_iter().next()
                } else {
                    None
                };
                if let Some(o) =
                    start.or_else(|| self.lay_orders(seat, laid, true).into_iter().next())
                {
                    return Err(RuleError::new(
                        "Stationmaster ruling 1",
                        format!(
                            "You can still {} (e.g. `{}`): pass only when nothing else is open.",
                            match o {
                                Order::Start { .. } => "start your trip",
                                // The first open move found may be an
                                // exchange: "lay a tile (e.g. `exchange
                                // …`)" read as a contradiction.
                                Order::Exchange { .. } => "exchange a tile",
                                _ => "lay a tile",
                            },
                            self.order_text_of(&o)
                        ),
                    ));
                }
                events.push(Event::Passed { player: seat, laid });
                if laid == 0 {
                    self.passes = self.passes.saturating_add(1);
                }
                self.end_laying(seat, &mut events);
            }
            Order::Draw { from, tile } => {
                self.draw(seat, *from, *tile, &mut events)?;
                self.forced_draws(seat, &mut events);
            }
            Order::Start { terminal } => self.start(seat, *terminal, &mut events)?,
            Order::Roll | Order::Repeat => self.roll(seat, *order == Order::Repeat, &mut events)?,
            Order::Move { places } => self.move_tram(seat, places, &mut events)?,
            Order::Along { squares } => {
                let places = self.along(seat, *squares)?;
                self.move_tram(seat, &places, &mut events)?;
            }
            Order::Skip => {}
        }
        Ok(events)
    }

    fn order_text_of(&self, o: &Order) -> String {
        super::order::text(self, o)
    }

    /// The tiles laid so far, if `seat` is laying.
    fn laying(&self, seat: Seat) -> Result<u8, RuleError> {
        match self.phase {
            Phase::Lay { laid } => Ok(laid),
            Phase::Draw { .. } => Err(RuleError::new(
                "rule book, Piazzare le tessere",
                "You have laid your two tiles: draw now (`draw supply`, or `draw PLAYER TILE`).",
            )),
            _ => Err(RuleError::new(
                "rule book, Viaggio inaugurale",
                format!("{} is driving and lays no more tiles.", self.name(seat)),
            )),
        }
    }

    fn after_action(&mut self, seat: Seat, laid: u8, events: &mut Vec<Event>) {
        if laid >= TILES_PER_TURN {
            self.end_laying(seat, events);
        } else {
            self.phase = Phase::Lay { laid };
        }
    }

    /// Open hands to draw from: drivers other than `seat` with tiles left.
    fn open_hands(&self, seat: Seat) -> Vec<Seat> {
        (0..self.players.len())
            .map(|i| Seat(i as u8))
            .filter(|s| {
                *s != seat
                    && self.players[s.index()].driving
                    && !self.players[s.index()].hand.is_empty()
            })
            .collect()
    }

    /// Laying is over: draw back to five (rule book, Piazzare le tessere), from
    /// the supply at once if no driver's hand is open, else by `draw`
    /// orders.
    fn end_laying(&mut self, seat: Seat, events: &mut Vec<Event>) {
        let owed = HAND_SIZE.saturating_sub(self.players[seat.index()].hand.len()) as u8;
        if owed > 0 && !self.open_hands(seat).is_empty() {
            self.phase = Phase::Draw { owed };
            self.forced_draws(seat, events);
            return;
        }
        for _ in 0..owed {
            self.draw_supply(seat, events);
        }
        self.next_turn(events);
    }

    /// The draws open to `seat` now: the supply, and each kind of tile in
    /// each other driver's open hand (rule book, Piazzare le tessere).
    pub(super) fn draw_choices(&self, seat: Seat) -> Vec<Order> {
        let mut out = Vec::new();
        if self.supply_left() > 0 {
            out.push(Order::Draw {
                from: None,
                tile: None,
            });
        }
        for d in self.open_hands(seat) {
            let mut tiles = self.players[d.index()].hand.clone();
            tiles.sort();
            tiles.dedup();
            for t in tiles {
                out.push(Order::Draw {
                    from: Some(d),
                    tile: Some(t),
                });
            }
        }
        out
    }

    /// While `seat` owes draws that leave no choice (one draw open: the
    /// supply alone, or with the supply empty one open hand of one kind
    /// of tile), they are made for them, as every choice would make them
    /// (rule book, Piazzare le tessere; issue 35). Only in games set up
    /// since ([`Linie1::auto_draws`]): an older game's log replays as
    /// it was played.
    fn forced_draws(&mut self, seat: Seat, events: &mut Vec<Event>) {
        while self.auto_draws
            && matches!(self.phase, Phase::Draw { .. })
            && self.turn.active == seat
        {
            let [Order::Draw { from, tile }] = self.draw_choices(seat)[..] else {
                return;
            };
            if self.draw(seat, from, tile, events).is_err() {
                return;
            }
        }
    }

    fn draw_supply(&mut self, seat: Seat, events: &mut Vec<Event>) -> bool {
        let left = self.supply_left();
        if left == 0 {
            return false;
        }
        let mut k = self.rng.below(left);
        let mut tile = 0;
        for (i, n) in self.supply.iter().enumerate() {
            if k < usize::from(*n) {
                tile = i;
                break;
            }
            k -= usize::from(*n);
        }
        self.supply[tile] -= 1;
        let tile = TileId(tile as u8);
        self.players[seat.index()].hand.push(tile);
        events.push(Event::Drew {
            player: seat,
            tile,
            from: None,
        });
        true
    }

    fn draw(
        &mut self,
        seat: Seat,
        from: Option<Seat>,
        tile: Option<TileId>,
        events: &mut Vec<Event>,
    ) -> Result<(), RuleError> {
        let Phase::Draw { owed } = self.phase else {
            return Err(RuleError::new(
                "rule book, Piazzare le tessere",
                "You draw after laying your two tiles, and only when a driver's open hand gives a choice.",
            ));
        };
        match (from, tile) {
            (None, _) => {
                if !self.draw_supply(seat, events) {
                    return Err(RuleError::new(
                        "rulings 8",
                        "The supply is empty: draw from a driver's open hand.",
                    ));
                }
            }
            (Some(d), tile) => {
                if !self.open_hands(seat).contains(&d) {
                    return Err(RuleError::new(
                        "rule book, Piazzare le tessere",
                        format!(
                            "{} has no open hand to draw from: only players already driving show theirs.",
                            self.players
                                .get(d.index())
                                .map_or("nobody", |p| p.name.as_str())
                        ),
                    ));
                }
                let hand = &self.players[d.index()].hand;
                let i = match tile {
                    Some(t) => hand.iter().position(|x| *x == t),
                    None => None,
                }
                .ok_or_else(|| {
                    RuleError::new(
                        "rule book, Piazzare le tessere",
                        format!(
                            "{}'s open hand has no such tile.",
                            self.players[d.index()].name
                        ),
                    )
                })?;
                let t = self.players[d.index()].hand.remove(i);
                self.players[seat.index()].hand.push(t);
                events.push(Event::Drew {
                    player: seat,
                    tile: t,
                    from: Some(d),
                });
            }
        }
        let owed = owed - 1;
        if owed == 0 || (self.supply_left() == 0 && self.open_hands(seat).is_empty()) {
            self.next_turn(events);
        } else {
            self.phase = Phase::Draw { owed };
        }
        Ok(())
    }

    fn start(
        &mut self,
        seat: Seat,
        t: TerminalId,
        events: &mut Vec<Event>,
    ) -> Result<(), RuleError> {
        if t.index() >= self.data.terminals.len() {
            return Err(RuleError::new("rulings 5", "There is no such terminal."));
        }
        let p = &self.players[seat.index()];
        let restart = matches!(self.phase, Phase::Drive { .. })
            && p.trip.as_ref().is_some_and(|t| t.tram.is_none());
        let fresh = matches!(self.phase, Phase::Lay { laid: 0 }) && !p.driving;
        if !restart && !fresh {
            return Err(RuleError::new(
                "rulings 5",
                if p.driving {
                    "Your tram is already on its way."
                } else {
                    "The trip starts at the start of your turn, instead of laying tiles."
                },
            ));
        }
        let to = self.check_route(seat, t)?;
        let p = &mut self.players[seat.index()];
        p.driving = true;
        p.trip = Some(Trip {
            from: t,
            to,
            tram: Some(Tram {
                at: Place::Terminal(t),
                came_in: None,
            }),
            stopped: Vec::new(),
        });
        events.push(Event::TripStarted {
            player: seat,
            line: p.line,
            route: p.route,
            stops: self.required_stops(seat).to_vec(),
            terminal: t,
        });
        self.passes = 0;
        self.phase = Phase::Drive { roll: None };
        self.auto_roll(seat, events);
        Ok(())
    }

    /// Variant 1 rolls for the driver at once.
    fn auto_roll(&mut self, seat: Seat, events: &mut Vec<Event>) {
        if self.options.die == DieRule::Die
            && self.players[seat.index()]
                .trip
                .as_ref()
                .is_some_and(|t| t.tram.is_some())
        {
            let value = self.rng.below(6) as u8 + 1;
            self.last_roll = Some(value);
            self.last_roller = Some(seat);
            self.phase = Phase::Drive { roll: Some(value) };
            events.push(Event::Rolled {
                player: seat,
                value,
                repeated: false,
            });
        }
    }

    fn roll(&mut self, seat: Seat, repeat: bool, events: &mut Vec<Event>) -> Result<(), RuleError> {
        if self.options.die != DieRule::DieOrRepeat {
            return Err(RuleError::new(
                "rulings 7",
                "This game is not played with variant 2 (`die_or_repeat`).",
            ));
        }
        let on_board = self.players[seat.index()]
            .trip
            .as_ref()
            .is_some_and(|t| t.tram.is_some());
        if !matches!(self.phase, Phase::Drive { roll: None }) || !on_board {
            return Err(RuleError::new(
                "rulings 7",
                "You roll once, with your tram on its way, before moving.",
            ));
        }
        let value = if repeat {
            if self.last_roller == Some(seat) {
                return Err(RuleError::new(
                    "Stationmaster ruling 6",
                    "The last result is your own: `repeat` takes another player's. Roll.",
                ));
            }
            self.last_roll.ok_or_else(|| {
                RuleError::new(
                    "rulings 7",
                    "Nobody has rolled yet: there is no result to repeat.",
                )
            })?
        } else {
            self.rng.below(6) as u8 + 1
        };
        self.last_roll = Some(value);
        self.last_roller = Some(seat);
        self.phase = Phase::Drive { roll: Some(value) };
        events.push(Event::Rolled {
            player: seat,
            value,
            repeated: repeat,
        });
        Ok(())
    }

    /// The way `squares` long along track that does not branch.
    fn along(&self, seat: Seat, squares: u8) -> Result<Vec<Place>, RuleError> {
        let p = &self.players[seat.index()];
        let Some(mut tram) = p.trip.as_ref().and_then(|t| t.tram) else {
            return self.check_walk(seat, &[]).map(|_| Vec::new());
        };
        let Some(trip) = p.trip.as_ref() else {
            return Ok(Vec::new());
        };
        // The trip ends on entering the far terminal with every stop made,
        // however many squares were asked for (rulings 6: no exact count).
        let full = self.full_mask(seat);
        let mut mask = self.stopped_mask(seat, trip);
        let mut out = Vec::new();
        for _ in 0..squares {
            let next = self.next_states(tram);
            match &*next {
                [one] => {
                    out.push(one.at);
                    tram = *one;
                    mask = self.advance(seat, mask, tram.at);
                    if self.has_sign(one.at)
                        || (tram.at == Place::Terminal(trip.to) && mask == full)
                    {
                        break;
                    }
                }
                [] => break,
                many => {
                    let ways: Vec<String> = many.iter().map(|t| self.place_name(t.at)).collect();
                    return Err(RuleError::new(
                        "rulings 6",
                        format!(
                            "The track branches at {}: name the squares, e.g. `move {}`, choosing {}.",
                            self.place_name(tram.at),
                            out.iter()
                                .map(|p| super::order::place_text(self, *p))
                                .chain(std::iter::once(super::order::place_text(self, many[0].at)))
                                .collect::<Vec<_>>()
                                .join(" "),
                            ways.join(" or ")
                        ),
                    ));
                }
            }
        }
        Ok(out)
    }

    fn move_tram(
        &mut self,
        seat: Seat,
        places: &[Place],
        events: &mut Vec<Event>,
    ) -> Result<(), RuleError> {
        if !matches!(self.phase, Phase::Drive { .. }) {
            return Err(RuleError::new(
                "rulings 5",
                "You are not driving: start your trip first (`start TERMINAL`).",
            ));
        }
        let walk = self.check_walk(seat, places)?;
        let required = self.required_stops(seat).to_vec();
        let p = &mut self.players[seat.index()];
        let Some(trip) = p.trip.as_mut() else {
            return Ok(());
        };
        let before = trip.stopped.clone();
        trip.tram = Some(walk.tram);
        for (i, b) in required.iter().enumerate() {
            if walk.mask & (1 << i) != 0 && !trip.stopped.contains(b) {
                trip.stopped.push(*b);
            }
        }
        let counted: Vec<BuildingId> = trip
            .stopped
            .iter()
            .filter(|b| !before.contains(b))
            .copied()
            .collect();
        let to = trip.to;
        self.last_move = Some(walk.distance);
        self.passes = 0;
        events.push(Event::Moved {
            player: seat,
            places: places.to_vec(),
            distance: walk.distance,
            counted,
        });
        if walk.finished {
            events.push(Event::Won {
                player: seat,
                terminal: to,
            });
            self.result = Some(Outcome {
                winner: Some(seat),
                reason: format!("{} finished the inaugural trip", self.name(seat)),
            });
            self.phase = Phase::Finished;
            return Ok(());
        }
        if !self.can_finish(seat, walk.tram, walk.mask, to) {
            // Stationmaster ruling 5 (rule book, Viaggio inaugurale: a wrong way).
            if let Some(trip) = self.players[seat.index()].trip.as_mut() {
                trip.tram = None;
                trip.stopped.clear();
            }
            events.push(Event::TramOff { player: seat });
        }
        self.next_turn(events);
        Ok(())
    }

    /// A missed deadline or a moderator's skip: a layer's turn ends and they
    /// draw back to five from the supply (then from open hands); a driver
    /// does not move.
    fn skip(&mut self, seat: Seat) -> Result<Vec<Event>, RuleError> {
        self.check_turn(seat)?;
        let mut events = vec![Event::TurnSkipped { player: seat }];
        // A skipped turn counts in a round of passes (Stationmaster ruling
        // 1) only when passing was all the player could do: one who could
        // have laid, exchanged, started or moved ends that round.
        let only_pass = matches!(self.phase, Phase::Lay { laid: 0 })
            && !self.players[seat.index()].driving
            && self.starts(seat).is_empty()
            && self.lay_orders(seat, 0, true).is_empty();
        self.passes = if only_pass {
            self.passes.saturating_add(1)
        } else {
            0
        };
        match self.phase {
            Phase::Lay { .. } | Phase::Draw { .. } => {
                let owed = HAND_SIZE.saturating_sub(self.players[seat.index()].hand.len());
                for _ in 0..owed {
                    if !self.draw_supply(seat, &mut events)
                        && let Some(&d) = self.open_hands(seat).first()
                        && let Some(t) = self.players[d.index()].hand.pop()
                    {
                        self.players[seat.index()].hand.push(t);
                        events.push(Event::Drew {
                            player: seat,
                            tile: t,
                            from: Some(d),
                        });
                    }
                }
                self.next_turn(&mut events);
            }
            Phase::Drive { .. } => self.next_turn(&mut events),
            Phase::Finished => {}
        }
        Ok(events)
    }

    /// Passes play to the next seat (rule book, Il gioco: clockwise), or ends a
    /// game nobody can move on (Stationmaster ruling 1).
    fn next_turn(&mut self, events: &mut Vec<Event>) {
        let n = self.players.len();
        // Stuck: nothing left to draw, nobody driving, and nobody able to
        // lay a tile or start a trip (a finished route may still start).
        let stuck = self.supply_left() == 0
            && self.players.iter().all(|p| !p.driving)
            && (0..n).all(|i| {
                let seat = Seat(i as u8);
                self.lay_orders(seat, 0, true).is_empty() && self.starts(seat).is_empty()
            });
        if usize::from(self.passes) >= n || stuck {
            events.push(Event::Blocked);
            self.result = Some(Outcome {
                winner: None,
                reason: "nobody could lay a tile or move a tram".to_string(),
            });
            self.phase = Phase::Finished;
            return;
        }
        self.turn.number += 1;
        self.turn.active = Seat(((self.turn.active.index() + 1) % n) as u8);
        let seat = self.turn.active;
        events.push(Event::TurnBegan {
            player: seat,
            number: self.turn.number,
        });
        if self.players[seat.index()].driving {
            self.phase = Phase::Drive { roll: None };
            self.auto_roll(seat, events);
        } else {
            self.phase = Phase::Lay { laid: 0 };
        }
    }

    // ----- Legal orders --------------------------------------------------------

    /// Lays and exchanges open to `seat` with `laid` tiles laid this turn;
    /// with `first`, stops at the first found.
    pub(super) fn lay_orders(&self, seat: Seat, laid: u8, first: bool) -> Vec<Order> {
        // Up to several hundred orders (often more than 256): room for them
        // at once, so the list is not copied as it grows.
        let mut found = Found {
            orders: Vec::with_capacity(if first { 1 } else { 1024 }),
            first,
        };
        let mut hand: Vec<TileId> = self.players[seat.index()].hand.clone();
        hand.sort();
        hand.dedup();
        if hand.is_empty() || laid >= TILES_PER_TURN {
            return found.orders;
        }
        let mut hand = HandOptions::new(&self.data, &hand);
        // Two neighbours together only as the turn's first tile (rulings 2).
        if !self.single_lays(&mut hand, &mut found) && laid == 0 {
            self.pair_exchanges(seat, &mut hand, &mut found);
        }
        found.orders
    }

    /// Lays on empty squares and exchanges of one tile, row by row, in
    /// plain loops; true once `found` wants no more.
    fn single_lays(&self, hand: &mut HandOptions, found: &mut Found) -> bool {
        let d = &self.data;
        let all_demands = self.all_side_demands();
        for row in 0..d.rows {
            for col in 0..d.columns {
                let s = Square::new(row, col);
                let i = d.index(s);
                if d.grid[i].is_some() {
                    continue;
                }
                let demands = all_demands[i];
                debug_assert_eq!(demands, self.side_demands(s));
                let done = match &self.cells[i] {
                    None => self.lays_on(s, demands, hand, found),
                    Some(old) if !d.tile(old.tile).trees => {
                        self.exchanges_on(s, old.paths, demands, hand, found)
                    }
                    Some(_) => false,
                };
                if done {
                    return true;
                }
            }
        }
        false
    }

    /// The hand's tiles laid on the empty square `s`, which `demands`
    /// what its sides need; true once `found` wants no more.
    #[inline]
    fn lays_on(
        &self,
        s: Square,
        demands: (u8, u8),
        hand: &mut HandOptions,
        found: &mut Found,
    ) -> bool {
        if hand.small {
            let mut bits = hand.fit_bits(demands);
            while bits != 0 {
                let paths = hand.options[bits.trailing_zeros() as usize];
                bits &= bits - 1;
                debug_assert!(self.placement_problem(s, paths, &[]).is_none());
                if found.add(Order::Lay { square: s, paths }) {
                    return true;
                }
            }
        } else {
            for paths in &hand.options {
                if fits(*paths, demands) {
                    debug_assert!(self.placement_problem(s, *paths, &[]).is_none());
                    let order = Order::Lay {
                        square: s,
                        paths: *paths,
                    };
                    if found.add(order) {
                        return true;
                    }
                } else {
                    debug_assert!(self.placement_problem(s, *paths, &[]).is_some());
                }
            }
        }
        false
    }

    /// The tile lying as `old` on `s` exchanged for one of the hand's
    /// (rulings 2); true once `found` wants no more.
    #[inline]
    fn exchanges_on(
        &self,
        s: Square,
        old: Paths,
        demands: (u8, u8),
        hand: &mut HandOptions,
        found: &mut Found,
    ) -> bool {
        if hand.small && hand.upgrade_bits(old) & hand.fit_bits(demands) == 0 {
            return false;
        }
        for paths in Self::upgrades(&hand.options, old) {
            // The square's own tile is the one replaced; its neighbours
            // stay as they lie.
            let ok = fits(paths, demands);
            debug_assert_eq!(
                ok,
                self.placement_problem(s, paths, &[(s, paths)]).is_none()
            );
            if ok
                && found.add(Order::Exchange {
                    swaps: vec![(s, paths)],
                })
            {
                return true;
            }
        }
        false
    }

    /// Two neighbouring tiles exchanged together, to join them (rulings
    /// 2); true once `found` wants no more.
    fn pair_exchanges(&self, seat: Seat, hand: &mut HandOptions, found: &mut Found) -> bool {
        let d = &self.data;
        for (_, a) in d.squares() {
            let Some(la) = self.laid(a).filter(|l| !d.tile(l.tile).trees) else {
                continue;
            };
            for e in [Edge::E, Edge::S] {
                let Some(b) = d.step(a, e) else { continue };
                let Some(lb) = self.laid(b).filter(|l| !d.tile(l.tile).trees) else {
                    continue;
                };
                if la.paths.touches(e) && lb.paths.touches(e.opposite()) {
                    continue;
                }
                if hand.small
                    && (hand.upgrade_bits(la.paths) & hand.touching[e.index()] == 0
                        || hand.upgrade_bits(lb.paths) & hand.touching[e.opposite().index()] == 0)
                {
                    continue;
                }
                if self.pair_swaps(seat, (a, la.paths), (b, lb.paths), e, &hand.options, found) {
                    return true;
                }
            }
        }
        false
    }

    /// The tiles lying as `old_a` on `a` and `old_b` on `b`, its neighbour
    /// towards `e`, exchanged for two of the hand's `options` that join
    /// them; true once `found` wants no more.
    #[inline]
    fn pair_swaps(
        &self,
        seat: Seat,
        (a, old_a): (Square, Paths),
        (b, old_b): (Square, Paths),
        e: Edge,
        options: &[Paths],
        found: &mut Found,
    ) -> bool {
        for pa in Self::upgrades(options, old_a) {
            if !pa.touches(e) {
                continue;
            }
            for pb in Self::upgrades(options, old_b) {
                if !pb.touches(e.opposite()) {
                    continue;
                }
                let swaps = [(a, pa), (b, pb)];
                // What `check_exchange` asks beyond what these loops
                // ensure: the hand holds both tiles, and both fit with the
                // other one in place.
                let ok = self.pair_tiles_in_hand(seat, pa, pb)
                    && self.placement_block(a, pa, &swaps).is_none()
                    && self.placement_block(b, pb, &swaps).is_none();
                debug_assert_eq!(ok, self.check_exchange(seat, &swaps).is_ok());
                if ok
                    && found.add(Order::Exchange {
                        swaps: swaps.to_vec(),
                    })
                {
                    return true;
                }
            }
        }
        false
    }

    /// Whether `seat`'s hand holds the tiles showing `pa` and `pb` (two of
    /// one type if both are of it), as `check_exchange` asks.
    fn pair_tiles_in_hand(&self, seat: Seat, pa: Paths, pb: Paths) -> bool {
        let (Some(ta), Some(tb)) = (self.data.tile_with_paths(pa), self.data.tile_with_paths(pb))
        else {
            return false;
        };
        let hand = &self.players[seat.index()].hand;
        let held = |t: TileId| hand.iter().filter(|x| **x == t).count();
        if ta == tb {
            held(ta) >= 2
        } else {
            held(ta) >= 1 && held(tb) >= 1
        }
    }

    /// Orientations of hand tiles (`options`: every orientation of each
    /// tile in the hand, in the hand's order) that keep every path of `old`
    /// and add one, in that order (no list made: listing the orders asks
    /// this of every exchangeable square).
    fn upgrades(options: &[Paths], old: Paths) -> impl Iterator<Item = Paths> + '_ {
        Self::upgrades_indexed(options, old).map(|(_, p)| p)
    }

    /// [`Linie1::upgrades`] with each one's place in `options`.
    fn upgrades_indexed(
        options: &[Paths],
        old: Paths,
    ) -> impl Iterator<Item = (usize, Paths)> + '_ {
        options
            .iter()
            .copied()
            .enumerate()
            .filter(move |(_, p)| p.contains(old) && *p != old)
    }

    /// Terminals `seat` may start from now.
    pub(super) fn starts(&self, seat: Seat) -> Vec<Order> {
        self.data
            .terminals_of(self.players[seat.index()].line)
            .into_iter()
            .filter(|t| {
                let open = self.route_open(seat, *t);
                debug_assert_eq!(open, self.check_route(seat, *t).is_ok());
                open
            })
            .map(|terminal| Order::Start { terminal })
            .collect()
    }

    /// Every order `seat` could give now.
    pub(super) fn legal(&self, seat: Seat) -> Vec<Order> {
        if self.result.is_some() || seat != self.turn.active || seat.index() >= self.players.len() {
            return Vec::new();
        }
        let p = &self.players[seat.index()];
        match &self.phase {
            Phase::Lay { laid } => {
                let starts = if *laid == 0 && !p.driving {
                    self.starts(seat)
                } else {
                    Vec::new()
                };
                let mut lays = self.lay_orders(seat, *laid, false);
                // `pass` only when nothing else is open (Stationmaster
                // ruling 1): a player who can start their trip does.
                if lays.is_empty() && starts.is_empty() {
                    return vec![Order::Pass];
                }
                // The starts first, then the lays; the lays' list (of a
                // few hundred) is kept and not copied when there is no start.
                if !starts.is_empty() {
                    lays.splice(0..0, starts);
                }
                lays
            }
            Phase::Draw { .. } => self.draw_choices(seat),
            Phase::Drive { roll } => {
                if p.trip.as_ref().and_then(|t| t.tram).is_none() {
                    return self.starts(seat);
                }
                if self.options.die == DieRule::DieOrRepeat && roll.is_none() {
                    let mut out = vec![Order::Roll];
                    if self.last_roll.is_some() && self.last_roller != Some(seat) {
                        out.push(Order::Repeat);
                    }
                    return out;
                }
                self.walks(seat)
                    .into_iter()
                    .map(|places| Order::Move { places })
                    .collect()
            }
            Phase::Finished => Vec::new(),
        }
    }

    /// The order a missed turn stands for (Stationmaster ruling 4).
    pub(super) fn default_for(&self, seat: Seat) -> Option<Order> {
        if self.result.is_some() || seat != self.turn.active {
            return None;
        }
        match &self.phase {
            Phase::Lay { laid } => {
                // A finished route sets out (Stationmaster ruling 4).
                if *laid == 0
                    && !self.players[seat.index()].driving
                    && let Some(start) = self.starts(seat).into_iter().next()
                {
                    return Some(start);
                }
                let lays = self.lay_orders(seat, *laid, false);
                let quiet = lays.iter().find(|o| match o {
                    Order::Lay { square, .. } => self.quiet_square(*square),
                    _ => false,
                });
                let any_lay = lays.iter().find(|o| matches!(o, Order::Lay { .. }));
                quiet
                    .or(any_lay)
                    .or(lays.first())
                    .cloned()
                    .or(Some(Order::Pass))
            }
            Phase::Draw { .. } => self.legal(seat).into_iter().next(),
            Phase::Drive { .. } => {
                let legal = self.legal(seat);
                let longest = legal
                    .iter()
                    .filter_map(|o| match o {
                        Order::Move { places } => Some(places.len()),
                        _ => None,
                    })
                    .max();
                match longest {
                    Some(n) => legal
                        .into_iter()
                        .find(|o| matches!(o, Order::Move { places } if places.len() == n)),
                    None => legal.into_iter().next(),
                }
            }
            Phase::Finished => None,
        }
    }

    /// A square whose every side faces an empty square: no tile, building or
    /// board edge next to it.
    fn quiet_square(&self, s: Square) -> bool {
        Edge::ALL.iter().all(|e| match self.data.step(s, *e) {
            Some(n) => self.laid(n).is_none() && self.data.building_at(n).is_none(),
            None => false,
        })
    }

    // ----- Invariants ------------------------------------------------------------

    /// Tiles conserved (board + hands + supply + out of game = the total),
    /// hands of at most five, stop signs on tiles next to their building,
    /// trams on track.
    pub(super) fn invariants(&self) -> Result<(), String> {
        let d = &self.data;
        let mut count = vec![0usize; d.tiles.len()];
        for l in self.cells.iter().flatten() {
            count[l.tile.index()] += 1;
            if !d.tile(l.tile).orientations.contains(&l.paths) {
                return Err(format!(
                    "a tile lies as {}, not one of its orientations",
                    l.paths
                ));
            }
        }
        for p in &self.players {
            if p.hand.len() > HAND_SIZE {
                return Err(format!("{} holds {} tiles", p.name, p.hand.len()));
            }
            for t in &p.hand {
                count[t.index()] += 1;
            }
        }
        for (i, t) in d.tiles.iter().enumerate() {
            let out = self.out_of_game.get(i).copied().unwrap_or(0);
            let n = count[i] + usize::from(self.supply[i]) + usize::from(out);
            if n != usize::from(t.count) {
                return Err(format!(
                    "{} of {} \"{}\" tiles are accounted for",
                    n, t.count, t.name
                ));
            }
        }
        let total: usize = count.iter().sum::<usize>()
            + self.supply.iter().map(|n| usize::from(*n)).sum::<usize>()
            + self
                .out_of_game
                .iter()
                .map(|n| usize::from(*n))
                .sum::<usize>();
        if total != usize::from(d.total_tiles) {
            return Err(format!("{total} tiles, not {}", d.total_tiles));
        }
        for (b, sign) in self.stop_signs.iter().enumerate() {
            if let Some(s) = sign {
                let home = d.buildings[b].square;
                let next = Edge::ALL.iter().any(|e| d.step(*s, *e) == Some(home));
                if self.laid(*s).is_none() || !next {
                    return Err(format!(
                        "the stop sign of {} stands on {s}",
                        d.buildings[b].letter
                    ));
                }
            }
        }
        for p in &self.players {
            if let Some(tram) = p.trip.as_ref().and_then(|t| t.tram)
                && let Place::Square(s) = tram.at
                && self.laid(s).is_none()
            {
                return Err(format!(
                    "{}'s tram stands on {s}, which has no tile",
                    p.name
                ));
            }
            if p.trip.is_some() && !p.driving {
                return Err(format!("{} has a trip but is not driving", p.name));
            }
        }
        match (&self.phase, &self.result) {
            (Phase::Finished, None) => return Err("finished with no outcome".into()),
            (Phase::Lay { .. } | Phase::Draw { .. }, None)
                if self.players[self.turn.active.index()].driving =>
            {
                return Err("a driver is laying".into());
            }
            (Phase::Drive { .. }, None) if !self.players[self.turn.active.index()].driving => {
                return Err("a layer is driving".into());
            }
            _ => {}
        }
        Ok(())
    }
}

/// Where a tram may go from where it is: at most three ways (a square's
/// paths from the edge it came in by), or two (a terminal's legs).
#[derive(Clone, Copy)]
struct Steps {
    ways: [Tram; 3],
    len: usize,
}

impl Default for Steps {
    fn default() -> Steps {
        let nowhere = Tram {
            at: Place::Terminal(TerminalId(0)),
            came_in: None,
        };
        Steps {
            ways: [nowhere; 3],
            len: 0,
        }
    }
}

impl Steps {
    fn push(&mut self, t: Tram) {
        self.ways[self.len] = t;
        self.len += 1;
    }
}

impl std::ops::Deref for Steps {
    type Target = [Tram];
    fn deref(&self) -> &[Tram] {
        &self.ways[..self.len]
    }
}

impl IntoIterator for Steps {
    type Item = Tram;
    type IntoIter = std::iter::Take<std::array::IntoIter<Tram, 3>>;
    fn into_iter(self) -> Self::IntoIter {
        self.ways.into_iter().take(self.len)
    }
}

/// Why a tile may not lie on a square (rulings 1), by the side at fault:
/// see [`Linie1::placement_problem`] for the sentences.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Block {
    /// Track off the board's edge, with no terminal there.
    OffBoard(Edge),
    /// No track on the side a terminal's leg enters by.
    TerminalSide(Edge, TerminalId),
    /// Track into the building on that square.
    Building(Square, BuildingId),
    /// Track meeting the neighbour there, which has none on that side.
    NoTrackThere(Edge, Square),
    /// The neighbour's track meeting a side with none.
    TrackMeets(Edge, Square),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Limit {
    AtMost,
    Exactly,
    ToStop,
}

/// `n` squares, as a move's length is said.
fn squares(n: u8) -> String {
    counted(usize::from(n), "square")
}

fn side_word(e: Edge) -> &'static str {
    match e {
        Edge::N => "north",
        Edge::E => "east",
        Edge::S => "south",
        Edge::W => "west",
    }
}
