//! Moderator commands, by mail (from a moderator's address with their key)
//! and on the command line (`stationmaster mod GAME …`): pause, resume,
//! extend, deadline, as, skip, undo, replace, abort, resend, preview, note,
//! moderator. Every act goes into the game's log with who, when and why, and
//! is announced to every player.

use chrono::{DateTime, Utc};

use super::pipeline::{self, Stored};
use super::report::{self, MailContext};
use super::{Ctx, ServiceError, orders, scheduler, settings};
use crate::clock::Span;
use crate::engine::{Actor, AnyGame, Seat, Viewer};
use crate::mail::OutMail;
use crate::mail::compose::{self, Draft};
use crate::store::{Change, EntryKind, GameId, GameMeta, GameRecord, LogEntry, effective_orders};

/// A moderator command.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ModCommand {
    /// Stop the clocks; players' orders wait.
    Pause,
    /// Start again; deadlines move by the time paused.
    Resume,
    /// Give every awaited player this much more time.
    Extend(Span),
    /// Set every awaited player's deadline to this time.
    Deadline(DateTime<Utc>),
    /// Give orders for a player (who is told).
    As {
        /// The player.
        player: String,
        /// Their orders.
        orders: Vec<String>,
    },
    /// As if every awaited deadline had passed now.
    Skip,
    /// Roll back the last N orders in effect.
    Undo(u32),
    /// A new person takes a seat, with a new key.
    Replace {
        /// The seat's player.
        player: String,
        /// The new address.
        address: String,
    },
    /// End the game without a result.
    Abort,
    /// Send every player their report again.
    Resend,
    /// Show what a player's orders would do, changing nothing.
    Preview {
        /// The player.
        player: String,
        /// The orders.
        orders: Vec<String>,
    },
    /// A message to every player.
    Note(String),
    /// Add a moderator to this game.
    Moderator(String),
    /// Change a deadline setting of this game (from now on).
    Set {
        /// The setting, as in `[deadlines]`.
        key: String,
        /// Its new value.
        value: String,
    },
    /// How much mail the players who have not chosen get.
    Reports(crate::store::ReportMode),
    /// Anyone may watch the game (`watchable on`), or nobody (`off`: its
    /// observers stop watching, and are told).
    Watchable(bool),
}

/// The forms, for help.
pub const FORMS: &[(&str, &str)] = &[
    (
        "pause",
        "stop the clocks; players' orders are refused meanwhile",
    ),
    (
        "resume",
        "start again; deadlines move on by the time paused",
    ),
    (
        "extend DURATION",
        "give every awaited player more time, e.g. extend 24h",
    ),
    (
        "deadline TIME",
        "set every awaited player's deadline, e.g. deadline 2026-12-01T18:00:00Z",
    ),
    (
        "as PLAYER ORDER; ORDER …",
        "give orders for a player, who is told; `as PLAYER away YYYY-MM-DD to YYYY-MM-DD` or `as PLAYER back` declares or ends their absence",
    ),
    (
        "skip",
        "as if every awaited deadline had passed now (a `wait` policy counts as skip)",
    ),
    (
        "undo [N]",
        "roll back the last N moves (default 1) by replaying the log; a player's mail is undone whole",
    ),
    (
        "replace PLAYER ADDRESS",
        "a new person takes the seat, with a new key",
    ),
    ("abort", "end the game without a result"),
    ("resend", "send every player their report again"),
    (
        "preview PLAYER ORDER; ORDER …",
        "show privately what the orders would do",
    ),
    ("note TEXT", "a message to every player"),
    ("moderator ADDRESS", "add a moderator to this game"),
    (
        "set SETTING VALUE",
        "change a deadline setting: turn, question, bid (or the game's names for them), time_zone, round_to_hour, skip_days, reminders, policy, replace_after, away_max",
    ),
    (
        "reports MODE",
        "how much mail players who have not chosen get (the game's default): full, short or turn",
    ),
    (
        "watchable on",
        "anyone may follow the game from now on with `watch GAME` (the spectator's view)",
    ),
    (
        "watchable off",
        "nobody may watch the game: its observers stop watching, and each is told",
    ),
];

fn split_orders(text: &str) -> Vec<String> {
    text.split([';', '\n'])
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .map(str::to_string)
        .collect()
}

