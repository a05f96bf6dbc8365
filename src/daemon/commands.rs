//! The daemon's own mail commands (what a player may write besides orders),
//! and the vocabularies that tell orders and commands from chatter in a
//! player's or a moderator's mail (see [`crate::engine::chatter`]).

use crate::engine::AnyGame;
use crate::engine::chatter::Vocabulary;

/// A player's mail command.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Command {
    /// `help`: the grammar and what the player can do now.
    Help,
    /// `map`: the report again.
    Map,
    /// `history [A..B]`: the log.
    History,
    /// `away FROM to TO`: an absence.
    Away,
    /// `back`: the absence ends.
    Back,
    /// `autopilot on|off`: the bot plays the player's turns until they
    /// send orders (issue 36).
    Autopilot,
    /// `say TEXT`: table talk to every player.
    Say,
    /// `tell PLAYER TEXT`: table talk to one player.
    Tell,
    /// `reports full|short|turn`: how much mail the player gets.
    Reports,
    /// `address add ADDRESS`, `address remove ADDRESS`.
    Address,
    /// `leave`: before the start a site command; after it, the player is
    /// told how a seat is left in a running game.
    Leave,
    /// `takeback`: the player's last mail's orders taken back, while
    /// nobody else has acted and they showed nothing random or secret.
    Takeback,
    /// `moves [WHAT]`: every order the player can give now, or those about
    /// one part of the position (Linie 1: a square, a hand tile).
    Moves,
    /// `stats [WHO]`: the player's record on this server, or another's
    /// public figures.
    Stats,
}

/// The mail commands a player may give besides orders, each on a line of
/// its own, as help shows them; the first word is the command, written
/// whole.
pub const COMMANDS: &[(&str, Command)] = &[
    ("help", Command::Help),
    ("?", Command::Help),
    ("map", Command::Map),
    ("report", Command::Map),
    ("status", Command::Map),
    ("history [A..B]", Command::History),
    ("log [A..B]", Command::History),
    ("away YYYY-MM-DD to YYYY-MM-DD", Command::Away),
    ("back", Command::Back),
    ("autopilot on", Command::Autopilot),
    ("autopilot off", Command::Autopilot),
    ("say TEXT", Command::Say),
    ("tell PLAYER TEXT", Command::Tell),
    ("reports full", Command::Reports),
    ("reports short", Command::Reports),
    ("reports turn", Command::Reports),
    ("address add ADDRESS", Command::Address),
    ("address remove ADDRESS", Command::Address),
    ("leave", Command::Leave),
    ("takeback", Command::Takeback),
    ("moves [WHAT]", Command::Moves),
    ("stats [WHO]", Command::Stats),
];

/// The commands besides orders as `help` lists them after the orders
/// (docs/players.md, "Commands"): each form and what it does.
pub const COMMANDS_HELP: &[(&str, &str)] = &[
    ("map", "your report again, with no change to the game"),
    (
        "moves [WHAT]",
        "every order you can give now, ready to copy (\"You can\" shows a few); in Linie 1 \
         `moves C4` those on a square, `moves 2` those of tile 2 of your hand",
    ),
    (
        "history [A..B]",
        "every accepted order so far (or entries A to B)",
    ),
    (
        "takeback",
        "undo your last mail's orders, while nobody else has acted since and they showed nothing random or secret; everyone is told, and orders after it in the same mail apply instead",
    ),
    (
        "stats [WHO]",
        "your record on this server (games played, finished and won, places, ratings); `stats NAME` or `stats ADDRESS`: another player's public figures",
    ),
    ("say TEXT", "table talk to every player, sent at once"),
    ("tell PLAYER TEXT", "table talk to one player"),
    (
        "reports full|short|turn",
        "how much mail you get: a report after each change, a line a change, or one when it is your turn",
    ),
    (
        "away YYYY-MM-DD to YYYY-MM-DD [bot]",
        "your deadlines stop while you are away; with `bot`, the bot plays your turns meanwhile instead, until you send orders",
    ),
    ("back", "you are back before the date you gave"),
    (
        "autopilot on|off",
        "the bot plays your turns from now on, until you send orders or `autopilot off`",
    ),
    (
        "address add ADDRESS",
        "play this game from ADDRESS too (`address remove ADDRESS` takes it back)",
    ),
    (
        "leave",
        "how to give up your seat once the game runs (a moderator hands it on)",
    ),
];

