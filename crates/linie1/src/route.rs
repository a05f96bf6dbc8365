//! How far a player's route is built (issue 35): for a seat, its line's
//! terminals and the stops of its route card, which of them the track
//! already joins in the order driven, and for each gap the fewest empty
//! squares that would have to take a tile to close it. A player's own
//! "You can" lays are ordered by it (those that close a gap first), and a
//! route line can be written from it.
//!
//! It reads the seat's secret cards: show it to that player alone
//! (rulings 4).
//!
//! What the count assumes, so that it stays a breadth-first search over
//! the board's squares (a 0-1 search: a laid tile costs nothing, an empty
//! square one):
//! - a way runs over a tile only along its track, as a tram would: in by
//!   a track end, out by an end a path joins to it (rulings 6), and over an
//!   empty square in by any side and out by any other (a straight or a
//!   curve would take it: no square needs a sharp turn);
//! - the tiles for the empty squares are taken to be at hand and to fit:
//!   the other sides of an empty square are not checked against its
//!   neighbours (rulings 1), and no tile is exchanged (rulings 2), so an
//!   exchange that would open a way is not counted;
//! - buildings and the board's edge close a way (rulings 1); the way ends
//!   at a terminal by leaving one of its legs through the board's edge;
//! - a stop with a stop sign is reached on the sign's square; one with no
//!   sign yet on any empty square next to its building, as the first tile
//!   laid there takes the sign (rulings 3);
//! - each stretch between two points is counted on its own: the way on
//!   from a stop may leave it by any side, whichever side the way before
//!   came in by. The sum may be less than a trip needs; whether the trip
//!   may start is the route check itself ([`RouteProgress::complete`]).

use std::collections::VecDeque;

use super::Linie1;
use super::data::{BuildingId, Edge, Paths, Square, TerminalId};
use engine::Seat;

/// A place a route must reach: one of its line's terminals, or a stop of
/// its route card.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RoutePoint {
    /// A terminal of the player's line.
    Terminal(TerminalId),
    /// A building on the player's route card.
    Stop(BuildingId),
}

/// One stretch of a route: two points next to each other in the order
/// the route is driven.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stretch {
    /// Where it begins.
    pub from: RoutePoint,
    /// Where it ends.
    pub to: RoutePoint,
    /// The fewest empty squares that must take a tile for track to join
    /// the two: 0 when the track on the board joins them already; None
    /// when no way is open (buildings, the edge and tiles whose track
    /// leads elsewhere close every one).
    pub missing: Option<u8>,
    /// The empty squares of one such fewest way, from `from` to `to`.
    pub squares: Vec<Square>,
    /// True when the track on the board joins the two points already
    /// (`missing` is 0, and the stretch does not start on an empty square
    /// that the stretch before it counted).
    pub joined: bool,
}

/// How far a player's route is built: see the module's notes for what the
/// count assumes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RouteProgress {
    /// The route's points in the order that needs the fewest squares
    /// filled: a terminal, the stops, the other terminal. With
    /// `ordered_stops` the stops keep the card's order (Stationmaster
    /// ruling 3); otherwise any order (rule book, Le strade). On a tie,
    /// the line's first terminal and the card's order go first.
    pub points: Vec<RoutePoint>,
    /// The stretches between them, one fewer than the points.
    pub stretches: Vec<Stretch>,
    /// True when the route passes the route check now (rulings 5): the
    /// player may start the trip.
    pub complete: bool,
}

impl RouteProgress {
    /// Empty squares still to fill over the whole route, or None when some
    /// stretch has no way open.
    pub fn missing(&self) -> Option<u32> {
        self.stretches
            .iter()
            .map(|s| s.missing.map(u32::from))
            .sum()
    }
}

/// A tile imagined on the board, for a count as if it lay there.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Imagined {
    /// A tile showing these paths on this empty square.
    Tile(Square, Paths),
}

/// No way found (yet).
const FAR: u8 = u8::MAX;
/// The entry of a state a way starts from (any side out).
const NO_SIDE: usize = 4;

