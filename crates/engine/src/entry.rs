//! What a game registers itself with: its [`GameEntry`] (name, title,
//! player range, options, the words for its waits, how to set it up and
//! read it back), and the errors of setting one up. The list of entries is
//! `stationmaster::registry`; nothing outside it and the game's own module names a
//! game.

use std::collections::BTreeMap;
use std::ops::RangeInclusive;
use std::path::{Path, PathBuf};

use super::{AnyGame, Setup, WaitKind};

/// A game set up or read back, or why not.
pub type Made = Result<Box<dyn AnyGame>, SetupError>;

/// One game Stationmaster runs, as the registry lists it. Everything that
/// differs between games and is not a rule (help, `new`'s checks, the
/// subject of a mail, the words of a deadline) is read from here.
pub struct GameEntry {
    /// The name as typed (`rocket`) and the prefix of its games' ids.
    pub name: &'static str,
    /// The title as printed (`Stephenson's Rocket`).
    pub title: &'static str,
    /// How many players it takes.
    pub players: RangeInclusive<usize>,
    /// The options a game may be set up with.
    pub options: &'static [GameOption],
    /// The waits the game has besides the turn, with their words; see
    /// [`WaitWords`].
    pub waits: &'static [WaitWords],
    /// What the `default` policy does for a missed turn, after "…; under
    /// the game's `default` policy": e.g. "a goods token is taken for them
    /// for each action left".
    pub default_turn: &'static str,
    /// What a skipped turn (the `skip` policy, or a moderator's `skip`)
    /// means, after "…; under the game's `skip` policy": e.g. "the turn's
    /// remaining actions are lost".
    pub skip_turn: &'static str,
    /// Who plays first, after "First player: ", as `new --help` says it:
    /// e.g. "chosen by the game's seed".
    pub first_player: &'static str,
    /// The newest format of the game's stored state; see
    /// [`super::Game::STATE_VERSION`].
    pub state_version: u32,
    /// Sets up a new game; board data comes through the [`BoardSource`].
    pub new: fn(&Setup, &BoardSource) -> Made,
    /// Reads a stored state of format `version` (at most
    /// `state_version`; the registry refuses newer ones).
    pub from_snapshot: fn(version: u32, json: &str) -> Made,
    /// The demo's script (`stationmaster demo`), if the game has one: see
    /// `games/rocket/demo.txt` for its form.
    pub demo: Option<&'static str>,
}

impl GameEntry {
    /// The words for a wait of `kind`: [`WaitWords`] from the entry, and
    /// for a turn, "turn".
    pub fn wait(&self, kind: WaitKind) -> WaitWords {
        self.waits
            .iter()
            .find(|w| w.kind == kind)
            .copied()
            .unwrap_or(WaitWords {
                kind,
                name: kind.neutral_name(),
                missed: "it is passed over",
                key_alias: None,
            })
    }

    /// The player range as written in help: `2 to 4 players`.
    pub fn players_text(&self) -> String {
        format!("{} to {} players", self.players.start(), self.players.end())
    }
}

/// A wait other than the turn that a game has (a question put to several
/// players, a bid), in the game's words.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WaitWords {
    /// Which of the neutral kinds it is.
    pub kind: WaitKind,
    /// Its name in the game, after "the deadline of their": `veto question`.
    pub name: &'static str,
    /// What a missed deadline of it means: "it counts as `no veto`".
    pub missed: &'static str,
    /// The deadline setting's name in configs and databases written before
    /// the settings had neutral names (`veto_question` for `question`); read
    /// as the neutral key. `--` and dashes make its command-line flag.
    pub key_alias: Option<&'static str>,
}

/// An option of a game: a switch (`open_money`), or a name that takes one
/// of some values (`stops=3`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GameOption {
    /// The name as typed after `--option`.
    pub name: &'static str,
    /// The values it takes; empty for a switch.
    pub values: &'static [&'static str],
    /// What it does, in one line for help.
    pub help: &'static str,
    /// Options it cannot be given with (`name`, or `name=value`), each with
    /// the reason, said to whoever gives both: `("stops=2", "…")`.
    pub not_with: &'static [(&'static str, &'static str)],
}

/// The options a game was set up with: each known option's value, `on`
/// for a switch that was given, absent for one that was not.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Options(BTreeMap<String, String>);

impl Options {
    /// True if switch `name` was given (or option `name` has a value).
    pub fn on(&self, name: &str) -> bool {
        self.0.contains_key(name)
    }

    /// The value given to option `name`.
    pub fn value(&self, name: &str) -> Option<&str> {
        self.0.get(name).map(String::as_str)
    }
}

/// Reads `given` (`name` for a switch, `name=value` otherwise, any case)
/// against the options `known` of game `kind`.
pub fn read_options(
    kind: &str,
    given: &[String],
    known: &[GameOption],
) -> Result<Options, SetupError> {
    let mut on = BTreeMap::new();
    let names = || {
        known
            .iter()
            .map(|o| match o.values {
                [] => o.name.to_string(),
                values => format!("{}={}", o.name, values.join("|")),
            })
            .collect::<Vec<_>>()
            .join(", ")
    };
    for option in given {
        let text = option.trim().to_ascii_lowercase();
        let (name, value) = match text.split_once('=') {
            Some((n, v)) => (n.trim().to_string(), Some(v.trim().to_string())),
            None => (text.clone(), None),
        };
        let Some(spec) = known.iter().find(|o| o.name == name) else {
            return Err(SetupError::UnknownOption {
                kind: kind.to_string(),
                option: option.clone(),
                known: names(),
            });
        };
        let value = match (spec.values, value) {
            ([], None) => "on".to_string(),
            (values, Some(v)) if values.contains(&v.as_str()) => v,
            (values, v) => {
                let takes = match values {
                    [] => "no value (it is a switch)".to_string(),
                    values => format!("one of {}", values.join(", ")),
                };
                return Err(SetupError::OptionValue {
                    kind: kind.to_string(),
                    option: spec.name.to_string(),
                    value: v.unwrap_or_default(),
                    known: takes,
                });
            }
        };
        on.insert(spec.name.to_string(), value);
    }
    // Two options given together that the game cannot play together.
    for spec in known.iter().filter(|o| on.contains_key(o.name)) {
        for (other, why) in spec.not_with {
            let given = match other.split_once('=') {
                Some((n, v)) => on.get(n).is_some_and(|x| x == v),
                None => on.contains_key(*other),
            };
            if given {
                return Err(SetupError::OptionsClash {
                    kind: kind.to_string(),
                    option: spec.name,
                    other,
                    why,
                });
            }
        }
    }
    Ok(Options(on))
}

