//! Names as a reader sees them (docs/operators.md, "Security",
//! "Names"): a player's name is printed in every report, so two names
//! that look the same there are one name. `anna`, `ANNA`, `аnna` (a Cyrillic а) and `ａnna` (a full
//! width a) are all the same name; the second to come is refused.

use unicode_normalization::UnicodeNormalization;
use unicode_security::skeleton;

/// What `name` looks like: its compatibility form (NFKC), in lower case,
/// with every letter that looks like another replaced by it (the Unicode
/// confusables skeleton, UTS #39), in lower case again.
pub fn seen_as(name: &str) -> String {
    let folded: String = name.trim().nfkc().collect::<String>().to_lowercase();
    skeleton(&folded).collect::<String>().to_lowercase()
}

/// The first of `others` that looks like `name`, if any.
pub fn looks_like<'a>(name: &str, others: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let seen = seen_as(name);
    others.into_iter().find(|o| seen_as(o) == seen)
}

/// The words a reader takes for the server's own voice: a player called
/// so would read as the moderator, the operator or the reader.
const RESERVED: &[&str] = &["you", "moderator", "operator", "stationmaster", "nobody"];

/// Why `name` may not be a player's beside the names `taken` and the
/// moderators' addresses `moderators` (whose local parts are how a report
/// may name them), or None. `own` is the address of whoever takes the
/// name: a moderator who plays (the creator of a game made by mail) may
/// be called as their address is.
pub fn refusal<'a>(
    name: &str,
    taken: impl IntoIterator<Item = &'a str>,
    moderators: impl IntoIterator<Item = &'a str>,
    own: Option<&str>,
) -> Option<String> {
    if let Some(other) = looks_like(name, taken) {
        return Some(if other.eq_ignore_ascii_case(name) {
            format!("two players are called {name}")
        } else {
            format!(
                "{name} looks like {other}, who plays already: in a report nobody could tell them apart"
            )
        });
    }
    if let Some(word) = looks_like(name, RESERVED.iter().copied()) {
        return Some(format!(
            "{name} reads as `{word}` in the reports; choose a name of your own"
        ));
    }
    let local = |a: &'a str| {
        a.split('@')
            .next()
            .unwrap_or(a)
            .split('+')
            .next()
            .unwrap_or(a)
    };
    let others = moderators
        .into_iter()
        .filter(|m| own.is_none_or(|o| !o.eq_ignore_ascii_case(m)))
        .map(local);
    if let Some(m) = looks_like(name, others) {
        return Some(format!(
            "{name} looks like the moderator {m}; choose a name of your own"
        ));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn look_alikes_are_one_name() {
        assert_eq!(seen_as("anna"), seen_as("ANNA"));
        assert_eq!(seen_as("anna"), seen_as("\u{430}nna"), "Cyrillic a");
        assert_eq!(seen_as("anna"), seen_as("\u{ff41}nna"), "full width a");
        assert_ne!(seen_as("anna"), seen_as("anne"));
        assert_eq!(looks_like("\u{430}nna", ["ben", "anna"]), Some("anna"));
        assert!(refusal("bob", ["anna"], ["gm@x.org"], None).is_none());
        assert!(refusal("gm", ["anna"], ["gm@x.org"], None).is_some());
        assert!(refusal("gm", ["anna"], ["gm@x.org"], Some("GM@x.org")).is_none());
        assert!(refusal("You", [], [], None).is_some());
    }
}
