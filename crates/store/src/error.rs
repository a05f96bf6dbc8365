//! What can go wrong with the store, in words an operator can act on.

use engine::SetupError;
use sled::transaction::TransactionError;

use crate::{BatchRejected, GameId, pack};

/// What can go wrong with the store.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// sled failed: a full disk, files that cannot be read or written, or
    /// damaged files.
    #[error("{}", describe_sled(.0))]
    Db(sled::Error),
    /// No game has this id.
    #[error("there is no game `{0}`; `stationmaster games` lists them")]
    NoSuchGame(String),
    /// The game could not be set up or read back.
    #[error(transparent)]
    Setup(#[from] SetupError),
    /// The database folder cannot be prepared for opening.
    #[error("the database folder {path}: {cause}")]
    Folder {
        /// The file or folder.
        path: String,
        /// What went wrong: said in the message, and so not its `source`.
        cause: std::io::Error,
    },
    /// Stored data cannot be read.
    #[error("stored data of game {game} cannot be read: {message}")]
    Corrupt {
        /// The game.
        game: String,
        /// What went wrong.
        message: String,
    },
    /// Stored data that belongs to no one game cannot be read.
    #[error("{what} in the database cannot be read: {message}")]
    Unreadable {
        /// What it is.
        what: String,
        /// What went wrong.
        message: String,
    },
    /// Someone else changed the game while this batch was checked.
    #[error("game {0} changed while the orders were being checked; send them again")]
    Conflict(String),
    /// An order of the batch was refused.
    #[error(transparent)]
    Rejected(#[from] BatchRejected),
    /// A state or a mail could not be packed for storage.
    #[error("a value could not be packed for storage: {0}")]
    Pack(#[from] pack::PackError),
    /// Another process has the database open (sled allows one).
    #[error("the database in {path} is open in another process{}", pid.map_or(String::new(), |p| format!(" (pid {p})")))]
    Locked {
        /// The database folder.
        path: String,
        /// The process holding it, where the system tells.
        pid: Option<u32>,
    },
}

impl From<sled::Error> for StoreError {
    fn from(e: sled::Error) -> Self {
        StoreError::Db(e)
    }
}

/// What a sled error means to the operator, in one sentence.
pub(crate) fn describe_sled(e: &sled::Error) -> String {
    match e {
        sled::Error::Io(io) if io.kind() == std::io::ErrorKind::StorageFull => {
            "the disk is full (no space left on the device of the database): nothing was \
             half applied; the mail not yet handled waits, and goes on once there is space"
                .to_string()
        }
        sled::Error::Io(io) => format!("the database cannot read or write its files: {io}"),
        sled::Error::Corruption { .. } => {
            "the database files are damaged (sled found corrupted data); restore a copy \
             of var/db, or import the last export"
                .to_string()
        }
        other => format!("the database failed: {other}"),
    }
}

/// Why a transaction of ours gave up.
#[derive(Debug)]
pub(crate) enum Abort {
    /// The game moved on since the change was computed: try again.
    Moved,
    /// What the transaction must check cannot be read: trying again will
    /// not help.
    Unreadable(String),
}

/// A failed sled transaction: the storage's error, or an abort, which
/// means game `game` changed under it.
pub(crate) fn transaction_error(e: TransactionError<Abort>, game: &str) -> StoreError {
    match e {
        TransactionError::Storage(e) => StoreError::Db(e),
        TransactionError::Abort(Abort::Moved) => StoreError::Conflict(game.to_string()),
        TransactionError::Abort(Abort::Unreadable(message)) => StoreError::Corrupt {
            game: game.to_string(),
            message,
        },
    }
}

pub(crate) fn unreadable(what: &str, e: impl std::fmt::Display) -> StoreError {
    StoreError::Unreadable {
        what: what.to_string(),
        message: e.to_string(),
    }
}

pub(crate) fn corrupt(id: &GameId, e: impl std::fmt::Display) -> StoreError {
    StoreError::Corrupt {
        game: id.0.clone(),
        message: e.to_string(),
    }
}