/// The board as the way-finder reads it (also `trip.rs`'s).
pub(super) struct Ways<'g> {
    g: &'g Linie1,
    imagined: Option<Imagined>,
    /// Per square, where leaving it by each side leads (by
    /// [`Edge::index`]): a state entered, a terminal, or nowhere; read once
    /// for all the searches of a count.
    pub(super) leads: Vec<[Lead; 4]>,
    /// Per state (square × 5 + the side entered by, or 4 for none), the
    /// sides a way may leave by ([`Ways::may_leave`]) that lead somewhere,
    /// as bits by [`Edge::index`].
    pub(super) exits: Vec<u8>,
    /// With fitted ways: per square, the [`demand_key`] of an empty one
    /// ([`NOT_EMPTY`] for any other); else empty.
    pub(super) keys: Vec<u8>,
}

/// Where leaving a square by one side leads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Lead {
    /// Into this state, at this cost (0 along track, 1 onto an empty
    /// square).
    State(u16, u8),
    /// Out through this terminal, into it by this leg.
    Terminal(u8, u8),
    /// Nowhere: a building, the board's edge, or track that does not take
    /// the way.
    Closed,
}

/// A [`Ways::keys`] entry for a square that is not empty.
pub(super) const NOT_EMPTY: u8 = u8::MAX;

/// A pattern of side demands (must, must not) as an index of 0..256 (a
/// side is never both, so never [`NOT_EMPTY`]).
pub(super) fn demand_key((must, must_not): (u8, u8)) -> u8 {
    (must & 0xf) | (must_not & 0xf) << 4
}

/// A set of tile types, as bits by [`super::TileId`] index; the types past
/// the 32nd are always in.
pub(super) type TileSet = u32;

/// The sides out of an empty square whose demands are `key`, by side in,
/// for the tile types of `set`.
pub(super) fn fit_of(g: &Linie1, set: TileSet, key: u8) -> [u8; 5] {
    let mut out = [0u8; 5];
    for (t, table) in g.data().fits.of(&g.data().tiles).iter().enumerate() {
        if t < 32 && set & (1 << t) == 0 {
            continue;
        }
        for (o, x) in out.iter_mut().zip(table[usize::from(key)]) {
            *o |= x;
        }
    }
    out
}

impl Linie1 {
    /// The tile types a player could still lay some time: those in the
    /// supply and in any hand (every count public).
    pub(super) fn tiles_in_play(&self) -> TileSet {
        let mut set: TileSet = 0;
        for (t, n) in self.supply.iter().enumerate() {
            if *n > 0 && t < 32 {
                set |= 1 << t;
            }
        }
        for p in &self.players {
            for t in &p.hand {
                set |= 1u32.checked_shl(u32::from(t.0)).unwrap_or(0);
            }
        }
        set
    }
}

/// Where one search from a point reached: each state's cost and the state
/// it came from, and the cost of leaving through each terminal.
struct Search {
    dist: Vec<u8>,
    from: Vec<u32>,
    /// Per terminal: its cost, and the state that left through it.
    terminals: Vec<(u8, u32)>,
}

