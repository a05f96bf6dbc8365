//! A forming game's seats: `new` makes the game and seats its creator,
//! `join` and `leave` fill and empty the others, `start` deals and begins,
//! `watchable` is the creator's choice until then.

use super::command::read_new;
use super::status::{seat_notice, status_text};
use super::{Refusal, Session};
use crate::engine::{PlayerSetup, Setup};
use crate::service::{
    Chosen, Ctx, Formed, ServiceError, message_id, names, new_game_change, new_seed, new_token,
};
use crate::store::{Forming, FormingSeat, GameId, StoreError};

/// A name for `address` in a game: its local part, in the letters a name
/// may have.
fn name_from(address: &str) -> String {
    let local = address.split('@').next().unwrap_or_default();
    let local = local.split('+').next().unwrap_or_default();
    let name: String = local
        .chars()
        .filter(|c| c.is_alphanumeric() || matches!(c, '-' | '_' | '.'))
        .take(20)
        .collect();
    if name.is_empty() {
        "player".to_string()
    } else {
        name
    }
}

/// Names for `count` bot seats in `f`: `Bot1`, `Bot2` …, passing over
/// any that looks like a seated player's name.
fn bot_names(f: &Forming, count: u8) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for k in 1.. {
        if out.len() >= usize::from(count) {
            break;
        }
        let name = format!("Bot{k}");
        let taken = f
            .seats
            .iter()
            .map(|s| s.name.as_str())
            .chain(out.iter().map(String::as_str));
        if names::refusal(&name, taken, std::iter::empty(), None).is_none() {
            out.push(name);
        }
    }
    out
}

/// A one-word name check, as `new` on the command line makes it.
fn check_name(name: &str) -> Result<(), String> {
    if name.is_empty()
        || name.chars().count() > 20
        || !name
            .chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '-' | '_' | '.'))
    {
        return Err(format!(
            "the name `{name}` must be one word of at most 20 letters, digits, '-', '_' or '.'"
        ));
    }
    Ok(())
}

/// Why game `id` cannot be joined: started, or not here.
fn not_forming(ctx: &Ctx<'_>, id: &GameId) -> Result<String, ServiceError> {
    match ctx.store.record(id) {
        Ok(_) => Ok(format!(
            "{id} has started already; a game takes no new players once it runs"
        )),
        Err(StoreError::NoSuchGame(_)) => Ok(format!("there is no game {id} forming here")),
        Err(e) => Err(e.into()),
    }
}

impl Session<'_, '_> {
    /// A notice to every seat of the forming game but the sender's, in
    /// their threads; `to_creator` is added to the creator's.
    pub(super) fn tell_others(
        &mut self,
        f: &Forming,
        text: &str,
        to_creator: &str,
    ) -> Result<(), ServiceError> {
        for (i, s) in f.seats.iter().enumerate() {
            if s.address.eq_ignore_ascii_case(&self.from) {
                continue;
            }
            let text = if self.closed.is_some() {
                text.to_string()
            } else {
                let extra = if i == 0 { to_creator } else { "" };
                format!("{text}{extra}\n\n{}", status_text(f, i == 0, self.now))
            };
            let mail = seat_notice(self.ctx, f, i, &text, self.now)?;
            self.mails.push(mail);
        }
        Ok(())
    }

    /// The forming game a seat command is for, with the sender's seat.
    pub(super) fn own_seat(&self, what: &str) -> Result<(Forming, usize), Refusal> {
        let Some(f) = &self.forming else {
            return Err(Refusal::Player(match &self.inc.game {
                Some(g) => format!(
                    "there is no game {g} forming here (it may have started, expired or been cancelled)"
                ),
                None => format!(
                    "`{what}` goes in a forming game's thread: reply to the mail with its tag"
                ),
            }));
        };
        match self.seat {
            Some(s) => Ok((f.clone(), s)),
            None if f.seat_of(&self.from).is_some() => Err(Refusal::Player(
                "this mail did not carry your key: reply to a mail you got about the game"
                    .to_string(),
            )),
            None => Err(Refusal::Player(format!("you have no seat in {}", f.id))),
        }
    }