/// [`COMMANDS_HELP`] as a block of text for `help`.
pub fn commands_help() -> String {
    let mut out = String::from("Besides orders, one command a line (never read as an order):\n");
    for (form, what) in COMMANDS_HELP {
        out.push_str(&format!("  {form}\n      {what}\n"));
    }
    out
}

/// The command of a line, if it is one: `away` with its dates, `back`
/// alone, the others alone or with one argument.
pub fn command(line: &str) -> Option<Command> {
    let words: Vec<&str> = line.split_whitespace().collect();
    let first = words.first()?.to_lowercase();
    let (_, c) = COMMANDS
        .iter()
        .find(|(form, _)| form.split_whitespace().next() == Some(first.as_str()))?;
    match c {
        Command::Away => Some(Command::Away),
        Command::Back | Command::Takeback => (words.len() == 1).then_some(*c),
        Command::Say => (words.len() >= 2).then_some(Command::Say),
        Command::Tell => (words.len() >= 3).then_some(Command::Tell),
        Command::Address => (words.len() == 3).then_some(Command::Address),
        // Answered whatever follows it: more than one word is told why.
        Command::Stats => Some(Command::Stats),
        _ => (words.len() <= 2).then_some(*c),
    }
}

/// What begins a line of a player's mail: the game's orders and the mail
/// commands.
pub fn player_vocabulary(game: &dyn AnyGame) -> Vocabulary {
    let forms = game.forms();
    Vocabulary::new()
        .orders(forms.iter().map(|f| f.form))
        .commands(COMMANDS.iter().map(|(f, _)| *f))
        // `reports` with a word that is no mode: answered, not chatter.
        .commands(["reports MODE"])
}

/// What begins a line of a moderator's mail: the moderator commands and
/// `why TEXT`.
pub fn moderator_vocabulary() -> Vocabulary {
    Vocabulary::new().commands(
        super::moderator::FORMS
            .iter()
            .map(|(f, _)| *f)
            .chain(["why TEXT"]),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `help` lists every command but itself: a command added to
    /// [`COMMANDS`] without a line in [`COMMANDS_HELP`] fails here.
    #[test]
    fn help_lists_every_command() {
        let first = |form: &str| form.split_whitespace().next().unwrap_or("").to_string();
        for (form, cmd) in COMMANDS.iter().filter(|(_, c)| *c != Command::Help) {
            assert!(
                COMMANDS_HELP.iter().any(|(h, _)| COMMANDS
                    .iter()
                    .any(|(f, c)| c == cmd && first(f) == first(h))),
                "{form} is not in COMMANDS_HELP"
            );
        }
    }

    #[test]
    fn commands_are_read_as_before() {
        assert_eq!(command("help"), Some(Command::Help));
        assert_eq!(command("HISTORY 1..3"), Some(Command::History));
        assert_eq!(command("help me please"), None);
        assert_eq!(
            command("away 2026-06-01 to 2026-06-03"),
            Some(Command::Away)
        );
        assert_eq!(command("back"), Some(Command::Back));
        assert_eq!(command("back on monday"), None);
        assert_eq!(command("Takeback"), Some(Command::Takeback));
        assert_eq!(command("takeback my last move"), None);
        assert_eq!(command("extend gwr c14"), None);
        assert_eq!(command("moves"), Some(Command::Moves));
        assert_eq!(command("Moves C4"), Some(Command::Moves));
        assert_eq!(command("move C4"), None);
        assert_eq!(command("stats"), Some(Command::Stats));
        assert_eq!(command("Stats Béla"), Some(Command::Stats));
    }

    #[test]
    fn moderators_chatter_is_told_apart() {
        let v = moderator_vocabulary();
        use crate::engine::chatter::Reading;
        assert_eq!(v.read("pause"), Reading::Order);
        assert_eq!(v.read("why the server was down"), Reading::Order);
        assert_eq!(v.read("extnd 24h"), Reading::Typo("extend".into()));
        assert_eq!(v.read("Hi all,"), Reading::Chatter);
        assert_eq!(v.read("Thanks, Mod"), Reading::Chatter);
    }
}
