//! The registry: the list of the games Stationmaster runs, one
//! [`GameEntry`] each, and the calls that find a game by its kind. The
//! store, the command line and the daemon reach a game only through here
//! and [`AnyGame`]; adding a game is its crate in `crates/`, its data folder in `games/`,
//! its dependency line in this crate's `Cargo.toml` and a line in [`GAMES`].
#![warn(missing_docs)]

use engine::{AnyGame, GameEntry, Setup, WaitKind};
pub use engine::{BoardSource, SetupError};

/// Every game, in the order help lists them; the first with a demo script
/// plays `stationmaster demo`.
pub const GAMES: &[&GameEntry] = &[&rocket::ENTRY, &linie1::ENTRY];

/// The names of every game, for messages: `rocket`.
pub fn names() -> String {
    GAMES.iter().map(|g| g.name).collect::<Vec<_>>().join(", ")
}

/// The game called `name` (any case).
pub fn find(name: &str) -> Result<&'static GameEntry, SetupError> {
    GAMES
        .iter()
        .copied()
        .find(|g| g.name.eq_ignore_ascii_case(name.trim()))
        .ok_or_else(|| SetupError::UnknownKind {
            name: name.to_string(),
            known: names(),
        })
}

/// The title of game kind `kind` (`Stephenson's Rocket`), or the kind
/// itself for one this build does not know.
pub fn title(kind: &str) -> &str {
    find(kind).map(|g| g.title).unwrap_or(kind)
}

/// The name of a wait of `kind` in game `game` (`veto question`).
pub fn wait_name(game: &str, kind: WaitKind) -> &'static str {
    match find(game) {
        Ok(entry) => entry.wait(kind).name,
        Err(_) => kind.neutral_name(),
    }
}

/// The older names of the deadline settings, with the neutral key each
/// stands for: (`veto_question`, `question`).
pub fn deadline_aliases() -> impl Iterator<Item = (&'static str, &'static str)> {
    GAMES.iter().flat_map(|g| {
        g.waits
            .iter()
            .filter_map(|w| w.key_alias.map(|alias| (alias, w.kind.neutral_name())))
    })
}

/// Sets up a new game.
pub fn new_game(setup: &Setup, boards: &BoardSource) -> Result<Box<dyn AnyGame>, SetupError> {
    let entry = find(&setup.kind)?;
    (entry.new)(setup, boards)
}

/// Reads a game back from a state saved in format `version` (see
/// [`engine::Game::STATE_VERSION`]).
pub fn from_snapshot(
    kind: &str,
    version: u32,
    snapshot: &str,
) -> Result<Box<dyn AnyGame>, SetupError> {
    let entry = find(kind)?;
    if version > entry.state_version {
        return Err(SetupError::NewerState {
            kind: kind.to_string(),
            version,
            known: entry.state_version,
        });
    }
    (entry.from_snapshot)(version, snapshot)
}
