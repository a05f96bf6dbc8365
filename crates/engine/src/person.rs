//! A player as a sentence names them to one reader: in the second person
//! to themselves ("You take a share", "your open hand"), by name to
//! everyone else ("ben takes a share", "ben's open hand"). The second
//! person is a form of its own, with its own verbs and possessive, never
//! "You" put where a name stands ("You's turn", "You has"; issue 38).

use crate::{Seat, Viewer};

/// A player named in a sentence for one reader.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Person {
    name: String,
    reader: bool,
}

impl Person {
    /// `name`, as read by themselves (`reader`) or by anyone else.
    pub fn new(name: impl Into<String>, reader: bool) -> Self {
        Person {
            name: name.into(),
            reader,
        }
    }

    /// True when the reader is this player.
    pub fn is_reader(&self) -> bool {
        self.reader
    }

    /// As the subject opening a sentence: "You", "ben".
    pub fn subject(&self) -> &str {
        if self.reader { "You" } else { &self.name }
    }

    /// Anywhere else in a sentence: "you", "ben".
    pub fn object(&self) -> &str {
        if self.reader { "you" } else { &self.name }
    }

    /// The possessive opening a sentence: "Your", "ben's".
    pub fn possessive(&self) -> String {
        if self.reader {
            "Your".to_string()
        } else {
            format!("{}'s", self.name)
        }
    }

    /// The possessive anywhere else: "your", "ben's".
    pub fn possessive_within(&self) -> String {
        if self.reader {
            "your".to_string()
        } else {
            format!("{}'s", self.name)
        }
    }

    /// The verb agreeing with this person as subject: `you` for the
    /// reader ("take", "are", "have"), `other` for anyone else ("takes",
    /// "is", "has").
    pub fn verb<'a>(&self, you: &'a str, other: &'a str) -> &'a str {
        if self.reader { you } else { other }
    }

    /// Subject and verb: "You take", "ben takes".
    pub fn does(&self, you: &str, other: &str) -> String {
        format!("{} {}", self.subject(), self.verb(you, other))
    }
}

/// What is wrong in `sentence` as a sentence for its reader, for the tests
/// every game runs over every kind of its events (issue 38): "You" put
/// where a name stands ("You's", "You has", "You is", "You was"); the
/// reader's own name where "you" is meant (`reader`: the name of the
/// player reading, None for a spectator or a moderator); and "you" read by
/// someone who plays no seat. Empty when the sentence reads right.
pub fn second_person_slips(sentence: &str, reader: Option<&str>) -> Vec<String> {
    let words: Vec<&str> = sentence
        .split(|c: char| !(c.is_alphanumeric() || c == '\'' || c == '_' || c == '-'))
        .filter(|w| !w.is_empty())
        .collect();
    let mut slips = Vec::new();
    for (i, w) in words.iter().enumerate() {
        let lower = w.to_lowercase();
        if lower == "you's" {
            slips.push(format!("\"{w}\""));
        }
        let third = ["has", "is", "was", "takes", "holds", "passes", "does"];
        if (lower == "you")
            && let Some(next) = words.get(i + 1)
            && third.contains(&next.to_lowercase().as_str())
        {
            slips.push(format!("\"{w} {next}\""));
        }
        if matches!(lower.as_str(), "you" | "your" | "yours" | "you're") && reader.is_none() {
            slips.push(format!("\"{w}\" read by someone who plays no seat"));
        }
        if let Some(name) = reader {
            let bare = w.strip_suffix("'s").unwrap_or(w);
            if bare == name {
                slips.push(format!(
                    "the reader's own name \"{w}\" where \"you\" is meant"
                ));
            }
        }
    }
    slips
}

/// The kinds, of `kinds` numbered 0 to `kinds - 1` by `kind`, that no
/// event of `events` is an example of: for the tests that read one event
/// of every kind (a `kind` with an exhaustive match keeps the count true).
pub fn kinds_without_example<E>(
    events: &[E],
    kind: impl Fn(&E) -> usize,
    kinds: usize,
) -> Vec<usize> {
    (0..kinds)
        .filter(|k| !events.iter().any(|e| kind(e) == *k))
        .collect()
}

/// [`second_person_slips`] of every event of `events` (each with seat 0,
/// named `names[0]`, as its actor) read by seat 0, by seat 1, by a
/// spectator and by a moderator through `describe`; and a sentence that
/// names the actor to a spectator but has no "you" for the actor. One line
/// for each fault found.
pub fn slips_for_every_reader<E>(
    events: &[E],
    names: &[&str],
    describe: impl Fn(&E, Viewer) -> String,
) -> Vec<String> {
    let readers = [
        (Viewer::Player(Seat(0)), names.first().copied()),
        (Viewer::Player(Seat(1)), names.get(1).copied()),
        (Viewer::Spectator, None),
        (Viewer::Moderator, None),
    ];
    let mut wrong = Vec::new();
    for e in events {
        for (viewer, name) in readers {
            let text = describe(e, viewer);
            for slip in second_person_slips(&text, name) {
                wrong.push(format!("{viewer:?} reads {text:?}: {slip}"));
            }
        }
        let own = describe(e, Viewer::Player(Seat(0)));
        let named = names
            .first()
            .is_some_and(|n| describe(e, Viewer::Spectator).contains(n));
        if named && !own.to_lowercase().contains("you") {
            wrong.push(format!("the actor reads {own:?}: no \"you\""));
        }
    }
    wrong
}
