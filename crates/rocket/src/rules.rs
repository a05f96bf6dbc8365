//! The rules proper: checking and carrying out each order, the extension with
//! its veto question and round, the payments, mergers, isolation and the end.

use std::collections::BTreeSet;

use super::board::{LineId, PlaceKind, Terrain};
use super::event::{Event, PaymentCause};
use super::hex::{Dir, Hex};
use super::order::Order;
use super::scoring::{self, Money};
use super::{
    ACTIONS_PER_TURN, Bid, Extension, FinalScore, GameResult, LineStatus, PASSENGER_TOKENS, Phase,
    Rocket, SHARES_PER_LINE, STATIONS_PER_PLAYER, SUPPLEMENTARY_SHARES, TRACK_TILES, Tile,
};
use engine::{Awaited, Placing, RuleError, Seat, Timing, WaitKind};

type Outcome = Result<Vec<Event>, RuleError>;

impl Rocket {
    /// Checks and applies one order.
    pub(super) fn apply_order(&mut self, seat: Seat, order: &Order) -> Outcome {
        if seat.index() >= self.players.len() {
            return Err(RuleError::new(
                "rulings 14",
                format!(
                    "There is no player in {seat}: this game has {} players.",
                    self.players.len()
                ),
            ));
        }
        if self.phase == Phase::Finished {
            return Err(RuleError::new(
                "rules, Game end",
                "The game is over; no more orders are taken.",
            ));
        }
        match order {
            Order::Token { city, good } => self.take_token(seat, *city, *good),
            Order::Station { hex, from } => self.place_station(seat, *hex, *from),
            Order::Extend { line, hex } => self.extend(seat, *line, *hex),
            Order::Veto => self.call_veto(seat),
            Order::NoVeto => self.decline_veto(seat),
            Order::Bid { shares, hex } => self.bid(seat, *shares, *hex),
            Order::Pass => self.pass(seat),
            Order::Skip => self.skip(seat),
        }
    }

    fn name(&self, seat: Seat) -> &str {
        &self.players[seat.index()].name
    }

    fn line_name(&self, line: LineId) -> &str {
        &self.board.line(line).id
    }

    /// The checks every action shares: the action phase and the active player.
    fn check_action(&self, seat: Seat) -> Result<(), RuleError> {
        match &self.phase {
            Phase::Actions => {}
            Phase::VetoQuestion { extension, .. } | Phase::VetoRound { extension, .. } => {
                return Err(RuleError::new(
                    "rules, C2",
                    format!(
                        "The veto on {}'s move to {} must be settled before the next action.",
                        self.line_name(extension.line),
                        extension.chosen
                    ),
                ));
            }
            Phase::Finished => unreachable!("checked in apply_order"),
        }
        if seat != self.turn.active {
            return Err(RuleError::new(
                "rules, Playing the game",
                format!("It is {}'s turn, not yours.", self.name(self.turn.active)),
            ));
        }
        Ok(())
    }

    // ----- A) take a city token ------------------------------------------

    fn take_token(&mut self, seat: Seat, city: super::PlaceId, good: super::Good) -> Outcome {
        self.check_action(seat)?;
        let place = self.board.place(city);
        if !matches!(place.kind, PlaceKind::City(_)) {
            return Err(RuleError::new(
                "rules, A",
                format!(
                    "{} is not a city; tokens are taken from cities.",
                    place.name
                ),
            ));
        }
        if self.city_tokens[city.index()][good.index()] == 0 {
            let left = self.goods_left_text(city);
            return Err(RuleError::new(
                "rules, A",
                format!("{} has no {good} token left ({left}).", place.name),
            ));
        }
        self.city_tokens[city.index()][good.index()] -= 1;
        self.players[seat.index()].tokens[city.index()][good.index()] += 1;
        let mut events = vec![Event::TokenTaken {
            player: seat,
            city,
            good,
        }];
        self.end_action(&mut events);
        Ok(events)
    }

    pub(super) fn goods_left_text(&self, city: super::PlaceId) -> String {
        let left: Vec<String> = super::Good::ALL
            .iter()
            .filter(|g| self.city_tokens[city.index()][g.index()] > 0)
            .map(|g| format!("{} {g}", self.city_tokens[city.index()][g.index()]))
            .collect();
        if left.is_empty() {
            "none left".to_string()
        } else {
            format!("left: {}", left.join(", "))
        }
    }

    // ----- B) place or move a station -------------------------------------

    /// Why a station may not stand on `hex` (ignoring the station on
    /// `lifted`, which is being moved), or None if it may (rules, B).
    pub(super) fn station_problem(&self, hex: Hex, lifted: Option<Hex>) -> Option<String> {
        if !self.board.contains(hex) {
            return Some(format!("{hex} is not on the map."));
        }
        match self.board.terrain(hex) {
            Terrain::Land => {}
            Terrain::Place(p) => {
                return Some(format!(
                    "{hex} is {}; stations go on empty hexes.",
                    self.board.place(p).name
                ));
            }
            Terrain::Sea | Terrain::Wales => return Some(format!("{hex} is not playable.")),
        }
        let c = self.cell(hex);
        if c.track.is_some() {
            return Some(format!(
                "{hex} has track on it; stations may not go on track."
            ));
        }
        if c.locomotive.is_some() {
            return Some(format!("{hex} has a locomotive on it."));
        }
        if c.station.is_some() && Some(hex) != lifted {
            return Some(format!("{hex} already has a station."));
        }
        for n in self.board.neighbours(hex) {
            let nc = self.cell(n);
            if nc.locomotive.is_some() {
                return Some(format!(
                    "{hex} is next to a locomotive ({n}); stations may not be placed next to locomotives."
                ));
            }
            if nc.station.is_some() && Some(n) != lifted {
                return Some(format!(
                    "{hex} is next to a station ({n}); stations may not be placed next to other stations."
                ));
            }
        }
        None
    }

    /// Where a station could stand on each hex (by index), for listing the
    /// legal orders without putting every refusal in words. Agrees with
    /// [`Rocket::station_problem`]: `station_problem(hex, None)` is None
    /// exactly when the site is [`Site::Free`], and for a station lifted
    /// from another hex `from`, `station_problem(hex, Some(from))` is None
    /// exactly when the site is `Free` or `NextTo(from)` (the lifted station
    /// is then the only one next to it). One pass over the locomotives and
    /// stations instead of looking around every hex.
    fn station_sites(&self) -> Vec<Site> {
        let mut sites = Vec::with_capacity(self.cells.len());
        for (terrain, c) in self.board.terrain.iter().zip(&self.cells) {
            let open = matches!(terrain, Terrain::Land)
                && c.track.is_none()
                && c.locomotive.is_none()
                && c.station.is_none();
            sites.push(if open { Site::Free } else { Site::Blocked });
        }
        for (i, c) in self.cells.iter().enumerate() {
            if c.locomotive.is_none() && c.station.is_none() {
                continue;
            }
            // A division only for the few hexes with something on them.
            let hex = self.board.hex_at(i);
            for n in self.board.neighbours(hex) {
                let site = &mut sites[self.board.index(n)];
                *site = match *site {
                    Site::Free if c.locomotive.is_none() => Site::NextTo(hex),
                    _ => Site::Blocked,
                };
            }
        }
        sites
    }

