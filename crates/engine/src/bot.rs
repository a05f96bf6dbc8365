//! The bot: one player for every game, built on the [`Game`] contract alone
//! (issue 36), so that Rocket, Linie 1 and any later game get it without
//! code of their own.
//!
//! # What it does
//!
//! [`choose`] picks the order for one awaited seat by Monte Carlo tree
//! search (UCT: Kocsis & Szepesvári 2006) with three changes for games of
//! several players with hidden information:
//!
//! - **It never reads a secret.** The game is read once, through
//!   [`Game::determinize`]: a copy in which every secret the seat's view
//!   does not show (Rocket: the others' money; Linie 1: the others' line
//!   and route cards, the order of the face-down supply) is drawn anew at
//!   random, overwritten without being read. Everything after works on
//!   copies of that copy, each iteration on a fresh determinization of it
//!   (Information Set MCTS, Cowling, Powley & Whitehouse 2012, with one
//!   tree over every sample: the tree's nodes are sequences of orders,
//!   not states, so chance and secrets drawn differently in each
//!   iteration share it). The secrecy test (`tests/all/bots.rs`) changes
//!   another player's secret and finds the same choice and the same
//!   statistics for the same seed.
//! - **Every seat plays for itself** (max^n): each iteration backs up a
//!   result for every seat, and a seat picks its orders in the tree by its
//!   own entry. The result is the share of the other players a seat
//!   finishes ahead of (a tie counts half): 1 for a sole winner, 0 for
//!   the last, so a bot in a lost game still plays for second place; in
//!   Linie 1, where only the winner places, a game with no winner is worth
//!   more to a loser than another's win. A position short of the end is
//!   scored by the game's estimate ([`results`]): a seat's standing
//!   against the others and its own progress, weighted as the game asks
//!   ([`Game::bot_progress`]; the others' estimates are only as good as
//!   the determinization's guess at their secrets: Linie 1 reads their
//!   routes from the tiles they laid).
//! - **Each single order is a decision.** A Linie 1 turn (two lays, then
//!   draws) is as many levels of the tree as it has orders; an order that
//!   is the only one open is played without a node. Where several seats
//!   are awaited at once (Rocket's veto question), the tree takes them in
//!   the order [`Game::awaiting`] lists them.
//!
//! An iteration goes down the tree from the root by UCB1 (mean result +
//! `exploration` × √(ln available / visits), with "available" counting the
//! iterations in which the order was legal, as orders come and go between
//! determinizations), adds one node, plays [`Settings::rollout`] random
//! orders on from it, and scores the position reached: by the placings if
//! the game is over, else by [`Game::estimate`], each pair of seats taken
//! to finish in the order of their estimates with the probability of a
//! logistic curve of their difference over [`Game::ESTIMATE_SCALE`]. A
//! game that gives no estimate is played to its end.
//!
//! **The decision** is the root's most visited order. Where, the budget
//! spent, another order has the better mean, the search goes on (up to
//! half the budget again) until the most visited is also the best by
//! mean: a choice made while the better order is still catching up was
//! how a Linie 1 driver whose rivals were all stuck circled a loop of
//! track for ever (`tests/all/bots.rs`).
//!
//! **Progressive widening.** A node visited `n` times considers only the
//! first ⌈`widen_base` × n^`widen_power`⌉ orders of the list, in the order
//! of [`Game::order_hint`] (a game may put the likely ones first; by
//! default the list as [`Game::legal_orders`] gives it), so a Linie 1 lay
//! among 180 is looked at where the game says the route goes before the
//! search spends anything on the rest.
//!
//! # Why these choices
//!
//! - A tree and not flat Monte Carlo: at a few hundred iterations a move,
//!   flat Monte Carlo spends as much on the hundredth station site as on
//!   the best extension; the tree spends on what looks best, and sees a
//!   whole turn of two orders together.
//! - Short rollouts and an estimate, not random games to the end: a random
//!   Linie 1 game almost never finishes a trip (docs/performance.md,
//!   "1. Engine": it ends with no winner when the supply runs out), so
//!   playouts to the end tell nothing; and a Rocket game played at random
//!   from the middle is decided by where the random stations go. The
//!   estimate is each game's own, public reading of a position (money now
//!   and what the end-game scoring would pay now; how far a route is
//!   built or a trip driven): the figures in docs/performance.md ("Bots")
//!   were measured against it.
//! - Deterministic: the bot's random source is seeded by the caller
//!   ([`seed`] makes one from the game's seed, the number of orders
//!   played and the seat), and the budget is a count of iterations, not a
//!   time, so the same game, seat and seed give the same order on any
//!   machine, however loaded.
//!
//! # Using it
//!
//! A processor that lets a seat be played by the bot asks, whenever the
//! game awaits that seat, for [`AnyGame::bot_order`](crate::AnyGame::bot_order)
//! (the same search through the object-safe face, answering the order's
//! canonical text) with [`seed`] of the game's seed and the number of
//! orders in its log, and [`Settings::default`]; then applies that text as
//! it would the player's own line. Nothing of the bot is stored: the log
//! holds the order, and a replay reads it as it reads any other.
//!
//! The engine's bot reads no clock and no global randomness, like every
//! game; its cost is measured by `cargo bench --bench bots`.