/// Checks the players of a game of `title` for `range`: their number, and
/// names that are one word and differ (without regard to case).
pub fn check_players(
    title: &str,
    range: &RangeInclusive<usize>,
    names: &[&str],
) -> Result<(), SetupError> {
    let n = names.len();
    if !range.contains(&n) {
        return Err(SetupError::Players(format!(
            "{title} is for {} to {} players, not {n}",
            range.start(),
            range.end()
        )));
    }
    for (i, name) in names.iter().enumerate() {
        let name = name.trim();
        if name.is_empty()
            || !name
                .chars()
                .all(|c| c.is_alphanumeric() || c == '-' || c == '_' || c == '.')
        {
            return Err(SetupError::Players(format!(
                "player name \"{name}\" must be one word of letters, digits, '-', '_' or '.'"
            )));
        }
        if names[..i]
            .iter()
            .any(|x| x.trim().eq_ignore_ascii_case(name))
        {
            return Err(SetupError::Players(format!(
                "two players are called {name}"
            )));
        }
    }
    Ok(())
}

/// Why a game could not be set up or loaded.
#[derive(Debug, thiserror::Error)]
pub enum SetupError {
    /// No such game.
    #[error("there is no game called `{name}`; Stationmaster runs: {known}")]
    UnknownKind {
        /// The name given.
        name: String,
        /// The games there are.
        known: String,
    },
    /// An option the game does not have.
    #[error("{kind} has no option `{option}`; its options are: {known}")]
    UnknownOption {
        /// The game.
        kind: String,
        /// The option given.
        option: String,
        /// The options it has.
        known: String,
    },
    /// Wrong number of players, duplicate names and the like.
    #[error("{0}")]
    Players(String),
    /// The board file is missing or wrong (the game's loader says where,
    /// as `file:line: problem`).
    #[error(transparent)]
    Board(Box<dyn std::error::Error + Send + Sync>),
    /// An option given a value it does not take.
    #[error("{kind} option `{option}` takes {known}, not `{value}`")]
    OptionValue {
        /// The game.
        kind: String,
        /// The option.
        option: String,
        /// The value given.
        value: String,
        /// The values it takes.
        known: String,
    },
    /// Two options that cannot go together.
    #[error("{kind} option `{option}` cannot go with `{other}`: {why}")]
    OptionsClash {
        /// The game.
        kind: String,
        /// The option.
        option: &'static str,
        /// The option it cannot go with, as given (`stops=2`).
        other: &'static str,
        /// Why, in a sentence.
        why: &'static str,
    },
    /// A game's state could not be written (a bug: states are plain data).
    #[error("the state of this {kind} game cannot be written: {message}")]
    Unwritable {
        /// The game.
        kind: String,
        /// What went wrong.
        message: String,
    },
    /// A logged event could not be read back.
    #[error("an event in the log of this {kind} game cannot be read: {message}")]
    Event {
        /// The game.
        kind: String,
        /// What went wrong.
        message: String,
    },
    /// A state saved by a newer Stationmaster.
    #[error(
        "this {kind} game was saved by a newer Stationmaster (state format {version}; \
         this one reads up to {known}): run the newer version, or import its export"
    )]
    NewerState {
        /// The game.
        kind: String,
        /// The stored state's format.
        version: u32,
        /// The newest format this build reads.
        known: u32,
    },
    /// A stored snapshot could not be read back.
    #[error("the stored state of this {kind} game cannot be read: {message}")]
    Snapshot {
        /// The game.
        kind: String,
        /// What went wrong.
        message: String,
    },
}

/// Where board files are looked for: `<games_dir>/<kind>/board.toml`; if that
/// file does not exist the board compiled into the binary is used.
#[derive(Clone, Debug)]
pub struct BoardSource {
    /// The folder holding one folder per game kind.
    pub games_dir: Option<PathBuf>,
}

impl BoardSource {
    /// Only the boards compiled into the binary.
    pub fn embedded() -> Self {
        BoardSource { games_dir: None }
    }

    /// Boards from `dir`, falling back to the compiled-in ones.
    pub fn from_dir(dir: impl AsRef<Path>) -> Self {
        BoardSource {
            games_dir: Some(dir.as_ref().to_path_buf()),
        }
    }

    /// The folder of game `kind` in the games folder, if the operator has
    /// one; `None`: use the data compiled in.
    pub fn folder(&self, kind: &str) -> Option<PathBuf> {
        let path = self.games_dir.as_ref()?.join(kind);
        path.is_dir().then_some(path)
    }

    /// The file `name` of game `kind` in the games folder, if the
    /// operator has one there; `None`: use the data compiled in.
    pub fn file(&self, kind: &str, name: &str) -> Option<PathBuf> {
        let path = self.games_dir.as_ref()?.join(kind).join(name);
        path.exists().then_some(path)
    }
}
