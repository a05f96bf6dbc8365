//! The server players run themselves: games made, joined and started by
//! mail. A mail to the server's own address with no game tag may hold
//! `new GAME …`, `join GAME`, `no more invitations` or `help`; in a
//! forming game's thread (its tag) its players also `invite`, `leave`,
//! `start` and `watchable on|off`. The operator's `[site]` keys decide
//! who may make games and how many forming games one address may hold; a
//! forming game nobody starts expires (see [`expire`]).
//!
//! Nothing a stranger can send makes the server mail a third party more
//! than once unasked, since anyone can write any From. An address that
//! has not proved itself (never answered one of our mails with its key or
//! a code we sent it, never confirmed anything, plays in no game: see
//! [`crate::store::Contact`]) gets one mail from the server, ever, until
//! it does: an invitation, an address confirmation, or the answer to the
//! first mail that bore its address, whatever that mail asked (`help`,
//! `games`, `new`, `join`, `watch`, words that are no command). That mail
//! carries a code in its subject tag, `[code CODE]`, and says "reply to
//! this mail to go on": a reply with the code proves the address, and the
//! `new`, `join` and `watch` of its first mail, held until then, are done
//! ([`standing`]). Later mail from an address not proved is kept (a
//! receipt, a log line) and not answered. An invitation says how to refuse
//! more (`no more invitations`). Where the operator's own mail server
//! vouches for the From (`[inbound] trust_authentication_results`, and
//! its `dmarc=pass`), the sender is the party itself and is answered at
//! most once per `[daemon] help_interval_hours`, shared with the help
//! reply, as a proved address is helped.

use chrono::{DateTime, Utc};

use super::report::{self, Thread};
use super::{Ctx, ServiceError};
use crate::engine::chatter::{Reading, Vocabulary};
use crate::engine::{GameEntry, PlayerSetup, Setup, Viewer};
use crate::mail::OutMail;
use crate::mail::compose::Draft;
use crate::mail::ingest::Incoming;
use crate::store::{Change, Contact, Forming, FormingSeat, GameId, Pending, Receipt};

/// `bump` sends an address's reports again at most once in this many hours.
pub const BUMP_HOURS: i64 = 1;

/// The most addresses one forming game may invite.
pub const MAX_INVITED: usize = 20;

/// The site commands, as help and docs/players.md write them, with what
/// each does.
pub const FORMS: &[(&str, &str)] = &[
    (
        "new GAME [OPTION …] [SETTING VALUE …] [reports MODE] [open] [watchable] [as NAME]",
        "make a game; you are its first player and its moderator",
    ),
    (
        "invite ADDRESS",
        "(the creator, in the game's thread) one invitation to ADDRESS",
    ),
    (
        "join GAME [as NAME]",
        "take a seat in a forming game you were invited to, or an open one",
    ),
    (
        "leave",
        "give up your seat before the start (the creator's `leave` cancels the game)",
    ),
    (
        "start",
        "(the creator) deal and begin, once enough players sit",
    ),
    (
        "no more invitations",
        "this server sends you no more invitations",
    ),
    (
        "watchable on",
        "(the creator, in a forming game's thread; once it runs, its moderators) anyone may watch the game",
    ),
    ("watchable off", "(the same) nobody may watch it"),
    (
        "watch GAME",
        "get the spectator's report of GAME (made `watchable`) after each change, and its archive at the end",
    ),
    ("unwatch GAME", "no more mail about GAME"),
    (
        "confirm CODE",
        "(in reply to a mail with a code) from the address a player added with `address add`: yes, that player may play from here; to the one mail this server sends an address it does not know yet: yes, it is me",
    ),
    ("help", "this list"),
];

/// A site command.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SiteCommand {
    /// `new GAME …`: the words after the game's name.
    New {
        /// The game's name.
        kind: String,
        /// Options, settings, `open`, `as NAME`.
        words: Vec<String>,
    },
    /// `join [GAME] [as NAME]`.
    Join {
        /// The game, if named (else the mail's tag).
        game: Option<String>,
        /// The name asked for.
        name: Option<String>,
    },
    /// `invite ADDRESS`.
    Invite(String),
    /// `leave`.
    Leave,
    /// `start`.
    Start,
    /// `no more invitations`.
    NoMoreInvitations,
    /// `watchable on|off`, by a forming game's creator.
    Watchable(bool),
    /// `games`: the sender's games.
    Games,
    /// `bump`: the sender's reports of the games waiting for them.
    Bump,
    /// `watch GAME [CODE]`.
    Watch {
        /// The game.
        game: String,
        /// The confirmation code mailed to the sender.
        code: Option<String>,
    },
    /// `unwatch [GAME]`.
    Unwatch(Option<String>),
    /// `confirm CODE`: an address added by a player says yes.
    Confirm(String),
    /// `help`.
    Help,
}

/// The words site commands begin with, to tell them from chatter.
pub fn vocabulary() -> Vocabulary {
    Vocabulary::new().commands(FORMS.iter().map(|(f, _)| *f))
}

/// Reads one line as a site command; `None` if it begins with none.
pub fn parse(line: &str) -> Option<Result<SiteCommand, String>> {
    let words: Vec<&str> = line.split_whitespace().collect();
    let first = words.first()?.to_ascii_lowercase();
    let rest: Vec<String> = words[1..].iter().map(|w| w.to_string()).collect();
    let alone = |c: SiteCommand, what: &str| {
        if rest.is_empty() {
            Ok(c)
        } else {
            Err(format!("`{what}` takes nothing after it"))
        }
    };
    Some(match first.as_str() {
        "new" => match rest.split_first() {
            Some((kind, words)) => Ok(SiteCommand::New {
                kind: kind.to_ascii_lowercase(),
                words: words.to_vec(),
            }),
            None => Err(format!(
                "say which game: `new GAME`, GAME one of {}",
                crate::registry::names()
            )),
        },
        "join" => {
            let (game, after) = match rest.first() {
                Some(w) if !w.eq_ignore_ascii_case("as") => {
                    (Some(w.to_ascii_lowercase()), &rest[1..])
                }
                _ => (None, &rest[..]),
            };
            match after {
                [] => Ok(SiteCommand::Join { game, name: None }),
                [as_, name] if as_.eq_ignore_ascii_case("as") => Ok(SiteCommand::Join {
                    game,
                    name: Some(name.clone()),
                }),
                _ => Err("write `join GAME` or `join GAME as NAME`".to_string()),
            }
        }
        "invite" => match rest.as_slice() {
            [address] => Ok(SiteCommand::Invite(
                address
                    .trim_matches(|c| c == '<' || c == '>')
                    .to_ascii_lowercase(),
            )),
            _ => Err("write one address a line: `invite ADDRESS`".to_string()),
        },
        "watch" => match rest.as_slice() {
            [game] => Ok(SiteCommand::Watch {
                game: game.to_ascii_lowercase(),
                code: None,
            }),
            [game, code] => Ok(SiteCommand::Watch {
                game: game.to_ascii_lowercase(),
                code: Some(code.to_ascii_lowercase()),
            }),
            _ => Err("write `watch GAME`".to_string()),
        },
        "unwatch" => match rest.as_slice() {
            [] => Ok(SiteCommand::Unwatch(None)),
            [game] => Ok(SiteCommand::Unwatch(Some(game.to_ascii_lowercase()))),
            _ => Err("write `unwatch GAME`".to_string()),
        },
        "confirm" => match rest.as_slice() {
            [code] => Ok(SiteCommand::Confirm(code.to_ascii_lowercase())),
            _ => Err("write `confirm CODE`, with the code of the mail you got".to_string()),
        },
        "leave" => alone(SiteCommand::Leave, "leave"),
        "start" => alone(SiteCommand::Start, "start"),
        "help" => alone(SiteCommand::Help, "help"),
        "games" => alone(SiteCommand::Games, "games"),
        "watchable" => match rest.as_slice() {
            [w] if w.eq_ignore_ascii_case("on") => Ok(SiteCommand::Watchable(true)),
            [w] if w.eq_ignore_ascii_case("off") => Ok(SiteCommand::Watchable(false)),
            _ => Err("write `watchable on` or `watchable off`".to_string()),
        },
        "bump" => alone(SiteCommand::Bump, "bump"),
        "no" if rest.len() == 2
            && rest[0].eq_ignore_ascii_case("more")
            && rest[1]
                .trim_end_matches(['.', '!'])
                .eq_ignore_ascii_case("invitations") =>
        {
            Ok(SiteCommand::NoMoreInvitations)
        }
        _ => return None,
    })
}

/// True if some line of `body` is a site command other than `help` (a
/// mail with none gets the short help reply instead).
pub fn has_command(body: &[String]) -> bool {
    body.iter().any(|l| {
        matches!(parse(l.trim()), Some(Ok(c)) if c != SiteCommand::Help)
            || matches!(parse(l.trim()), Some(Err(_)))
    })
}