use crate::rng::SplitMix64;
use crate::{Game, Seat, Status};

/// The most orders a rollout plays when the game gives no estimate and it
/// runs to the end: a guard against a game that never ends, after which
/// every seat is scored level.
pub const MAX_ROLLOUT_ORDERS: u32 = 20_000;

/// How hard the bot thinks. [`Settings::default`] is the setting the
/// figures of docs/performance.md ("Bots") were measured at.
#[derive(Clone, Debug, PartialEq)]
pub struct Settings {
    /// Iterations of the search for one order (each a determinization, a
    /// way down the tree, a rollout and a score), and up to half as many
    /// more where the most visited order is not the best by mean. The
    /// cost of a move grows with it in proportion.
    pub iterations: u32,
    /// Orders played at random after the tree's new node before the
    /// position is scored by [`Game::estimate`]; a game with no estimate
    /// is played to its end whatever this says.
    pub rollout: u32,
    /// The weight of exploration in UCB1, for results between 0 and 1.
    pub exploration: f64,
    /// The weight, between 0 and 1, of a seat's own progress (how far its
    /// estimate moved since the root) in the result of a position scored
    /// by estimate; the rest is its standing against the others. None:
    /// the game's own for the seat and position, [`Game::bot_progress`].
    pub progress: Option<f64>,
    /// Progressive widening: a node visited `n` times considers the first
    /// ⌈`widen_base` × n^`widen_power`⌉ of its orders (at least one).
    pub widen_base: f64,
    /// See [`Settings::widen_base`].
    pub widen_power: f64,
    /// The most orders the search considers for another seat at a node
    /// (None: as many as for the bot's own): with 1, the others play the
    /// first of their orders in hint order, and the tree branches only on
    /// the bot's own, seeing further ahead.
    pub others_width: Option<usize>,
    /// False: the tree holds the bot's own orders only, up to the first
    /// order of another seat, where the position is scored: every
    /// iteration spent on its own turn (Linie 1's two lays together).
    pub others_in_tree: bool,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            iterations: 600,
            rollout: 0,
            exploration: 0.5,
            progress: None,
            widen_base: 2.0,
            widen_power: 0.5,
            others_width: None,
            others_in_tree: true,
        }
    }
}

/// What the search found for one of the root's orders.
#[derive(Clone, Debug, PartialEq)]
pub struct Candidate<O> {
    /// The order.
    pub order: O,
    /// Iterations that went through it.
    pub visits: u32,
    /// Its mean result for the seat (0 to 1: the share of the others it
    /// finished ahead of, or was estimated to).
    pub mean: f64,
}

/// The bot's choice for one seat, with what the search saw.
#[derive(Clone, Debug, PartialEq)]
pub struct Decision<O> {
    /// The order chosen: legal for the seat now.
    pub order: O,
    /// Every order the search tried at the root, in the order it first
    /// tried them; empty when the seat had only one order open.
    pub candidates: Vec<Candidate<O>>,
}

/// A seed for the bot's choice of one order: from the game's own seed
/// (`Setup::seed`), the number of orders applied to the game so far, and
/// the seat, so that the bot's moves in one game differ and the same move
/// asked again gets the same order.
pub fn seed(game_seed: u64, orders_so_far: u64, seat: Seat) -> u64 {
    let mut r = SplitMix64::new(game_seed ^ 0xb07_5eed);
    let a = r.next_u64();
    let mut r = SplitMix64::new(a ^ orders_so_far);
    let b = r.next_u64();
    SplitMix64::new(b ^ u64::from(seat.0)).next_u64()
}

