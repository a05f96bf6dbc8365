//! Moderator commands, by mail (from a moderator's address with their key)
//! and on the command line (`stationmaster mod GAME …`): pause, resume,
//! extend, deadline, as, skip, undo, replace, abort, resend, preview, note,
//! moderator. Every act goes into the game's log with who, when and why, and
//! is announced to every player.

use chrono::{DateTime, Utc};

use super::report::{self, MailContext};
use super::{Ctx, ServiceError, orders, scheduler, settings};
use crate::clock::Span;
use crate::engine::{Actor, Seat, Viewer};
use crate::mail::OutMail;
use crate::mail::compose::{self, Draft};
use crate::store::{Change, EntryKind, GameId, GameMeta, LogEntry, effective_orders};

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
        "roll back the last N orders (default 1) by replaying the log",
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
            compose::check_address(&address).map_err(|e| e.to_string())?;
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
    address: &str,
    token: &str,
    now: DateTime<Utc>,
) -> Result<OutMail, ServiceError> {
    let forms: Vec<String> = FORMS
        .iter()
        .map(|(f, w)| format!("  {f:<32} {w}"))
        .collect();
    let text = format!(
        "You moderate {id}. Reply to this mail (its subject tag and reply address carry your key)\nwith one command a line; a line `why TEXT` gives the reason for the commands after it.\nOne command that changes the game per mail (a `note` too); `preview` may come with it.\n\n{}\n\nOn the server: stationmaster mod {id} COMMAND\n\n-- \nStationmaster, for {id}.\n",
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
    let mail = welcome(ctx, id, address, &token, now)?;
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
    let invalid = ServiceError::Invalid;
    let loaded = ctx.store.load(id)?;
    let stored = ctx.store.meta(id)?;
    let old_fire = stored.clock.next_fire;
    let mut meta = stored.clone();
    let record = loaded.record.clone();
    let names = loaded.game.player_names();
    let turn = loaded.game.turn_number();
    let because = why.map(|w| format!(" ({w})")).unwrap_or_default();
    // A game that is over (aborted, or finished by its rules) can still be
    // talked about and its reports sent again; nothing else makes sense.
    if !matches!(cmd, ModCommand::Resend | ModCommand::Note(_))
        && let Some(ended) = report::ended(ctx.store, id, &meta, &*loaded.game)?
    {
        return Err(invalid(format!(
            "{id} {}: it is over, and only `note` and `resend` can still be used",
            ended.what(&meta.clock.settings)
        )));
    }
    let mut batch = orders::Batch::default();
    let mut entries: Vec<LogEntry> = Vec::new();
    let mut replaced_from = String::new();
    let mut game = loaded.game.clone_box();
    let mut outbox: Vec<OutMail> = Vec::new();
    let mut contacts = Vec::new();
    let mut index = Vec::new();
    let all = |batch: &mut orders::Batch, text: String| {
        for s in 0..names.len() {
            batch.notes.push((Seat(s as u8), text.clone()));
        }
    };
    let output;
    match cmd {
        ModCommand::Pause => {
            if meta.paused.is_some() {
                return Err(invalid(format!("{id} is paused already")));
            }
            meta.paused = Some(now);
            meta.paused_by = Some(by.to_string());
            all(
                &mut batch,
                format!(
                    "A moderator paused the game{because}. Orders are refused until it \
                     resumes: send them again then."
                ),
            );
            output = format!("{id} is paused.");
        }
        ModCommand::Resume => {
            let Some(since) = meta.paused.take() else {
                return Err(invalid(format!("{id} is not paused")));
            };
            meta.paused_by = None;
            let paused = now - since;
            meta.clock.move_running(|t| t + paused);
            all(
                &mut batch,
                format!(
                    "A moderator resumed the game{because}; deadlines moved on by the time it was paused."
                ),
            );
            output = format!(
                "{id} resumed; deadlines moved on by {}.",
                crate::clock::duration_words(paused)
            );
        }
        ModCommand::Extend(span) => {
            meta.clock.move_running(|t| t + span.duration());
            for w in meta.clock.waits.iter_mut() {
                w.late = false;
            }
            all(
                &mut batch,
                format!("A moderator gave every awaited player {span} more{because}."),
            );
            output = format!("Deadlines extended by {span}.");
        }
        ModCommand::Deadline(t) => {
            if *t <= now {
                return Err(invalid("that time has passed".to_string()));
            }
            meta.clock.move_running(|_| *t);
            for w in meta.clock.waits.iter_mut() {
                w.late = false;
            }
            all(
                &mut batch,
                format!(
                    "A moderator set the deadline to {}{because}.",
                    meta.clock.settings.describe(*t, now)
                ),
            );
            output = format!("Deadline set to {t}.");
        }
        ModCommand::As {
            player,
            orders: lines,
        } if absence_line(lines).is_some() => {
            // `as PLAYER away … to …` / `as PLAYER back`: the absence a
            // player would declare by mail, declared for them (one who
            // phoned, say); everyone is told, as for the player's own.
            let seat = seat_named(ctx, id, player)?;
            let line = absence_line(lines).unwrap_or_default();
            if line.eq_ignore_ascii_case("back") {
                meta.clock.back(seat, now);
                all(
                    &mut batch,
                    format!(
                        "A moderator marked {player} as back{because}; their deadlines run as usual."
                    ),
                );
                output = format!("{player} is back; their deadlines run as usual.");
            } else {
                let a = crate::clock::parse_away(&meta.clock.settings, line, now)
                    .map_err(|why| invalid(format!("{line}: {why}")))?;
                let text = meta.clock.away(seat, player, a, now);
                all(
                    &mut batch,
                    format!("A moderator declared an absence for {player}{because}: {text}"),
                );
                output = text;
            }
        }
        ModCommand::As {
            player,
            orders: lines,
        } => {
            let seat = seat_named(ctx, id, player)?;
            let (g, m, mut b) = orders::run(
                &*game,
                &meta,
                seat,
                lines,
                &Actor::Moderator(by.to_string()),
            )
            .map_err(|e| {
                invalid(format!(
                    "nothing applied for {player}: order {}: {}",
                    e.line_no, e.rejected
                ))
            })?;
            game = g;
            meta = m;
            // The moderator's orders, told apart from the waiting orders
            // (the player's own, or others') whose moment they brought.
            let done: Vec<String> = b
                .given
                .iter()
                .filter_map(|i| b.applied.get(*i))
                .map(|(_, a)| a.order.clone())
                .collect();
            let followed: Vec<String> = b
                .applied
                .iter()
                .enumerate()
                .filter(|(i, _)| !b.given.contains(i))
                .map(|(_, (s, a))| {
                    let name = names.get(s.index()).map_or("", String::as_str);
                    format!("{name}: {}", a.order)
                })
                .collect();
            let held: Vec<String> = b.held.iter().map(|h| h.describe()).collect();
            let mut gave = done.clone();
            gave.extend(b.held.iter().map(|h| h.line.clone()));
            b.notes.push((
                seat,
                format!(
                    "A moderator gave orders for you{because}: {}.",
                    gave.join("; ")
                ),
            ));
            batch = b;
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
            output = said.join(" ");
        }
        ModCommand::Skip => {
            // Who was passed over, and whom the game waits for after it:
            // the moderator is told by name, as the players are.
            let skipped = report::awaited_names(&*loaded.game, Viewer::Moderator);
            let mut change = scheduler::skip_awaited_because(ctx, id, by, why, now)?;
            let mut after = String::new();
            if let Some(u) = &mut change.update {
                u.push_first(act_entry(by, "skip", why, EntryKind::Act, turn, now));
                if let Ok(g) =
                    crate::registry::from_snapshot(&record.setup.kind, u.state_version, &u.state)
                {
                    after = format!(" {id}: {}.", report::headline(&*g));
                }
            }
            let output = if skipped.is_empty() {
                format!("Nobody was awaited in {id}: nothing to skip.")
            } else {
                format!("Skipped: {}.{after}", skipped.join(", "))
            };
            return Ok(ModOutcome { change, output });
        }
        ModCommand::Undo(n) => {
            let log = ctx.store.log(id)?;
            let effective = effective_orders(&log);
            // A turn the game played for a player passed over (its
            // default orders, or its skip) is one move, undone whole.
            let moves = moves_of(&effective);
            if (*n as usize) > moves.len() {
                return Err(invalid(format!("only {} moves can be undone", moves.len())));
            }
            let undone_moves = &moves[moves.len() - *n as usize..];
            let count: usize = undone_moves.iter().map(|m| m.len()).sum();
            let undone: Vec<String> = undone_moves.iter().map(|m| undone_text(m)).collect();
            let entry = act_entry(
                by,
                &format!("undo {n}"),
                why,
                EntryKind::Undo {
                    count: count as u32,
                },
                turn,
                now,
            );
            let mut with = log.clone();
            with.push(entry.clone());
            game = ctx.store.replay(id, &with)?;
            entries.push(entry);
            for q in meta.queued.iter_mut() {
                *q = crate::store::Held::default();
            }
            let told = match undone.as_slice() {
                [one] => format!(
                    "A moderator undid {one}{because}. The game is back where it was before."
                ),
                _ => format!(
                    "A moderator undid the last {n} moves{because}: {}. The game is back where it was before them.",
                    undone.join("; ")
                ),
            };
            all(&mut batch, told);
            output = format!("Undone: {}.", undone.join("; "));
        }
        ModCommand::Replace { player, address } => {
            let seat = seat_named(ctx, id, player)?;
            // docs/operators.md, "Security": the address a seat may take.
            let address = &super::unasked::recipient(ctx, address).map_err(invalid)?;
            if let Some(why) =
                super::unasked::seat_refusal(ctx, &record, &meta, address, Some(seat))
            {
                return Err(invalid(why));
            }
            let old = meta.address(&record, seat).to_string();
            // The leaving player's thread, before their key goes.
            let old_thread = report::player_thread(ctx, id, &record, &meta, seat);
            replaced_from = old.clone();
            if meta.addresses.len() < names.len() {
                meta.addresses.resize(names.len(), String::new());
            }
            meta.addresses[seat.index()] = address.clone();
            meta.tokens[seat.index()] = super::new_token()?;
            // The addresses the leaving player added go with them.
            if let Some(others) = meta.other_addresses.get_mut(seat.index()) {
                let gone = std::mem::take(others);
                for a in gone {
                    if meta.seats_from(&record, &a).is_empty() {
                        index.push((a, false));
                    }
                }
            }
            meta.clock.run_of_misses_ends(seat);
            all(
                &mut batch,
                format!("A moderator gave {player}'s seat to {address}{because}."),
            );
            let mail = MailContext {
                welcome: true,
                successor: true,
                ..MailContext::default()
            };
            if meta.welcome_ids.len() < names.len() {
                meta.welcome_ids.resize(names.len(), String::new());
            }
            // A new thread for the new player: no root until their welcome.
            meta.welcome_ids[seat.index()] = String::new();
            let welcome = report::player_mail(
                ctx,
                id,
                &record,
                &meta,
                &*game,
                &report::Board::new(ctx, &*game, &[]),
                seat,
                mail,
                None,
                now,
            )?;
            meta.welcome_ids[seat.index()] = welcome.message_id.clone();
            outbox.push(welcome);
            let text = format!(
                "Your seat has a new player: a moderator gave your seat in {id} to {address}{because}.\nYour key no longer works. Thank you for playing.\n\n-- \nStationmaster, for {id}.\n"
            );
            let (in_reply_to, references) = old_thread.threading(None);
            let draft = Draft {
                to: old.clone(),
                subject: old_thread.subject(false),
                html: Some(report::notice_html(ctx, &text, None)?),
                text,
                in_reply_to,
                references,
                ..Draft::default()
            };
            outbox.push(super::compose_mail(ctx, &id.0, "replaced", &draft, now)?);
            output = format!(
                "{player}'s seat now goes to {address} with a new key (welcome mail queued)."
            );
        }
        ModCommand::Abort => {
            meta.aborted = true;
            meta.paused = None;
            meta.paused_by = None;
            // As `report::ended` reads it back from the act logged below.
            let ended = report::Ended::Aborted {
                at: now,
                by: by.to_string(),
                why: why.map(str::to_string),
            };
            outbox.extend(report::game_over_to_moderators(
                ctx, id, &record, &meta, &*game, &ended, now,
            )?);
            // No note: every mail about the game now opens with the abort,
            // by whom, when and why (`Ended::headline`), and its log line
            // follows; a note would say it a third time.
            output = format!("{id} aborted.");
        }
        ModCommand::Resend => {
            output = "Every player's report was sent again.".to_string();
        }
        ModCommand::Preview {
            player,
            orders: lines,
        } => {
            let seat = seat_named(ctx, id, player)?;
            let text = match orders::run(
                &*game,
                &meta,
                seat,
                lines,
                &Actor::Moderator(by.to_string()),
            ) {
                Ok((g, _, b)) => {
                    let mut t = String::new();
                    for (s, a) in &b.applied {
                        t.push_str(&format!("> {} ({})\n", a.order, names[s.index()]));
                        for sentence in g.describe_events(&a.events, Viewer::Player(seat))? {
                            let sentence = match sentence.strip_prefix("You receive ") {
                                Some(rest) => format!("{player} receives {rest}"),
                                None => sentence,
                            };
                            t.push_str(&format!("  {sentence}\n"));
                        }
                    }
                    for q in &b.held {
                        t.push_str(&format!("(would be held) {}\n", q.describe()));
                    }
                    t.push('\n');
                    t.push_str(&as_seen_by(
                        &g.render(Viewer::Player(seat)),
                        &names[seat.index()],
                    ));
                    t
                }
                Err(e) => format!(
                    "Refused, nothing would be applied: order {}: {}\n",
                    e.line_no, e.rejected
                ),
            };
            return Ok(ModOutcome {
                change: Change::default(),
                output: format!("Preview for {player} (nothing changed):\n{text}"),
            });
        }
        ModCommand::Note(text) => {
            all(&mut batch, format!("A note from a moderator: {text}"));
            output = "Note sent to every player.".to_string();
        }
        ModCommand::Set { key, value } => {
            meta.clock.settings =
                settings::set(&meta.clock.settings, &record.setup.kind, key, value)
                    .map_err(ServiceError::Unreadable)?;
            all(
                &mut batch,
                format!(
                    "A moderator changed the deadline setting {key} to {value}{because}; {}.",
                    settings::set_applies(key)
                ),
            );
            output = format!("{key} is now {value}.");
        }
        ModCommand::Reports(mode) => {
            meta.default_reports = *mode;
            all(
                &mut batch,
                format!(
                    "A moderator set this game's reports to `{}`{because}: {}, unless you chose otherwise with `reports full|short|turn`.",
                    mode.name(),
                    mode.describe()
                ),
            );
            output = format!(
                "{id}'s reports are now `{}` for players who have not chosen.",
                mode.name()
            );
        }
        ModCommand::Watchable(on) => {
            if meta.watchable == *on {
                return Err(invalid(format!(
                    "{id} is {} already",
                    if *on { "watchable" } else { "not watchable" }
                )));
            }
            meta.watchable = *on;
            if *on {
                all(
                    &mut batch,
                    format!(
                        "A moderator made this game watchable{because}: anyone may follow it with `watch {id}`, seeing the board as a spectator does (nobody's private holdings, no private messages)."
                    ),
                );
                output = format!("{id} is watchable: anyone may `watch {id}`.");
            } else {
                // Off means nobody watches: a game master closes the game
                // to spectators, not only to new ones.
                let dropped = std::mem::take(&mut meta.observers);
                for o in &dropped {
                    let mut contact = ctx.store.contact(&o.address)?;
                    contact.watching.retain(|g| *g != id.0);
                    contacts.push((o.address.clone(), contact));
                    let text = format!(
                        "{id}: a moderator closed this game to observers{because}. You no longer watch it, and nothing more about it comes to you.\n\n-- \nStationmaster, for {id} ({}).\n",
                        crate::registry::title(&record.setup.kind)
                    );
                    outbox.push(super::delivery::observer_notice(
                        ctx, id, &record, &o.address, text, now,
                    )?);
                }
                all(
                    &mut batch,
                    format!(
                        "A moderator closed this game to observers{because}: nobody watches it."
                    ),
                );
                output = format!(
                    "{id} is not watchable; {} observer(s) no longer watch it, and each was told.",
                    dropped.len()
                );
            }
        }
        ModCommand::Moderator(address) => {
            let address = &super::unasked::recipient(ctx, address).map_err(invalid)?;
            if let Some(why) = super::unasked::moderator_refusal(&record, &meta, address) {
                return Err(invalid(why));
            }
            let key = address.to_ascii_lowercase();
            if !meta
                .moderators
                .iter()
                .any(|m| m.eq_ignore_ascii_case(address))
            {
                meta.moderators.push(address.clone());
            }
            let token = super::new_token()?;
            let mail = welcome(ctx, id, address, &token, now)?;
            meta.moderator_welcome_ids
                .insert(key.clone(), mail.message_id.clone());
            outbox.push(mail);
            meta.moderator_tokens.insert(key, token);
            all(
                &mut batch,
                format!("{address} now moderates this game{because}."),
            );
            output = format!("{address} moderates {id} (their key is in their mail).");
        }
    }
    // The act itself, in the log.
    let text = match cmd {
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
    };
    let mut step =
        super::pipeline::Step::new(&*game, meta, &batch, Actor::Moderator(by.to_string()));
    step.then = entries;
    // Before the entries it caused (`as`: the orders, and the waiting ones
    // they brought on).
    step.act = text.map(|text| act_entry(by, &text, why, EntryKind::Act, turn, now));
    step.to = Some(if *cmd == ModCommand::Resend {
        super::pipeline::Recipients::Every
    } else {
        super::pipeline::Recipients::All
    });
    let (update, reports) = super::pipeline::write(ctx, id, loaded.seq, old_fire, step, now)?;
    outbox.extend(reports);
    let readdress = match cmd {
        ModCommand::Replace { address, .. } => Some((replaced_from.clone(), address.clone())),
        _ => None,
    };
    Ok(ModOutcome {
        change: Change {
            update: Some(update),
            outbox,
            readdress,
            contacts,
            index,
            ..Change::default()
        },
        output,
    })
}

/// True if `address` moderates game `id` (its own moderators or the site's).
pub fn is_moderator(ctx: &Ctx<'_>, meta: &GameMeta, address: &str) -> bool {
    report::moderators(ctx, &meta.moderators)
        .iter()
        .any(|m| m.eq_ignore_ascii_case(address))
}
