//! Who or what made a change to a game: its provenance, kept with every
//! log entry (issue 37: "who did a thing is stored as text and parsed
//! back"). A player's orders come by mail (their Message-ID) or from the
//! operator's command line; a moderator acts by mail or on the command
//! line; the clock acts at a deadline; the engine's bot plays a seat it
//! holds, or a player's turns while they have it play for them (issue 36).
//!
//! Stored as the text it always was (`deadline`, `bot`, `command line`,
//! `moderator ADDRESS`, or the mail's Message-ID), so logs written before
//! the type read the same and their hash chains still hold.

use std::fmt;

use serde::{Deserialize, Serialize};

/// The source of a change.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(from = "String", into = "String")]
pub enum Actor {
    /// A mail, by its Message-ID: a player's orders or table talk.
    Mail(String),
    /// The operator, at the server's command line (`stationmaster order`).
    CommandLine,
    /// A moderator, by their address (by mail, or `mod` on the command
    /// line).
    Moderator(String),
    /// The clock: a missed deadline, a reminder, an absence ending.
    Deadline,
    /// The engine's bot ([`crate::bot`]), playing a seat it holds or a
    /// player's turns on their autopilot. (A missed deadline the bot
    /// plays under the `bot` policy is the clock's act.)
    Bot,
}

const DEADLINE: &str = "deadline";
const BOT: &str = "bot";
const COMMAND_LINE: &str = "command line";
const MODERATOR: &str = "moderator ";

impl Actor {
    /// The moderator's address, if a moderator acted.
    pub fn moderator(&self) -> Option<&str> {
        match self {
            Actor::Moderator(by) => Some(by),
            _ => None,
        }
    }

    /// True if a player acted (by mail or through the operator), not a
    /// moderator or the clock: such an act ends their run of missed
    /// deadlines.
    pub fn is_players(&self) -> bool {
        matches!(self, Actor::Mail(_) | Actor::CommandLine)
    }
}

impl From<String> for Actor {
    fn from(text: String) -> Actor {
        if text == DEADLINE {
            Actor::Deadline
        } else if text == BOT {
            Actor::Bot
        } else if text == COMMAND_LINE {
            Actor::CommandLine
        } else if let Some(by) = text.strip_prefix(MODERATOR) {
            Actor::Moderator(by.to_string())
        } else {
            Actor::Mail(text)
        }
    }
}

impl From<Actor> for String {
    fn from(actor: Actor) -> String {
        actor.to_string()
    }
}

impl fmt::Display for Actor {
    /// As the log shows it: `moderator gm@example.org`, `deadline`, …
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Actor::Mail(id) => f.write_str(id),
            Actor::CommandLine => f.write_str(COMMAND_LINE),
            Actor::Moderator(by) => write!(f, "{MODERATOR}{by}"),
            Actor::Deadline => f.write_str(DEADLINE),
            Actor::Bot => f.write_str(BOT),
        }
    }
}