impl<'g> Ways<'g> {
    /// The board of `g`, with `imagined` on it, read for searching. With
    /// `fitted`, a way crosses an empty square only between two sides
    /// that some tile still in play (in the supply or a hand,
    /// [`Linie1::tiles_in_play`]), turned some way, joins while fitting
    /// the square's neighbours as they lie (rulings 1; [`super::data::FitCache`]).
    pub(super) fn new(g: &'g Linie1, imagined: Option<Imagined>, fitted: bool) -> Ways<'g> {
        let mut w = Ways {
            g,
            imagined,
            leads: Vec::new(),
            exits: Vec::new(),
            keys: Vec::new(),
        };
        let d = g.data();
        let squares = d.square_count();
        let mut leads = vec![[Lead::Closed; 4]; squares];
        let mut exits = vec![0u8; squares * 5];
        for (i, s) in d.squares() {
            for exit in Edge::ALL {
                leads[i][exit.index()] = w.lead(s, exit);
            }
            let open = (0..4).filter(|x| leads[i][*x] != Lead::Closed);
            let open: u8 = open.fold(0, |m, x| m | (1 << x));
            // `may_leave` for each side entered by, read from the track
            // once.
            let track = w.track(s);
            for came in 0..5 {
                let may = match (track, Edge::ALL.get(came)) {
                    (Some(paths), Some(e)) => {
                        paths.exits_from(*e).fold(0u8, |m, x| m | (1 << x.index()))
                    }
                    (Some(paths), None) => paths.ends(),
                    (None, _) => 0xf & !(1u8 << came),
                };
                exits[i * 5 + came] = may & open;
            }
        }
        if fitted {
            let demands = g.all_side_demands();
            let set = g.tiles_in_play();
            let mut known: [Option<[u8; 5]>; 256] = [None; 256];
            let mut keys = vec![NOT_EMPTY; squares];
            for (i, s) in d.squares() {
                if w.track(s).is_some() || d.building_at(s).is_some() {
                    continue;
                }
                let key = demand_key(demands[i]);
                keys[i] = key;
                let fit = *known[usize::from(key)].get_or_insert_with(|| fit_of(g, set, key));
                for came in 0..5 {
                    exits[i * 5 + came] &= fit[came];
                }
            }
            w.keys = keys;
        }
        w.leads = leads;
        w.exits = exits;
        w
    }

    /// Where leaving `s` by its side `exit` leads.
    fn lead(&self, s: Square, exit: Edge) -> Lead {
        let d = self.g.data();
        let Some(n) = d.step(s, exit) else {
            return match d.terminal_at(s, exit) {
                Some((t, leg)) => Lead::Terminal(t.index() as u8, leg as u8),
                None => Lead::Closed,
            };
        };
        if d.building_at(n).is_some() {
            return Lead::Closed;
        }
        let entry = exit.opposite();
        let step = match self.track(n) {
            Some(paths) if paths.touches(entry) => 0,
            Some(_) => return Lead::Closed,
            None => 1,
        };
        Lead::State((d.index(n) * 5 + entry.index()) as u16, step)
    }

    /// The track on `s`: a laid tile's, the imagined one's, or None when
    /// empty.
    fn track(&self, s: Square) -> Option<Paths> {
        match self.imagined {
            Some(Imagined::Tile(q, p)) if q == s => Some(p),
            _ => self.g.laid(s).map(|l| l.paths),
        }
    }

    /// The square of `b`'s stop sign, with the imagined tile taking a sign
    /// still to give (rulings 3).
    fn sign(&self, b: BuildingId) -> Option<Square> {
        let real = self.g.stop_sign(b);
        match (real, self.imagined) {
            (None, Some(Imagined::Tile(q, _))) if self.next_to(q, b) => Some(q),
            _ => real,
        }
    }

    fn next_to(&self, s: Square, b: BuildingId) -> bool {
        let d = self.g.data();
        Edge::ALL
            .iter()
            .any(|e| d.step(s, *e) == Some(d.building(b).square))
    }

    /// The squares that serve stop `b`: its sign's, or else every empty
    /// square next to its building.
    fn stop_squares(&self, b: BuildingId) -> Vec<Square> {
        if let Some(s) = self.sign(b) {
            return vec![s];
        }
        let d = self.g.data();
        let home = d.building(b).square;
        Edge::ALL
            .iter()
            .filter_map(|e| d.step(home, *e))
            .filter(|s| d.building_at(*s).is_none() && self.track(*s).is_none())
            .collect()
    }

    /// The places a point may be reached at: a terminal; a stop's sign,
    /// or each empty square next to its building that could take it.
    fn sites(&self, p: RoutePoint) -> Vec<Site> {
        match p {
            RoutePoint::Terminal(t) => vec![Site::Terminal(t)],
            RoutePoint::Stop(b) => self.stop_squares(b).into_iter().map(Site::Square).collect(),
        }
    }

    /// The states a way from `site` starts in, each with its cost: a
    /// terminal's legs (an empty one to fill), or the square itself, paid
    /// for by the way that came to it.
    fn sources(&self, site: Site) -> Vec<(Square, usize, u8)> {
        let d = self.g.data();
        match site {
            Site::Terminal(t) => {
                let term = d.terminal(t);
                term.legs
                    .iter()
                    .filter_map(|leg| match self.track(*leg) {
                        Some(paths) if paths.touches(term.side) => {
                            Some((*leg, term.side.index(), 0))
                        }
                        Some(_) => None,
                        None => Some((*leg, term.side.index(), 1)),
                    })
                    .collect()
            }
            Site::Square(s) => vec![(s, NO_SIDE, 0)],
        }
    }

    /// A 0-1 breadth-first search from `site` over (square, side entered
    /// by) states.
    fn search(&self, site: Site) -> Search {
        let d = self.g.data();
        let n = d.square_count() * 5;
        let mut out = Search {
            dist: vec![FAR; n],
            from: vec![u32::MAX; n],
            terminals: vec![(FAR, u32::MAX); d.terminals.len()],
        };
        let mut queue: VecDeque<usize> = VecDeque::new();
        for (s, side, cost) in self.sources(site) {
            let k = d.index(s) * 5 + side;
            if cost < out.dist[k] {
                out.dist[k] = cost;
                queue.push_back(k);
            }
        }
        while let Some(k) = queue.pop_front() {
            let here = out.dist[k];
            let exits = self.exits[k];
            let leads = &self.leads[k / 5];
            for (x, lead) in leads.iter().enumerate() {
                if exits & (1 << x) == 0 {
                    continue;
                }
                match *lead {
                    Lead::Terminal(t, _) => {
                        let best = &mut out.terminals[usize::from(t)];
                        if here < best.0 {
                            *best = (here, k as u32);
                        }
                    }
                    Lead::State(next, step) => {
                        let next = usize::from(next);
                        let cost = here.saturating_add(step);
                        if cost < out.dist[next] {
                            out.dist[next] = cost;
                            out.from[next] = k as u32;
                            if step == 0 {
                                queue.push_front(next);
                            } else {
                                queue.push_back(next);
                            }
                        }
                    }
                    Lead::Closed => {}
                }
            }
        }
        out
    }

    /// Whether a way may leave `s`, entered by side `came` (or
    /// [`NO_SIDE`]), by its side `x`.
    fn may_leave(&self, s: Square, came: usize, x: Edge) -> bool {
        match (self.track(s), Edge::ALL.get(came)) {
            (Some(paths), Some(e)) => paths.joins(*e, x),
            (Some(paths), None) => paths.touches(x),
            (None, entered) => entered != Some(&x),
        }
    }

    /// A search backwards to `site`: for each state, the fewest empty
    /// squares still to fill from it to the site (itself not counted).
    fn search_back(&self, site: Site) -> Vec<u8> {
        let d = self.g.data();
        let mut dist = vec![FAR; d.square_count() * 5];
        let mut queue: VecDeque<usize> = VecDeque::new();
        let mut aim = |s: Square, side: usize, queue: &mut VecDeque<usize>| {
            let k = d.index(s) * 5 + side;
            dist[k] = 0;
            queue.push_back(k);
        };
        match site {
            Site::Square(q) => (0..5).for_each(|side| aim(q, side, &mut queue)),
            Site::Terminal(t) => {
                let term = d.terminal(t);
                for leg in term.legs {
                    for side in 0..5 {
                        if self.may_leave(leg, side, term.side) {
                            aim(leg, side, &mut queue);
                        }
                    }
                }
            }
        }
        while let Some(k) = queue.pop_front() {
            let (n, came) = (d.square_at(k / 5), k % 5);
            let Some(e) = Edge::ALL.get(came).copied() else {
                continue;
            };
            // Entered `n` by `e`: from the square across it, leaving it by
            // the opposite side.
            let Some(s) = d.step(n, e).filter(|s| d.building_at(*s).is_none()) else {
                continue;
            };
            let (si, x) = (d.index(s), e.opposite());
            let Lead::State(_, step) = self.leads[si][x.index()] else {
                continue;
            };
            let cost = dist[k].saturating_add(step);
            for side in 0..5 {
                let u = si * 5 + side;
                if cost < dist[u] && self.exits[u] & (1 << x.index()) != 0 {
                    dist[u] = cost;
                    if step == 0 {
                        queue.push_front(u);
                    } else {
                        queue.push_back(u);
                    }
                }
            }
        }
        dist
    }

    /// What is left to fill after leaving `s` by `x` towards `site`, by
    /// the backward search `back` to it; [`FAR`] where that side closes
    /// the way.
    fn after_leaving(&self, back: &[u8], s: Square, x: Edge, site: Site) -> u32 {
        let far = u32::from(FAR);
        match self.leads[self.g.data().index(s)][x.index()] {
            Lead::Terminal(t, _) => match site {
                Site::Terminal(here) if here.index() == usize::from(t) => 0,
                _ => far,
            },
            Lead::State(k, step) => match back[usize::from(k)] {
                FAR => far,
                rest => u32::from(step) + u32::from(rest),
            },
            Lead::Closed => far,
        }
    }

    /// Whether a tile showing `paths` on the empty square `s` carries one
    /// of the fewest ways from `from` to `to`, which cost `cost`: by the
    /// forward search from `from` and the backward one to `to`.
    fn carries(
        &self,
        (fwd, back): (&Search, &[u8]),
        (s, paths): (Square, Paths),
        (from, to): (Site, Site),
        cost: u8,
    ) -> bool {
        let d = self.g.data();
        if cost == FAR || self.track(s).is_some() {
            return false;
        }
        let cost = u32::from(cost);
        let ends: Vec<Edge> = Edge::ALL
            .into_iter()
            .filter(|e| paths.touches(*e))
            .collect();
        if from == Site::Square(s) {
            // Leaving the stop's square, paid for on the way to it.
            return ends
                .iter()
                .any(|x| self.after_leaving(back, s, *x, to) == cost);
        }
        let reached = |e: Edge| u32::from(fwd.dist[d.index(s) * 5 + e.index()]);
        if to == Site::Square(s) {
            return ends.iter().any(|e| reached(*e) == cost);
        }
        ends.iter().any(|e| {
            paths
                .exits_from(*e)
                .any(|x| reached(*e) + self.after_leaving(back, s, x, to) == cost)
        })
    }

    /// The cheapest state of `search` at `site`: its cost, and the state.
    fn reached(&self, search: &Search, site: Site) -> (u8, u32) {
        match site {
            Site::Terminal(t) => search.terminals[t.index()],
            Site::Square(s) => {
                let first = self.g.data().index(s) * 5;
                (first..first + 5)
                    .map(|k| (search.dist[k], k as u32))
                    .min_by_key(|(d, _)| *d)
                    .unwrap_or((FAR, u32::MAX))
            }
        }
    }

    /// The empty squares of the way that ends in state `last`, in order.
    /// The squares it paid for: those entered at a cost, and a
    /// terminal's empty leg it started on (a stop's square where it
    /// started was paid for by the way before).
    fn way(&self, search: &Search, last: u32) -> Vec<Square> {
        let d = self.g.data();
        let mut out = Vec::new();
        let mut k = last as usize;
        while k != u32::MAX as usize {
            let before = search.from[k] as usize;
            let paid = match search.from[k] {
                u32::MAX => search.dist[k] == 1,
                _ => search.dist[k] > search.dist[before],
            };
            if paid {
                out.push(d.square_at(k / 5));
            }
            k = before;
        }
        out.reverse();
        out
    }
}

/// Every order of `0..n`, the first one the identity, each in turn.
///
/// Public for `tests/linie1.rs` alone (hidden from the docs): which orders
/// of the stops are tried shows through no game's count.
#[doc(hidden)]
pub fn orders_of(n: usize) -> Vec<Vec<usize>> {
    if n == 0 {
        return vec![Vec::new()];
    }
    let mut out = Vec::new();
    for first in 0..n {
        for rest in orders_of(n - 1) {
            let mut o = vec![first];
            o.extend(rest.into_iter().map(|i| if i >= first { i + 1 } else { i }));
            out.push(o);
        }
    }
    out
}

impl Linie1 {
    /// How far `seat`'s route is built: its points in the order that
    /// needs the fewest squares filled, each stretch's fewest empty squares
    /// to fill, and whether the trip may start. It reads `seat`'s secret
    /// cards (rulings 4): show it to that player alone.
    ///
    /// The count is a 0-1 breadth-first search over (square, side entered
    /// by): a laid tile is crossed only along its track, as a tram would
    /// (rulings 6), an empty square in by any side and out by any other,
    /// counting one; buildings and the board's edge close a way. It
    /// assumes the tiles for the empty squares are at hand and fit (their
    /// other sides are not checked, and no exchange is counted), that a
    /// stop with no sign yet is reached on any empty square next to its
    /// building (rulings 3), and counts each stretch on its own, so a way
    /// may leave a stop by any side; `complete` is the route check itself.
    pub fn route_progress(&self, seat: Seat) -> RouteProgress {
        let mut out = self.route_progress_with(seat, None);
        out.complete = !self.starts(seat).is_empty();
        out
    }