/// Reads one command: `extend 24h`, `as alice extend GWR D14; token london steel`.
pub fn parse(text: &str) -> Result<ModCommand, String> {
    let text = text.trim();
    let (word, rest) = text.split_once(char::is_whitespace).unwrap_or((text, ""));
    let rest = rest.trim();
    let need = |what: &str| -> Result<(), String> {
        if rest.is_empty() {
            Err(format!("`{word}` needs {what}"))
        } else {
            Ok(())
        }
    };
    let player_and_rest = || -> Result<(String, String), String> {
        let (p, r) = rest.split_once(char::is_whitespace).ok_or_else(|| {
            // The whole form, as help lists it: `replace PLAYER ADDRESS`.
            let lower = word.to_ascii_lowercase();
            let form = FORMS
                .iter()
                .map(|(f, _)| *f)
                .find(|f| f.split_whitespace().next() == Some(lower.as_str()))
                .unwrap_or("PLAYER …");
            format!("`{text}` is incomplete: write `{form}`")
        })?;
        Ok((p.to_string(), r.trim().to_string()))
    };
    match word.to_ascii_lowercase().as_str() {
        "pause" => Ok(ModCommand::Pause),
        "resume" => Ok(ModCommand::Resume),
        "extend" => {
            need("a duration, e.g. 24h")?;
            match Span::parse(rest)? {
                Span(0) => Err(format!(
                    "`extend {rest}` gives nobody more time: say how much more, e.g. extend 24h"
                )),
                span => Ok(ModCommand::Extend(span)),
            }
        }
        "deadline" => {
            need("a time, e.g. 2026-12-01T18:00:00Z")?;
            DateTime::parse_from_rfc3339(rest)
                .map(|t| ModCommand::Deadline(t.with_timezone(&Utc)))
                .map_err(|_| format!("`{rest}` is not a time such as 2026-12-01T18:00:00Z"))
        }
        "as" => {
            let (player, orders) = player_and_rest()?;
            Ok(ModCommand::As {
                player,
                orders: split_orders(&orders),
            })
        }
        "skip" => Ok(ModCommand::Skip),
        "undo" => {
            let n = if rest.is_empty() {
                1
            } else {
                rest.parse()
                    .map_err(|_| format!("`{rest}` is not a number of orders"))?
            };
            if n == 0 {
                return Err("undo 0 does nothing".to_string());
            }
            Ok(ModCommand::Undo(n))
        }
        "replace" => {
            let (player, address) = player_and_rest()?;
            // `replace PLAYER bot`: the seat to the engine's bot.
            let address = address
                .strip_prefix("by ")
                .map_or(address.as_str(), str::trim)
                .to_string();
            if !super::bots::is_bot_address(&address) {
                compose::check_address(&address).map_err(|e| e.to_string())?;
            }
            Ok(ModCommand::Replace { player, address })
        }
        "abort" => Ok(ModCommand::Abort),
        "resend" => Ok(ModCommand::Resend),
        "preview" => {
            let (player, orders) = player_and_rest()?;
            Ok(ModCommand::Preview {
                player,
                orders: split_orders(&orders),
            })
        }
        "note" => {
            need("a text")?;
            Ok(ModCommand::Note(rest.to_string()))
        }
        "moderator" => {
            compose::check_address(rest).map_err(|e| e.to_string())?;
            Ok(ModCommand::Moderator(rest.to_string()))
        }
        "set" => {
            let (key, value) = player_and_rest()
                .map_err(|_| "write `set SETTING VALUE`, e.g. set turn 72h".to_string())?;
            Ok(ModCommand::Set { key, value })
        }
        "reports" => {
            need("full, short or turn")?;
            crate::store::ReportMode::parse(rest).map(ModCommand::Reports)
        }
        "watchable" => match rest.to_ascii_lowercase().as_str() {
            "on" => Ok(ModCommand::Watchable(true)),
            "off" => Ok(ModCommand::Watchable(false)),
            _ => Err("write `watchable on` or `watchable off`".to_string()),
        },
        other => {
            let forms: Vec<&str> = FORMS.iter().map(|(f, _)| *f).collect();
            Err(format!(
                "`{other}` is not a moderator command; they are: {}",
                forms.join(", ")
            ))
        }
    }
}

/// The one line of `as PLAYER …` if it is the player's absence, `away
/// DATE to DATE` or `back`, which is no order but a command of theirs.
fn absence_line(lines: &[String]) -> Option<&str> {
    match lines {
        [line] => {
            let first = line.split_whitespace().next()?.to_ascii_lowercase();
            (first == "away" || (first == "back" && line.split_whitespace().count() == 1))
                .then_some(line.as_str())
        }
        _ => None,
    }
}

/// What a command did: the change to commit and what to tell the moderator.
pub struct ModOutcome {
    /// To commit (nothing for `preview`).
    pub change: Change,
    /// For the moderator.
    pub output: String,
}

/// The mail that gives a moderator their key for a game.
pub fn welcome(
    ctx: &Ctx<'_>,
    id: &GameId,
    (record, meta): (&GameRecord, &GameMeta),
    address: &str,
    token: &str,
    now: DateTime<Utc>,
) -> Result<OutMail, ServiceError> {
    // Who finishes games: the game master's first look at the table.
    let finished = super::records::finished_line(ctx.store, record, meta)?;
    let forms: Vec<String> = FORMS
        .iter()
        .map(|(f, w)| format!("  {f:<32} {w}"))
        .collect();
    let text = format!(
        "You moderate {id}. Reply to this mail (its subject tag and reply address carry your key) with one command a line; a line `why TEXT` gives the reason for the commands after it. One command that changes the game per mail (a `note` too); `preview` may come with it.\n\n{finished}\n\n{}\n\nOn the server: stationmaster mod {id} COMMAND\n\n-- \nStationmaster, for {id}.\n",
        forms.join("\n")
    );
    // The root of this moderator's thread: every later mail to them about
    // the game carries the same subject (see `report::moderator_thread`).
    let draft = Draft {
        to: address.to_string(),
        subject: format!("[{id} {token}] You moderate {id}"),
        html: Some(report::notice_html(ctx, &text, None)?),
        text,
        reply_to: Some(report::reply_address(&ctx.config.mail.address, id, token)),
        ..Draft::default()
    };
    // Linked here: a new game's moderators are welcomed before it is stored.
    let reader = super::page_address::Reader::Table;
    let draft = super::page_address::page_url(ctx.config, record, meta, reader)
        .and_then(|url| super::page_address::linked(&id.0, &url, &draft))
        .unwrap_or(draft);
    super::compose_mail(ctx, &id.0, "modkey", &draft, now)
}