/// The order the bot plays for `seat` in `game`, or None when `seat` is
/// not awaited or has nothing legal. `game` is read only through
/// [`Game::determinize`] for `seat` (see the module's notes), so the
/// choice depends on nothing `seat` may not see. The same game, seat,
/// `seed` and settings always give the same decision.
pub fn choose<G: Game>(
    game: &G,
    seat: Seat,
    seed: u64,
    settings: &Settings,
) -> Option<Decision<G::Order>> {
    let mut rng = SplitMix64::new(seed);
    // The one read of the game: a copy with every secret of the others
    // drawn anew. What `seat` may do is its own business and the same in
    // every copy (a game's legal orders for a seat read only that seat's
    // secrets).
    let world = game.determinize(seat, &mut rng);
    if !world.awaiting().iter().any(|a| a.seat == seat) {
        return None;
    }
    let mut legal = world.legal_orders(seat);
    if legal.len() <= 1 {
        return legal.pop().map(|order| Decision {
            order,
            candidates: Vec::new(),
        });
    }
    world.order_hint(seat, &mut legal);
    by_estimate(&world, seat, &mut legal);
    let seats = world.player_names().len();
    let base = world.estimates();
    let progress = settings
        .progress
        .unwrap_or_else(|| world.bot_progress(seat))
        .clamp(0.0, 1.0);
    let mut search = Search::new(seat, (seats, base, progress), legal, settings, rng);
    let budget = settings.iterations.max(1);
    for _ in 0..budget {
        search.iterate(&world);
    }
    // Max-robust: where the most visited order is not the one of the best
    // mean, the tree has not settled; search on, up to half the budget
    // again, until they agree (a Linie 1 driver whose every rival was
    // stuck circled a loop of track for ever, its choice made while the
    // better way was still catching up).
    for _ in 0..budget / 2 {
        if search.settled() {
            break;
        }
        search.iterate(&world);
    }
    search.decision()
}

/// Puts the first [`Game::BOT_ROOT_ESTIMATES`] of `orders` of `seat` (in
/// hint order) in the order of `seat`'s own estimate one order ahead, the
/// best first (a stable sort: ties keep the hint's order), the rest after
/// them as they were; left as they are where the game gives no estimate.
/// The root's orders only: it costs an `apply` and an estimate per order,
/// once a move, and it means the widening never leaves out the order a
/// one-ply reading of the estimate would play (among those read).
fn by_estimate<G: Game>(world: &G, seat: Seat, orders: &mut Vec<G::Order>) {
    if world.estimate(seat).is_none() {
        return;
    }
    let read = G::BOT_ROOT_ESTIMATES.min(orders.len());
    let rest: Vec<G::Order> = orders.drain(read..).collect();
    let mut keyed: Vec<(i64, G::Order)> = orders
        .drain(..)
        .map(|o| {
            let mut after = world.clone();
            let e = match after.apply(seat, &o) {
                Ok(_) => after.estimate(seat).unwrap_or(i64::MIN),
                Err(_) => i64::MIN,
            };
            (e, o)
        })
        .collect();
    keyed.sort_by_key(|(e, _)| std::cmp::Reverse(*e));
    orders.extend(keyed.into_iter().map(|(_, o)| o));
    orders.extend(rest);
}

/// One node of the tree: a sequence of orders from the root.
struct Node<O> {
    visits: u32,
    /// The orders to choose from here, listed and put in hint order the
    /// second time an iteration reaches the node (the first scores it).
    choice: Option<Choice<O>>,
    children: Vec<Edge>,
}

/// The orders open at a node, as the determinization that first listed
/// them saw them; in another, an order that does not apply is passed over.
struct Choice<O> {
    /// Who gives them.
    seat: Seat,
    /// In hint order.
    orders: Vec<O>,
    /// The edge of each order tried, by its place in `orders`.
    edges: Vec<Option<usize>>,
}

/// An order tried at a node: `Choice::orders[order]`.
struct Edge {
    order: usize,
    visits: u32,
    /// Iterations in which it was among the orders considered at its node
    /// (UCB1's parent count for an order that is not always open).
    available: u32,
    /// The sum of the results of the node's seat over the iterations
    /// through it.
    total: f64,
    /// The node it leads to.
    node: usize,
}