    /// `new GAME …`: a forming game, its creator in the first seat.
    pub(super) fn new_game(&mut self, kind: &str, words: &[String]) -> Result<String, Refusal> {
        let ctx = self.ctx;
        if self.forming.is_some() {
            return Err(Refusal::Player(
                "make a new game in a mail of its own, to the server's address without a game tag"
                    .to_string(),
            ));
        }
        let site = &ctx.config.site;
        if !site.may_create(&self.from) {
            return Err(Refusal::Player(match site.create {
                crate::config::CreatePolicy::Operator => {
                    "on this server only its operator makes games".to_string()
                }
                _ => format!("{} may not make games on this server", self.from),
            }));
        }
        let entry = crate::registry::find(kind).map_err(|e| Refusal::Player(e.to_string()))?;
        let made = read_new(entry, &ctx.config.deadlines, words).map_err(Refusal::Player)?;
        let name = made.name.unwrap_or_else(|| name_from(&self.from));
        check_name(&name).map_err(Refusal::Player)?;
        if let Some(why) = names::refusal(
            &name,
            [],
            site.moderators.iter().map(String::as_str),
            Some(&self.from),
        ) {
            return Err(Refusal::Player(format!(
                "{why}: write `as NAME` after `new {kind}`"
            )));
        }
        // Counted over every address of the player who writes.
        let aliases = ctx.store.aliases(&self.from)?;
        let held = ctx
            .store
            .all_forming()?
            .iter()
            .filter(|f| aliases.iter().any(|a| f.creator().eq_ignore_ascii_case(a)))
            .count();
        if held >= site.forming_per_address as usize {
            return Err(Refusal::Player(format!(
                "you have {held} game(s) forming already, as many as this server lets one address have; start or leave one first"
            )));
        }
        let id = ctx.store.next_id(entry.name)?;
        let root = message_id(ctx, &id.0, "forming")?;
        let f = Forming {
            id: id.clone(),
            kind: entry.name.to_string(),
            options: made.options,
            clock: made.clock,
            open: made.open,
            seats: vec![FormingSeat {
                name,
                address: self.from.clone(),
                key: new_token()?,
                root: root.clone(),
            }],
            invited: Vec::new(),
            created: self.now,
            expires: self.now + site.forming_expires.duration(),
            seed: new_seed()?,
            reports: made.reports,
            watchable: made.watchable,
            bots: made.bots,
        };
        self.forming = Some(f);
        self.seat = Some(0);
        self.new_root = Some(root);
        let bots = match made.bots {
            0 => String::new(),
            1 => " The bot takes one seat at the start.".to_string(),
            n => format!(" The bot takes {n} seats at the start."),
        };
        Ok(format!(
            "You made {id}. You are its first player and its moderator.{bots} Invite players by replying to this mail with `invite ADDRESS`, one a line; `start` when enough sit."
        ))
    }

    /// `join [GAME] [as NAME]`: a seat in the forming game, by invitation
    /// or in an open game.
    pub(super) fn join(
        &mut self,
        game: Option<&str>,
        name: Option<&str>,
    ) -> Result<String, Refusal> {
        let ctx = self.ctx;
        let mut f = self.join_target(game)?;
        self.may_join(&f)?;
        let name = self.join_name(&f, name)?;
        let root = message_id(ctx, &f.id.0, "forming")?;
        f.seats.push(FormingSeat {
            name: name.clone(),
            address: self.from.clone(),
            key: new_token()?,
            root: root.clone(),
        });
        f.invited.retain(|a| !a.eq_ignore_ascii_case(&self.from));
        let note = format!("{name} ({}) joined {}.", self.from, f.id);
        // The creator is told when the game may start.
        let start = match crate::registry::find(&f.kind) {
            Ok(e) if e.players.end() == &f.taken() => {
                "\n\nEvery seat is taken: reply with `start` to deal and begin."
            }
            Ok(e) if e.players.contains(&f.taken()) => {
                "\n\nEnough players sit now: reply with `start` to deal and begin, or wait for more."
            }
            _ => "",
        };
        self.tell_others(&f, &note, start)?;
        self.seat = Some(f.seats.len() - 1);
        self.new_root = Some(root);
        let id = f.id.clone();
        self.existed = true;
        self.forming = Some(f);
        Ok(format!(
            "You joined {id} as {name}. Its creator starts it; your welcome with the map comes then. Keep this mail: your replies to it carry your key."
        ))
    }

