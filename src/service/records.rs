//! The players' records as people read them (issue 36, point 4): `stats`
//! by mail (a player's own record, or another's public figures), the
//! operator's `stationmaster stats`, and the line of games finished per
//! player that a game's welcomes and its page show, so that a game master
//! sees who finishes games. The records themselves are the store's
//! ([`crate::store::records`]).
//!
//! What another player may read of a record (docs/players.md, "Your
//! record"): the games played, finished and won, the places and the
//! ratings. Aborted games, missed deadlines and seats handed on are the
//! player's own to read (and the operator's). Asked by name, the answer
//! never shows the address behind it; asked by address, never the names.

use std::collections::BTreeMap;

use super::names;
use crate::engine::Seat;
use crate::store::{GameMeta, GameRecord, KindRecord, PlayerRecord, Store, StoreError};

/// Who reads a record, and so how much of it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reader {
    /// The player themselves: all of it.
    Own,
    /// Another player: the public figures.
    Other,
    /// The operator: all of it.
    Operator,
}

/// `1st`, `2nd`, `3rd`, `4th` …
fn ordinal(n: u32) -> String {
    let suffix = match (n % 10, n % 100) {
        (1, p) if p != 11 => "st",
        (2, p) if p != 12 => "nd",
        (3, p) if p != 13 => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

/// The places of `k`, best first: `1st of 3 twice, 2nd of 4 once`.
fn places(k: &KindRecord) -> String {
    let mut all: Vec<(u32, u32, u32)> = k
        .placings
        .iter()
        .filter_map(|(key, n)| {
            let (place, of) = key.split_once('/')?;
            Some((place.parse().ok()?, of.parse().ok()?, *n))
        })
        .collect();
    all.sort();
    all.iter()
        .map(|(place, of, n)| {
            let times = match n {
                1 => "once".to_string(),
                2 => "twice".to_string(),
                n => format!("{n} times"),
            };
            format!("{} of {of} {times}", ordinal(*place))
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// One kind's figures as `reader` may read them, in a line.
pub fn figures(k: &KindRecord, reader: Reader) -> String {
    let mut out = format!(
        "played {}, finished {}, won {}",
        k.played, k.finished, k.won
    );
    if reader != Reader::Other {
        out.push_str(&format!(
            ", aborted {}, seats handed on {}, deadlines missed {}",
            k.aborted, k.handed_on, k.missed
        ));
    }
    if !k.placings.is_empty() {
        out.push_str(&format!("; places: {}", places(k)));
    }
    match &k.rating {
        Some(r) => out.push_str(&format!(
            "; rating {:.1} (skill {:.1} ± {:.1}, from {} game{})",
            r.shown(),
            r.mu,
            r.sigma,
            r.games,
            if r.games == 1 { "" } else { "s" }
        )),
        None => out.push_str("; not rated yet"),
    }
    out
}

/// A record as `reader` may read it, a line per game kind and one for
/// them all where there are several.
pub fn record_text(record: &PlayerRecord, reader: Reader) -> String {
    let mut lines = Vec::new();
    for (kind, k) in &record.kinds {
        lines.push(format!(
            "  {}: {}",
            crate::registry::title(kind),
            figures(k, reader)
        ));
    }
    if record.kinds.len() > 1 {
        let total = record.total();
        let mut all = format!(
            "  In all: played {}, finished {}, won {}",
            total.played, total.finished, total.won
        );
        if reader != Reader::Other {
            all.push_str(&format!(
                ", aborted {}, seats handed on {}, deadlines missed {}",
                total.aborted, total.handed_on, total.missed
            ));
        }
        lines.push(all);
    }
    lines.join("\n")
}

/// What a rating means, said once under the records an answer shows.
pub const RATING_KEY: &str = "A rating is the skill less three times its uncertainty (Weng-Lin): 0 at first, it rises as finished games make the skill surer. Only finished games with two or more people count; a bot counts as nobody.";

/// The records whose player took a seat under a name that reads as
/// `name` ([`names::seen_as`]), by address.
pub fn by_name(store: &Store, name: &str) -> Result<Vec<(String, PlayerRecord)>, StoreError> {
    let wanted = names::seen_as(name);
    Ok(store
        .player_records()?
        .into_iter()
        .filter(|(_, r)| r.names.iter().any(|n| names::seen_as(n) == wanted))
        .collect())
}

/// The answer to `stats` (`asked` none) or `stats ADDRESS|NAME` from
/// `from`: the sender's own record, or another's public figures (the
/// caller adds [`RATING_KEY`] once under them); `Err` with a sentence
/// where nobody or several people answer to it.
pub fn stats_text(
    store: &Store,
    from: &str,
    asked: Option<&str>,
) -> Result<Result<String, String>, StoreError> {
    let asked = asked.map(|a| a.trim().trim_matches(|c| c == '<' || c == '>'));
    let (address, reader, label) = match asked {
        None => (
            from.to_string(),
            Reader::Own,
            format!("Your record here ({from})"),
        ),
        Some(a) if a.eq_ignore_ascii_case(from) => (
            from.to_string(),
            Reader::Own,
            format!("Your record here ({from})"),
        ),
        Some(a) if a.contains('@') => (
            a.to_string(),
            Reader::Other,
            format!("The record of {a} here"),
        ),
        Some(name) => {
            let mut found = by_name(store, name)?;
            return Ok(match found.len() {
                0 => Err(format!(
                    "nobody has played here as {name}; `stats ADDRESS` asks by address"
                )),
                1 => {
                    let (_, record) = found.remove(0);
                    Ok(format!(
                        "The record of {name} here:\n{}",
                        record_text(&record, Reader::Other)
                    ))
                }
                n => Err(format!(
                    "{n} players have played here as {name} (or a name that reads the same); ask by address: `stats ADDRESS`"
                )),
            });
        }
    };
    Ok(match store.player_record(&address)? {
        Some(record) => Ok(format!("{label}:\n{}", record_text(&record, reader))),
        None if reader == Reader::Own => Ok(format!(
            "You ({from}) have taken no seat here yet: your record starts with your first game."
        )),
        None => Err(format!("{address} has taken no seat here")),
    })
}

/// `stationmaster stats [ADDRESS|NAME] [--json]`: every record, a line
/// each (or, in JSON, whole); or one address's, or those of everyone who
/// played under a name, whole. `Err`: nobody answers to it.
pub fn operator_text(
    store: &Store,
    asked: Option<&str>,
    json: bool,
) -> Result<Result<String, String>, StoreError> {
    let found: BTreeMap<String, PlayerRecord> = match asked {
        None => store.player_records()?,
        Some(a) if a.contains('@') => store
            .player_record(a)?
            .map(|r| (a.trim().to_ascii_lowercase(), r))
            .into_iter()
            .collect(),
        Some(name) => by_name(store, name)?.into_iter().collect(),
    };
    if json {
        return Ok(Ok(serde_json::to_string_pretty(&found).unwrap_or_default()));
    }
    if found.is_empty() {
        return Ok(Err(match asked {
            None => "no player has taken a seat here yet".to_string(),
            Some(a) if a.contains('@') => format!("{a} has taken no seat here"),
            Some(a) => format!("nobody has played here as {a}"),
        }));
    }
    let mut out = Vec::new();
    for (address, record) in &found {
        out.push(format!("{address} (as {}):", record.names.join(", ")));
        out.push(record_text(record, Reader::Operator));
    }
    Ok(Ok(format!("{}\n", out.join("\n"))))
}

/// `Games finished here, by player: anna 3, ben 0 (1 seat handed on).`:
/// each seat's player (a bot: `a bot`) with the games they finished here,
/// all kinds together, as the records stand now. For a game's welcomes
/// and its page.
pub fn finished_line(
    store: &Store,
    record: &GameRecord,
    meta: &GameMeta,
) -> Result<String, StoreError> {
    let mut each = Vec::new();
    for (s, p) in record.setup.players.iter().enumerate() {
        let seat = Seat(s as u8);
        if meta.is_bot(seat) {
            each.push(format!("{} (a bot)", p.name));
            continue;
        }
        let total = store
            .player_record(meta.address(record, seat))?
            .map(|r| r.total())
            .unwrap_or_default();
        let left = match total.handed_on {
            0 => String::new(),
            1 => " (1 seat handed on)".to_string(),
            n => format!(" ({n} seats handed on)"),
        };
        each.push(format!("{} {}{left}", p.name, total.finished));
    }
    Ok(format!(
        "Games finished here, by player: {}.",
        each.join(", ")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn places_read_best_first() {
        let mut k = KindRecord::default();
        for (key, n) in [("2/4", 1), ("1/3", 2), ("11/12", 3)] {
            k.placings.insert(key.to_string(), n);
        }
        assert_eq!(
            places(&k),
            "1st of 3 twice, 2nd of 4 once, 11th of 12 3 times"
        );
        assert_eq!(
            ["1", "2", "3", "4", "12", "21", "22", "113"].map(|n| ordinal(n.parse().unwrap())),
            ["1st", "2nd", "3rd", "4th", "12th", "21st", "22nd", "113th"]
        );
    }
}