/// What handling a site mail came to.
pub struct Outcome {
    /// What to commit.
    pub change: Change,
    /// A few words for the log.
    pub summary: String,
    /// True if a game was created.
    pub started: bool,
}

/// One mail's worth of site commands in progress.
struct Session<'a, 'c> {
    ctx: &'a Ctx<'c>,
    inc: &'a Incoming,
    from: String,
    now: DateTime<Utc>,
    /// The forming game the mail concerns, as the commands leave it.
    forming: Option<Forming>,
    /// It was there before this mail (else: made by it).
    existed: bool,
    /// The sender's seat, when the mail carried its key (or made it).
    seat: Option<usize>,
    /// The thread root made by this mail for the sender (new, join): the
    /// reply is that mail.
    new_root: Option<String>,
    /// The forming game ends with this mail (started, cancelled).
    closed: Option<GameId>,
    /// The reply's lines.
    out: Vec<String>,
    /// Mails besides the reply.
    mails: Vec<OutMail>,
    /// Contact records to write.
    contacts: Vec<(String, Contact)>,
    /// A game started: its creating change.
    started: Option<Change>,
    /// The sender left the forming game in this mail: the game as they
    /// saw it, and their seat there, for the thread of the answer.
    left: Option<(Forming, usize)>,
    /// `bump` sent reports: its rate limit's key.
    bumped: Option<String>,
    /// A running game's bookkeeping changed (`watch`, `unwatch`,
    /// `confirm`).
    update: Option<crate::store::GameUpdate>,
    /// The address index of that game: an address confirmed (`confirm`).
    index: Vec<(String, bool)>,
    /// The lines to read: the mail's, or those its first mail held.
    body: Vec<String>,
    /// This answer is the one mail to an address not proved: the
    /// commands it holds.
    first: Option<Vec<String>>,
    /// The code of that mail, for its subject.
    code: Option<String>,
    /// The sender proves itself with this mail, which carries this code.
    proved: Option<String>,
    /// The counters of the hour this mail raises (invitations to
    /// addresses that never asked: see [`super::unasked`]).
    tally: Vec<(String, DateTime<Utc>)>,
}

/// A mail to the server's own address without a game tag: its site
/// commands, or `None` if it has none (it gets the help reply).
pub fn untagged(
    ctx: &Ctx<'_>,
    inc: &Incoming,
    mid: &str,
    from: &str,
    now: DateTime<Utc>,
) -> Result<Option<Outcome>, ServiceError> {
    if !has_command(&inc.body) {
        // A reply that proves the sender with its code, and nothing else:
        // the commands its first mail held, or a word of thanks.
        let contact = ctx.store.contact(from)?;
        if !matches!(
            standing(ctx, inc, from, &contact, now)?,
            Standing::Proved { .. }
        ) {
            return Ok(None);
        }
    }
    let mut session = Session::new(ctx, inc, from, None, now);
    session.run(mid).map(Some)
}

/// A mail in the thread of forming game `forming` (its tag), from anyone.
pub fn forming_mail(
    ctx: &Ctx<'_>,
    inc: &Incoming,
    mid: &str,
    from: &str,
    forming: Forming,
    now: DateTime<Utc>,
) -> Result<Outcome, ServiceError> {
    let mut session = Session::new(ctx, inc, from, Some(forming), now);
    session.run(mid)
}

/// A receipt for `mid`: handled, `outcome`.
fn receipt(
    mid: &str,
    game: Option<&GameId>,
    outcome: &str,
    now: DateTime<Utc>,
) -> (String, Receipt) {
    (
        mid.to_string(),
        Receipt {
            at: now,
            game: game.map(|g| g.0.clone()),
            outcome: outcome.to_string(),
        },
    )
}

/// How far the server may answer a mail from an address without a key,
/// by what it knows of the address (see the module doc).
#[derive(Debug)]
pub enum Standing {
    /// It has asked for mail from us: it proved itself before, or plays
    /// here.
    Asked,
    /// It proves itself with this mail, which carries the code of the one
    /// mail we sent it: `contact` as it is to be written, `held` the
    /// commands of its first mail, kept until now.
    Proved {
        /// Its record, proved, the code spent.
        contact: Contact,
        /// The `new`, `join` or `watch` lines held.
        held: Vec<String>,
        /// The code it carried back.
        code: String,
    },
    /// The operator's mail server vouches for its From: answered at most
    /// once per `[daemon] help_interval_hours`.
    Vouched,
    /// Not proved and not yet mailed: this answer is its one mail, with a
    /// code (see [`first_mail`]).
    First,
    /// Not proved, and its one mail spent: not answered, for this reason.
    Silent(String),
}

/// The standing of `from`, whose record is `contact`, as mail `inc` shows
/// it (see [`Standing`]).
pub fn standing(
    ctx: &Ctx<'_>,
    inc: &Incoming,
    from: &str,
    contact: &Contact,
    now: DateTime<Utc>,
) -> Result<Standing, ServiceError> {
    if super::unasked::has_asked(ctx, from, contact)? {
        return Ok(Standing::Asked);
    }
    // The code in the subject tag `[code CODE]`, in an invitation's tag
    // `[GAME CODE]`, or written `confirm CODE`.
    let confirmed = inc.body.iter().filter_map(|l| match parse(l.trim()) {
        Some(Ok(SiteCommand::Confirm(code))) => Some(code),
        _ => None,
    });
    let codes: Vec<String> = inc
        .code
        .iter()
        .chain(inc.token.iter())
        .cloned()
        .chain(confirmed)
        .collect();
    if let Some(p) = contact
        .pending
        .iter()
        .find(|p| p.what == Pending::REPLY && codes.contains(&p.code))
    {
        let (held, code) = (p.lines.clone(), p.code.clone());
        let mut contact = contact.clone();
        contact.proved = Some(now);
        contact.pending.retain(|q| q.what != Pending::REPLY);
        return Ok(Standing::Proved {
            contact,
            held,
            code,
        });
    }
    if vouched(ctx, inc) {
        return Ok(Standing::Vouched);
    }
    if contact.unasked.is_some() && contact.answerable {
        return Ok(Standing::Silent(format!(
            "{from} has had its one mail from this server and has not answered it with its code"
        )));
    }
    Ok(Standing::First)
}

/// True if the operator's own mail server (`[inbound]
/// trust_authentication_results`) found the mail's From genuine: its
/// `dmarc=pass` (DMARC ties the From's domain to SPF or DKIM). Mail it
/// found failing never comes this far.
fn vouched(ctx: &Ctx<'_>, inc: &Incoming) -> bool {
    let server = ctx.config.inbound.trust_authentication_results.trim();
    !server.is_empty()
        && inc.authentication_results.iter().any(|r| {
            r.server.eq_ignore_ascii_case(server) && r.method == "dmarc" && r.result == "pass"
        })
}

/// Spends the one mail an address not proved gets: `contact` records it,
/// with a new code that a reply carries back and the commands `held`
/// until then. The code.
pub fn first_mail(
    contact: &mut Contact,
    held: Vec<String>,
    now: DateTime<Utc>,
) -> Result<String, ServiceError> {
    let code = super::new_token()?;
    contact.unasked = Some(now);
    contact.answerable = true;
    contact.pending.retain(|p| p.what != Pending::REPLY);
    contact.pending.push(Pending {
        what: Pending::REPLY.to_string(),
        code: code.clone(),
        at: now,
        lines: held,
    });
    Ok(code)
}

/// What the one answer to an address not proved says about going on.
pub fn first_mail_note(ctx: &Ctx<'_>, from: &str, code: &str) -> String {
    format!(
        "This server has not heard from {from} before, so it answers this once: reply to this mail to go on. The reply carries the code in this mail's subject, [code {code}], which shows that it comes from whoever got this mail (if your mail program drops it, write `confirm {code}` in the reply). Until a reply comes, nothing more from {from} is answered, so nobody can make this server write to an address that did not ask. If you did not write to {}, do nothing: you get no more mail from it.",
        ctx.config.mail.address
    )
}

/// The subject of the one answer to an address not proved: a reply to
/// `subject` with the code's tag.
pub fn first_mail_subject(subject: &str, code: &str) -> String {
    format!("[code {code}] {}", report::reply_subject(subject))
}

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

/// The subject of `seat`'s thread of forming game `f`: the tag with their
/// key and the game's title, as the game's own mails will have it.
fn thread_of(f: &Forming, seat: usize) -> Thread {
    let s = &f.seats[seat];
    Thread {
        subject: format!("[{} {}] {}", f.id, s.key, crate::registry::title(&f.kind)),
        root: s.root.clone(),
    }
}