    fn place_station(&mut self, seat: Seat, hex: Hex, from: Option<Hex>) -> Outcome {
        self.check_action(seat)?;
        match from {
            None => {
                if self.players[seat.index()].stations_in_supply == 0 {
                    return Err(RuleError::new(
                        "rules, B",
                        format!(
                            "All {STATIONS_PER_PLAYER} of your stations are on the board; move one with `station {hex} from HEX`."
                        ),
                    ));
                }
            }
            Some(f) => {
                if !self.board.contains(f) || self.cell(f).station != Some(seat) {
                    return Err(RuleError::new(
                        "rules, B",
                        format!("You have no station on {f} to move."),
                    ));
                }
                if f == hex {
                    return Err(RuleError::new(
                        "rules, B",
                        format!("Your station is already on {hex}."),
                    ));
                }
            }
        }
        if let Some(problem) = self.station_problem(hex, from) {
            return Err(RuleError::new("rules, B", problem));
        }
        let i = self.board.index(hex);
        let event = match from {
            None => {
                self.players[seat.index()].stations_in_supply -= 1;
                Event::StationPlaced { player: seat, hex }
            }
            Some(f) => {
                let fi = self.board.index(f);
                self.cells[fi].station = None;
                Event::StationMoved {
                    player: seat,
                    from: f,
                    to: hex,
                }
            }
        };
        self.cells[i].station = Some(seat);
        let mut events = vec![event];
        self.end_action(&mut events);
        Ok(events)
    }

    // ----- C) extend a railway line ----------------------------------------

    /// The other lines whose track or locomotive touches `hex`.
    fn lines_next_to(&self, hex: Hex, except: LineId) -> LineSet {
        let mut set = LineSet::default();
        for n in self.board.neighbours(hex) {
            let c = self.cell(n);
            if let Some(l) = c.locomotive.or(c.track)
                && l != except
            {
                set.insert(l);
            }
        }
        set
    }

    /// Why `line`'s locomotive may not move to `hex` now, or None if it may
    /// (rules, C1; rulings 6).
    pub(super) fn move_problem(&self, line: LineId, hex: Hex) -> Option<String> {
        let block = self.move_block(line, hex)?;
        let id = self.line_name(line);
        Some(match block {
            MoveBlock::Gone => format!("{id} has merged into another line and has no locomotive."),
            MoveBlock::NotNext { at } => {
                format!("{hex} is not next to {id}'s locomotive on {at}.")
            }
            MoveBlock::NotAhead { at, facing } => format!(
                "{hex} is not in front of {id}'s locomotive, which faces {facing} on {at}; it moves only straight on or in a gentle curve."
            ),
            MoveBlock::Place(p) => format!(
                "{hex} is {}; locomotives may not enter towns or cities.",
                self.board.place(p).name
            ),
            MoveBlock::Unplayable => format!("{hex} is not playable."),
            MoveBlock::Track => format!("{hex} has track on it."),
            MoveBlock::Locomotive(other) => {
                format!("{hex} has {}'s locomotive on it.", self.line_name(other))
            }
            MoveBlock::TwoLines(touching) => {
                let names: Vec<&str> = touching.iter().map(|l| self.line_name(l)).collect();
                format!(
                    "{hex} is next to two other lines ({}); a locomotive may not move next to two other lines.",
                    names.join(" and ")
                )
            }
        })
    }

    /// What keeps `line`'s locomotive from moving to `hex` now, if anything:
    /// [`Rocket::move_problem`] before it is put in words, so that listing
    /// the legal moves formats no sentences.
    fn move_block(&self, line: LineId, hex: Hex) -> Option<MoveBlock> {
        let l = &self.lines[line.index()];
        let Some(at) = l.locomotive else {
            return Some(MoveBlock::Gone);
        };
        let Some(d) = self.board.dir(at, hex) else {
            return Some(MoveBlock::NotNext { at });
        };
        if let Some(facing) = l.facing
            && !facing.ahead().contains(&d)
        {
            return Some(MoveBlock::NotAhead { at, facing });
        }
        match self.board.terrain(hex) {
            Terrain::Land => {}
            Terrain::Place(p) => return Some(MoveBlock::Place(p)),
            Terrain::Sea | Terrain::Wales => return Some(MoveBlock::Unplayable),
        }
        let c = self.cell(hex);
        if c.track.is_some() {
            return Some(MoveBlock::Track);
        }
        if let Some(other) = c.locomotive {
            return Some(MoveBlock::Locomotive(other));
        }
        let touching = self.lines_next_to(hex, line);
        if touching.len() >= 2 {
            return Some(MoveBlock::TwoLines(touching));
        }
        None
    }

    /// Every hex `line`'s locomotive may move to now.
    pub(super) fn moves(&self, line: LineId) -> Vec<Hex> {
        let l = &self.lines[line.index()];
        let Some(at) = l.locomotive else {
            return Vec::new();
        };
        let ahead;
        let dirs: &[Dir] = match l.facing {
            None => &Dir::ALL,
            Some(f) => {
                ahead = f.ahead();
                &ahead
            }
        };
        let mut out: Vec<Hex> = dirs
            .iter()
            .filter_map(|d| self.board.step(at, *d))
            .filter(|h| self.move_block(line, *h).is_none())
            .collect();
        out.sort();
        out
    }

    /// True if `line`'s locomotive may move at all now: `!moves(line).is_empty()`
    /// without the list.
    fn can_move(&self, line: LineId) -> bool {
        let l = &self.lines[line.index()];
        let Some(at) = l.locomotive else {
            return false;
        };
        let ahead;
        let dirs: &[Dir] = match l.facing {
            None => &Dir::ALL,
            Some(f) => {
                ahead = f.ahead();
                &ahead
            }
        };
        dirs.iter()
            .filter_map(|d| self.board.step(at, *d))
            .any(|h| self.move_block(line, h).is_none())
    }

    fn extend(&mut self, seat: Seat, line: LineId, hex: Hex) -> Outcome {
        self.check_action(seat)?;
        let id = self.line_name(line).to_string();
        if let LineStatus::Dissolved { into } = self.lines[line.index()].status {
            return Err(RuleError::new(
                "rules, Scoring 3",
                format!("{id} has merged into {} and is gone.", self.line_name(into)),
            ));
        }
        if self.turn.extended.contains(&line) {
            return Err(RuleError::new(
                "rules, Playing the game",
                format!(
                    "You already extended {id} this turn; a line may not be extended twice in one turn."
                ),
            ));
        }
        if let Some(problem) = self.move_problem(line, hex) {
            let moves = self.moves(line);
            let legal = if moves.is_empty() {
                format!("{id} cannot move at all.")
            } else {
                format!("{id} can move to {}.", join_hexes(&moves))
            };
            return Err(RuleError::new("rules, C1", format!("{problem} {legal}")));
        }
        let options = self.moves(line);
        let l = &self.lines[line.index()];
        let from = l.locomotive.expect("checked by move_problem");
        let extension = Extension {
            line,
            from,
            from_facing: l.facing,
            chosen: hex,
            options,
        };
        self.turn.extended.push(line);
        self.set_locomotive(line, from, hex);
        // Its rear points to the hex it left (rules, C1), from now on: the
        // reports during a veto draw it so.
        self.lines[line.index()].facing = self.board.dir(from, hex);
        let mut events = vec![Event::LocomotiveMoved {
            player: seat,
            line,
            from,
            to: hex,
        }];

        // Take a share, if the board has one (rules, C1).
        if self.lines[line.index()].board_shares > 0 {
            self.lines[line.index()].board_shares -= 1;
            self.players[seat.index()].shares[line.index()] += 1;
            events.push(Event::ShareTaken { player: seat, line });
        } else {
            events.push(Event::NoShareLeft { player: seat, line });
        }

        // The veto question goes to every other holder of real shares
        // (rulings 7; bids are paid in real shares). The active player chose
        // the hex and is not asked, but may still call a veto while the
        // question is open.
        let waiting: Vec<Seat> = self
            .seats_from(seat)
            .into_iter()
            .filter(|s| *s != seat && self.players[s.index()].shares[line.index()] > 0)
            .collect();
        if waiting.is_empty() {
            self.resolve_extension(extension, None, &mut events);
        } else {
            events.push(Event::VetoAsked {
                line,
                hex,
                players: waiting.clone(),
                mover: Some(seat),
            });
            self.phase = Phase::VetoQuestion { extension, waiting };
        }
        Ok(events)
    }