/// A search in progress.
struct Search<'s, O> {
    me: Seat,
    seats: usize,
    /// Every seat's estimate at the root, in the determinization the
    /// search started from; None where the game gives none.
    base: Option<Vec<i64>>,
    /// [`Settings::progress`], or the game's.
    progress: f64,
    settings: &'s Settings,
    rng: SplitMix64,
    nodes: Vec<Node<O>>,
}

/// A step of one iteration's way down: the node and which of its edges.
#[derive(Clone, Copy)]
struct Step {
    node: usize,
    edge: usize,
}

impl<'s, O: Clone + PartialEq> Search<'s, O> {
    /// A search for `me` whose root offers `legal` (in hint order).
    fn new(
        me: Seat,
        (seats, base, progress): (usize, Option<Vec<i64>>, f64),
        legal: Vec<O>,
        settings: &'s Settings,
        rng: SplitMix64,
    ) -> Self {
        let root = Node {
            visits: 0,
            choice: Some(Choice {
                seat: me,
                edges: vec![None; legal.len()],
                orders: legal,
            }),
            children: Vec::new(),
        };
        Search {
            me,
            seats,
            base,
            progress,
            settings,
            rng,
            nodes: vec![root],
        }
    }

    /// How many of a node's orders it considers after `visits` visits.
    fn width(&self, visits: u32) -> usize {
        let s = self.settings;
        let w = (s.widen_base * f64::from(visits.max(1)).powf(s.widen_power)).ceil();
        (w as usize).max(1)
    }

    /// One iteration: a fresh determinization, down the tree, one new
    /// node, a rollout, a score, and the score backed up.
    fn iterate<G: Game<Order = O>>(&mut self, world: &G) {
        let mut state = world.determinize(self.me, &mut self.rng);
        let mut path: Vec<Step> = Vec::new();
        let mut node = 0;
        loop {
            if finished(&state) {
                break;
            }
            let Some(seat) = self.mover(&state, path.is_empty()) else {
                break;
            };
            if seat != self.me && !self.settings.others_in_tree {
                break;
            }
            if !self.list(node, seat, &state) {
                break;
            }
            let Some((edge, new)) = self.descend(node, &mut state) else {
                break;
            };
            path.push(Step { node, edge });
            if new {
                self.rollout(&mut state);
                break;
            }
            node = self.nodes[node].children[edge].node;
        }
        let result = self.score(&state, &path);
        self.nodes[0].visits += 1;
        for step in path {
            let seat = self.chooser(&step);
            let e = &mut self.nodes[step.node].children[step.edge];
            e.visits += 1;
            e.total += result[seat.index()];
            let child = e.node;
            self.nodes[child].visits += 1;
        }
    }

    /// The seat that chose the order of `step`.
    fn chooser(&self, step: &Step) -> Seat {
        self.nodes[step.node]
            .choice
            .as_ref()
            .map_or(self.me, |c| c.seat)
    }

    /// Who gives the next order: `me` at the root (the seat the bot was
    /// asked for), else the first seat awaited.
    fn mover<G: Game>(&self, state: &G, root: bool) -> Option<Seat> {
        if root {
            return Some(self.me);
        }
        state.awaiting().first().map(|a| a.seat)
    }

    /// Lists `seat`'s orders at `node` in hint order, unless they are
    /// listed already; false when `seat` has none.
    fn list<G: Game<Order = O>>(&mut self, node: usize, seat: Seat, state: &G) -> bool {
        if let Some(c) = &self.nodes[node].choice
            && c.seat == seat
        {
            return !c.orders.is_empty();
        }
        let mut orders = state.legal_orders(seat);
        state.order_hint(seat, &mut orders);
        let open = !orders.is_empty();
        let n = &mut self.nodes[node];
        n.children.clear();
        n.choice = Some(Choice {
            seat,
            edges: vec![None; orders.len()],
            orders,
        });
        open
    }