    /// [`Linie1::route_progress`] as if `imagined` lay on the board, with
    /// `complete` left false (the route check is not run).
    pub(crate) fn route_progress_with(
        &self,
        seat: Seat,
        imagined: Option<Imagined>,
    ) -> RouteProgress {
        let plan = Plan::new(self, seat, imagined, false);
        let mut best: Option<(u32, Vec<(usize, usize)>)> = None;
        for seq in &plan.sequences {
            let Some((total, chain)) = cheapest_chain(seq, &plan.sites, &|a, b| plan.cost(a, b))
            else {
                continue;
            };
            if best.as_ref().is_none_or(|(c, _)| total < *c) {
                best = Some((total, chain));
            }
        }
        let chain = best.map(|(_, c)| c).unwrap_or_default();
        let stretches = chain
            .windows(2)
            .map(|w| {
                let (missing, last) = plan.cost(w[0], w[1]);
                let laid = match plan.sites[w[0].0][w[0].1] {
                    Site::Terminal(_) => true,
                    Site::Square(s) => plan.ways.track(s).is_some(),
                };
                Stretch {
                    from: plan.points[w[0].0],
                    to: plan.points[w[1].0],
                    joined: missing == 0 && laid,
                    missing: (missing != FAR).then_some(missing),
                    squares: if missing == FAR {
                        Vec::new()
                    } else {
                        plan.ways.way(&plan.searches[w[0].0][w[0].1], last)
                    },
                }
            })
            .collect();
        RouteProgress {
            points: chain.iter().map(|(p, _)| plan.points[*p]).collect(),
            stretches,
            complete: false,
        }
    }