/// The deadline settings in a line: `turn 2d, question 12h, bid 12h`.
fn settings_text(kind: &str, c: &crate::clock::ClockSettings) -> String {
    let mut parts = vec![format!("turn {}", c.turn)];
    if let Ok(entry) = crate::registry::find(kind) {
        for w in entry.waits {
            let name = w.key_alias.unwrap_or(w.kind.neutral_name());
            let span = match w.kind {
                crate::engine::WaitKind::Question => c.question,
                crate::engine::WaitKind::Bid => c.bid,
                crate::engine::WaitKind::Turn => c.turn,
            };
            parts.push(format!("{name} {span}"));
        }
    }
    parts.push(format!("policy {}", c.policy.name()));
    parts.push(format!("time_zone {}", c.time_zone));
    parts.join(", ")
}

/// Where forming game `f` stands, for its players' mails; the addresses
/// invited only for its creator (`creator`).
pub fn status_text(f: &Forming, creator: bool, now: DateTime<Utc>) -> String {
    let entry = crate::registry::find(&f.kind).ok();
    let title = crate::registry::title(&f.kind);
    let range = entry.map_or(String::new(), |e| format!(" ({})", e.players_text()));
    let names: Vec<String> = f
        .seats
        .iter()
        .enumerate()
        .map(|(i, s)| {
            if i == 0 {
                format!("{} (creator)", s.name)
            } else {
                s.name.clone()
            }
        })
        .collect();
    let mut out = vec![format!(
        "{}: {title}{range}, forming: not started yet.",
        f.id
    )];
    out.push(format!("Players: {}.", names.join(", ")));
    if creator && !f.invited.is_empty() {
        out.push(format!("Invited: {}.", f.invited.join(", ")));
    } else if !f.invited.is_empty() {
        out.push(format!("Invitations out: {}.", f.invited.len()));
    }
    if !f.options.is_empty() {
        out.push(format!("Options: {}.", f.options.join(", ")));
    }
    out.push(if f.open {
        format!("Open: anyone may join with `join {}`.", f.id)
    } else {
        "By invitation: only invited addresses may join.".to_string()
    });
    out.push(format!("Deadlines: {}.", settings_text(&f.kind, &f.clock)));
    if f.watchable {
        out.push(format!(
            "Watchable: once it runs, anyone may follow it with `watch {}`.",
            f.id
        ));
    }
    out.push(format!(
        "Reports: {} ({}), unless a player chooses with `reports full|short|turn`.",
        f.reports.name(),
        f.reports.describe()
    ));
    out.push(format!(
        "Unless its creator starts it, it expires {}.",
        f.clock.describe(f.expires, now)
    ));
    out.join("\n")
}

/// What the player in `seat` can do now, as lines.
fn hints(f: &Forming, seat: usize) -> Vec<String> {
    let entry = crate::registry::find(&f.kind).ok();
    let mut out = Vec::new();
    if seat == 0 {
        out.push("invite ADDRESS   one invitation to ADDRESS (one a line)".to_string());
        match entry {
            Some(e) if e.players.contains(&f.seats.len()) => {
                out.push("start            deal and begin".to_string())
            }
            Some(e) => out.push(format!(
                "start            once {} players sit ({} now)",
                e.players.start(),
                f.seats.len()
            )),
            None => {}
        }
        out.push("leave            cancel the game".to_string());
    } else {
        out.push("leave            give up your seat".to_string());
    }
    out
}

impl<'a, 'c> Session<'a, 'c> {
    fn new(
        ctx: &'a Ctx<'c>,
        inc: &'a Incoming,
        from: &str,
        forming: Option<Forming>,
        now: DateTime<Utc>,
    ) -> Self {
        let existed = forming.is_some();
        Session {
            ctx,
            inc,
            from: from.to_ascii_lowercase(),
            now,
            forming,
            existed,
            seat: None,
            new_root: None,
            closed: None,
            out: Vec::new(),
            mails: Vec::new(),
            contacts: Vec::new(),
            started: None,
            left: None,
            bumped: None,
            update: None,
            index: Vec::new(),
            body: inc.body.clone(),
            first: None,
            code: None,
            proved: None,
            tally: Vec::new(),
        }
    }

    /// The sender's contact record, as this mail leaves it so far.
    fn contact(&self, address: &str) -> Result<Contact, ServiceError> {
        match self
            .contacts
            .iter()
            .rev()
            .find(|(a, _)| a.eq_ignore_ascii_case(address))
        {
            Some((_, c)) => Ok(c.clone()),
            None => Ok(self.ctx.store.contact(address)?),
        }
    }

    fn set_contact(&mut self, address: &str, contact: Contact) {
        self.contacts
            .retain(|(a, _)| !a.eq_ignore_ascii_case(address));
        self.contacts.push((address.to_ascii_lowercase(), contact));
    }

    /// Finds the sender's seat by the mail's key: `Err` with why, if the
    /// mail carries a key of this game that is not the sender's, or comes
    /// from a seat's address without its key.
    fn authenticate(&mut self) -> Result<(), String> {
        let Some(f) = &self.forming else {
            return Ok(());
        };
        let by_key = self
            .inc
            .token
            .as_ref()
            .and_then(|t| f.seats.iter().position(|s| s.key.eq_ignore_ascii_case(t)));
        let by_from = f.seat_of(&self.from);
        match (by_from, by_key) {
            (Some(a), Some(b)) if a == b => {
                self.seat = Some(a);
                Ok(())
            }
            (_, Some(_)) => Err(format!(
                "the key in this mail is not the key of {}",
                self.from
            )),
            _ => Ok(()),
        }
    }

    fn run(&mut self, mid: &str) -> Result<Outcome, ServiceError> {
        let refused = self.authenticate().err();
        let proved_now = self.seat.is_some() || self.confirms_pending()?;
        let game_label = self.forming.as_ref().map(|f| f.id.clone());
        let from = self.from.clone();
        let mut contact = self.contact(&from)?;
        if proved_now && contact.proved.is_none() {
            contact.proved = Some(self.now);
            self.set_contact(&from, contact.clone());
        }
        let standing = if proved_now {
            Standing::Asked
        } else {
            standing(self.ctx, self.inc, &from, &contact, self.now)?
        };
        // What the sender's standing lets it have: see the module doc.
        let limited = matches!(standing, Standing::Vouched);
        let why_not = match standing {
            Standing::Silent(why) => Some(why),
            Standing::Proved {
                contact,
                held,
                code,
            } => {
                self.set_contact(&from, contact);
                // The held lines run first, then whatever the reply says
                // besides the `confirm` of this very code (which the held
                // lines answer).
                let body = std::mem::take(&mut self.body);
                let own: Vec<String> = body
                    .iter()
                    .filter(|l| {
                        !matches!(parse(l.trim()), Some(Ok(SiteCommand::Confirm(c))) if c.eq_ignore_ascii_case(&code))
                    })
                    .cloned()
                    .collect();
                self.body = if held.is_empty() {
                    body
                } else if has_command(&own) {
                    held.into_iter().chain(own).collect()
                } else {
                    held
                };
                self.proved = Some(code);
                None
            }
            Standing::First => {
                self.first = Some(Vec::new());
                None
            }
            Standing::Asked | Standing::Vouched => None,
        };
        let interval = chrono::Duration::hours(self.ctx.config.daemon.help_interval_hours as i64);
        let why_not = match why_not {
            Some(why) => Some(why),
            None if limited
                && self
                    .ctx
                    .store
                    .help_sent(&from)?
                    .is_some_and(|last| self.now - last < interval) =>
            {
                Some(format!(
                    "{from} was answered lately and has not yet proved itself"
                ))
            }
            None if (limited || self.first.is_some())
                && self
                    .ctx
                    .store
                    .hourly_count(super::unasked::HOURLY, self.now)?
                    >= u64::from(self.ctx.config.limits.help_per_hour) =>
            {
                Some("the help replies of this hour are used up".to_string())
            }
            None => None,
        };
        if let Some(why) = why_not {
            tracing::warn!(from = %from, "not answered: {why}");
            // A refusal of more mail is kept even unanswered: it can only
            // mean less mail for the address.
            let refuses = self
                .body
                .iter()
                .any(|l| matches!(parse(l.trim()), Some(Ok(SiteCommand::NoMoreInvitations))));
            let mut contacts = Vec::new();
            if refuses {
                let mut contact = self.contact(&from)?;
                contact.no_invitations = true;
                contacts.push((from.to_ascii_lowercase(), contact));
            }
            return Ok(Outcome {
                change: Change {
                    receipt: Some(receipt(
                        mid,
                        game_label.as_ref(),
                        &format!("site commands not read, not answered: {why}"),
                        self.now,
                    )),
                    contacts,
                    ..Change::default()
                },
                summary: format!("not answered: {why}"),
                started: false,
            });
        }
        let vocabulary = vocabulary();
        let mut not_read = Vec::new();
        if let Some(why) = refused {
            self.out.push(format!(
                "Nothing was done: {why}. Reply to a mail you got about the game, from your own address."
            ));
        } else {
            let body = self.body.clone();
            for line in body.iter().map(|l| l.trim()).filter(|l| !l.is_empty()) {
                let (reading, line) = match vocabulary.read_item(line) {
                    (Reading::Chatter, _) if parse(line).is_some() => (Reading::Order, line),
                    read => read,
                };
                if reading == Reading::Chatter {
                    not_read.push(format!("  {line}"));
                    continue;
                }
                // What would bring more mail to an address not proved
                // waits for its reply with the code.
                if let (Some(held), Some(Ok(c))) = (&mut self.first, parse(line))
                    && matches!(
                        c,
                        SiteCommand::New { .. }
                            | SiteCommand::Join { .. }
                            | SiteCommand::Watch { .. }
                    )
                {
                    held.push(line.to_string());
                    self.out.push(format!(
                        "> {line}\n  held: done when you reply to this mail (see below)"
                    ));
                    continue;
                }
                let result = match parse(line) {
                    None => Err("no command begins so; `help` lists them".to_string()),
                    Some(Err(e)) => Err(e),
                    Some(Ok(_)) if self.closed.is_some() || self.started.is_some() => Err(
                        "not done: the game was started or closed earlier in this mail".to_string(),
                    ),
                    Some(Ok(c)) => self.command(&c),
                };
                match result {
                    Ok(text) => self
                        .out
                        .push(format!("> {line}\n  {}", text.replace('\n', "\n  "))),
                    Err(why) => self.out.push(format!("> {line}\n  refused: {why}")),
                }
            }
        }
        if self.out.is_empty() && self.proved.is_some() {
            self.out.push(format!(
                "Thank you: {} is known here now, and this server answers its mail. `help` lists what you can send.",
                self.from
            ));
        } else if self.out.is_empty() {
            self.out
                .push("Your mail had no command in it; `help` lists them.".to_string());
        }
        if !not_read.is_empty() {
            self.out.push(format!(
                "Not read as commands (no command begins so):\n{}",
                not_read.join("\n")
            ));
        }
        if let Some(held) = self.first.take() {
            let mut contact = self.contact(&from)?;
            let code = first_mail(&mut contact, held, self.now)?;
            self.set_contact(&from, contact);
            self.out.push(first_mail_note(self.ctx, &from, &code));
            self.code = Some(code);
        }
        self.finish(mid, limited)
    }