    fn set_locomotive(&mut self, line: LineId, from: Hex, to: Hex) {
        let fi = self.board.index(from);
        let ti = self.board.index(to);
        self.cells[fi].locomotive = None;
        self.cells[ti].locomotive = Some(line);
        self.lines[line.index()].locomotive = Some(to);
    }

    /// Seats in table order, starting with `first`.
    fn seats_from(&self, first: Seat) -> Vec<Seat> {
        let n = self.players.len();
        (0..n)
            .map(|k| Seat(((first.index() + k) % n) as u8))
            .collect()
    }

    fn next_seat(&self, seat: Seat) -> Seat {
        Seat(((seat.index() + 1) % self.players.len()) as u8)
    }

    // ----- C2) the veto ----------------------------------------------------

    fn call_veto(&mut self, seat: Seat) -> Outcome {
        let Phase::VetoQuestion { extension, waiting } = &self.phase else {
            return Err(self.not_veto_question("veto"));
        };
        let line = extension.line;
        if self.players[seat.index()].shares[line.index()] == 0 {
            return Err(RuleError::new(
                "rulings 7",
                format!(
                    "Only holders of real {id} shares may call a veto round{}.",
                    self.no_real_shares(seat, line),
                    id = self.line_name(line)
                ),
            ));
        }
        if seat != self.turn.active && !waiting.contains(&seat) {
            return Err(RuleError::new(
                "rulings 7",
                "You have already answered `no veto` on this move.",
            ));
        }
        let extension = extension.clone();
        let active = self.turn.active;
        // Once around the table from the active player's left; the active
        // player bids last (rules, C2).
        let mut order = self.seats_from(self.next_seat(active));
        order.retain(|s| *s != active);
        order.push(active);
        let mut events = vec![Event::VetoCalled {
            player: seat,
            line: extension.line,
        }];
        self.phase = Phase::VetoRound {
            extension,
            called_by: seat,
            order,
            next: 0,
            high: None,
        };
        self.next_bidder(&mut events);
        Ok(events)
    }

    fn decline_veto(&mut self, seat: Seat) -> Outcome {
        let Phase::VetoQuestion { extension, waiting } = &self.phase else {
            return Err(self.not_veto_question("no veto"));
        };
        let Some(pos) = waiting.iter().position(|s| *s == seat) else {
            let line = extension.line;
            let why = if seat == self.turn.active {
                "You moved the locomotive, so you are not asked; you may still call `veto`."
                    .to_string()
            } else if self.players[seat.index()].shares[line.index()] > 0 {
                // Real shares now means real shares at the move: asked then.
                "You have already answered `no veto` on this move.".to_string()
            } else {
                format!(
                    "You are not asked about {id}'s move to {}, as only holders of real {id} shares are asked{}.",
                    extension.chosen,
                    self.no_real_shares(seat, line),
                    id = self.line_name(line)
                )
            };
            return Err(RuleError::new("rulings 7", why));
        };
        let Phase::VetoQuestion { extension, waiting } = &mut self.phase else {
            unreachable!("matched above");
        };
        waiting.remove(pos);
        let mut events = vec![Event::VetoDeclined { player: seat }];
        if waiting.is_empty() {
            let extension = extension.clone();
            self.phase = Phase::Actions;
            self.resolve_extension(extension, None, &mut events);
        }
        Ok(events)
    }

    /// Why `seat`, holding no real shares of `line`, has no say in its
    /// veto: the end of a sentence, naming supplementary shares held, which
    /// count for majorities but cannot be bid (rulings 6 and 7).
    fn no_real_shares(&self, seat: Seat, line: LineId) -> String {
        let id = self.line_name(line);
        match self.players[seat.index()].supplementary[line.index()] {
            0 => ", and you hold none".to_string(),
            1 => format!(
                ": your one {id} share is a supplementary one, which counts for majorities but cannot be bid"
            ),
            n => format!(
                ": your {n} {id} shares are supplementary ones, which count for majorities but cannot be bid"
            ),
        }
    }

    fn not_veto_question(&self, order: &str) -> RuleError {
        let now = match &self.phase {
            Phase::VetoRound { .. } => "The veto round is under way; bid or pass in turn.",
            _ => "No locomotive move is waiting for a veto.",
        };
        RuleError::new(
            "rules, C2",
            format!("`{order}` answers the veto question after a locomotive moves. {now}"),
        )
    }

    /// The fewest shares `seat` may bid now, given the high bid.
    fn minimum_bid(&self, seat: Seat, high: Option<Bid>) -> u8 {
        let high = high.map_or(0, |b| b.shares);
        if seat == self.turn.active {
            high.max(1)
        } else {
            high + 1
        }
    }

    /// Moves the round on to the next player who can bid; players without
    /// enough real shares to bid are passed over. Resolves after the last.
    fn next_bidder(&mut self, events: &mut Vec<Event>) {
        loop {
            let Phase::VetoRound {
                extension,
                order,
                next,
                high,
                ..
            } = &self.phase
            else {
                return;
            };
            if *next >= order.len() {
                let (extension, high) = (extension.clone(), *high);
                self.phase = Phase::Actions;
                self.resolve_extension(extension, high, events);
                return;
            }
            let seat = order[*next];
            let line = extension.line;
            let held = self.players[seat.index()].shares[line.index()];
            let needed = self.minimum_bid(seat, *high);
            if held >= needed {
                return;
            }
            events.push(Event::CannotBid {
                player: seat,
                line: Some(line),
                held,
                supplementary: self.players[seat.index()].supplementary[line.index()],
                needed,
            });
            if let Phase::VetoRound { next, .. } = &mut self.phase {
                *next += 1;
            }
        }
    }

    fn bidder_check(&self, seat: Seat, order_text: &str) -> Result<(), RuleError> {
        match &self.phase {
            Phase::VetoRound { order, next, .. } => {
                let due = order[*next];
                if due != seat {
                    return Err(RuleError::new(
                        "rules, C2",
                        format!(
                            "It is {}'s turn to bid or pass in the veto round.",
                            self.name(due)
                        ),
                    ));
                }
                Ok(())
            }
            Phase::VetoQuestion { .. } => Err(RuleError::new(
                "rules, C2",
                format!(
                    "`{order_text}` is for a veto round, and none has been called; answer `veto` or `no veto`."
                ),
            )),
            _ => Err(RuleError::new(
                "rules, C2",
                format!("`{order_text}` is for a veto round, and none is under way."),
            )),
        }
    }

