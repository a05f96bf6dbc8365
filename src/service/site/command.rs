//! Reading site commands: the forms `help` lists, each line of a site
//! mail read as one, and the words after `new GAME`.

use crate::clock::ClockSettings;
use crate::engine::GameEntry;
use crate::engine::chatter::Vocabulary;
use crate::service::settings;
use crate::store::ReportMode;

/// The site commands, as help and docs/players.md write them, with what
/// each does.
pub const FORMS: &[(&str, &str)] = &[
    (
        "new GAME [OPTION …] [SETTING VALUE …] [reports MODE] [bots=N] [open] [watchable] [as NAME]",
        "make a game; you are its first player and its moderator; `bots=N`: the bot takes N seats at the start",
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
        "games",
        "your games here: each running game with whom it waits for and its deadlines, how each finished game ended, and the games forming that you sit in",
    ),
    (
        "bump",
        "your report again of every game that waits for you now, each in its own thread; once an hour",
    ),
    (
        "stats [WHO]",
        "your record here (games played, finished and won, places, deadlines missed, seats handed on, ratings); `stats ADDRESS` or `stats NAME`: another player's public figures",
    ),
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
    /// `stats [ADDRESS|NAME]`: the sender's record, or another's.
    Stats(Option<String>),
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
        "stats" => match rest.as_slice() {
            [] => Ok(SiteCommand::Stats(None)),
            [who] => Ok(SiteCommand::Stats(Some(who.clone()))),
            _ => Err("write `stats` for your own record, or `stats ADDRESS` or `stats NAME` for another's".to_string()),
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
pub(super) struct NewWords {
    pub(super) watchable: bool,
    pub(super) options: Vec<String>,
    pub(super) reports: ReportMode,
    pub(super) clock: ClockSettings,
    pub(super) open: bool,
    pub(super) name: Option<String>,
    /// Seats for the bot (`bots=N`).
    pub(super) bots: u8,
}

/// Reads `new`'s words for game `entry`: its options (`NAME` or
/// `NAME=VALUE`), deadline settings (`SETTING VALUE`, from `defaults`),
/// `bots=N`, `open` and `as NAME`, in any order.
pub(super) fn read_new(
    entry: &GameEntry,
    defaults: &ClockSettings,
    words: &[String],
) -> Result<NewWords, String> {
    let mut made = NewWords {
        watchable: false,
        options: Vec::new(),
        reports: ReportMode::default(),
        clock: defaults.clone(),
        open: false,
        name: None,
        bots: 0,
    };
    let settings = settings::setting_names(entry.name);
    let is_setting =
        |w: &str| settings.split(", ").any(|s| s == w) || crate::clock::wait_of_key(w).is_some();
    let mut i = 0;
    while i < words.len() {
        let w = words[i].to_ascii_lowercase();
        let option_name = w.split('=').next().unwrap_or_default();
        if entry.options.iter().any(|o| o.name == option_name) {
            made.options.push(w.clone());
        } else if let Some(n) = w.strip_prefix("bots=") {
            made.bots = n
                .parse()
                .ok()
                .filter(|n| *n > 0 && *n < *entry.players.end() as u8)
                .ok_or_else(|| {
                    format!(
                        "`bots={n}`: the number of seats for the bot, 1 to {}, so one is left for you",
                        entry.players.end() - 1
                    )
                })?;
        } else if w == "open" {
            made.open = true;
        } else if w == "watchable" {
            made.watchable = true;
        } else if w == "reports" {
            i += 1;
            let mode = words
                .get(i)
                .ok_or("`reports` wants full, short or turn after it")?;
            made.reports = ReportMode::parse(mode)?;
        } else if w == "as" {
            i += 1;
            let name = words.get(i).ok_or("`as` wants a name after it")?;
            made.name = Some(name.clone());
        } else if is_setting(&w) {
            i += 1;
            let value = words.get(i).ok_or_else(|| {
                format!("the setting `{w}` wants a value after it, e.g. `{w} 72h`")
            })?;
            made.clock = settings::set(&made.clock, entry.name, &w, value)?;
        } else {
            let options: Vec<&str> = entry.options.iter().map(|o| o.name).collect();
            return Err(format!(
                "`{}` is neither an option of {} ({}), nor a deadline setting ({settings}), nor reports MODE, bots=N, open, watchable or as NAME",
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
