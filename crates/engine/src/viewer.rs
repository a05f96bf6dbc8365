//! Who reads a text, a view or a log (issue 37: `None` as an
//! `Option<Seat>` meant "a spectator" to [`crate::Game::view`] and
//! "sees everything" to the log, and one value was passed to both).
//!
//! What each may see: a player their own secrets and nobody else's, and
//! the private messages they sent or got; a spectator (an observer, a
//! public page) nothing private at all; a moderator and the operator every
//! entry of the log, private messages included. A game's own view shows a
//! moderator and the operator what it shows a spectator (their mails and
//! `show` without `--as` never held a player's secrets); once a game is
//! over, [`crate::Game::view_over`] shows everyone everything.

use super::Seat;

/// The reader of a text, a view or a log.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Viewer {
    /// A player, in their seat.
    Player(Seat),
    /// Someone who plays no seat and moderates nothing: an observer, a
    /// page for anyone.
    Spectator,
    /// A moderator of the game (by mail or on the command line).
    Moderator,
    /// The operator, at the server.
    Operator,
}

impl Viewer {
    /// The reader's own seat, if they play one.
    pub fn seat(self) -> Option<Seat> {
        match self {
            Viewer::Player(s) => Some(s),
            _ => None,
        }
    }

    /// True for a moderator or the operator, who may read every entry of
    /// a game's log.
    pub fn sees_all(self) -> bool {
        matches!(self, Viewer::Moderator | Viewer::Operator)
    }
}

impl From<Seat> for Viewer {
    fn from(seat: Seat) -> Viewer {
        Viewer::Player(seat)
    }
}