    /// Why `seat` may not bid `shares` for `hex` on `extension` against the
    /// high bid `high`, or None if the bid is good.
    fn bid_problem(
        &self,
        seat: Seat,
        shares: u8,
        hex: Hex,
        extension: &Extension,
        high: Option<Bid>,
    ) -> Option<RuleError> {
        let line = extension.line;
        let id = self.line_name(line);
        let held = self.players[seat.index()].shares[line.index()];
        let min = self.minimum_bid(seat, high);
        if shares == 0 {
            return Some(RuleError::new("rulings 7", "The smallest bid is 1 share."));
        }
        if shares < min {
            let why = match high {
                Some(b) if seat == self.turn.active => format!(
                    "you must at least equal {}'s bid of {}",
                    self.name(b.seat),
                    b.shares
                ),
                Some(b) => format!(
                    "each bid must beat the one before ({}'s {})",
                    self.name(b.seat),
                    b.shares
                ),
                None => "the smallest bid is 1 share".to_string(),
            };
            return Some(RuleError::new(
                "rules, C2",
                format!("A bid of {shares}: {why}; bid at least {min}, or pass."),
            ));
        }
        if shares > held {
            let held_text = match held {
                0 => format!("no real {id} shares"),
                1 => format!("only 1 real {id} share"),
                n => format!("only {n} real {id} shares"),
            };
            let supplementary = if self.players[seat.index()].supplementary[line.index()] > 0 {
                " (supplementary shares cannot be bid)"
            } else {
                ""
            };
            return Some(RuleError::new(
                "rulings 7",
                format!(
                    "You cannot bid {shares}: you hold {held_text}, and bids are paid in the line's real shares{supplementary}. Bid at most {held}, or pass."
                ),
            ));
        }
        if !extension.options.contains(&hex) {
            return Some(RuleError::new(
                "rules, C2",
                format!(
                    "{id}'s locomotive could not have moved to {hex}; choose one of {}.",
                    join_hexes(&extension.options)
                ),
            ));
        }
        if self.options.veto_defend_only && seat == self.turn.active && hex != extension.chosen {
            return Some(RuleError::new(
                "option veto_defend_only",
                format!(
                    "In this game the active player may only defend the hex first chosen, {}.",
                    extension.chosen
                ),
            ));
        }
        None
    }

    fn bid(&mut self, seat: Seat, shares: u8, hex: Hex) -> Outcome {
        self.bidder_check(seat, "bid")?;
        let Phase::VetoRound {
            extension, high, ..
        } = &self.phase
        else {
            unreachable!()
        };
        if let Some(problem) = self.bid_problem(seat, shares, hex, extension, *high) {
            return Err(problem);
        }
        let bid = Bid { seat, shares, hex };
        let mut events = vec![Event::BidMade {
            player: seat,
            shares,
            hex,
        }];
        if let Phase::VetoRound { high, next, .. } = &mut self.phase {
            *high = Some(bid);
            *next += 1;
        }
        self.next_bidder(&mut events);
        Ok(events)
    }

    fn pass(&mut self, seat: Seat) -> Outcome {
        self.bidder_check(seat, "pass")?;
        let mut events = vec![Event::BidPassed { player: seat }];
        if let Phase::VetoRound { next, .. } = &mut self.phase {
            *next += 1;
        }
        self.next_bidder(&mut events);
        Ok(events)
    }

    /// A missed deadline or a moderator's `skip` (system order, never sent
    /// by a player): the awaited player gives up what they owe. In a turn,
    /// its remaining actions are lost; a veto question means `no veto`; a
    /// bid means `pass`.
    fn skip(&mut self, seat: Seat) -> Outcome {
        match &self.phase {
            Phase::Actions if seat == self.turn.active => {
                let mut events = vec![Event::TurnLost { player: seat }];
                self.next_turn(&mut events);
                Ok(events)
            }
            Phase::VetoQuestion { waiting, .. } if waiting.contains(&seat) => {
                self.decline_veto(seat)
            }
            Phase::VetoRound { order, next, .. } if order[*next] == seat => self.pass(seat),
            _ => Err(RuleError::new(
                "deadlines",
                format!(
                    "{} is not awaited, so there is nothing to skip.",
                    self.name(seat)
                ),
            )),
        }
    }

    /// The order a missed deadline stands for (see `Game::default_order`):
    /// in a turn, the first goods token on the board (cities in board order,
    /// goods in the rule book's order), else a station on the first free
    /// hex; `no veto` and `pass` in a veto question and round.
    pub(super) fn default_for(&self, seat: Seat) -> Option<Order> {
        match &self.phase {
            Phase::Actions if seat == self.turn.active => self
                .legal(seat)
                .into_iter()
                .find(|o| matches!(o, Order::Token { .. }))
                .or_else(|| {
                    self.legal(seat)
                        .into_iter()
                        .find(|o| matches!(o, Order::Station { from: None, .. }))
                }),
            Phase::VetoQuestion { waiting, .. } if waiting.contains(&seat) => Some(Order::NoVeto),
            Phase::VetoRound { order, next, .. } if order[*next] == seat => Some(Order::Pass),
            _ => None,
        }
    }

    // ----- When an order sent now could apply -------------------------------

    /// See `Game::lapsed`: `no veto` with no veto question open, `veto` or
    /// `no veto` once a round was called, a bid or pass with no veto round
    /// under way or to come. An answer sent ahead whose moment passed (the
    /// question settled before the mail was read) is not needed: the player
    /// is told so, and nothing waits for it (rulings 7). A `veto` with no
    /// move in question is no such answer: the move it meant to stop stands,
    /// and the refusal says so.
    pub(super) fn lapse_of(&self, order: &Order) -> Option<String> {
        let why = match (order, &self.phase) {
            (Order::NoVeto, Phase::Actions) => "no veto question is under way",
            (Order::Veto | Order::NoVeto, Phase::VetoRound { .. }) => {
                "a veto round was called, and is under way"
            }
            (Order::Bid { .. } | Order::Pass, Phase::Actions) => "no veto round is under way",
            _ => return None,
        };
        Some(format!(
            "Your `{}` was not needed: {why}.",
            super::order::Named(&self.board, order)
        ))
    }