/// A key for `address`, one of the site's moderators (`[site]
/// moderators`), in game `id` where they have none: a moderator added to
/// the config after the game began gets their key mail as one there at its
/// start did (docs/game-masters.md, "Moderating"). None where they have
/// a key, or the game is over. The log says who got a key; the players are not mailed.
pub fn key_site_moderator(
    ctx: &Ctx<'_>,
    id: &GameId,
    address: &str,
    now: DateTime<Utc>,
) -> Result<Option<Change>, ServiceError> {
    let key = address.to_ascii_lowercase();
    let mut meta = ctx.store.meta(id)?;
    if meta.moderator_tokens.contains_key(&key) || meta.aborted {
        return Ok(None);
    }
    let loaded = ctx.store.load(id)?;
    if report::ended(ctx.store, id, &meta, &*loaded.game)?.is_some() {
        return Ok(None);
    }
    let token = super::new_token()?;
    let mail = welcome(ctx, id, (&loaded.record, &meta), address, &token, now)?;
    meta.moderator_welcome_ids
        .insert(key.clone(), mail.message_id.clone());
    meta.moderator_tokens.insert(key, token);
    // Only the keys change: the clock (and its place in the scheduler's
    // index, a paused game's none) stays as it was.
    let mut update = super::pipeline::meta_update(id, &loaded, meta)?;
    update.push(act_entry(
        "operator",
        &format!("moderator {address} (a moderator of the site): key sent"),
        None,
        EntryKind::Act,
        loaded.game.turn_number(),
        now,
    ));
    Ok(Some(Change {
        update: Some(update),
        outbox: vec![mail],
        ..Change::default()
    }))
}

/// A page rendered for `player`'s eyes, relabelled for a moderator who
/// reads it: the lines the game words to its reader (`Your money: …`) name
/// the player instead (`bob's money: …`).
fn as_seen_by(page: &str, player: &str) -> String {
    page.lines()
        .map(|line| match line.strip_prefix("Your ") {
            Some(rest) => format!("{player}'s {rest}\n"),
            None => format!("{line}\n"),
        })
        .collect()
}

/// True if `e` was given for a player passed over: at a missed deadline,
/// or at a moderator's `skip` (its reason says which).
fn passed_over(e: &LogEntry) -> bool {
    e.why.as_deref().is_some_and(|w| {
        w.starts_with("missed the deadline of their") || w.starts_with("was skipped by moderator ")
    }) && matches!(e.source, Some(Actor::Deadline | Actor::Moderator(_)))
}

/// The orders in effect as moves: each order one, except that the orders
/// given at once for one player passed over (a turn's default orders, or
/// its skip) are one move together, as the moderator saw them happen.
fn moves_of<'e>(effective: &[&'e LogEntry]) -> Vec<Vec<&'e LogEntry>> {
    let mut moves: Vec<Vec<&LogEntry>> = Vec::new();
    for e in effective {
        if let Some(last) = moves.last_mut()
            && let Some(prev) = last.last()
            && passed_over(e)
            && passed_over(prev)
            && prev.seat == e.seat
            && prev.at == e.at
            && prev.source == e.source
            && prev.why == e.why
        {
            last.push(e);
            continue;
        }
        moves.push(vec![e]);
    }
    moves
}

/// True if `a` and `b` were applied by one player's mail when it was read:
/// the same mail, at the same moment (an order it held, applied when a
/// later change brought its moment, is a move of its own).
fn same_mail(a: &LogEntry, b: &LogEntry) -> bool {
    matches!(a.source, Some(Actor::Mail(_))) && a.source == b.source && a.at == b.at
}

/// Where an undo of `moves` from `first` on really starts: a player's mail
/// is undone whole (issue 38), so a cut into the orders one mail applied
/// moves back to the first of them (and, through the orders between, to
/// the first of any other mail those belong to).
fn whole_mails(moves: &[Vec<&LogEntry>], mut first: usize) -> usize {
    while first > 0
        && moves[first - 1].iter().any(|before| {
            moves[first..]
                .iter()
                .flatten()
                .any(|after| same_mail(before, after))
        })
    {
        first -= 1;
    }
    first
}

/// The moves undone as players read them: each player's mail as one
/// (`bob's mail (token Manchester textiles; extend L&Y B4)`), every other
/// move as [`undone_text`] words it.
fn undone_texts(undone: &[Vec<&LogEntry>]) -> Vec<String> {
    let mut groups: Vec<Vec<&LogEntry>> = Vec::new();
    for m in undone {
        if let [e] = m.as_slice()
            && let Some(group) = groups
                .iter_mut()
                .find(|g| g.first().is_some_and(|f| same_mail(f, e)))
        {
            group.push(e);
            continue;
        }
        groups.push(m.clone());
    }
    groups
        .iter()
        .map(|g| match g.as_slice() {
            [first, _, ..] if matches!(first.source, Some(Actor::Mail(_))) => {
                let orders: Vec<&str> = g.iter().map(|e| e.order.as_str()).collect();
                format!("{}'s mail ({})", first.player, orders.join("; "))
            }
            _ => undone_text(g),
        })
        .collect()
}

/// A move undone, as players read it: `bob: extend GWR D14`; `bob's turn,
/// skipped by moderator gm@example.org`; `bob's turn, played for them at
/// its missed deadline (token Manchester steel; token Manchester
/// textiles)`. Never `!skip`, which only replays a skip (docs/players.md,
/// "Deadlines").
fn undone_text(m: &[&LogEntry]) -> String {
    let Some(first) = m.first() else {
        return String::new();
    };
    let orders: Vec<&str> = m.iter().map(|e| e.order.as_str()).collect();
    if !passed_over(first) {
        return orders
            .iter()
            .map(|o| format!("{}: {o}", first.player))
            .collect::<Vec<_>>()
            .join("; ");
    }
    // `missed the deadline of their veto question (…)`: what was missed.
    let what = first
        .why
        .as_deref()
        .and_then(|w| w.strip_prefix("missed the deadline of their "))
        .and_then(|w| w.split_once(" (").map(|(what, _)| what))
        .unwrap_or("turn");
    let by = match &first.source {
        Some(s @ Actor::Moderator(_)) => format!("by {s}"),
        _ => "at its missed deadline".to_string(),
    };
    if orders.iter().all(|o| *o == crate::engine::SKIP_ORDER) {
        format!("{}'s {what}, skipped {by}", first.player)
    } else {
        format!(
            "{}'s {what}, played for them {by} ({})",
            first.player,
            orders
                .iter()
                .filter(|o| **o != crate::engine::SKIP_ORDER)
                .copied()
                .collect::<Vec<_>>()
                .join("; ")
        )
    }
}