    /// The reply, the receipt, and everything else into one change.
    fn finish(&mut self, mid: &str, limited: bool) -> Result<Outcome, ServiceError> {
        let ctx = self.ctx;
        let mut text = self.out.join("\n\n");
        if let (Some(f), Some(seat)) = (&self.forming, self.seat)
            && self.closed.is_none()
            && self.started.is_none()
        {
            text.push_str(&format!(
                "\n\n{}\n\nYou can (reply to this mail, one a line):\n{}",
                status_text(f, seat == 0, self.now),
                hints(f, seat)
                    .iter()
                    .map(|h| format!("  {h}"))
                    .collect::<Vec<_>>()
                    .join("\n")
            ));
        }
        text.push_str(&format!(
            "\n\n-- \nStationmaster ({}). `help` lists what you can send.\n",
            ctx.config.mail.address
        ));
        let reply = self.reply(text)?;
        let mut change = self.started.take().unwrap_or_default();
        change.outbox.insert(0, reply);
        change.outbox.append(&mut self.mails);
        change.contacts = std::mem::take(&mut self.contacts);
        if let Some(update) = self.update.take() {
            change.update = Some(update);
            change.index = std::mem::take(&mut self.index);
        }
        if let Some(key) = self.bumped.take() {
            change.help_sent.push((key, self.now));
        }
        if limited {
            change.help_sent.push((self.from.clone(), self.now));
        }
        if limited || self.code.is_some() {
            change
                .tally
                .push((super::unasked::HOURLY.to_string(), self.now));
        }
        change.tally.append(&mut self.tally);
        let game = self.forming.as_ref().map(|f| f.id.clone());
        if let Some(id) = self.closed.clone() {
            change.forming = Some((id, None));
        } else if let Some(f) = &self.forming
            && (self.existed || self.seat.is_some())
        {
            change.forming = Some((f.id.clone(), Some(f.clone())));
        }
        let started = change.new_game.is_some();
        let summary = match &game {
            Some(g) if started => format!("{} started {g}", self.from),
            Some(g) => format!("{}: site commands for {g}", self.from),
            None => format!("{}: site commands", self.from),
        };
        change.receipt = Some(receipt(mid, game.as_ref(), &summary, self.now));
        Ok(Outcome {
            change,
            summary,
            started,
        })
    }

    /// The answer to the sender: in their thread of the forming game if
    /// they sit in it (the root itself if this mail gave them the seat),
    /// else a reply to their mail.
    fn reply(&self, text: String) -> Result<OutMail, ServiceError> {
        let ctx = self.ctx;
        let mut their_refs = self.inc.references.clone();
        let parent = self.inc.message_id.clone();
        let html = Some(report::notice_html(ctx, &text, None)?);
        let seated = match (&self.left, &self.forming, self.seat) {
            (Some((f, seat)), _, _) => Some((f, *seat)),
            (None, Some(f), Some(seat)) if seat < f.seats.len() => Some((f, seat)),
            _ => None,
        };
        let Some((f, seat)) = seated else {
            if let Some(p) = &parent {
                their_refs.push(p.clone());
            }
            let subject = if self.inc.subject.trim().is_empty() {
                "your mail".to_string()
            } else {
                self.inc.subject.trim().to_string()
            };
            let draft = Draft {
                to: self.from.clone(),
                subject: match &self.code {
                    Some(code) => first_mail_subject(&subject, code),
                    None => report::reply_subject(&subject),
                },
                text,
                html,
                in_reply_to: parent,
                references: their_refs,
                ..Draft::default()
            };
            return super::compose_mail(ctx, "stationmaster", "reply", &draft, self.now);
        };
        let thread = thread_of(f, seat);
        let key = &f.seats[seat].key;
        let (in_reply_to, references, id) = match &self.new_root {
            Some(root) => {
                if let Some(p) = &parent {
                    their_refs.push(p.clone());
                }
                (parent.clone(), their_refs, root.clone())
            }
            None => {
                let (irt, refs) = thread.threading(
                    parent
                        .as_deref()
                        .map(|p| (p, self.inc.references.as_slice())),
                );
                (irt, refs, super::message_id(ctx, &f.id.0, "forming")?)
            }
        };
        let draft = Draft {
            to_name: f.seats[seat].name.clone(),
            to: self.from.clone(),
            subject: thread.subject(self.new_root.is_none() && parent.is_some()),
            text,
            html,
            in_reply_to,
            references,
            reply_to: Some(report::reply_address(&ctx.config.mail.address, &f.id, key)),
            picture: None,
        };
        Ok(crate::mail::compose::compose(
            &draft,
            &ctx.config.mail,
            &id,
            self.now,
        )?)
    }