    /// See `Game::timing`. During a veto question or round the active
    /// player's actions wait behind it, and other players' actions are
    /// refused (it is not their turn); a bid or pass from a shareholder
    /// whose place in the round is still to come is kept as a standing
    /// answer, or refused at once if it can never apply. Everything else is
    /// for now: applied, or refused by its rule.
    pub(super) fn timing_of(&self, seat: Seat, order: &Order) -> Timing {
        if seat.index() >= self.players.len() {
            return Timing::Now;
        }
        let (extension, round) = match &self.phase {
            Phase::VetoQuestion { extension, .. } => (extension, None),
            Phase::VetoRound {
                extension,
                order,
                next,
                high,
                ..
            } => (extension, Some((order.as_slice(), *next, *high))),
            // A bid or pass kept from a question that closed without a
            // round, or sent with no round under way, can never apply.
            Phase::Actions | Phase::Finished => {
                return match order {
                    Order::Bid { .. } => self.bidder_check(seat, "bid").err(),
                    Order::Pass => self.bidder_check(seat, "pass").err(),
                    _ => None,
                }
                .map_or(Timing::Now, Timing::Never);
            }
        };
        let veto_on = format!(
            "the veto on {}'s move to {}",
            self.line_name(extension.line),
            extension.chosen
        );
        match order {
            Order::Token { .. } | Order::Station { .. } | Order::Extend { .. } => {
                if seat != self.turn.active {
                    return Timing::Never(RuleError::new(
                        "rules, Playing the game",
                        format!(
                            "It is {}'s turn, not yours; {veto_on} does not change whose turn it is.",
                            self.name(self.turn.active)
                        ),
                    ));
                }
                Timing::Queue(if self.turn.actions_left > 1 {
                    format!("waits until {veto_on} is settled, then applies as your next action")
                } else {
                    format!(
                        "waits until {veto_on} is settled; that move was your last action this turn, so it waits for your next turn"
                    )
                })
            }
            Order::Veto | Order::NoVeto | Order::Skip => Timing::Now,
            Order::Bid { .. } | Order::Pass => self.answer_timing(seat, order, extension, round),
        }
    }

    /// When a bid or pass of `seat` could apply, in a veto question
    /// (`round` None) or round (the bidding order, who bids now, the high
    /// bid).
    fn answer_timing(
        &self,
        seat: Seat,
        order: &Order,
        extension: &Extension,
        round: Option<(&[Seat], usize, Option<Bid>)>,
    ) -> Timing {
        let id = self.line_name(extension.line);
        let high = match round {
            None => {
                // Those asked answer the question first: `bid` now is refused
                // with the reason.
                if let Phase::VetoQuestion { waiting, .. } = &self.phase
                    && waiting.contains(&seat)
                {
                    return Timing::Now;
                }
                None
            }
            Some((bidders, next, high)) => {
                if bidders.get(next) == Some(&seat) {
                    return Timing::Now;
                }
                let place = bidders.iter().position(|s| *s == seat).unwrap_or(0);
                if place < next {
                    return Timing::Never(RuleError::new(
                        "rules, C2",
                        format!(
                            "Your place in the veto round on {id}'s move to {} has passed; bids go once around the table.",
                            extension.chosen
                        ),
                    ));
                }
                high
            }
        };
        let held = self.players[seat.index()].shares[extension.line.index()];
        if held == 0 {
            return Timing::Never(RuleError::new(
                "rulings 7",
                format!(
                    "You hold no real {id} shares, so you have no part in a veto round on {id}'s move to {}: bids are paid in real shares.",
                    extension.chosen
                ),
            ));
        }
        if let Some(b) = high
            && held < self.minimum_bid(seat, high)
        {
            return Timing::Never(RuleError::new(
                "rules, C2",
                format!(
                    "Your {} not enough against {}'s bid of {}, so you will be passed over in this veto round.",
                    if held == 1 {
                        format!("1 real {id} share is")
                    } else {
                        format!("{held} real {id} shares are")
                    },
                    self.name(b.seat),
                    b.shares
                ),
            ));
        }
        if let Order::Bid { shares, hex } = order
            && let Some(problem) = self.bid_problem(seat, *shares, *hex, extension, high)
        {
            return Timing::Never(problem);
        }
        let when = match (round, order) {
            (Some(_), Order::Pass) => "when your place in the veto round comes".to_string(),
            (Some(_), _) => {
                "when your place in the veto round comes, if it is still high enough then"
                    .to_string()
            }
            (None, Order::Pass) => {
                "if a veto round is called on it, when your place comes".to_string()
            }
            (None, _) => {
                "if a veto round is called on it, when your place comes and if it is still high enough then".to_string()
            }
        };
        Timing::Standing(format!(
            "kept as your standing answer on {id}'s move to {}, which nobody else sees: applied {when}",
            extension.chosen
        ))
    }

    // ----- C3) track, passengers, payments, merger ---------------------------

    /// Finishes an extension once any veto is settled: the winning bid, the
    /// passenger token, the track tile, the payments, the merger, and the end
    /// of the action.
    fn resolve_extension(&mut self, ext: Extension, winner: Option<Bid>, events: &mut Vec<Event>) {
        let line = ext.line;
        let active = self.turn.active;
        let mut at = ext.chosen;
        if let Some(bid) = winner {
            self.players[bid.seat.index()].shares[line.index()] -= bid.shares;
            // Back to the board stack, or discarded if the line is isolated
            // (rulings 7).
            let discarded = self.lines[line.index()].status == LineStatus::Isolated;
            if discarded {
                self.retired_shares += bid.shares;
            } else {
                self.lines[line.index()].board_shares += bid.shares;
            }
            events.push(Event::VetoWon {
                player: bid.seat,
                line,
                shares: bid.shares,
                hex: bid.hex,
                discarded,
            });
            if bid.hex != at {
                self.set_locomotive(line, at, bid.hex);
                at = bid.hex;
            }
        }
        let facing = self
            .board
            .dir(ext.from, at)
            .expect("options are neighbours");
        self.lines[line.index()].facing = Some(facing);

        // Passengers (rules, "Passenger tokens"): only the active player, only
        // for another player's station, and after bids only if they won.
        if let Some(owner) = self.cell(at).station {
            let earned = owner != active && winner.is_none_or(|b| b.seat == active);
            if earned && self.passengers_left > 0 {
                self.passengers_left -= 1;
                self.players[active.index()].passengers += 1;
                events.push(Event::PassengerTaken {
                    player: active,
                    hex: at,
                    station_of: owner,
                });
            }
        }

        // The track tile on the vacated hex, unless it was the starting town
        // (rulings 8).
        let from_start = ext.from_facing.is_none();
        if !from_start {
            let i = self.board.index(ext.from);
            let came_in = ext.from_facing.expect("not on start").opposite();
            self.cells[i].track = Some(line);
            self.cells[i].tile = Some(Tile {
                from: came_in,
                to: facing,
            });
            self.tiles_laid += 1;
            events.push(Event::TrackLaid {
                line,
                hex: ext.from,
            });
        }

        self.score_connections(line, at, events);
        self.end_action(events);
    }

    /// Payments after an extension, in the order of rulings 5: cities, then
    /// railway towns, then the merger.
    fn score_connections(&mut self, line: LineId, at: Hex, events: &mut Vec<Event>) {
        let new: Vec<super::PlaceId> = self
            .board
            .places_next_to(at)
            .into_iter()
            .filter(|p| !self.lines[line.index()].connected.contains(p))
            .collect();
        for p in &new {
            self.lines[line.index()].connected.insert(*p);
            events.push(Event::Connected { line, place: *p });
        }
        for p in &new {
            if matches!(self.board.place(*p).kind, PlaceKind::City(_)) {
                let counts: Vec<u32> = self
                    .players
                    .iter()
                    .map(|pl| pl.tokens[p.index()].iter().map(|n| u32::from(*n)).sum())
                    .collect();
                let pay = scoring::majority(&counts, 2000, 1000);
                self.pay(&counts, &pay, PaymentCause::City { city: *p, line }, events);
            }
        }
        for p in &new {
            if self.board.place(*p).kind == PlaceKind::Town {
                let counts: Vec<u32> = (0..self.players.len())
                    .map(|s| u32::from(self.linked_stations(line, Seat(s as u8))))
                    .collect();
                let pay = scoring::per_place(&counts, self.value(line));
                self.pay(&counts, &pay, PaymentCause::Town { town: *p, line }, events);
            }
        }
        if let Some(survivor) = self.lines_next_to(at, line).iter().next() {
            self.merge(line, survivor, at, events);
        }
    }