/// The seat of the player called `name`; one who does not play in the
/// game is [`ServiceError::UnknownPlayer`].
fn seat_named(ctx: &Ctx<'_>, id: &GameId, name: &str) -> Result<Seat, ServiceError> {
    ctx.store
        .record(id)?
        .seat_named(name)
        .map_err(ServiceError::UnknownPlayer)
}

/// A log entry for moderator `by`'s act.
fn act_entry(
    by: &str,
    text: &str,
    why: Option<&str>,
    kind: EntryKind,
    turn: u32,
    now: DateTime<Utc>,
) -> LogEntry {
    let who = Actor::Moderator(by.to_string());
    let mut entry = LogEntry::act(
        Seat(0),
        who.to_string(),
        text.to_string(),
        who,
        kind,
        now,
        turn,
    );
    entry.why = why.map(str::to_string);
    entry
}

/// Runs one command of moderator `by` on game `id`.
pub fn run(
    ctx: &Ctx<'_>,
    id: &GameId,
    by: &str,
    cmd: &ModCommand,
    why: Option<&str>,
    now: DateTime<Utc>,
) -> Result<ModOutcome, ServiceError> {
    let stored = Stored::load(ctx, id)?;
    // A game that is over (aborted, or finished by its rules) can still be
    // talked about and its reports sent again; nothing else makes sense.
    if !matches!(cmd, ModCommand::Resend | ModCommand::Note(_))
        && let Some(ended) = report::ended(ctx.store, id, &stored.meta, &*stored.loaded.game)?
    {
        return Err(ServiceError::Invalid(format!(
            "{id} {}: it is over, and only `note` and `resend` can still be used",
            ended.what(&stored.meta.clock.settings)
        )));
    }
    let mut act = Act::new(ctx, id, by, why, &stored, now);
    let output = match cmd {
        ModCommand::Pause => act.pause()?,
        ModCommand::Resume => act.resume()?,
        ModCommand::Extend(span) => act.extend(*span),
        ModCommand::Deadline(t) => act.deadline(*t)?,
        ModCommand::As { player, orders } => match absence_line(orders) {
            Some(line) => act.absence(player, line)?,
            None => return act.give_orders(cmd, player, orders),
        },
        ModCommand::Skip => return act.skip(),
        ModCommand::Undo(n) => act.undo(*n)?,
        ModCommand::Replace { player, address } => act.replace(player, address)?,
        ModCommand::Abort => act.abort()?,
        ModCommand::Resend => "Every player's report was sent again.".to_string(),
        ModCommand::Preview { player, orders } => return act.preview(player, orders),
        ModCommand::Note(text) => {
            act.all(format!("A note from a moderator: {text}"));
            "Note sent to every player.".to_string()
        }
        ModCommand::Set { key, value } => act.set(key, value)?,
        ModCommand::Reports(mode) => act.reports(*mode),
        ModCommand::Watchable(on) => act.watchable(*on)?,
        ModCommand::Moderator(address) => act.moderator(address)?,
    };
    act.write(cmd, output)
}

/// The act itself as the log reads it: `extend 24h`, `as bob: …`; None
/// for a command whose entries say it (`undo`), or that is no act.
fn act_text(cmd: &ModCommand) -> Option<String> {
    match cmd {
        ModCommand::Undo(_) => None,
        ModCommand::As { player, orders } => Some(format!("as {player}: {}", orders.join("; "))),
        ModCommand::Note(t) => Some(format!("note: {t}")),
        ModCommand::Extend(s) => Some(format!("extend {s}")),
        ModCommand::Deadline(t) => Some(format!("deadline {}", t.to_rfc3339())),
        ModCommand::Replace { player, address } => Some(format!("replace {player} by {address}")),
        ModCommand::Moderator(a) => Some(format!("moderator {a}")),
        ModCommand::Set { key, value } => Some(format!("set {key} {value}")),
        ModCommand::Reports(m) => Some(format!("reports {}", m.name())),
        ModCommand::Watchable(on) => Some(format!("watchable {}", if *on { "on" } else { "off" })),
        ModCommand::Pause => Some("pause".to_string()),
        ModCommand::Resume => Some("resume".to_string()),
        ModCommand::Abort => Some("abort".to_string()),
        ModCommand::Resend => None,
        ModCommand::Skip | ModCommand::Preview { .. } => None,
    }
}

/// One command of a moderator's under way: who acts on which game and
/// why, and what the command has changed so far, written at the end by
/// [`pipeline::apply`].
struct Act<'a, 'c> {
    ctx: &'a Ctx<'c>,
    id: &'a GameId,
    /// The moderator.
    by: &'a str,
    /// Their reason.
    why: Option<&'a str>,
    /// The reason as the players' notes end: ` (REASON)`.
    because: String,
    now: DateTime<Utc>,
    /// The game as stored.
    stored: &'a Stored,
    /// Every player's name, in seat order.
    names: Vec<String>,
    /// The bookkeeping as the command leaves it.
    meta: GameMeta,
    /// The game as the command leaves it (an undo replays it).
    game: Box<dyn AnyGame>,
    /// What the players are told.
    notes: Vec<(Seat, String)>,
    /// Log entries after the act's own (an undo's).
    then: Vec<LogEntry>,
    /// Mails before the reports, contacts, the address index.
    with: Change,
}

impl<'a, 'c> Act<'a, 'c> {
    fn new(
        ctx: &'a Ctx<'c>,
        id: &'a GameId,
        by: &'a str,
        why: Option<&'a str>,
        stored: &'a Stored,
        now: DateTime<Utc>,
    ) -> Act<'a, 'c> {
        Act {
            ctx,
            id,
            by,
            why,
            because: why.map(|w| format!(" ({w})")).unwrap_or_default(),
            now,
            stored,
            names: stored.loaded.game.player_names(),
            meta: stored.meta.clone(),
            game: stored.loaded.game.clone_box(),
            notes: Vec::new(),
            then: Vec::new(),
            with: Change::default(),
        }
    }

