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
//!
//! Here, one mail's session: who sent it, each line read and done. Its
//! parts: `command` reads the lines, `proof` decides whom the server
//! answers, `forming` and `invitations` make a game and fill its seats,
//! `status` tells its players where it stands, `watching` and `address`
//! tie an address to a running game, `games` lists an address's games,
//! `reply` answers the mail, and `expiry` forgets a forming game nobody
//! started.

mod address;
mod command;
mod expiry;
mod forming;
mod games;
mod invitations;
mod proof;
mod reply;
mod status;
mod watching;

use chrono::{DateTime, Utc};

use super::{Ctx, ServiceError};
use crate::engine::chatter::Reading;
use crate::mail::OutMail;
use crate::mail::ingest::Incoming;
use crate::store::{Change, Contact, Forming, GameId, Receipt};

pub use address::address_command;
pub use command::{FORMS, SiteCommand, has_command, help_text, parse, vocabulary};
pub use expiry::expire;
pub use games::{BUMP_HOURS, games_text};
pub use invitations::MAX_INVITED;
pub use proof::{Standing, first_mail, first_mail_note, first_mail_subject, standing};
pub use status::status_text;

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

    /// Reads the mail and answers it: the sender's standing first (see the
    /// module doc), then each line, then the reply and the one change.
    fn run(&mut self, mid: &str) -> Result<Outcome, ServiceError> {
        let refused = self.authenticate().err();
        let standing = self.sender_standing()?;
        let game_label = self.forming.as_ref().map(|f| f.id.clone());
        // What the sender's standing lets it have: see the module doc.
        let limited = matches!(standing, Standing::Vouched);
        let why_not = match self.heed(standing) {
            Some(why) => Some(why),
            None => self.over_limits(limited)?,
        };
        if let Some(why) = why_not {
            return self.unanswered(mid, game_label.as_ref(), &why);
        }
        let not_read = match refused {
            Some(why) => {
                self.out.push(format!(
                    "Nothing was done: {why}. Reply to a mail you got about the game, from your own address."
                ));
                Vec::new()
            }
            None => self.read_body(),
        };
        self.close_answer(not_read)?;
        self.finish(mid, limited)
    }

    /// Does each line of the body that is a command, and writes what came
    /// of it; the lines not read as commands.
    fn read_body(&mut self) -> Vec<String> {
        let vocabulary = vocabulary();
        let mut not_read = Vec::new();
        let body = self.body.clone();
        for line in body.iter().map(|l| l.trim()).filter(|l| !l.is_empty()) {
            let (reading, line) = match vocabulary.read_item(line) {
                (Reading::Chatter, _) if parse(line).is_some() => (Reading::Order, line),
                read => read,
            };
            if reading == Reading::Chatter {
                not_read.push(format!("  {line}"));
            } else if !self.hold(line) {
                self.do_line(line);
            }
        }
        not_read
    }

    /// What would bring more mail to an address not proved waits for its
    /// reply with the code: true if `line` is held so.
    fn hold(&mut self, line: &str) -> bool {
        if let (Some(held), Some(Ok(c))) = (&mut self.first, parse(line))
            && matches!(
                c,
                SiteCommand::New { .. } | SiteCommand::Join { .. } | SiteCommand::Watch { .. }
            )
        {
            held.push(line.to_string());
            self.out.push(format!(
                "> {line}\n  held: done when you reply to this mail (see below)"
            ));
            return true;
        }
        false
    }

    /// Does the command on `line`, and writes it and what came of it.
    fn do_line(&mut self, line: &str) {
        let result = match parse(line) {
            None => Err("no command begins so; `help` lists them".to_string()),
            Some(Err(e)) => Err(e),
            Some(Ok(_)) if self.closed.is_some() || self.started.is_some() => {
                Err("not done: the game was started or closed earlier in this mail".to_string())
            }
            Some(Ok(c)) => self.command(&c),
        };
        match result {
            Ok(text) => self
                .out
                .push(format!("> {line}\n  {}", text.replace('\n', "\n  "))),
            Err(why) => self.out.push(format!("> {line}\n  refused: {why}")),
        }
    }

    /// Does command `c`: what to tell the sender, or why it was refused.
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
            SiteCommand::Stats(who) => self.stats(who.as_deref()),
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
}

impl Session<'_, '_> {
    /// `stats [ADDRESS|NAME]`: the sender's own record, or another's
    /// public figures.
    fn stats(&self, who: Option<&str>) -> Result<String, Refusal> {
        use crate::service::records::{RATING_KEY, stats_text};
        stats_text(self.ctx.store, &self.from, who)?
            .map(|text| format!("{text}\n{RATING_KEY}"))
            .map_err(Refusal::Player)
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