    /// Picks an order at `node` ([`Search::select`]) and applies it to
    /// `state`, passing over those that do not apply in this
    /// determinization: the edge, and whether it is new.
    fn descend<G: Game<Order = O>>(&mut self, node: usize, state: &mut G) -> Option<(usize, bool)> {
        let width = {
            let n = &self.nodes[node];
            let listed = n.choice.as_ref().map_or(0, |c| c.orders.len());
            let mine = n.choice.as_ref().is_some_and(|c| c.seat == self.me);
            let w = self.width(n.visits).min(listed);
            match self.settings.others_width {
                Some(k) if !mine => w.min(k.max(1)),
                _ => w,
            }
        };
        let mut passed: Vec<usize> = Vec::new();
        while passed.len() < width {
            let i = self.select(node, width, &passed)?;
            let c = self.nodes[node].choice.as_ref()?;
            if state.apply(c.seat, &c.orders[i]).is_err() {
                passed.push(i);
                continue;
            }
            return Some(match c.edges[i] {
                Some(e) => (e, false),
                None => (self.add_edge(node, i), true),
            });
        }
        None
    }

    /// A new edge at `node` for its order `i`, leading to a new node.
    fn add_edge(&mut self, node: usize, i: usize) -> usize {
        let child = self.nodes.len();
        self.nodes.push(Node {
            visits: 0,
            choice: None,
            children: Vec::new(),
        });
        let n = &mut self.nodes[node];
        n.children.push(Edge {
            order: i,
            visits: 0,
            available: 1,
            total: 0.0,
            node: child,
        });
        let e = n.children.len() - 1;
        if let Some(c) = n.choice.as_mut() {
            c.edges[i] = Some(e);
        }
        e
    }

    /// Of the first `width` orders at `node` not `passed` over: the first
    /// not tried yet, or else the best by UCB1.
    fn select(&mut self, node: usize, width: usize, passed: &[usize]) -> Option<usize> {
        let c = self.settings.exploration;
        let n = &mut self.nodes[node];
        let choice = n.choice.as_ref()?;
        let mut best: Option<(f64, usize)> = None;
        for i in (0..width).filter(|i| !passed.contains(i)) {
            let Some(e) = choice.edges[i] else {
                return Some(i);
            };
            let e = &mut n.children[e];
            e.available += 1;
            let visits = f64::from(e.visits.max(1));
            let ucb = e.total / visits + c * (f64::from(e.available).ln() / visits).sqrt();
            if best.is_none_or(|(b, _)| ucb > b) {
                best = Some((ucb, i));
            }
        }
        best.map(|(_, i)| i)
    }

    /// Random orders from a random awaited seat: `rollout` of them, or to
    /// the end when the game gives no estimate.
    fn rollout<G: Game<Order = O>>(&mut self, state: &mut G) {
        let estimated = state.estimate(self.me).is_some();
        let limit = if estimated {
            self.settings.rollout
        } else {
            MAX_ROLLOUT_ORDERS
        };
        for _ in 0..limit {
            let awaited = state.awaiting();
            if awaited.is_empty() {
                return;
            }
            let seat = awaited[self.rng.below(awaited.len())].seat;
            let legal = state.legal_orders(seat);
            if legal.is_empty() {
                return;
            }
            let order = &legal[self.rng.below(legal.len())];
            if state.apply(seat, order).is_err() {
                return;
            }
        }
    }

    /// Each seat's result in `state`: see [`results`]. Only the results
    /// of the seats that chose an order on `path` are read: at progress
    /// 1, only their estimates are asked for.
    fn score<G: Game>(&self, state: &G, path: &[Step]) -> Vec<f64> {
        let mut choosers = vec![false; self.seats];
        for step in path {
            if let Some(c) = choosers.get_mut(self.chooser(step).index()) {
                *c = true;
            }
        }
        results(
            state,
            (self.seats, &choosers),
            self.base.as_deref(),
            self.progress,
        )
    }

    /// Whether the root's most visited order also has the best mean (or
    /// the root has no choice).
    fn settled(&self) -> bool {
        let children = &self.nodes[0].children;
        let mean = |e: &Edge| e.total / f64::from(e.visits.max(1));
        let most = children.iter().max_by_key(|e| e.visits);
        most.is_none_or(|m| children.iter().all(|e| mean(e) <= mean(m)))
    }