    fn record(&self) -> &GameRecord {
        &self.stored.loaded.record
    }

    fn turn(&self) -> u32 {
        self.stored.loaded.game.turn_number()
    }

    /// `cmd` as the log reads it, before what it caused.
    fn act_of(&self, cmd: &ModCommand) -> Option<LogEntry> {
        act_text(cmd)
            .map(|t| act_entry(self.by, &t, self.why, EntryKind::Act, self.turn(), self.now))
    }

    /// `text`, told to every player.
    fn all(&mut self, text: String) {
        for s in 0..self.names.len() {
            self.notes.push((Seat(s as u8), text.clone()));
        }
    }

    /// The command's change, written (`cmd` in the log before what it
    /// caused), and `output` for the moderator.
    fn write(self, cmd: &ModCommand, output: String) -> Result<ModOutcome, ServiceError> {
        let act = self.act_of(cmd);
        let options = pipeline::Options {
            notes: self.notes,
            then: self.then,
            act,
            to: Some(if *cmd == ModCommand::Resend {
                pipeline::Recipients::Every
            } else {
                pipeline::Recipients::All
            }),
            with: self.with,
            ..pipeline::Options::default()
        };
        let input = pipeline::Input::Made {
            game: self.game,
            meta: self.meta,
            batch: orders::Batch::default(),
        };
        let actor = Actor::Moderator(self.by.to_string());
        let (ctx, id, stored, now) = (self.ctx, self.id, self.stored, self.now);
        match pipeline::apply(ctx, id, stored, input, actor, options, now)? {
            Ok(applied) => Ok(ModOutcome {
                change: applied.change,
                output,
            }),
            // A change made is never refused.
            Err(rejected) => Err(ServiceError::Invalid(rejected.to_string())),
        }
    }

    fn pause(&mut self) -> Result<String, ServiceError> {
        if self.meta.paused.is_some() {
            return Err(ServiceError::Invalid(format!(
                "{} is paused already",
                self.id
            )));
        }
        self.meta.paused = Some(self.now);
        self.meta.paused_by = Some(self.by.to_string());
        self.all(format!(
            "A moderator paused the game{}. Orders are refused until it \
             resumes: send them again then.",
            self.because
        ));
        Ok(format!("{} is paused.", self.id))
    }

    fn resume(&mut self) -> Result<String, ServiceError> {
        let Some(since) = self.meta.paused.take() else {
            return Err(ServiceError::Invalid(format!("{} is not paused", self.id)));
        };
        self.meta.paused_by = None;
        let paused = self.now - since;
        self.meta.clock.move_running(|t| t + paused);
        self.all(format!(
            "A moderator resumed the game{}; deadlines moved on by the time it was paused.",
            self.because
        ));
        Ok(format!(
            "{} resumed; deadlines moved on by {}.",
            self.id,
            crate::clock::duration_words(paused)
        ))
    }

    fn extend(&mut self, span: Span) -> String {
        self.meta.clock.move_running(|t| t + span.duration());
        for w in self.meta.clock.waits.iter_mut() {
            w.late = false;
        }
        self.all(format!(
            "A moderator gave every awaited player {span} more{}.",
            self.because
        ));
        format!("Deadlines extended by {span}.")
    }

    fn deadline(&mut self, t: DateTime<Utc>) -> Result<String, ServiceError> {
        if t <= self.now {
            return Err(ServiceError::Invalid("that time has passed".to_string()));
        }
        self.meta.clock.move_running(|_| t);
        for w in self.meta.clock.waits.iter_mut() {
            w.late = false;
        }
        self.all(format!(
            "A moderator set the deadline to {}{}.",
            self.meta.clock.settings.describe(t, self.now),
            self.because
        ));
        Ok(format!("Deadline set to {t}."))
    }

    /// `as PLAYER away … to …` / `as PLAYER back`: the absence a player
    /// would declare by mail, declared for them (one who phoned, say);
    /// everyone is told, as for the player's own.
    fn absence(&mut self, player: &str, line: &str) -> Result<String, ServiceError> {
        let seat = seat_named(self.ctx, self.id, player)?;
        let because = self.because.clone();
        if line.eq_ignore_ascii_case("back") {
            self.meta.clock.back(seat, self.now);
            self.all(format!(
                "A moderator marked {player} as back{because}; their deadlines run as usual."
            ));
            return Ok(format!("{player} is back; their deadlines run as usual."));
        }
        let a = crate::clock::parse_away(&self.meta.clock.settings, line, self.now)
            .map_err(|why| ServiceError::Invalid(format!("{line}: {why}")))?;
        let text = self.meta.clock.away(seat, player, a, self.now);
        self.all(format!(
            "A moderator declared an absence for {player}{because}: {text}"
        ));
        Ok(text)
    }

    /// `as PLAYER ORDER; …`: the orders, as the player's would be (held
    /// for their moment, or all refused), and the player told.
    fn give_orders(
        self,
        cmd: &ModCommand,
        player: &str,
        lines: &[String],
    ) -> Result<ModOutcome, ServiceError> {
        let seat = seat_named(self.ctx, self.id, player)?;
        let options = pipeline::Options {
            given_for: Some((
                seat,
                format!("A moderator gave orders for you{}", self.because),
            )),
            act: self.act_of(cmd),
            to: Some(pipeline::Recipients::All),
            ..pipeline::Options::default()
        };
        let input = pipeline::Input::Lines {
            seat,
            lines,
            meta: self.meta,
        };
        let actor = Actor::Moderator(self.by.to_string());
        let (ctx, id, stored, now) = (self.ctx, self.id, self.stored, self.now);
        let applied =
            pipeline::apply(ctx, id, stored, input, actor, options, now)?.map_err(|rejected| {
                ServiceError::Invalid(format!(
                    "nothing applied for {player}: order {}: {}",
                    rejected.line_no, rejected.rejected
                ))
            })?;
        Ok(ModOutcome {
            output: gave_orders_text(player, &applied.batch, &self.names),
            change: applied.change,
        })
    }

