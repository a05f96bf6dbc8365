//! The registry of games: from a [`Setup`] (or a stored snapshot) to a boxed
//! [`AnyGame`], so that nothing outside the game modules needs to know which
//! game it handles. Board data is read here, at the edge, and handed to the
//! pure game modules.

use std::path::{Path, PathBuf};

use super::{AnyGame, Game, Setup};
use crate::rocket::{self, Rocket};

/// The games Stationmaster runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GameKind {
    /// Stephenson's Rocket (Knizia, 1999).
    Rocket,
}

impl GameKind {
    /// Every kind, for help and listings.
    pub const ALL: [GameKind; 1] = [GameKind::Rocket];

    /// The kind's name as typed (`rocket`).
    pub fn name(self) -> &'static str {
        match self {
            GameKind::Rocket => "rocket",
        }
    }

    /// The kind called `name`, if there is one.
    pub fn from_name(name: &str) -> Result<GameKind, SetupError> {
        GameKind::ALL
            .into_iter()
            .find(|k| k.name().eq_ignore_ascii_case(name.trim()))
            .ok_or_else(|| SetupError::UnknownKind(name.to_string()))
    }

    /// The options a game of this kind accepts.
    pub fn options(self) -> &'static [&'static str] {
        match self {
            GameKind::Rocket => rocket::OPTIONS,
        }
    }
}

/// Why a game could not be set up or loaded.
#[derive(Debug, thiserror::Error)]
pub enum SetupError {
    /// No such game.
    #[error("there is no game called `{0}`; Stationmaster runs: rocket")]
    UnknownKind(String),
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
    /// The board file is missing or wrong.
    #[error(transparent)]
    Board(#[from] rocket::board::BoardError),
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

    fn rocket_board(&self) -> Result<rocket::board::Board, SetupError> {
        if let Some(dir) = &self.games_dir {
            let path = dir.join("rocket").join("board.toml");
            if path.exists() {
                return Ok(rocket::board::Board::from_file(&path)?);
            }
        }
        Ok(rocket::board::Board::embedded()?)
    }
}

/// Sets up a new game.
pub fn new_game(setup: &Setup, boards: &BoardSource) -> Result<Box<dyn AnyGame>, SetupError> {
    match GameKind::from_name(&setup.kind)? {
        GameKind::Rocket => {
            let board = boards.rocket_board()?;
            Ok(Box::new(Rocket::new(board, setup)?))
        }
    }
}

/// Reads a game back from a state saved in format `version` (see
/// [`Game::STATE_VERSION`]).
pub fn from_snapshot(
    kind: &str,
    version: u32,
    snapshot: &str,
) -> Result<Box<dyn AnyGame>, SetupError> {
    match GameKind::from_name(kind)? {
        GameKind::Rocket if version > Rocket::STATE_VERSION => Err(SetupError::NewerState {
            kind: kind.to_string(),
            version,
            known: Rocket::STATE_VERSION,
        }),
        GameKind::Rocket => serde_json::from_str::<Rocket>(snapshot)
            .map(|g| Box::new(g) as Box<dyn AnyGame>)
            .map_err(|e| SetupError::Snapshot {
                kind: kind.to_string(),
                message: e.to_string(),
            }),
    }
}