    /// For each of `lays` (tiles on empty squares), whether it lies along
    /// one of the fewest ways of `seat`'s route, turned to carry it: such
    /// a lay leaves the route a square fewer to fill, unless the tile
    /// turns another stretch's way aside or takes a stop sign that
    /// changes the count (which [`Linie1::route_progress_with`] tells for
    /// certain, at the price of a search from every point). A forward
    /// and a backward search from each point serve every lay at once.
    /// With `fitted`, as if the empty squares of the ways must take a
    /// tile that fits their neighbours (see [`Ways::new`]).
    pub(crate) fn along_the_route(
        &self,
        seat: Seat,
        lays: &[(Square, Paths)],
        fitted: bool,
    ) -> Vec<bool> {
        let plan = Plan::new(self, seat, None, fitted);
        let pairs = plan.pairs_on_fewest_ways();
        let mut back: Vec<((usize, usize), Vec<u8>)> = Vec::new();
        for (_, b) in &pairs {
            if !back.iter().any(|(k, _)| k == b) {
                back.push((*b, plan.ways.search_back(plan.sites[b.0][b.1])));
            }
        }
        let back_of = |b: (usize, usize)| back.iter().find(|(k, _)| *k == b).map(|(_, v)| v);
        lays.iter()
            .map(|&(s, paths)| {
                pairs.iter().any(|&(a, b)| {
                    let Some(bwd) = back_of(b) else { return false };
                    let cost = plan.cost(a, b).0;
                    let fwd = &plan.searches[a.0][a.1];
                    let sites = (plan.sites[a.0][a.1], plan.sites[b.0][b.1]);
                    plan.ways.carries((fwd, bwd), (s, paths), sites, cost)
                })
            })
            .collect()
    }
}

/// The searches a count is made of: the route's points, the sites each
/// may be reached at, a search from every site, and the orders of the
/// points to try.
struct Plan<'g> {
    ways: Ways<'g>,
    points: Vec<RoutePoint>,
    sites: Vec<Vec<Site>>,
    searches: Vec<Vec<Search>>,
    /// Each order of the points to try, as indices into `points`: a
    /// terminal, the stops, the other terminal.
    sequences: Vec<Vec<usize>>,
}

