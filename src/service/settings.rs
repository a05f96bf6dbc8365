//! A game's deadline settings as moderators, `new` and the games made by
//! mail name and change them (`set turn 72h`, `new rocket turn 72h`): one
//! reading for all of them. Pure: no store, no mail.

use crate::clock::Span;

/// The deadline settings of a game of `kind`, as `set` and help name them:
/// `turn, veto_question, veto_bid, time_zone, …` for Rocket.
pub fn setting_names(kind: &str) -> String {
    let mut names = vec!["turn".to_string()];
    if let Ok(entry) = crate::registry::find(kind) {
        for w in entry.waits {
            names.push(w.key_alias.unwrap_or(w.kind.neutral_name()).to_string());
        }
    }
    names.extend(
        [
            "time_zone",
            "round_to_hour",
            "skip_days",
            "reminders",
            "policy",
            "replace_after",
            "away_max",
        ]
        .map(str::to_string),
    );
    names.join(", ")
}

/// When a change of deadline setting `key` takes effect, as everyone is
/// told: a running deadline keeps the settings it started under (its
/// time, reminders and policy).
pub fn set_applies(key: &str) -> &'static str {
    match key {
        "time_zone" => {
            "it applies to deadlines that start from now, and times are shown in it from now on (running deadlines keep their moment)"
        }
        "replace_after" => "it counts from the next missed deadline on",
        "away_max" => "it applies to absences declared from now",
        _ => "it applies to deadlines that start from now; running ones keep theirs",
    }
}

/// `settings` of a game of `kind` with `key` set to `value` (as written in
/// `[deadlines]`), checked.
pub fn set(
    settings: &crate::clock::ClockSettings,
    kind: &str,
    key: &str,
    value: &str,
) -> Result<crate::clock::ClockSettings, String> {
    use crate::clock::Policy;
    let mut c = settings.clone();
    let list = |v: &str| -> Vec<String> {
        v.split([',', ' '])
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::to_string)
            .collect()
    };
    if let Some(wait) = crate::clock::wait_of_key(key) {
        *c.window_mut(wait) = Span::parse(value)?;
        c.check()?;
        return Ok(c);
    }
    match key {
        "time_zone" => c.time_zone = value.trim().to_string(),
        "round_to_hour" => {
            c.round_to_hour = match value.trim() {
                "none" | "" => None,
                v => Some(
                    v.parse()
                        .map_err(|_| format!("`{v}` is not an hour (0 to 23) or none"))?,
                ),
            }
        }
        "skip_days" => c.skip_days = list(value),
        "reminders" => {
            c.reminders = list(value)
                .iter()
                .map(|r| Span::parse(r))
                .collect::<Result<_, _>>()?
        }
        "policy" => c.policy = Policy::parse(value)?,
        "replace_after" => {
            c.replace_after = value
                .trim()
                .parse()
                .map_err(|_| format!("`{value}` is not a number"))?
        }
        "away_max" => c.away_max = Span::parse(value)?,
        other => {
            return Err(format!(
                "`{other}` is not a deadline setting; they are {}",
                setting_names(kind)
            ));
        }
    }
    c.check()?;
    Ok(c)
}