    /// The forming game `join` names, or the one the mail is about.
    fn join_target(&self, game: Option<&str>) -> Result<Forming, Refusal> {
        let ctx = self.ctx;
        Ok(match (game, &self.forming) {
            (Some(g), Some(f)) if g.eq_ignore_ascii_case(&f.id.0) => f.clone(),
            (Some(g), _) => {
                let id = GameId(g.to_ascii_lowercase());
                if self.forming.is_some() {
                    return Err(Refusal::Player(format!(
                        "this mail is about {}; send `join {g}` in a mail of its own",
                        self.forming.as_ref().map_or("", |f| f.id.0.as_str())
                    )));
                }
                match ctx.store.forming(&id)? {
                    Some(f) => f,
                    None => return Err(Refusal::Player(not_forming(ctx, &id)?)),
                }
            }
            (None, Some(f)) => f.clone(),
            (None, None) => {
                return Err(Refusal::Player(match &self.inc.game {
                    Some(g) => not_forming(ctx, &GameId(g.clone()))?,
                    None => "say which game: `join GAME`".to_string(),
                }));
            }
        })
    }

    /// Whether the sender may take a seat in `f`: none there yet from any
    /// of their addresses, invited or the game open, and a seat free.
    fn may_join(&self, f: &Forming) -> Result<(), Refusal> {
        // One seat a player, from whichever of their addresses.
        if let Some(a) = self
            .ctx
            .store
            .aliases(&self.from)?
            .iter()
            .find(|a| f.seat_of(a).is_some())
        {
            return Err(Refusal::Player(if a == &self.from {
                format!("you have a seat in {} already", f.id)
            } else {
                format!("you have a seat in {} already, as {a}", f.id)
            }));
        }
        let invited = f.invited.iter().any(|a| a.eq_ignore_ascii_case(&self.from));
        if !f.open && !invited {
            return Err(Refusal::Player(format!(
                "{} is by invitation only, and {} is not invited; ask its players for an invitation",
                f.id, self.from
            )));
        }
        if let Ok(entry) = crate::registry::find(&f.kind)
            && f.taken() >= *entry.players.end()
        {
            return Err(Refusal::Player(format!(
                "{} is full: {} players sit, as many as {} takes",
                f.id,
                f.taken(),
                entry.title
            )));
        }
        Ok(())
    }

    /// The sender's name in `f`: the one asked for, checked, or one made
    /// from their address that looks like nobody's there.
    fn join_name(&self, f: &Forming, name: Option<&str>) -> Result<String, Refusal> {
        let ctx = self.ctx;
        let taken = |n: &str| f.seats.iter().any(|s| s.name.eq_ignore_ascii_case(n));
        // A name that looks like a seated player's or a moderator's
        // (docs/operators.md, "Security", "Names").
        // (The moderators `start` checks against: the creator and the
        // site's, so a name taken now cannot stop the start.)
        let looks = |n: &str| {
            names::refusal(
                n,
                f.seats.iter().map(|s| s.name.as_str()),
                std::iter::once(f.creator())
                    .chain(ctx.config.site.moderators.iter().map(String::as_str)),
                Some(&self.from),
            )
        };
        Ok(match name {
            Some(n) => {
                check_name(n).map_err(Refusal::Player)?;
                if let Some(why) = looks(n).filter(|_| !taken(n)) {
                    return Err(Refusal::Player(format!(
                        "{why}; choose another name with `join {} as NAME`",
                        f.id
                    )));
                }
                if taken(n) {
                    return Err(Refusal::Player(format!(
                        "someone in {} is called {n} already; choose another name with `join {} as NAME`",
                        f.id, f.id
                    )));
                }
                n.to_string()
            }
            None => {
                let base = name_from(&self.from);
                let mut n = base.clone();
                let mut k = 2;
                while looks(&n).is_some() {
                    n = format!("{base}{k}");
                    k += 1;
                }
                n
            }
        })
    }