impl<'g> Plan<'g> {
    fn new(g: &'g Linie1, seat: Seat, imagined: Option<Imagined>, fitted: bool) -> Plan<'g> {
        let ways = Ways::new(g, imagined, fitted);
        let terminals = g
            .data
            .terminals_of(g.players[seat.index()].line)
            .into_iter()
            .map(RoutePoint::Terminal);
        let stops = g.required_stops(seat).iter().map(|b| RoutePoint::Stop(*b));
        let points: Vec<RoutePoint> = terminals.chain(stops).collect();
        // A search from each place a point may be reached at serves every
        // order of the points.
        let sites: Vec<Vec<Site>> = points.iter().map(|p| ways.sites(*p)).collect();
        let searches = sites
            .iter()
            .map(|at| at.iter().map(|s| ways.search(*s)).collect())
            .collect();
        let k = points.len().saturating_sub(2);
        let stop_orders = if g.ordered(seat) {
            vec![(0..k).collect()]
        } else {
            orders_of(k)
        };
        let mut sequences = Vec::new();
        for first in [0, 1].into_iter().filter(|f| *f < points.len()) {
            for order in &stop_orders {
                let mut seq = vec![first];
                seq.extend(order.iter().map(|i: &usize| i + 2));
                if points.len() >= 2 {
                    seq.push(1 - first);
                }
                sequences.push(seq);
            }
        }
        Plan {
            ways,
            points,
            sites,
            searches,
            sequences,
        }
    }

    /// The cost from site `a` to site `b` (each a point and its site), and
    /// the state the way ends in.
    fn cost(&self, (p, i): (usize, usize), (q, j): (usize, usize)) -> (u8, u32) {
        self.ways.reached(&self.searches[p][i], self.sites[q][j])
    }

    /// The stretches (site to site) of every order and choice of sites
    /// whose total is the fewest: a square along one of their fewest ways
    /// could leave the route a square fewer to fill.
    fn pairs_on_fewest_ways(&self) -> Vec<((usize, usize), (usize, usize))> {
        let cost = |a, b| u32::from(self.cost(a, b).0);
        // For each order: the cheapest way to reach each site of each
        // point from the start, and from it to the end.
        let mut runs = Vec::new();
        for seq in &self.sequences {
            let sites = |k: usize| (0..self.sites[seq[k]].len()).map(move |i| (seq[k], i));
            let n = seq.len();
            let mut to: Vec<Vec<u32>> = vec![Vec::new(); n];
            let mut from: Vec<Vec<u32>> = vec![Vec::new(); n];
            to[0] = sites(0).map(|_| 0).collect();
            for k in 1..n {
                to[k] = sites(k)
                    .map(|b| {
                        sites(k - 1)
                            .zip(&to[k - 1])
                            .map(|(a, c)| c + cost(a, b))
                            .min()
                            .unwrap_or(u32::MAX / 4)
                    })
                    .collect();
            }
            from[n - 1] = sites(n - 1).map(|_| 0).collect();
            for k in (0..n - 1).rev() {
                from[k] = sites(k)
                    .map(|a| {
                        sites(k + 1)
                            .zip(&from[k + 1])
                            .map(|(b, c)| c + cost(a, b))
                            .min()
                            .unwrap_or(u32::MAX / 4)
                    })
                    .collect();
            }
            runs.push((seq, to, from));
        }
        let best = runs
            .iter()
            .filter_map(|(_, to, _)| to.last().and_then(|t| t.iter().min().copied()))
            .min();
        let mut out = Vec::new();
        for (seq, to, from) in &runs {
            for k in 0..seq.len().saturating_sub(1) {
                for (i, t) in to[k].iter().enumerate() {
                    for (j, f) in from[k + 1].iter().enumerate() {
                        let (a, b) = ((seq[k], i), (seq[k + 1], j));
                        if Some(t + cost(a, b) + f) == best && !out.contains(&(a, b)) {
                            out.push((a, b));
                        }
                    }
                }
            }
        }
        out
    }
}

/// Where a point is reached: a terminal, or one square.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Site {
    Terminal(TerminalId),
    Square(Square),
}