    /// Pays `pay` (each player's part, from `counts`) for `cause`. Every
    /// placing is told: a player who placed but whose part rounds down to
    /// nothing (rulings 1) is told so, and "nobody" only when nobody placed.
    fn pay(&mut self, counts: &[u32], pay: &[Money], cause: PaymentCause, events: &mut Vec<Event>) {
        let placed = scoring::placed(counts);
        let mut anyone = false;
        for (s, amount) in pay.iter().enumerate() {
            let player = Seat(s as u8);
            if *amount > Money::ZERO {
                self.players[s].money += *amount;
                events.push(Event::Paid {
                    player,
                    amount: *amount,
                    cause: cause.clone(),
                });
                anyone = true;
            } else if placed.get(s).copied().unwrap_or(false) {
                events.push(Event::PaidNothing {
                    player,
                    cause: cause.clone(),
                });
                anyone = true;
            }
        }
        if !anyone {
            events.push(Event::NobodyPaid { cause });
        }
    }

    /// Rulings 6: the moved line dissolves into the one it touches.
    fn merge(&mut self, dissolved: LineId, survivor: LineId, at: Hex, events: &mut Vec<Event>) {
        events.push(Event::Merged {
            dissolved,
            survivor,
            hex: at,
            board_shares: Some(self.lines[dissolved.index()].board_shares),
        });
        let counts: Vec<u32> = self
            .players
            .iter()
            .map(|p| u32::from(p.shares_of(dissolved)))
            .collect();
        let pay = scoring::per_place(&counts, self.value(dissolved));
        self.pay(
            &counts,
            &pay,
            PaymentCause::Merger {
                dissolved,
                survivor,
            },
            events,
        );

        // The locomotive makes way for a tile joining the two lines.
        let i = self.board.index(at);
        let joint = self
            .board
            .neighbours(at)
            .find(|n| {
                let c = self.cell(*n);
                c.locomotive == Some(survivor) || c.track == Some(survivor)
            })
            .and_then(|n| self.board.dir(at, n));
        let came_in = self.lines[dissolved.index()].facing.map(Dir::opposite);
        self.cells[i].locomotive = None;
        self.cells[i].track = Some(survivor);
        if self.tiles_laid < TRACK_TILES
            && let (Some(from), Some(to)) = (came_in, joint)
        {
            self.cells[i].tile = Some(Tile { from, to });
            self.tiles_laid += 1;
            events.push(Event::TrackLaid {
                line: survivor,
                hex: at,
            });
        }
        for c in self.cells.iter_mut().filter(|c| c.track == Some(dissolved)) {
            c.track = Some(survivor);
        }
        let places = std::mem::take(&mut self.lines[dissolved.index()].connected);
        self.lines[survivor.index()]
            .connected
            .extend(places.iter().copied());
        self.lines[dissolved.index()].connected = places;
        let d = &mut self.lines[dissolved.index()];
        d.status = LineStatus::Dissolved { into: survivor };
        d.locomotive = None;
        self.retired_shares += d.board_shares;
        d.board_shares = 0;

        // One survivor share for two returned, from the board stack, then
        // from the supplementary shares; from the active player round.
        for seat in self.seats_from(self.turn.active) {
            let p = &mut self.players[seat.index()];
            let real = p.shares[dissolved.index()];
            let supp = p.supplementary[dissolved.index()];
            if real + supp == 0 {
                continue;
            }
            p.shares[dissolved.index()] = 0;
            p.supplementary[dissolved.index()] = 0;
            self.retired_shares += real;
            self.supplementary_pool += supp;
            let due = (real + supp) / 2;
            let from_board = due.min(self.lines[survivor.index()].board_shares);
            self.lines[survivor.index()].board_shares -= from_board;
            let from_pool = (due - from_board).min(self.supplementary_pool);
            self.supplementary_pool -= from_pool;
            let p = &mut self.players[seat.index()];
            p.shares[survivor.index()] += from_board;
            p.supplementary[survivor.index()] += from_pool;
            events.push(Event::SharesExchanged {
                player: seat,
                returned: real + supp,
                dissolved: Some(dissolved),
                line: survivor,
                received: from_board,
                received_supplementary: from_pool,
            });
        }
    }

    // ----- After every action ------------------------------------------------

    /// Isolation, the end of the game, and the turn's progress. Returns true if
    /// the game ended.
    fn end_action(&mut self, events: &mut Vec<Event>) -> bool {
        // One search's buffers for every line.
        let mut search = Search::default();
        for i in 0..self.lines.len() {
            let line = LineId(i as u8);
            if self.lines[i].status == LineStatus::Active && self.is_isolated(line, &mut search) {
                let l = &mut self.lines[line.index()];
                l.status = LineStatus::Isolated;
                let discarded = l.board_shares;
                self.retired_shares += discarded;
                l.board_shares = 0;
                events.push(Event::Isolated { line, discarded });
            }
        }
        let with_shares = self.lines.iter().filter(|l| l.board_shares > 0).count();
        if with_shares <= 1 {
            self.finish("board shares are left for at most one railway line", events);
            return true;
        }
        if self.tiles_laid >= TRACK_TILES {
            self.finish("all 60 track tiles have been laid", events);
            return true;
        }
        self.turn.actions_left -= 1;
        if self.turn.actions_left == 0 {
            return self.next_turn(events);
        }
        if !self.has_action(self.turn.active) {
            events.push(Event::TurnSkipped {
                player: self.turn.active,
            });
            return self.next_turn(events);
        }
        false
    }

    fn next_turn(&mut self, events: &mut Vec<Event>) -> bool {
        for _ in 0..self.players.len() {
            let next = self.next_seat(self.turn.active);
            self.turn = super::Turn {
                number: self.turn.number + 1,
                active: next,
                actions_left: ACTIONS_PER_TURN,
                extended: Vec::new(),
            };
            if self.has_action(next) {
                events.push(Event::TurnBegan {
                    player: next,
                    number: self.turn.number,
                });
                return false;
            }
            events.push(Event::TurnSkipped { player: next });
        }
        self.finish("no player has a legal action left", events);
        true
    }