    /// `skip`: every awaited player passed over as at a missed deadline,
    /// the skip in the log before them.
    fn skip(self) -> Result<ModOutcome, ServiceError> {
        let (ctx, id, by, why, now) = (self.ctx, self.id, self.by, self.why, self.now);
        // Who was passed over, and whom the game waits for after it:
        // the moderator is told by name, as the players are.
        let skipped = report::awaited_names(&*self.stored.loaded.game, Viewer::Moderator);
        let mut change = scheduler::skip_awaited_because(ctx, id, by, why, now)?;
        let mut after = String::new();
        if let Some(u) = &mut change.update {
            u.push_first(act_entry(by, "skip", why, EntryKind::Act, self.turn(), now));
            if let Ok(g) =
                crate::registry::from_snapshot(&self.record().setup.kind, u.state_version, &u.state)
            {
                after = format!(" {id}: {}.", report::headline(&*g));
            }
        }
        let output = if skipped.is_empty() {
            format!("Nobody was awaited in {id}: nothing to skip.")
        } else {
            format!("Skipped: {}.{after}", skipped.join(", "))
        };
        Ok(ModOutcome { change, output })
    }

    /// `undo N`: the last N moves in effect rolled back by replaying the
    /// log with the undo in it, a player's mail whole; every waiting order
    /// is dropped.
    fn undo(&mut self, n: u32) -> Result<String, ServiceError> {
        let log = self.ctx.store.log(self.id)?;
        let effective = effective_orders(&log);
        // A turn the game played for a player passed over (its
        // default orders, or its skip) is one move, undone whole.
        let moves = moves_of(&effective);
        if (n as usize) > moves.len() {
            return Err(ServiceError::Invalid(format!(
                "only {} moves can be undone",
                moves.len()
            )));
        }
        let asked = moves.len() - n as usize;
        let first = whole_mails(&moves, asked);
        let undone_moves = &moves[first..];
        let count: usize = undone_moves.iter().map(|m| m.len()).sum();
        let undone = undone_texts(undone_moves);
        let entry = act_entry(
            self.by,
            &format!("undo {n}"),
            self.why,
            EntryKind::Undo {
                count: count as u32,
            },
            self.turn(),
            self.now,
        );
        let mut with = log.clone();
        with.push(entry.clone());
        self.game = self.ctx.store.replay(self.id, &with)?;
        self.then.push(entry);
        for q in self.meta.queued.iter_mut() {
            *q = crate::store::Held::default();
        }
        let because = &self.because;
        let told = match undone.as_slice() {
            [one] => {
                format!("A moderator undid {one}{because}. The game is back where it was before.")
            }
            _ => format!(
                "A moderator undid the last {} moves{because}: {}. The game is back where it was before them.",
                undone.len(),
                undone.join("; ")
            ),
        };
        self.all(told);
        let whole = if first < asked {
            " A player's mail is undone whole, with every order it applied: more than the moves you named."
        } else {
            ""
        };
        Ok(format!("Undone: {}.{whole}", undone.join("; ")))
    }

    /// `replace PLAYER ADDRESS`: the seat to a new address with a new key
    /// and a welcome; the one who leaves it is told.
    fn replace(&mut self, player: &str, given: &str) -> Result<String, ServiceError> {
        let (ctx, id) = (self.ctx, self.id);
        let seat = seat_named(ctx, id, player)?;
        let record = self.stored.loaded.record.clone();
        if super::bots::is_bot_address(given) {
            return self.replace_by_bot(&record, seat, player);
        }
        // docs/operators.md, "Security": the address a seat may take.
        let address = &super::unasked::recipient(ctx, given).map_err(ServiceError::Invalid)?;
        if let Some(why) =
            super::unasked::seat_refusal(ctx, &record, &self.meta, address, Some(seat))
        {
            return Err(ServiceError::Invalid(why));
        }
        let old = self.meta.address(&record, seat).to_string();
        // The leaving player's thread, before their key goes.
        let old_thread = report::player_thread(ctx, id, &record, &self.meta, seat);
        let from_bot = self.meta.is_bot(seat);
        self.with.readdress = Some((old.clone(), given.to_string()));
        self.give_seat(&record, seat, address)?;
        self.meta.set_bot(seat, false);
        self.all(format!(
            "A moderator gave {player}'s seat to {address}{}.",
            self.because
        ));
        self.welcome_successor(&record, seat)?;
        if from_bot {
            return Ok(format!(
                "{player}'s seat now goes to {address} with a new key (welcome mail queued); the bot no longer plays it."
            ));
        }
        let text = format!(
            "Your seat has a new player: a moderator gave your seat in {id} to {address}{}.\nYour key no longer works. Thank you for playing.\n\n-- \nStationmaster, for {id}.\n",
            self.because
        );
        self.tell_leaving(old, old_thread, text)?;
        Ok(format!(
            "{player}'s seat now goes to {address} with a new key (welcome mail queued)."
        ))
    }