/// The cheapest choice of one site for each point of `seq` (by dynamic
/// programming along it), as (point, site) pairs, with its total: a stop
/// with no sign is reached and left on the same square. None where some
/// point has no site at all.
fn cheapest_chain(
    seq: &[usize],
    sites: &[Vec<Site>],
    cost: &impl Fn((usize, usize), (usize, usize)) -> (u8, u32),
) -> Option<(u32, Vec<(usize, usize)>)> {
    let first = *seq.first()?;
    // For each site of the point reached so far: the total, and the chain.
    let mut best: Vec<(u32, Vec<(usize, usize)>)> = (0..sites[first].len())
        .map(|i| (0, vec![(first, i)]))
        .collect();
    for &q in &seq[1..] {
        best = (0..sites[q].len())
            .filter_map(|j| {
                best.iter()
                    .map(|(total, chain)| {
                        let from = *chain.last().unwrap_or(&(q, j));
                        (total + u32::from(cost(from, (q, j)).0), chain)
                    })
                    .min_by_key(|(t, _)| *t)
                    .map(|(t, chain)| {
                        let mut chain = chain.clone();
                        chain.push((q, j));
                        (t, chain)
                    })
            })
            .collect();
    }
    best.into_iter().min_by_key(|(t, _)| *t)
}