    /// `leave`: the sender's seat given up; the creator's cancels the game.
    pub(super) fn leave(&mut self) -> Result<String, Refusal> {
        let (mut f, seat) = self.own_seat("leave")?;
        if seat == 0 {
            let note = format!(
                "{} cancelled {}: it will not start. Nothing more will come of it.",
                f.seats[0].name, f.id
            );
            self.closed = Some(f.id.clone());
            self.tell_others(&f, &note, "")?;
            return Ok(format!("You cancelled {}; the others are told.", f.id));
        }
        // Their answer is the last mail in their thread.
        self.left = Some((f.clone(), seat));
        let gone = f.seats.remove(seat);
        let note = format!("{} left {}.", gone.name, f.id);
        self.tell_others(&f, &note, "")?;
        let id = f.id.clone();
        self.seat = None;
        self.forming = Some(f);
        Ok(format!("You left {id}; the others are told."))
    }

    /// `start`, by the creator: the game made from its seats, dealt and
    /// begun.
    pub(super) fn start(&mut self) -> Result<String, Refusal> {
        let ctx = self.ctx;
        let (f, seat) = self.own_seat("start")?;
        if seat != 0 {
            return Err(Refusal::Player(format!(
                "only the creator of {} starts it",
                f.id
            )));
        }
        let entry = crate::registry::find(&f.kind).map_err(|e| Refusal::Player(e.to_string()))?;
        if !entry.players.contains(&f.taken()) {
            return Err(Refusal::Player(format!(
                "{} needs {}; {} sit",
                f.id,
                entry.players_text(),
                f.taken()
            )));
        }
        let mut players: Vec<PlayerSetup> = f
            .seats
            .iter()
            .map(|s| PlayerSetup {
                name: s.name.clone(),
                email: s.address.clone(),
            })
            .collect();
        let mut keys: Vec<String> = f.seats.iter().map(|s| s.key.clone()).collect();
        let mut roots: Vec<String> = f.seats.iter().map(|s| s.root.clone()).collect();
        // The bot's seats after the people's, each a name nobody's looks
        // like; a key nobody is sent, no thread.
        for name in bot_names(&f, f.bots) {
            players.push(PlayerSetup {
                name,
                email: crate::service::bots::BOT_ADDRESS.to_string(),
            });
            keys.push(new_token()?);
            roots.push(String::new());
        }
        let setup = Setup {
            kind: f.kind.clone(),
            players,
            options: f.options.clone(),
            seed: f.seed,
        };
        let formed = Formed {
            id: f.id.clone(),
            keys,
            roots,
        };
        let (_, change) = match new_game_change(
            ctx,
            &setup,
            f.clock.clone(),
            vec![f.creator().to_string()],
            Some(&formed),
            Chosen {
                reports: f.reports,
                watchable: f.watchable,
            },
            self.now,
        ) {
            Ok(made) => made,
            Err(ServiceError::Setup(e)) => return Err(Refusal::Player(e.to_string())),
            // The seats as they stand cannot play (README, "Security"): said
            // to the creator, never a server failure.
            Err(ServiceError::Invalid(why)) => return Err(Refusal::Player(why)),
            Err(ServiceError::Store(StoreError::Setup(e))) => {
                return Err(Refusal::Player(e.to_string()));
            }
            Err(e) => return Err(e.into()),
        };
        self.started = Some(change);
        self.closed = Some(f.id.clone());
        Ok(format!(
            "{} has started. Everyone gets their welcome with the map and their first report in this thread; as its moderator you get a mail with your moderator key too.",
            f.id
        ))
    }

    /// `watchable on|off` before the start: the creator's choice at `new`,
    /// changed (once it runs, the moderator command of the same words).
    pub(super) fn watchable(&mut self, on: bool) -> Result<String, Refusal> {
        let (mut f, seat) = self.own_seat("watchable")?;
        if seat != 0 {
            return Err(Refusal::Player(format!(
                "only the creator of {} decides whether it may be watched",
                f.id
            )));
        }
        f.watchable = on;
        let id = f.id.clone();
        self.forming = Some(f);
        Ok(if on {
            format!("{id} is watchable: once it runs, anyone may follow it with `watch {id}`.")
        } else {
            format!("{id} is not watchable: nobody may watch it.")
        })
    }
}