    /// A notice to every seat of the forming game but the sender's, in
    /// their threads; `to_creator` is added to the creator's.
    fn tell_others(
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

    fn command(&mut self, c: &SiteCommand) -> Result<String, String> {
        let r = match c {
            SiteCommand::New { kind, words } => self.new_game(kind, words),
            SiteCommand::Join { game, name } => self.join(game.as_deref(), name.as_deref()),
            SiteCommand::Invite(address) => self.invite(address),
            SiteCommand::Leave => self.leave(),
            SiteCommand::Start => self.start(),
            SiteCommand::NoMoreInvitations => self.no_more_invitations(),
            SiteCommand::Watchable(on) => self.watchable(*on),
            SiteCommand::Games => games_text(self.ctx, &self.from, self.now).map_err(Refusal::from),
            SiteCommand::Bump => self.bump(),
            SiteCommand::Watch { game, code } => self.watch(game, code.as_deref()),
            SiteCommand::Unwatch(game) => self.unwatch(game.as_deref()),
            SiteCommand::Confirm(code) => self.confirm(code),
            SiteCommand::Help => Ok(help_text()),
        };
        r.map_err(|e| match e {
            Refusal::Player(s) => s,
            Refusal::Internal(e) => {
                tracing::error!(error = %e, "a site command failed");
                format!("not done: the server failed ({e}); the operator can see why in its log")
            }
        })
    }

    /// The forming game a seat command is for, with the sender's seat.
    fn own_seat(&self, what: &str) -> Result<(Forming, usize), Refusal> {
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

    fn new_game(&mut self, kind: &str, words: &[String]) -> Result<String, Refusal> {
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
        if let Some(why) = super::names::refusal(
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
        let root = super::message_id(ctx, &id.0, "forming")?;
        let f = Forming {
            id: id.clone(),
            kind: entry.name.to_string(),
            options: made.options,
            clock: made.clock,
            open: made.open,
            seats: vec![FormingSeat {
                name,
                address: self.from.clone(),
                key: super::new_token()?,
                root: root.clone(),
            }],
            invited: Vec::new(),
            created: self.now,
            expires: self.now + site.forming_expires.duration(),
            seed: super::new_seed()?,
            reports: made.reports,
            watchable: made.watchable,
        };
        self.forming = Some(f);
        self.seat = Some(0);
        self.new_root = Some(root);
        Ok(format!(
            "You made {id}. You are its first player and its moderator. Invite players by replying to this mail with `invite ADDRESS`, one a line; `start` when enough sit."
        ))
    }

    fn join(&mut self, game: Option<&str>, name: Option<&str>) -> Result<String, Refusal> {
        let ctx = self.ctx;
        let target = match (game, &self.forming) {
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
        };
        let mut f = target;
        // One seat a player, from whichever of their addresses.
        if let Some(a) = ctx
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
            && f.seats.len() >= *entry.players.end()
        {
            return Err(Refusal::Player(format!(
                "{} is full: {} players sit, as many as {} takes",
                f.id,
                f.seats.len(),
                entry.title
            )));
        }
        let taken = |n: &str| f.seats.iter().any(|s| s.name.eq_ignore_ascii_case(n));
        // A name that looks like a seated player's or a moderator's
        // (docs/operators.md, "Security", "Names").
        // (The moderators `start` checks against: the creator and the
        // site's, so a name taken now cannot stop the start.)
        let looks = |n: &str| {
            super::names::refusal(
                n,
                f.seats.iter().map(|s| s.name.as_str()),
                std::iter::once(f.creator())
                    .chain(ctx.config.site.moderators.iter().map(String::as_str)),
                Some(&self.from),
            )
        };
        let name = match name {
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
        };
        let root = super::message_id(ctx, &f.id.0, "forming")?;
        f.seats.push(FormingSeat {
            name: name.clone(),
            address: self.from.clone(),
            key: super::new_token()?,
            root: root.clone(),
        });
        f.invited.retain(|a| !a.eq_ignore_ascii_case(&self.from));
        let note = format!("{name} ({}) joined {}.", self.from, f.id);
        // The creator is told when the game may start.
        let start = match crate::registry::find(&f.kind) {
            Ok(e) if e.players.end() == &f.seats.len() => {
                "\n\nEvery seat is taken: reply with `start` to deal and begin."
            }
            Ok(e) if e.players.contains(&f.seats.len()) => {
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

    fn invite(&mut self, address: &str) -> Result<String, Refusal> {
        let ctx = self.ctx;
        let (mut f, seat) = self.own_seat("invite")?;
        if seat != 0 {
            return Err(Refusal::Player(format!(
                "only the creator of {} invites",
                f.id
            )));
        }
        let address = super::unasked::recipient(ctx, address).map_err(Refusal::Player)?;
        let address = address.as_str();
        // The invitee's other addresses count as theirs (which one is not
        // told: that is the invitee's business).
        let aliases = ctx.store.aliases(address)?;
        if aliases.iter().any(|a| f.seat_of(a).is_some()) {
            return Err(Refusal::Player(format!("{address} has a seat already")));
        }
        // The site's moderators moderate every game: their address plays
        // no seat (docs/operators.md, "Security").
        if ctx
            .config
            .site
            .moderators
            .iter()
            .any(|m| m.eq_ignore_ascii_case(address))
        {
            return Err(Refusal::Player(format!(
                "{address} is a moderator's address on this server; a moderator sees every player's secrets, so their address plays no seat"
            )));
        }
        if f.invited.iter().any(|a| a.eq_ignore_ascii_case(address)) {
            return Err(Refusal::Player(format!(
                "{address} is invited already; one invitation is all an address gets"
            )));
        }
        if f.invited.len() >= MAX_INVITED {
            return Err(Refusal::Player(format!(
                "{} has {MAX_INVITED} invitations out, the most a game may have",
                f.id
            )));
        }
        let mut contact = self.contact(address)?;
        let mut refused = contact.no_invitations;
        for a in &aliases[1..] {
            refused |= self.contact(a)?.no_invitations;
        }
        if refused {
            return Err(Refusal::Player(format!(
                "{address} asked this server for no invitations; they can still `join {}` themselves if it is open",
                f.id
            )));
        }
        // The one mail to an address not proved carries a code in its tag:
        // the reply (`join`) proves it.
        let mut code = None;
        if !super::unasked::has_asked(ctx, address, &contact)? {
            if contact.unasked.is_some() {
                return Err(Refusal::Player(format!(
                    "{address} has had a mail from this server that they did not ask for, and has not answered it; this server mails nobody twice unasked. Tell them to reply to that mail with the line `join {}`",
                    f.id
                )));
            }
            super::unasked::within_limits(ctx, &self.from, &self.tally, self.now)?
                .map_err(Refusal::Player)?;
            code = Some(first_mail(&mut contact, Vec::new(), self.now)?);
            self.set_contact(address, contact);
            self.tally
                .extend(super::unasked::tally(&self.from, self.now));
        }
        f.invited.push(address.to_ascii_lowercase());
        let creator = &f.seats[0];
        let title = crate::registry::title(&f.kind);
        let text = format!(
            "Hello,\n\n{} ({}) invites you to a game of {title}, {}, played by mail on Stationmaster at {}.\n\n{}\n\nTo take a seat, reply to this mail with the line\n\n  join {}\n\n(or `join {} as NAME` to choose your name in the game). If you do not want to play, do nothing{}.\n\nTo get no invitations from this server ever again, reply with the line\n\n  no more invitations\n\n-- \nStationmaster ({}). You were invited by {}.\n",
            creator.name,
            creator.address,
            f.id,
            ctx.config.mail.address,
            status_text(&f, false, self.now),
            f.id,
            f.id,
            // Only to an address that never wrote here is this mail the
            // only one; one that plays here already gets its games' mail.
            if code.is_some() {
                ": this invitation is the only mail you get from this server unless you answer it"
            } else {
                ""
            },
            ctx.config.mail.address,
            creator.address,
        );
        let draft = Draft {
            to: address.to_string(),
            subject: match &code {
                Some(code) => format!(
                    "[{} {code}] Invitation to {title} from {}",
                    f.id, creator.name
                ),
                None => format!("[{}] Invitation to {title} from {}", f.id, creator.name),
            },
            html: Some(report::notice_html(ctx, &text, None)?),
            text,
            ..Draft::default()
        };
        let mail = super::compose_mail(ctx, &f.id.0, "invitation", &draft, self.now)?;
        self.mails.push(mail);
        self.forming = Some(f);
        Ok(format!("Invited {address}: one mail, with how to join."))
    }

    fn leave(&mut self) -> Result<String, Refusal> {
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

    fn start(&mut self) -> Result<String, Refusal> {
        let ctx = self.ctx;
        let (f, seat) = self.own_seat("start")?;
        if seat != 0 {
            return Err(Refusal::Player(format!(
                "only the creator of {} starts it",
                f.id
            )));
        }
        let entry = crate::registry::find(&f.kind).map_err(|e| Refusal::Player(e.to_string()))?;
        if !entry.players.contains(&f.seats.len()) {
            return Err(Refusal::Player(format!(
                "{} needs {}; {} sit",
                f.id,
                entry.players_text(),
                f.seats.len()
            )));
        }
        let setup = Setup {
            kind: f.kind.clone(),
            players: f
                .seats
                .iter()
                .map(|s| PlayerSetup {
                    name: s.name.clone(),
                    email: s.address.clone(),
                })
                .collect(),
            options: f.options.clone(),
            seed: f.seed,
        };
        let formed = super::Formed {
            id: f.id.clone(),
            keys: f.seats.iter().map(|s| s.key.clone()).collect(),
            roots: f.seats.iter().map(|s| s.root.clone()).collect(),
        };
        let (_, mut change) = match super::new_game_change(
            ctx,
            &setup,
            f.clock.clone(),
            vec![f.creator().to_string()],
            Some(&formed),
            self.now,
        ) {
            Ok(made) => made,
            Err(super::ServiceError::Setup(e)) => return Err(Refusal::Player(e.to_string())),
            // The seats as they stand cannot play (README, "Security"): said
            // to the creator, never a server failure.
            Err(super::ServiceError::Invalid(why)) => return Err(Refusal::Player(why)),
            Err(super::ServiceError::Store(crate::store::StoreError::Setup(e))) => {
                return Err(Refusal::Player(e.to_string()));
            }
            Err(e) => return Err(e.into()),
        };
        if let Some(made) = &mut change.new_game {
            made.meta.default_reports = f.reports;
            made.meta.watchable = f.watchable;
        }
        self.started = Some(change);
        self.closed = Some(f.id.clone());
        Ok(format!(
            "{} has started. Everyone gets their welcome with the map and their first report in this thread; as its moderator you get a mail with your moderator key too.",
            f.id
        ))
    }

    fn bump(&mut self) -> Result<String, Refusal> {
        let ctx = self.ctx;
        let key = format!("bump:{}", self.from);
        if let Some(last) = ctx.store.help_sent(&key)?
            && self.now - last < chrono::Duration::hours(BUMP_HOURS)
        {
            return Err(Refusal::Player(format!(
                "your reports were sent again less than {BUMP_HOURS} hour ago; `bump` works once an hour"
            )));
        }
        let mut sent = Vec::new();
        for id in ctx.store.games_of(&self.from)? {
            let loaded = ctx.store.load(&id)?;
            let meta = ctx.store.meta(&id)?;
            if report::ended(ctx.store, &id, &meta, &*loaded.game)?.is_some() {
                continue;
            }
            let map = report::Board::new(ctx, &*loaded.game, &[]);
            for seat in loaded.game.awaiting().iter().map(|a| a.seat) {
                if !meta.plays_from(&loaded.record, seat, &self.from)
                    || sent.contains(&(id.clone(), seat))
                {
                    continue;
                }
                // An answer to `bump`: to the address that asked.
                let mail = report::MailContext {
                    notes: vec![
                        "Your report again, as you asked with `bump`: the game waits for you."
                            .to_string(),
                    ],
                    to: Some(self.from.clone()),
                    ..report::MailContext::default()
                };
                self.mails.push(report::player_mail(
                    ctx,
                    &id,
                    &loaded.record,
                    &meta,
                    &*loaded.game,
                    &map,
                    seat,
                    mail,
                    None,
                    self.now,
                )?);
                sent.push((id.clone(), seat));
            }
        }
        if sent.is_empty() {
            return Ok("No game waits for you now; nothing was sent.".to_string());
        }
        self.bumped = Some(key);
        let ids: Vec<String> = sent.iter().map(|(id, _)| id.0.clone()).collect();
        Ok(format!(
            "Your report of {} comes again, each in its own thread.",
            ids.join(", ")
        ))
    }

    /// True if the mail answers a confirmation this server mailed the
    /// sender (`watch GAME CODE`): that is an answer with a key.
    fn confirms_pending(&mut self) -> Result<bool, ServiceError> {
        let from = self.from.clone();
        let mut contact = self.contact(&from)?;
        let confirmed = self.inc.body.iter().any(|l| match parse(l.trim()) {
            Some(Ok(SiteCommand::Watch {
                game,
                code: Some(code),
            })) => contact
                .pending
                .iter()
                .any(|p| p.what == format!("watch {game}") && p.code == code),
            Some(Ok(SiteCommand::Confirm(code))) => contact
                .pending
                .iter()
                .any(|p| p.code == code && p.what != Pending::REPLY),
            _ => false,
        });
        if confirmed && contact.proved.is_none() {
            contact.proved = Some(self.now);
            self.set_contact(&from, contact);
        }
        Ok(confirmed)
    }

    fn watch(&mut self, game: &str, code: Option<&str>) -> Result<String, Refusal> {
        let ctx = self.ctx;
        if self.forming.is_some() || self.update.is_some() {
            return Err(Refusal::Player(
                "send `watch GAME` in a mail of its own, one game a mail".to_string(),
            ));
        }
        let id = GameId(game.to_ascii_lowercase());
        if let Some(f) = ctx.store.forming(&id)? {
            return Err(Refusal::Player(if f.watchable {
                format!("{id} has not started yet; send `watch {id}` once it runs")
            } else {
                format!("{id} is not watchable: its creator did not make it so")
            }));
        }
        let mut meta = match ctx.store.meta(&id) {
            Ok(m) => m,
            Err(crate::store::StoreError::NoSuchGame(_)) => {
                return Err(Refusal::Player(format!("there is no game {id} here")));
            }
            Err(e) => return Err(e.into()),
        };
        if !meta.watchable {
            return Err(Refusal::Player(format!(
                "{id} is not watchable: its moderator did not make it so"
            )));
        }
        let loaded = ctx.store.load(&id)?;
        if let Some(ended) = report::ended(ctx.store, &id, &meta, &*loaded.game)? {
            return Err(Refusal::Player(format!(
                "{id} {}; its archive is kept on the server",
                ended.what(&meta.clock.settings)
            )));
        }
        if !meta.seats_from(&loaded.record, &self.from).is_empty() {
            return Err(Refusal::Player(format!(
                "you play in {id}: you get your own reports"
            )));
        }
        if meta.observers.iter().any(|o| o.address == self.from) {
            return Err(Refusal::Player(format!("you watch {id} already")));
        }
        let limits = &ctx.config.limits;
        if meta.observers.len() >= limits.observers_per_game as usize {
            return Err(Refusal::Player(format!(
                "{id} has {} observers, as many as this server lets a game have",
                meta.observers.len()
            )));
        }
        let from = self.from.clone();
        let mut contact = self.contact(&from)?;
        // Counted over every address of the player who writes.
        let mut watched: Vec<String> = Vec::new();
        for a in ctx.store.aliases(&from)? {
            for g in self.contact(&a)?.watching {
                if !watched.contains(&g) {
                    watched.push(g);
                }
            }
        }
        let mut watching = 0;
        for g in watched {
            let gid = GameId(g);
            if let (Ok(m), Ok(l)) = (ctx.store.meta(&gid), ctx.store.load(&gid))
                && report::ended(ctx.store, &gid, &m, &*l.game)?.is_none()
            {
                watching += 1;
            }
        }
        if watching >= limits.observers_per_address as usize {
            return Err(Refusal::Player(format!(
                "you watch {watching} games, as many as this server lets one address watch; `unwatch` one first"
            )));
        }
        // Nothing a stranger sends makes the server mail a third party:
        // an address new here confirms with a code mailed to it.
        let what = format!("watch {id}");
        if !super::unasked::has_asked(ctx, &from, &contact)? {
            let code = super::new_token()?;
            contact.pending.retain(|p| p.what != what);
            contact.pending.push(crate::store::Pending {
                what: what.clone(),
                code: code.clone(),
                at: self.now,
                lines: Vec::new(),
            });
            self.set_contact(&from, contact);
            return Ok(format!(
                "To watch {id}, reply to this mail with the line\n\n  watch {id} {code}\n\nNothing about {id} is mailed to you until you do. If you did not ask for this, do nothing: you get no more mail from this server."
            ));
        }
        if let Some(code) = code
            && !contact
                .pending
                .iter()
                .any(|p| p.what == what && p.code == code)
            && contact.pending.iter().any(|p| p.what == what)
        {
            return Err(Refusal::Player(format!(
                "`{code}` is not the code mailed to you for {id}"
            )));
        }
        contact.pending.retain(|p| p.what != what);
        contact.watching.retain(|g| *g != id.0);
        contact.watching.push(id.0.clone());
        self.set_contact(&from, contact);
        meta.observers.push(crate::store::Observer {
            address: from.clone(),
            reported: loaded.seq,
        });
        let ended = report::ended(ctx.store, &id, &meta, &*loaded.game)?;
        let page = super::delivery::observer_mail(
            ctx,
            &id,
            &loaded.record,
            &meta,
            &*loaded.game,
            &report::Board::new(ctx, &*loaded.game, &[]),
            &from,
            &[],
            "You watch this game from now on: after each change you get what happened and the board as every player sees it (nobody's private holdings). `unwatch` in reply stops it.",
            ended.as_ref(),
            self.now,
        )?;
        self.mails.push(page);
        self.update = Some(super::pipeline::meta_update(&id, &loaded, meta)?);
        Ok(format!(
            "You watch {id}: the board as it stands comes in a mail of its own, and after each change what happened. `unwatch {id}` stops it."
        ))
    }

    /// `confirm CODE`: the sender says yes to a player's `address add`.
    fn confirm(&mut self, code: &str) -> Result<String, Refusal> {
        let ctx = self.ctx;
        if self.update.is_some() || self.forming.is_some() {
            return Err(Refusal::Player(
                "send `confirm CODE` in a mail of its own".to_string(),
            ));
        }
        let from = self.from.clone();
        let mut contact = self.contact(&from)?;
        let Some(p) = contact
            .pending
            .iter()
            .find(|p| p.code == code && p.what.starts_with("address "))
            .cloned()
        else {
            if self.proved.as_deref() == Some(code) {
                return Ok(format!("Thank you: {from} is known here now."));
            }
            return Err(Refusal::Player(format!(
                "`{code}` is not a code this server mailed to {from}"
            )));
        };
        contact.pending.retain(|q| q.code != code);
        self.set_contact(&from, contact);
        // `address GAME SEAT`
        let mut words = p.what.split_whitespace().skip(1);
        let (Some(game), Some(seat)) = (
            words.next(),
            words.next().and_then(|s| s.parse::<u8>().ok()),
        ) else {
            return Err(Refusal::Player(
                "that confirmation cannot be read; ask again".to_string(),
            ));
        };
        let id = GameId(game.to_string());
        let loaded = match ctx.store.load(&id) {
            Ok(l) => l,
            Err(crate::store::StoreError::NoSuchGame(_)) => {
                return Err(Refusal::Player(format!(
                    "there is no game {id} here any more"
                )));
            }
            Err(e) => return Err(e.into()),
        };
        let mut meta = ctx.store.meta(&id)?;
        let seat = crate::engine::Seat(seat);
        let Some(player) = loaded.record.setup.players.get(seat.index()) else {
            return Err(Refusal::Player("that seat is gone; ask again".to_string()));
        };
        if let Some(asked_by) = p.lines.first()
            && !asked_by.eq_ignore_ascii_case(meta.address(&loaded.record, seat))
        {
            return Err(Refusal::Player(format!(
                "{name} of {id} has a new player since {asked_by} asked for this address; the seat's player can ask again",
                name = player.name
            )));
        }
        if let Some(why) =
            super::unasked::seat_refusal(ctx, &loaded.record, &meta, &from, Some(seat))
        {
            return Err(Refusal::Player(why));
        }
        let n = loaded.record.setup.players.len();
        if meta.other_addresses.len() < n {
            meta.other_addresses.resize(n, Vec::new());
        }
        let list = &mut meta.other_addresses[seat.index()];
        if !list.iter().any(|a| a.eq_ignore_ascii_case(&from)) {
            list.push(from.clone());
        }
        let name = player.name.clone();
        let first = meta.address(&loaded.record, seat).to_string();
        self.update = Some(super::pipeline::meta_update(&id, &loaded, meta)?);
        // Its games, `games` and `bump` and the limits find it from now on.
        self.index.push((from.clone(), true));
        Ok(format!(
            "Confirmed: {name} may play {id} from {from} too. Reply to a mail from the game (its tag carries the key) from here, as from {first}: the answer to a mail comes back to the address it came from; the game's reports and messages still go to {first}."
        ))
    }

    fn unwatch(&mut self, game: Option<&str>) -> Result<String, Refusal> {
        let ctx = self.ctx;
        let Some(game) = game.map(str::to_string).or_else(|| self.inc.game.clone()) else {
            return Err(Refusal::Player(
                "say which game: `unwatch GAME`".to_string(),
            ));
        };
        if self.update.is_some() {
            return Err(Refusal::Player(
                "one game a mail: send `unwatch GAME` in a mail of its own".to_string(),
            ));
        }
        let id = GameId(game.to_ascii_lowercase());
        let from = self.from.clone();
        let mut contact = self.contact(&from)?;
        contact.pending.retain(|p| p.what != format!("watch {id}"));
        contact.watching.retain(|g| *g != id.0);
        self.set_contact(&from, contact);
        let mut meta = match ctx.store.meta(&id) {
            Ok(m) => m,
            Err(crate::store::StoreError::NoSuchGame(_)) => {
                return Err(Refusal::Player(format!("there is no game {id} here")));
            }
            Err(e) => return Err(e.into()),
        };
        if !meta.observers.iter().any(|o| o.address == from) {
            return Err(Refusal::Player(format!("you do not watch {id}")));
        }
        meta.observers.retain(|o| o.address != from);
        let loaded = ctx.store.load(&id)?;
        self.update = Some(super::pipeline::meta_update(&id, &loaded, meta)?);
        Ok(format!(
            "You no longer watch {id}; nothing more about it comes to you."
        ))
    }

    /// `watchable on|off` before the start: the creator's choice at `new`,
    /// changed (once it runs, the moderator command of the same words).
    fn watchable(&mut self, on: bool) -> Result<String, Refusal> {
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

    fn no_more_invitations(&mut self) -> Result<String, Refusal> {
        let from = self.from.clone();
        let mut contact = self.contact(&from)?;
        contact.no_invitations = true;
        self.set_contact(&from, contact);
        if let Some(f) = &mut self.forming {
            f.invited.retain(|a| !a.eq_ignore_ascii_case(&from));
        }
        Ok(
            "This server sends you no more invitations. You can still make or join games yourself."
                .to_string(),
        )
    }
}

/// Why a site command was not done: the player's doing, or ours.
enum Refusal {
    /// A sentence for the player.
    Player(String),
    /// The server failed.
    Internal(ServiceError),
}

impl From<ServiceError> for Refusal {
    fn from(e: ServiceError) -> Self {
        Refusal::Internal(e)
    }
}

impl From<crate::store::StoreError> for Refusal {
    fn from(e: crate::store::StoreError) -> Self {
        Refusal::Internal(e.into())
    }
}

/// Why game `id` cannot be joined: started, or not here.
fn not_forming(ctx: &Ctx<'_>, id: &GameId) -> Result<String, ServiceError> {
    match ctx.store.record(id) {
        Ok(_) => Ok(format!(
            "{id} has started already; a game takes no new players once it runs"
        )),
        Err(crate::store::StoreError::NoSuchGame(_)) => {
            Ok(format!("there is no game {id} forming here"))
        }
        Err(e) => Err(e.into()),
    }
}

/// `address add ADDRESS` or `address remove ADDRESS` from `seat`'s player
/// in game `id` (the line `line`): changes `meta`, and puts the one
/// confirmation mail to ADDRESS into `change`. The sentence for the player.
#[allow(clippy::too_many_arguments)]
pub fn address_command(
    ctx: &Ctx<'_>,
    id: &GameId,
    record: &crate::store::GameRecord,
    meta: &mut crate::store::GameMeta,
    seat: crate::engine::Seat,
    line: &str,
    change: &mut Change,
    now: DateTime<Utc>,
) -> Result<String, ServiceError> {
    let words: Vec<&str> = line.split_whitespace().collect();
    let (verb, address) = match words.as_slice() {
        [_, verb, address] => (
            verb.to_ascii_lowercase(),
            address
                .trim_matches(|c| c == '<' || c == '>')
                .to_ascii_lowercase(),
        ),
        _ => {
            return Ok(
                "Not done: write `address add ADDRESS` or `address remove ADDRESS`.".to_string(),
            );
        }
    };
    let by = meta.address(record, seat).to_ascii_lowercase();
    let n = record.setup.players.len();
    if meta.other_addresses.len() < n {
        meta.other_addresses.resize(n, Vec::new());
    }
    if verb == "remove" {
        let list = &mut meta.other_addresses[seat.index()];
        let before = list.len();
        list.retain(|a| !a.eq_ignore_ascii_case(&address));
        let mut contact = ctx.store.contact(&address)?;
        let what = format!("address {} {}", id.0, seat.0);
        if let Some(p) = contact.pending.iter().find(|p| p.what == what).cloned() {
            contact.pending.retain(|q| q.what != what);
            // The confirmation was the one mail to an address not proved:
            // its code still proves the address (nothing more), or it
            // could never be answered again.
            if contact.proved.is_none() && !contact.pending.iter().any(|q| q.what == Pending::REPLY)
            {
                contact.pending.push(Pending {
                    what: Pending::REPLY.to_string(),
                    lines: Vec::new(),
                    ..p
                });
            }
            change.contacts.push((address.clone(), contact));
        } else if before == list.len() {
            return Ok(format!(
                "Not done: {address} is not one of your addresses in {id}."
            ));
        }
        // Out of the address index, unless a seat still plays from it.
        if meta.seats_from(record, &address).is_empty() {
            change.index.push((address.clone(), false));
        }
        return Ok(format!(
            "{address} is no longer one of your addresses in {id}."
        ));
    }
    if verb != "add" {
        return Ok(
            "Not done: write `address add ADDRESS` or `address remove ADDRESS`.".to_string(),
        );
    }
    if address == by || meta.other_addresses[seat.index()].contains(&address) {
        return Ok(format!("Not done: {address} is yours in {id} already."));
    }
    // docs/operators.md, "Security": an address a seat may not take, or
    // mail may not go to, is refused before anything is stored.
    let address = match super::unasked::recipient(ctx, &address) {
        Ok(a) => a,
        Err(why) => return Ok(format!("Not done: {why}.")),
    };
    if let Some(why) = super::unasked::seat_refusal(ctx, record, meta, &address, Some(seat)) {
        return Ok(format!("Not done: {why}."));
    }
    // The one unasked mail; and at most one confirmation an address per
    // help interval even to one that has asked.
    let rate_key = format!("address:{address}");
    let interval = chrono::Duration::hours(ctx.config.daemon.help_interval_hours as i64);
    if ctx
        .store
        .help_sent(&rate_key)?
        .is_some_and(|last| now - last < interval)
        || change.help_sent.iter().any(|(k, _)| *k == rate_key)
    {
        return Ok(format!(
            "Not done: {address} was sent a confirmation lately; it can answer that one."
        ));
    }
    let permit = match super::unasked::may_mail(ctx, &by, &address, &change.tally, now)? {
        Err(why) => return Ok(format!("Not done: {why}.")),
        Ok(p) => p,
    };
    let mut contact = match &permit.contact {
        Some(c) => c.clone(),
        None => ctx.store.contact(&address)?,
    };
    if contact.no_invitations {
        return Ok(format!(
            "Not done: {address} asked this server for no mail it did not ask for."
        ));
    }
    let code = super::new_token()?;
    let what = format!("address {} {}", id.0, seat.0);
    contact.pending.retain(|p| p.what != what);
    contact.pending.push(crate::store::Pending {
        what,
        code: code.clone(),
        at: now,
        // Who asked: a confirmation for a seat that has since changed
        // hands (`replace`) is refused.
        lines: vec![by.clone()],
    });
    let name = &record.setup.players[seat.index()].name;
    let title = crate::registry::title(&record.setup.kind);
    let text = format!(
        "Hello,\n\n{name} ({by}), who plays {id} ({title}) by mail on Stationmaster at {}, asks to play from this address too.\n\nIf that is you, reply to this mail with the line\n\n  confirm {code}\n\nIf it is not, do nothing: this is the only mail you get from this server unless you answer it. To refuse all such mail from this server, reply with the line\n\n  no more invitations\n\n-- \nStationmaster ({}).\n",
        ctx.config.mail.address, ctx.config.mail.address
    );
    let draft = Draft {
        to: address.clone(),
        subject: format!("[{id}] Confirm this address for {name}"),
        html: Some(report::notice_html(ctx, &text, None)?),
        text,
        ..Draft::default()
    };
    change
        .outbox
        .push(super::compose_mail(ctx, &id.0, "address", &draft, now)?);
    change.contacts.push((address.clone(), contact));
    change.tally.extend(permit.tally);
    change.help_sent.push((rate_key, now));
    Ok(format!(
        "A mail went to {address} with a code; once it is answered from there with `confirm CODE`, you may play {id} from {address} too (with your key, as always)."
    ))
}

/// `games`: every game `address` plays in or is forming, with whom each
/// waits for and the address's own deadlines.
pub fn games_text(
    ctx: &Ctx<'_>,
    address: &str,
    now: DateTime<Utc>,
) -> Result<String, ServiceError> {
    let mut out = Vec::new();
    for id in ctx.store.games_of(address)? {
        let loaded = ctx.store.load(&id)?;
        let meta = ctx.store.meta(&id)?;
        let title = crate::registry::title(&loaded.record.setup.kind);
        // Its seats there, by their own address or one confirmed.
        let seats = meta.seats_from(&loaded.record, address);
        let names: Vec<&str> = seats
            .iter()
            .map(|s| loaded.record.setup.players[s.index()].name.as_str())
            .collect();
        let mode = seats
            .first()
            .map_or(meta.default_reports, |s| meta.reports_of(*s));
        let head = format!(
            "{id} ({title}), you are {}, reports {}",
            names.join(" and "),
            mode.name()
        );
        if let Some(ended) = report::ended(ctx.store, &id, &meta, &*loaded.game)? {
            out.push(format!("{head}: {}", ended.short(&meta.clock.settings)));
            continue;
        }
        let paused = if meta.paused.is_some() {
            " (paused by a moderator)"
        } else {
            ""
        };
        let waits = report::deadline_lines(
            &*loaded.game,
            &meta,
            seats
                .first()
                .map_or(Viewer::Spectator, |s| Viewer::Player(*s)),
            now,
        );
        out.push(format!("{head}{paused}: waiting for"));
        for w in waits {
            out.push(format!("    {w}"));
        }
    }
    for f in ctx.store.all_forming()? {
        if let Some(seat) = f.seat_of(address) {
            out.push(format!(
                "{} ({}), you are {}: forming, {} player(s) so far; {}",
                f.id,
                crate::registry::title(&f.kind),
                f.seats[seat].name,
                f.seats.len(),
                if seat == 0 {
                    "you start it"
                } else {
                    "its creator starts it"
                }
            ));
        }
    }
    if out.is_empty() {
        return Ok(format!(
            "{address} plays in no game here. Make one with `new GAME`, or join one with `join GAME`."
        ));
    }
    Ok(format!("Your games here ({address}):\n{}", out.join("\n")))
}

/// A notice to `seat` of forming game `f`, in their thread.
fn seat_notice(
    ctx: &Ctx<'_>,
    f: &Forming,
    seat: usize,
    text: &str,
    now: DateTime<Utc>,
) -> Result<OutMail, ServiceError> {
    let thread = thread_of(f, seat);
    let (in_reply_to, references) = thread.threading(None);
    let s = &f.seats[seat];
    let text = format!(
        "{text}\n\n-- \nStationmaster ({}), for {}.\n",
        ctx.config.mail.address, f.id
    );

    let draft = Draft {
        to_name: s.name.clone(),
        to: s.address.clone(),
        subject: thread.subject(false),
        html: Some(report::notice_html(ctx, &text, None)?),
        text,
        in_reply_to,
        references,
        reply_to: Some(report::reply_address(
            &ctx.config.mail.address,
            &f.id,
            &s.key,
        )),
        ..Draft::default()
    };
    super::compose_mail(ctx, &f.id.0, "forming", &draft, now)
}

/// The site commands, for `help`.
pub fn help_text() -> String {
    let mut out = String::from(
        "Commands for the server's own address (no game tag), or in a forming game's thread:\n",
    );
    for (form, what) in FORMS {
        out.push_str(&format!("  {form}\n      {what}\n"));
    }
    out.push_str(&format!("Games: {}.", crate::registry::names()));
    out
}

/// What `new`'s words ask for.
struct NewWords {
    watchable: bool,
    options: Vec<String>,
    reports: crate::store::ReportMode,
    clock: crate::clock::ClockSettings,
    open: bool,
    name: Option<String>,
}

/// Reads `new`'s words for game `entry`: its options (`NAME` or
/// `NAME=VALUE`), deadline settings (`SETTING VALUE`, from `defaults`),
/// `open` and `as NAME`, in any order.
fn read_new(
    entry: &GameEntry,
    defaults: &crate::clock::ClockSettings,
    words: &[String],
) -> Result<NewWords, String> {
    let mut made = NewWords {
        watchable: false,
        options: Vec::new(),
        reports: crate::store::ReportMode::default(),
        clock: defaults.clone(),
        open: false,
        name: None,
    };
    let settings = super::settings::setting_names(entry.name);
    let is_setting =
        |w: &str| settings.split(", ").any(|s| s == w) || crate::clock::wait_of_key(w).is_some();
    let mut i = 0;
    while i < words.len() {
        let w = words[i].to_ascii_lowercase();
        let option_name = w.split('=').next().unwrap_or_default();
        if entry.options.iter().any(|o| o.name == option_name) {
            made.options.push(w.clone());
        } else if w == "open" {
            made.open = true;
        } else if w == "watchable" {
            made.watchable = true;
        } else if w == "reports" {
            i += 1;
            let mode = words
                .get(i)
                .ok_or("`reports` wants full, short or turn after it")?;
            made.reports = crate::store::ReportMode::parse(mode)?;
        } else if w == "as" {
            i += 1;
            let name = words.get(i).ok_or("`as` wants a name after it")?;
            made.name = Some(name.clone());
        } else if is_setting(&w) {
            i += 1;
            let value = words.get(i).ok_or_else(|| {
                format!("the setting `{w}` wants a value after it, e.g. `{w} 72h`")
            })?;
            made.clock = super::settings::set(&made.clock, entry.name, &w, value)?;
        } else {
            let options: Vec<&str> = entry.options.iter().map(|o| o.name).collect();
            return Err(format!(
                "`{}` is neither an option of {} ({}), nor a deadline setting ({settings}), nor reports MODE, open, watchable or as NAME",
                words[i],
                entry.name,
                if options.is_empty() {
                    "none".to_string()
                } else {
                    options.join(", ")
                }
            ));
        }
        i += 1;
    }
    crate::engine::read_options(entry.name, &made.options, entry.options)
        .map_err(|e| e.to_string())?;
    Ok(made)
}

/// Forming game `id`'s expiry, if it is due by `now`: it is forgotten, and
/// each of its players is told. `None` if it is not forming or not due.
pub fn expire(
    ctx: &Ctx<'_>,
    id: &GameId,
    now: DateTime<Utc>,
) -> Result<Option<Change>, ServiceError> {
    let Some(f) = ctx.store.forming(id)? else {
        return Ok(None);
    };
    if f.expires > now {
        return Ok(None);
    }
    let text = format!(
        "{} was not started by {}, and has expired: it will not start, and nothing more will come of it. To play, make a new game: write `new {}` to {}.",
        f.id,
        f.clock.when(f.expires),
        f.kind,
        ctx.config.mail.address
    );
    let mut outbox = Vec::new();
    for seat in 0..f.seats.len() {
        outbox.push(seat_notice(ctx, &f, seat, &text, now)?);
    }
    Ok(Some(Change {
        forming: Some((f.id.clone(), None)),
        outbox,
        ..Change::default()
    }))
}