    /// The decision: of the root's orders, the most visited; on a tie the
    /// better mean, then the first in hint order.
    fn decision(&self) -> Option<Decision<O>> {
        let root = &self.nodes[0];
        let choice = root.choice.as_ref()?;
        let candidates: Vec<Candidate<O>> = root
            .children
            .iter()
            .map(|e| Candidate {
                order: choice.orders[e.order].clone(),
                visits: e.visits,
                mean: if e.visits == 0 {
                    0.0
                } else {
                    e.total / f64::from(e.visits)
                },
            })
            .collect();
        let mut best: Option<(usize, &Edge)> = None;
        for (i, edge) in choice.edges.iter().enumerate() {
            let Some(e) = edge.map(|e| &root.children[e]) else {
                continue;
            };
            let better = best.is_none_or(|(_, b)| {
                e.visits > b.visits || (e.visits == b.visits && e.total > b.total)
            });
            if better {
                best = Some((i, e));
            }
        }
        let order = choice.orders[best.map_or(0, |(i, _)| i)].clone();
        Some(Decision { order, candidates })
    }
}

fn finished<G: Game>(state: &G) -> bool {
    matches!(state.status(), Status::Finished(_))
}

/// Each seat's result in `state`, between 0 and 1. Over a game that is
/// over: the share of the other seats it placed ahead of (a tie counts
/// half). Over one still going, with [`Game::estimate`]s: the same share
/// as the estimates expect it, each pair ordered with the probability of
/// a logistic curve of the difference of their estimates over
/// [`Game::ESTIMATE_SCALE`], weighted `1 - progress`; plus, weighted
/// `progress`, the same curve of how far the seat's estimate moved from
/// `base` (its estimate at the root), so that a seat far ahead (or far
/// behind) still prefers the orders that bring it on. Every seat scores ½
/// where neither is known. At `progress` 1 only the estimates of the
/// seats marked in `wanted` are read, and the others score ½.
fn results<G: Game>(
    state: &G,
    (seats, wanted): (usize, &[bool]),
    base: Option<&[i64]>,
    progress: f64,
) -> Vec<f64> {
    let others = seats.saturating_sub(1).max(1) as f64;
    if let Status::Finished(placings) = state.status() {
        let mut place = vec![u8::MAX; seats];
        for p in &placings {
            if let Some(x) = place.get_mut(p.seat.index()) {
                *x = p.place;
            }
        }
        return (0..seats)
            .map(|i| {
                let beaten: f64 = (0..seats)
                    .filter(|j| *j != i)
                    .map(|j| match place[i].cmp(&place[j]) {
                        std::cmp::Ordering::Less => 1.0,
                        std::cmp::Ordering::Equal => 0.5,
                        std::cmp::Ordering::Greater => 0.0,
                    })
                    .sum();
                beaten / others
            })
            .collect();
    }
    let Some(base) = base else {
        return vec![0.5; seats];
    };
    let scale = G::ESTIMATE_SCALE.max(f64::MIN_POSITIVE);
    if progress >= 1.0 {
        return own_progress(state, wanted, base, scale);
    }
    let Some(est) = state.estimates() else {
        return vec![0.5; seats];
    };
    (0..seats)
        .map(|i| {
            let ahead: f64 = (0..seats.min(est.len()))
                .filter(|j| *j != i)
                .map(|j| logistic((est.get(i).copied().unwrap_or(0) - est[j]) as f64 / scale))
                .sum();
            let (now, then) = (est.get(i).copied().unwrap_or(0), base.get(i).copied());
            let moved = logistic((now - then.unwrap_or(now)) as f64 / scale);
            (1.0 - progress) * ahead / others + progress * moved
        })
        .collect()
}

/// [`results`] at progress 1: for each seat marked in `wanted`, the
/// logistic curve of how far its estimate moved from `base`; ½ for the
/// others, and for every seat where the game gives no estimate.
fn own_progress<G: Game>(state: &G, wanted: &[bool], base: &[i64], scale: f64) -> Vec<f64> {
    let asked: Vec<Seat> = (0..wanted.len())
        .filter(|i| wanted[*i])
        .map(|i| Seat(i as u8))
        .collect();
    let mut out = vec![0.5; wanted.len()];
    let Some(est) = state.estimates_of(&asked) else {
        return out;
    };
    for (seat, now) in asked.iter().zip(est) {
        let then = base.get(seat.index()).copied().unwrap_or(now);
        out[seat.index()] = logistic((now - then) as f64 / scale);
    }
    out
}

fn logistic(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}