    /// `replace PLAYER bot`: the seat to the engine's bot, which plays it
    /// at once whenever the game awaits it; the one who leaves it is told.
    /// Back to a person with `replace PLAYER ADDRESS`.
    fn replace_by_bot(
        &mut self,
        record: &GameRecord,
        seat: Seat,
        player: &str,
    ) -> Result<String, ServiceError> {
        let (ctx, id) = (self.ctx, self.id);
        if self.meta.is_bot(seat) {
            return Err(ServiceError::Invalid(format!(
                "the bot plays {player}'s seat already"
            )));
        }
        let people = (0..self.names.len())
            .filter(|s| *s != seat.index() && !self.meta.is_bot(Seat(*s as u8)))
            .count();
        if people == 0 {
            return Err(ServiceError::Invalid(format!(
                "{player} is the last person in the game: a game of bots alone is no game"
            )));
        }
        let old = self.meta.address(record, seat).to_string();
        let old_thread = report::player_thread(ctx, id, record, &self.meta, seat);
        let bot = super::bots::BOT_ADDRESS;
        self.with.readdress = Some((old.clone(), bot.to_string()));
        self.give_seat(record, seat, bot)?;
        self.meta.set_bot(seat, true);
        self.all(format!(
            "A moderator gave {player}'s seat to the bot{}: it plays {player}'s turns from now on.",
            self.because
        ));
        let text = format!(
            "A moderator gave your seat in {id} to the bot{}: it plays your turns from now on.\nYour key no longer works. Thank you for playing.\n\n-- \nStationmaster, for {id}.\n",
            self.because
        );
        self.tell_leaving(old, old_thread, text)?;
        Ok(format!(
            "{player}'s seat is now the bot's: it plays whenever the game awaits {player}."
        ))
    }

    /// The mail to the player who leaves a seat, in their thread.
    fn tell_leaving(
        &mut self,
        old: String,
        old_thread: report::Thread,
        text: String,
    ) -> Result<(), ServiceError> {
        let (ctx, id, now) = (self.ctx, self.id, self.now);
        let (in_reply_to, references) = old_thread.threading(None);
        let draft = Draft {
            to: old,
            subject: old_thread.subject(false),
            html: Some(report::notice_html(ctx, &text, None)?),
            text,
            in_reply_to,
            references,
            ..Draft::default()
        };
        self.with
            .outbox
            .push(super::compose_mail(ctx, &id.0, "replaced", &draft, now)?);
        Ok(())
    }

    /// `seat`'s bookkeeping to `address`: a new key, the leaving player's
    /// other addresses gone with them, their run of misses ended.
    fn give_seat(
        &mut self,
        record: &GameRecord,
        seat: Seat,
        address: &str,
    ) -> Result<(), ServiceError> {
        let meta = &mut self.meta;
        if meta.addresses.len() < self.names.len() {
            meta.addresses.resize(self.names.len(), String::new());
        }
        meta.addresses[seat.index()] = address.to_string();
        meta.tokens[seat.index()] = super::new_token()?;
        // The addresses the leaving player added go with them.
        if let Some(others) = meta.other_addresses.get_mut(seat.index()) {
            let gone = std::mem::take(others);
            for a in gone {
                if meta.seats_from(record, &a).is_empty() {
                    self.with.index.push((a, false));
                }
            }
        }
        meta.clock.run_of_misses_ends(seat);
        // The autopilot was the leaving player's choice.
        meta.set_autopilot(seat, false);
        Ok(())
    }

    /// The welcome of the one who takes `seat`, the root of their thread.
    fn welcome_successor(&mut self, record: &GameRecord, seat: Seat) -> Result<(), ServiceError> {
        let mail = MailContext {
            welcome: true,
            successor: true,
            ..MailContext::default()
        };
        if self.meta.welcome_ids.len() < self.names.len() {
            self.meta
                .welcome_ids
                .resize(self.names.len(), String::new());
        }
        // A new thread for the new player: no root until their welcome.
        self.meta.welcome_ids[seat.index()] = String::new();
        let welcome = report::player_mail(
            self.ctx,
            self.id,
            record,
            &self.meta,
            &*self.game,
            &report::Board::new(self.ctx, &*self.game, &[]),
            seat,
            mail,
            None,
            self.now,
        )?;
        self.meta.welcome_ids[seat.index()] = welcome.message_id.clone();
        self.with.outbox.push(welcome);
        Ok(())
    }

    fn abort(&mut self) -> Result<String, ServiceError> {
        self.meta.aborted = true;
        self.meta.paused = None;
        self.meta.paused_by = None;
        // As `report::ended` reads it back from the act logged below.
        let ended = report::Ended::Aborted {
            at: self.now,
            by: self.by.to_string(),
            why: self.why.map(str::to_string),
        };
        self.with.outbox.extend(report::game_over_to_moderators(
            self.ctx,
            self.id,
            self.record(),
            &self.meta,
            &*self.game,
            (&ended, None),
            &report::Board::new(self.ctx, &*self.game, &[]),
            self.now,
        )?);
        // No note: every mail about the game now opens with the abort,
        // by whom, when and why (`Ended::headline`), and its log line
        // follows; a note would say it a third time.
        Ok(format!("{} aborted.", self.id))
    }

    /// `preview PLAYER ORDER; …`: what the orders would do, seen as the
    /// player would see it; nothing changes.
    fn preview(self, player: &str, lines: &[String]) -> Result<ModOutcome, ServiceError> {
        let seat = seat_named(self.ctx, self.id, player)?;
        let by = Actor::Moderator(self.by.to_string());
        let text = match orders::run(&*self.game, &self.meta, seat, lines, &by) {
            Ok((g, _, b)) => preview_text(&*g, &b, seat, player, &self.names)?,
            Err(e) => format!(
                "Refused, nothing would be applied: order {}: {}\n",
                e.line_no, e.rejected
            ),
        };
        Ok(ModOutcome {
            change: Change::default(),
            output: format!("Preview for {player} (nothing changed):\n{text}"),
        })
    }

    fn set(&mut self, key: &str, value: &str) -> Result<String, ServiceError> {
        self.meta.clock.settings = settings::set(
            &self.meta.clock.settings,
            &self.record().setup.kind,
            key,
            value,
        )
        .map_err(ServiceError::Unreadable)?;
        self.all(format!(
            "A moderator changed the deadline setting {key} to {value}{}; {}.",
            self.because,
            settings::set_applies(key)
        ));
        Ok(format!("{key} is now {value}."))
    }

