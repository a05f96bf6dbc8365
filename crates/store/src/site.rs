//! What the server keeps besides games: games forming by mail (made with
//! `new`, not yet started) and what it knows of each address it has
//! mailed or heard from. Both live in the `site` tree, as JSON:
//! `forming:ID` → [`Forming`], `contact:ADDRESS` → [`Contact`]. A forming
//! game's expiry is in the scheduler's `clock` index like a deadline.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::GameId;

/// A game made by mail that has not started: who sits, who is invited,
/// and how it will be set up.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Forming {
    /// The id it will keep when it starts.
    pub id: GameId,
    /// The game's kind (a registry name).
    pub kind: String,
    /// Options as `new` was given them (checked against the game's).
    pub options: Vec<String>,
    /// The deadline settings it will start with.
    pub clock: clock::ClockSettings,
    /// Anyone may join, not only the invited.
    pub open: bool,
    /// The seats taken, in order of joining; the first is the creator's.
    pub seats: Vec<FormingSeat>,
    /// Addresses invited (lowercase), in order.
    #[serde(default)]
    pub invited: Vec<String>,
    /// When it was made.
    pub created: DateTime<Utc>,
    /// When it expires unless started.
    pub expires: DateTime<Utc>,
    /// The seed of the game's random choices.
    pub seed: u64,
    /// How much mail its players get unless they choose (`reports MODE`
    /// at `new`).
    #[serde(default)]
    pub reports: ReportMode,
    /// Anyone may watch it once it runs (`watchable` at `new`).
    #[serde(default)]
    pub watchable: bool,
    /// Seats the engine's bot takes at the start, after the people's
    /// (`bots=N` at `new`, issue 36).
    #[serde(default)]
    pub bots: u8,
}

/// Someone who watches a game (`watch GAME`): not a player; gets the
/// spectator's report after each change and the archive at the end.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Observer {
    /// Their address (lowercase).
    pub address: String,
    /// The last log entry their last mail covered.
    pub reported: u64,
}

/// A request waiting for its confirmation: the code mailed to the address,
/// which it must send back from there.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Pending {
    /// What is asked, as the command that confirms it writes it without
    /// the code: `watch rocket-1`.
    pub what: String,
    /// The code.
    pub code: String,
    /// When it was asked.
    pub at: DateTime<Utc>,
    /// The commands held until the code comes back (the `new`, `join`
    /// or `watch` of an address's first mail, see [`Contact::unasked`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub lines: Vec<String>,
}

impl Pending {
    /// The `what` of the code that the one mail to an address not yet
    /// proved carries in its subject tag: a reply with it proves it.
    pub const REPLY: &'static str = "reply";
}

/// How much mail a player gets about a game (`reports MODE`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ReportMode {
    /// A report with the map after every change.
    #[default]
    Full,
    /// One line per change; the full report when the game waits for them.
    Short,
    /// Only when the game waits for them, with what happened since.
    Turn,
}

impl ReportMode {
    /// Every mode, as players write them.
    pub const ALL: [ReportMode; 3] = [ReportMode::Full, ReportMode::Short, ReportMode::Turn];

    /// The word for it: `full`, `short`, `turn`.
    pub fn name(self) -> &'static str {
        match self {
            ReportMode::Full => "full",
            ReportMode::Short => "short",
            ReportMode::Turn => "turn",
        }
    }

    /// Reads `full`, `short` or `turn`.
    pub fn parse(word: &str) -> Result<ReportMode, String> {
        ReportMode::ALL
            .into_iter()
            .find(|m| m.name().eq_ignore_ascii_case(word.trim()))
            .ok_or_else(|| {
                format!(
                    "`{}` is not a kind of reports; write `reports full` (a report with the map after every change), `reports short` (one line per change, the full report when the game waits for you) or `reports turn` (only when the game waits for you)",
                    word.trim()
                )
            })
    }

    /// What it means, for answers and listings.
    pub fn describe(self) -> &'static str {
        match self {
            ReportMode::Full => "a report with the map after every change",
            ReportMode::Short => "one line per change; the full report when the game waits for you",
            ReportMode::Turn => {
                "a report only when the game waits for you, with what happened since"
            }
        }
    }
}

/// One seat of a forming game.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FormingSeat {
    /// The player's name in the game.
    pub name: String,
    /// Their address (lowercase).
    pub address: String,
    /// Their secret key: the game keeps it when it starts.
    pub key: String,
    /// The Message-ID of the first mail they got about the game: the root
    /// of their thread, from `new` or `join` to the end of the game.
    pub root: String,
}

impl Forming {
    /// The seat of `address`, if it has one.
    pub fn seat_of(&self, address: &str) -> Option<usize> {
        self.seats
            .iter()
            .position(|s| s.address.eq_ignore_ascii_case(address))
    }

    /// The creator's address.
    pub fn creator(&self) -> &str {
        self.seats.first().map_or("", |s| s.address.as_str())
    }

    /// The seats taken: the people's and the bot's.
    pub fn taken(&self) -> usize {
        self.seats.len() + usize::from(self.bots)
    }
}

/// What the server knows of one address, so that nothing a stranger
/// sends makes it mail a third party more than once unasked.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Contact {
    /// When it was first mailed before it had proved that it asks for
    /// mail from us: an invitation, an address confirmation, or the
    /// answer to the first mail that bore its address. The one such mail
    /// it gets until it proves itself.
    #[serde(default)]
    pub unasked: Option<DateTime<Utc>>,
    /// That mail could be answered to prove the address (it carried a
    /// code or a key). False in records written before such mails carried
    /// codes (an invitation then did not): such an address gets one
    /// answer with a code.
    #[serde(default)]
    pub answerable: bool,
    /// When it first answered one of our mails with its key or a code we
    /// sent it: from then on it has asked for mail from us.
    #[serde(default)]
    pub proved: Option<DateTime<Utc>>,
    /// It asked for no more invitations (`no more invitations`).
    #[serde(default)]
    pub no_invitations: bool,
    /// The games it watches.
    #[serde(default)]
    pub watching: Vec<String>,
    /// Requests from it waiting for their confirmation.
    #[serde(default)]
    pub pending: Vec<Pending>,
}

/// The `site` tree's key of forming game `id`.
pub(super) fn forming_key(id: &GameId) -> Vec<u8> {
    format!("forming:{}", id.0).into_bytes()
}

/// The key of the site's moderators every game has a key for
/// ([`super::Store::site_moderators_keyed`]).
pub(super) const KEYED_MODERATORS: &[u8] = b"keyed-site-moderators";

/// The `site` tree's key of `address`'s contact record.
pub(super) fn contact_key(address: &str) -> Vec<u8> {
    format!("contact:{}", address.trim().to_ascii_lowercase()).into_bytes()
}

/// The prefix of every contact record's key.
pub(super) const CONTACT_PREFIX: &[u8] = b"contact:";

/// The prefix of every forming game's key.
pub(super) const FORMING_PREFIX: &[u8] = b"forming:";