    /// Rulings 9: can any sequence of legal moves, over the board as it
    /// stands, bring the locomotive next to a place the line is not connected
    /// to, or next to another line?
    /// `search` holds the search's buffers, so that the checks of every
    /// line after an action allocate them once.
    fn is_isolated(&self, line: LineId, search: &mut Search) -> bool {
        let l = &self.lines[line.index()];
        let Some(start) = l.locomotive else {
            return false;
        };
        // The (hex, direction) states reached, as bits; a stack instead of
        // a queue, since only reachability counts.
        let seen = &mut search.seen;
        seen.clear();
        seen.resize((self.cells.len() * 6).div_ceil(64), 0);
        let stack = &mut search.stack;
        stack.clear();
        stack.push((start, l.facing));
        while let Some((at, facing)) = stack.pop() {
            let ahead;
            let dirs: &[Dir] = match facing {
                None => &Dir::ALL,
                Some(f) => {
                    ahead = f.ahead();
                    &ahead
                }
            };
            for &d in dirs {
                let Some(h) = self.board.step(at, d) else {
                    continue;
                };
                if h == start || self.board.terrain(h) != Terrain::Land {
                    continue;
                }
                let c = self.cell(h);
                if c.track.is_some() || c.locomotive.is_some() {
                    continue;
                }
                // The other lines next to `h` (`lines_next_to`, counted up
                // to two) and whether a place the line is not connected to
                // is, in one look at the neighbours.
                let mut other: Option<LineId> = None;
                let mut two_lines = false;
                let mut new_place = false;
                for n in self.board.neighbours(h) {
                    let nc = self.cell(n);
                    if let Some(x) = nc.locomotive.or(nc.track)
                        && x != line
                    {
                        match other {
                            None => other = Some(x),
                            Some(o) if o != x => {
                                two_lines = true;
                                break;
                            }
                            Some(_) => {}
                        }
                    }
                    if !new_place && let Terrain::Place(p) = self.board.terrain(n) {
                        new_place = !l.connected.contains(&p);
                    }
                }
                if two_lines {
                    continue;
                }
                if other.is_some() || new_place {
                    return false;
                }
                let bit = self.board.index(h) * 6 + d as usize;
                if seen[bit / 64] & (1 << (bit % 64)) == 0 {
                    seen[bit / 64] |= 1 << (bit % 64);
                    stack.push((h, Some(d)));
                }
            }
        }
        true
    }

    // ----- The end -------------------------------------------------------------

    /// End-game scoring in the rules' order, then the placings.
    fn finish(&mut self, reason: &str, events: &mut Vec<Event>) {
        events.push(Event::GameEnded {
            reason: reason.to_string(),
        });
        let during: Vec<Money> = self.players.iter().map(|p| p.money).collect();

        // 1. Tokens: discard goods of cities connected to no line (rulings 11).
        let connected: BTreeSet<super::PlaceId> = self
            .lines
            .iter()
            .flat_map(|l| l.connected.iter().copied())
            .collect();
        for s in 0..self.players.len() {
            let mut count = 0u8;
            for city in self.board.cities().collect::<Vec<_>>() {
                if !connected.contains(&city) {
                    let held = &mut self.players[s].tokens[city.index()];
                    count += held.iter().sum::<u8>();
                    *held = [0; 4];
                }
            }
            if count > 0 {
                self.discarded_tokens += count;
                events.push(Event::TokensDiscarded {
                    player: Seat(s as u8),
                    count,
                });
            }
        }
        // Then passengers and goods, and (2. and 3.) the stations and
        // shares of every line not dissolved.
        for (counts, pay, cause) in self.end_game_payments() {
            self.pay(&counts, &pay, cause, events);
        }

        let scores: Vec<FinalScore> = self
            .players
            .iter()
            .zip(&during)
            .map(|(p, d)| FinalScore {
                during_game: *d,
                end_game: Money::round_down(p.money.pounds() - d.pounds()),
                total: p.money,
            })
            .collect();
        let mut order: Vec<usize> = (0..self.players.len()).collect();
        order.sort_by(|a, b| {
            self.players[*b]
                .money
                .cmp(&self.players[*a].money)
                .then(a.cmp(b))
        });
        let mut placings = Vec::new();
        for (rank, s) in order.iter().enumerate() {
            let money = self.players[*s].money;
            let place = match placings.last() {
                Some(Placing { place, score, .. }) if *score == i64::from(money.pounds()) => *place,
                _ => rank as u8 + 1,
            };
            placings.push(Placing {
                seat: Seat(*s as u8),
                place,
                score: i64::from(money.pounds()),
            });
        }
        events.push(Event::Winner {
            players: placings
                .iter()
                .filter(|p| p.place == 1)
                .map(|p| p.seat)
                .collect(),
        });
        self.result = Some(GameResult {
            reason: reason.to_string(),
            scores,
            placings,
        });
        self.phase = Phase::Finished;
    }

    // ----- Who is awaited, and what is legal ---------------------------------

    pub(super) fn awaited(&self) -> Vec<Awaited> {
        match &self.phase {
            Phase::Actions => {
                let n = self.turn.actions_left;
                vec![Awaited {
                    kind: WaitKind::Turn,
                    seat: self.turn.active,
                    what: if n == 1 {
                        "1 action".to_string()
                    } else {
                        format!("{n} actions")
                    },
                }]
            }
            Phase::VetoQuestion { extension, waiting } => waiting
                .iter()
                .map(|s| Awaited {
                    kind: WaitKind::Question,
                    seat: *s,
                    what: format!(
                        "veto or no veto on {} to {}",
                        self.line_name(extension.line),
                        extension.chosen
                    ),
                })
                .collect(),
            Phase::VetoRound {
                extension,
                order,
                next,
                ..
            } => vec![Awaited {
                kind: WaitKind::Bid,
                seat: order[*next],
                what: format!(
                    "a bid or pass in the veto round on {}",
                    self.line_name(extension.line)
                ),
            }],
            Phase::Finished => Vec::new(),
        }
    }

    /// True if the active player `seat` has any action at all; cheaper than
    /// listing them.
    fn has_action(&self, seat: Seat) -> bool {
        if self.city_tokens.iter().flatten().any(|n| *n > 0)
            || self
                .board
                .line_ids()
                .any(|l| !self.turn.extended.contains(&l) && self.can_move(l))
        {
            return true;
        }
        // A station placed from the supply, or one of the player's own
        // moved: to a free site, or next to nothing but itself.
        let supply = self.players[seat.index()].stations_in_supply > 0;
        let owns = self.cells.iter().any(|c| c.station == Some(seat));
        (supply || owns)
            && self.station_sites().into_iter().any(|site| match site {
                Site::Free => true,
                Site::NextTo(n) => self.cell(n).station == Some(seat),
                Site::Blocked => false,
            })
    }