    fn reports(&mut self, mode: crate::store::ReportMode) -> String {
        self.meta.default_reports = mode;
        self.all(format!(
            "A moderator set this game's reports to `{}`{}: {}, unless you chose otherwise with `reports full|short|turn`.",
            mode.name(),
            self.because,
            mode.describe()
        ));
        format!(
            "{}'s reports are now `{}` for players who have not chosen.",
            self.id,
            mode.name()
        )
    }

    fn watchable(&mut self, on: bool) -> Result<String, ServiceError> {
        let id = self.id;
        if self.meta.watchable == on {
            return Err(ServiceError::Invalid(format!(
                "{id} is {} already",
                if on { "watchable" } else { "not watchable" }
            )));
        }
        self.meta.watchable = on;
        if on {
            self.all(format!(
                "A moderator made this game watchable{}: anyone may follow it with `watch {id}`, seeing the board as a spectator does (nobody's private holdings, no private messages).",
                self.because
            ));
            return Ok(format!("{id} is watchable: anyone may `watch {id}`."));
        }
        // Off means nobody watches: a game master closes the game
        // to spectators, not only to new ones.
        let dropped = std::mem::take(&mut self.meta.observers);
        for o in &dropped {
            let mut contact = self.ctx.store.contact(&o.address)?;
            contact.watching.retain(|g| *g != id.0);
            self.with.contacts.push((o.address.clone(), contact));
            let text = format!(
                "{id}: a moderator closed this game to observers{}. You no longer watch it, and nothing more about it comes to you.\n\n-- \nStationmaster, for {id} ({}).\n",
                self.because,
                crate::registry::title(&self.record().setup.kind)
            );
            self.with.outbox.push(super::delivery::observer_notice(
                self.ctx,
                id,
                self.record(),
                &o.address,
                text,
                self.now,
            )?);
        }
        self.all(format!(
            "A moderator closed this game to observers{}: nobody watches it.",
            self.because
        ));
        Ok(format!(
            "{id} is not watchable; {} observer(s) no longer watch it, and each was told.",
            dropped.len()
        ))
    }

    fn moderator(&mut self, given: &str) -> Result<String, ServiceError> {
        let (ctx, id) = (self.ctx, self.id);
        let address = &super::unasked::recipient(ctx, given).map_err(ServiceError::Invalid)?;
        if let Some(why) = super::unasked::moderator_refusal(self.record(), &self.meta, address) {
            return Err(ServiceError::Invalid(why));
        }
        let key = address.to_ascii_lowercase();
        if !self
            .meta
            .moderators
            .iter()
            .any(|m| m.eq_ignore_ascii_case(address))
        {
            self.meta.moderators.push(address.clone());
        }
        let token = super::new_token()?;
        let mail = welcome(
            ctx,
            id,
            (self.record(), &self.meta),
            address,
            &token,
            self.now,
        )?;
        self.meta
            .moderator_welcome_ids
            .insert(key.clone(), mail.message_id.clone());
        self.with.outbox.push(mail);
        self.meta.moderator_tokens.insert(key, token);
        self.all(format!(
            "{address} now moderates this game{}.",
            self.because
        ));
        Ok(format!(
            "{address} moderates {id} (their key is in their mail)."
        ))
    }
}

/// What a moderator's `as` did, for them: the orders applied for the
/// player, those held, and the waiting orders whose moment they brought.
fn gave_orders_text(player: &str, batch: &orders::Batch, names: &[String]) -> String {
    // The moderator's orders, told apart from the waiting orders
    // (the player's own, or others') whose moment they brought.
    let done: Vec<String> = batch
        .given
        .iter()
        .filter_map(|i| batch.applied.get(*i))
        .map(|(_, a)| a.order.clone())
        .collect();
    let followed: Vec<String> = batch
        .applied
        .iter()
        .enumerate()
        .filter(|(i, _)| !batch.given.contains(i))
        .map(|(_, (s, a))| {
            let name = names.get(s.index()).map_or("", String::as_str);
            format!("{name}: {}", a.order)
        })
        .collect();
    let held: Vec<String> = batch.held.iter().map(|h| h.describe()).collect();
    let mut said = Vec::new();
    if !done.is_empty() {
        said.push(format!("Applied for {player}: {}.", done.join("; ")));
    }
    if !held.is_empty() {
        said.push(format!("Held for {player}: {}", held.join(" ")));
    }
    if !followed.is_empty() {
        said.push(format!(
            "Waiting orders applied after them: {}.",
            followed.join("; ")
        ));
    }
    said.join(" ")
}

/// A preview: each order applied with what it did, as `seat` (`player`)
/// reads it, the lines that would be held, and the page they would see.
fn preview_text(
    game: &dyn AnyGame,
    batch: &orders::Batch,
    seat: Seat,
    player: &str,
    names: &[String],
) -> Result<String, ServiceError> {
    let mut t = String::new();
    for (s, a) in &batch.applied {
        t.push_str(&format!("> {} ({})\n", a.order, names[s.index()]));
        for sentence in game.describe_events(&a.events, Viewer::Player(seat))? {
            let sentence = match sentence.strip_prefix("You receive ") {
                Some(rest) => format!("{player} receives {rest}"),
                None => sentence,
            };
            t.push_str(&format!("  {sentence}\n"));
        }
    }
    for q in &batch.held {
        t.push_str(&format!("(would be held) {}\n", q.describe()));
    }
    t.push('\n');
    t.push_str(&as_seen_by(
        &game.render(Viewer::Player(seat)),
        &names[seat.index()],
    ));
    Ok(t)
}

/// True if `address` moderates game `id` (its own moderators or the site's).
pub fn is_moderator(ctx: &Ctx<'_>, meta: &GameMeta, address: &str) -> bool {
    report::moderators(ctx, &meta.moderators)
        .iter()
        .any(|m| m.eq_ignore_ascii_case(address))
}