    pub(super) fn legal(&self, seat: Seat) -> Vec<Order> {
        let mut out = Vec::new();
        match &self.phase {
            Phase::Finished => {}
            Phase::Actions => {
                if seat != self.turn.active {
                    return out;
                }
                // Room for a station on every hex, so the list is not
                // copied as it grows (it holds a few hundred orders).
                out.reserve(self.cells.len());
                for line in self.board.line_ids() {
                    if self.turn.extended.contains(&line) {
                        continue;
                    }
                    for hex in self.moves(line) {
                        out.push(Order::Extend { line, hex });
                    }
                }
                for city in self.board.cities() {
                    for good in super::Good::ALL {
                        if self.city_tokens[city.index()][good.index()] > 0 {
                            out.push(Order::Token { city, good });
                        }
                    }
                }
                let own: Vec<Hex> = (self.cells.iter().enumerate())
                    .filter(|(_, c)| c.station == Some(seat))
                    .map(|(i, _)| self.board.hex_at(i))
                    .collect();
                let supply = self.players[seat.index()].stations_in_supply > 0;
                let sites = self.station_sites();
                // Row by row, as the hexes' indices run, in two plain loops.
                let mut i = 0;
                for row in 0..self.board.rows {
                    for col in 0..self.board.columns {
                        let site = sites[i];
                        i += 1;
                        if site == Site::Blocked {
                            continue;
                        }
                        let hex = Hex::new(col, row);
                        if supply && site == Site::Free {
                            out.push(Order::Station { hex, from: None });
                        }
                        for from in &own {
                            if *from != hex && (site == Site::Free || site == Site::NextTo(*from)) {
                                out.push(Order::Station {
                                    hex,
                                    from: Some(*from),
                                });
                            }
                        }
                    }
                }
            }
            Phase::VetoQuestion { extension, waiting } => {
                let holds = self.players[seat.index()].shares[extension.line.index()] > 0;
                if waiting.contains(&seat) || (holds && seat == self.turn.active) {
                    out.push(Order::Veto);
                }
                if waiting.contains(&seat) {
                    out.push(Order::NoVeto);
                }
            }
            Phase::VetoRound {
                extension,
                order,
                next,
                high,
                ..
            } => {
                if order[*next] != seat {
                    return out;
                }
                let held = self.players[seat.index()].shares[extension.line.index()];
                for shares in self.minimum_bid(seat, *high)..=held {
                    for hex in &extension.options {
                        if self.options.veto_defend_only
                            && seat == self.turn.active
                            && *hex != extension.chosen
                        {
                            continue;
                        }
                        out.push(Order::Bid { shares, hex: *hex });
                    }
                }
                out.push(Order::Pass);
            }
        }
        out
    }

    // ----- Invariants ------------------------------------------------------------

    pub(super) fn invariants(&self) -> Result<(), String> {
        let lines_n = self.lines.len() as u32;
        let real: u32 = self
            .lines
            .iter()
            .map(|l| u32::from(l.board_shares))
            .sum::<u32>()
            + self
                .players
                .iter()
                .flat_map(|p| p.shares.iter())
                .map(|n| u32::from(*n))
                .sum::<u32>()
            + u32::from(self.retired_shares);
        if real != lines_n * u32::from(SHARES_PER_LINE) {
            return Err(format!(
                "real shares: {real} instead of {}",
                lines_n * u32::from(SHARES_PER_LINE)
            ));
        }
        let supp: u32 = self
            .players
            .iter()
            .flat_map(|p| p.supplementary.iter())
            .map(|n| u32::from(*n))
            .sum::<u32>()
            + u32::from(self.supplementary_pool);
        if supp != u32::from(SUPPLEMENTARY_SHARES) {
            return Err(format!(
                "supplementary shares: {supp} instead of {SUPPLEMENTARY_SHARES}"
            ));
        }
        let goods_start: u32 = self
            .board
            .places
            .iter()
            .map(|p| match p.kind {
                PlaceKind::City(g) => g.iter().map(|n| u32::from(*n)).sum(),
                _ => 0,
            })
            .sum();
        let tokens: u32 = self
            .city_tokens
            .iter()
            .flatten()
            .map(|n| u32::from(*n))
            .sum::<u32>()
            + self
                .players
                .iter()
                .flat_map(|p| p.tokens.iter().flatten())
                .map(|n| u32::from(*n))
                .sum::<u32>()
            + self
                .players
                .iter()
                .map(|p| u32::from(p.passengers))
                .sum::<u32>()
            + u32::from(self.passengers_left)
            + u32::from(self.discarded_tokens);
        if tokens != goods_start + u32::from(PASSENGER_TOKENS) {
            return Err(format!(
                "tokens: {tokens} instead of {}",
                goods_start + u32::from(PASSENGER_TOKENS)
            ));
        }
        let tiles = self.cells.iter().filter(|c| c.tile.is_some()).count();
        if tiles != usize::from(self.tiles_laid) || self.tiles_laid > TRACK_TILES {
            return Err(format!(
                "tiles: {tiles} on the board, {} counted",
                self.tiles_laid
            ));
        }
        for (s, p) in self.players.iter().enumerate() {
            let on_board = self
                .cells
                .iter()
                .filter(|c| c.station == Some(Seat(s as u8)))
                .count();
            if on_board + usize::from(p.stations_in_supply) != usize::from(STATIONS_PER_PLAYER) {
                return Err(format!(
                    "{}: {on_board} stations on the board and {} in supply",
                    p.name, p.stations_in_supply
                ));
            }
            if p.money.pounds() % 1000 != 0 {
                return Err(format!("{}: money not in whole notes", p.name));
            }
        }
        for line in self.board.line_ids() {
            let l = &self.lines[line.index()];
            match (l.status, l.locomotive) {
                (LineStatus::Dissolved { .. }, None) => {}
                (LineStatus::Dissolved { .. }, Some(_)) => {
                    return Err(format!(
                        "{} dissolved but has a locomotive",
                        self.line_name(line)
                    ));
                }
                (_, Some(h)) if self.cell(h).locomotive == Some(line) => {}
                _ => return Err(format!("{}'s locomotive is lost", self.line_name(line))),
            }
            if l.status == LineStatus::Isolated && l.board_shares > 0 {
                return Err(format!(
                    "{} is isolated but has board shares",
                    self.line_name(line)
                ));
            }
        }
        Ok(())
    }
}

/// Hexes as `C14, D14 or E15`.
pub(super) fn join_hexes(hexes: &[impl ToString]) -> String {
    let names: Vec<String> = hexes.iter().map(|h| h.to_string()).collect();
    match names.as_slice() {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} or {last}", init.join(", ")),
    }
}

/// The buffers of an isolation search ([`Rocket::is_isolated`]).
#[derive(Default)]
struct Search {
    /// The (hex, direction) states reached, as bits.
    seen: Vec<u64>,
    /// The states still to look on from.
    stack: Vec<(Hex, Option<Dir>)>,
}

/// Where a station could go, for listing legal orders (see
/// `Rocket::station_sites`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Site {
    /// Not land, or track, a locomotive or a station on it, or a locomotive
    /// or two stations next to it.
    Blocked,
    /// Free land with nothing next to it.
    Free,
    /// Free land next to exactly one station (on this hex), and no locomotive.
    NextTo(Hex),
}

/// Why a locomotive may not move to a hex (see `Rocket::move_block`).
#[derive(Clone, Copy, Debug)]
enum MoveBlock {
    Gone,
    NotNext { at: Hex },
    NotAhead { at: Hex, facing: Dir },
    Place(super::PlaceId),
    Unplayable,
    Track,
    Locomotive(LineId),
    TwoLines(LineSet),
}

/// A set of distinct lines, smallest first, kept on the stack: the lines
/// next to one hex (at most six, one per neighbour).
#[derive(Clone, Copy, Debug)]
struct LineSet {
    ids: [LineId; 6],
    len: usize,
}

impl Default for LineSet {
    fn default() -> Self {
        LineSet {
            ids: [LineId(0); 6],
            len: 0,
        }
    }
}

impl LineSet {
    fn insert(&mut self, line: LineId) {
        let held = &self.ids[..self.len];
        if let Err(at) = held.binary_search(&line) {
            self.ids.copy_within(at..self.len, at + 1);
            self.ids[at] = line;
            self.len += 1;
        }
    }

    fn len(&self) -> usize {
        self.len
    }

    fn iter(&self) -> impl Iterator<Item = LineId> + '_ {
        self.ids[..self.len].iter().copied()
    }
}
