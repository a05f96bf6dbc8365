//! Deadlines: per-game settings, the deadline of each awaited player, and
//! when the scheduler must next look at the game (reminders, deadlines,
//! the end of an absence).
//!
//! Pure: every function takes the time as an argument. The daemon keeps one
//! index entry per game (its next time to look) in the store, so a poll
//! cycle touches only the games that are due.
#![warn(missing_docs)]

use std::fmt;

use chrono::{DateTime, Datelike, Duration, NaiveDate, TimeZone, Timelike, Utc, Weekday};
use chrono_tz::Tz;
use serde::{Deserialize, Serialize};

use engine::{Awaited, Seat, WaitKind};

/// A length of time as written in config and commands: `48h`, `2d`, `90m`,
/// `1d12h`. Stored in minutes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Span(pub u32);

impl Span {
    /// Reads `48h`, `2d`, `90m`, `1d12h` (days, hours, minutes).
    pub fn parse(text: &str) -> Result<Span, String> {
        let t = text.trim().to_ascii_lowercase();
        if t.is_empty() {
            return Err("an empty duration".to_string());
        }
        let mut total: u64 = 0;
        let mut number = String::new();
        for c in t.chars() {
            if c.is_ascii_digit() {
                number.push(c);
                continue;
            }
            let unit = match c {
                'd' => 24 * 60,
                'h' => 60,
                'm' => 1,
                _ => return Err(format!("`{text}` is not a duration such as 48h, 2d or 90m")),
            };
            let n: u64 = number
                .parse()
                .map_err(|_| format!("`{text}` is not a duration such as 48h, 2d or 90m"))?;
            total += n * unit;
            number.clear();
        }
        if !number.is_empty() {
            return Err(format!("`{text}`: say the unit, e.g. {text}h"));
        }
        u32::try_from(total)
            .map(Span)
            .map_err(|_| format!("`{text}` is too long"))
    }

    /// As a chrono duration.
    pub fn duration(self) -> Duration {
        Duration::minutes(i64::from(self.0))
    }
}

impl fmt::Display for Span {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (d, h, m) = (self.0 / 1440, self.0 % 1440 / 60, self.0 % 60);
        let mut out = String::new();
        if d > 0 {
            out.push_str(&format!("{d}d"));
        }
        if h > 0 {
            out.push_str(&format!("{h}h"));
        }
        if m > 0 || out.is_empty() {
            out.push_str(&format!("{m}m"));
        }
        f.write_str(&out)
    }
}

impl Serialize for Span {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.to_string())
    }
}

impl<'de> Deserialize<'de> for Span {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Span, D::Error> {
        let text = String::deserialize(d)?;
        Span::parse(&text).map_err(serde::de::Error::custom)
    }
}

/// What a missed turn deadline does.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Policy {
    /// The turn's remaining actions are lost.
    #[default]
    Skip,
    /// Nothing happens; the moderators are told.
    Wait,
    /// The game's documented safe order is given for the player (Rocket: a
    /// goods token, the first on the board), for each action left.
    Default,
    /// The engine's bot plays the turn, and answers a question or round
    /// for the player (issue 36).
    Bot,
}

impl Policy {
    /// Reads `skip`, `wait`, `default` or `bot`.
    pub fn parse(text: &str) -> Result<Policy, String> {
        match text.trim().to_ascii_lowercase().as_str() {
            "skip" => Ok(Policy::Skip),
            "wait" => Ok(Policy::Wait),
            "default" => Ok(Policy::Default),
            "bot" => Ok(Policy::Bot),
            other => Err(format!(
                "`{other}` is not a policy: skip, wait, default or bot"
            )),
        }
    }

    /// The policy as it is written: `skip`, `wait`, `default` or `bot`.
    pub fn name(self) -> &'static str {
        match self {
            Policy::Skip => "skip",
            Policy::Wait => "wait",
            Policy::Default => "default",
            Policy::Bot => "bot",
        }
    }
}

/// A game's deadline settings (defaults in `[deadlines]` of the config).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ClockSettings {
    /// Time for a turn.
    pub turn: Span,
    /// Time to answer a question put to several players (Rocket names it
    /// `veto_question`; see [`read_settings`]).
    pub question: Span,
    /// Time for each bid of a round (Rocket: `veto_bid`).
    pub bid: Span,
    /// The game's time zone (IANA name, e.g. `Europe/London`).
    pub time_zone: String,
    /// If set, deadlines are moved on to this full hour (0 to 23) of the
    /// game's time zone.
    pub round_to_hour: Option<u8>,
    /// Weekdays on which no deadline falls (`sat`, `sun`, …): a deadline on
    /// one moves to the next day that is not.
    pub skip_days: Vec<String>,
    /// Reminders this long before a deadline, to players who still owe input.
    pub reminders: Vec<Span>,
    /// What a missed turn deadline does.
    pub policy: Policy,
    /// After this many missed deadlines in a row the moderators are asked to
    /// replace the player (0: never).
    pub replace_after: u32,
    /// The longest absence (`away`) a player may declare.
    pub away_max: Span,
}

impl Default for ClockSettings {
    fn default() -> Self {
        ClockSettings {
            turn: Span(48 * 60),
            question: Span(12 * 60),
            bid: Span(12 * 60),
            time_zone: "UTC".to_string(),
            round_to_hour: None,
            skip_days: Vec::new(),
            reminders: vec![Span(24 * 60), Span(2 * 60)],
            policy: Policy::Skip,
            replace_after: 3,
            away_max: Span(14 * 24 * 60),
        }
    }
}

fn weekday(name: &str) -> Option<Weekday> {
    let n = name.trim().to_ascii_lowercase();
    let all = [
        ("mon", Weekday::Mon),
        ("tue", Weekday::Tue),
        ("wed", Weekday::Wed),
        ("thu", Weekday::Thu),
        ("fri", Weekday::Fri),
        ("sat", Weekday::Sat),
        ("sun", Weekday::Sun),
    ];
    all.iter().find(|(k, _)| n.starts_with(k)).map(|(_, d)| *d)
}

impl ClockSettings {
    /// Checks the time zone, hour and days.
    pub fn check(&self) -> Result<(), String> {
        self.fault().map_or(Ok(()), |(_, why)| Err(why))
    }

    /// The first setting [`ClockSettings::check`] refuses: its key (as in
    /// `[deadlines]`: `time_zone`, `turn`, …), so the config file and the
    /// command line's flags can name it, and why.
    pub fn fault(&self) -> Option<(&'static str, String)> {
        if let Err(why) = self.tz() {
            return Some(("time_zone", why));
        }
        if let Some(h) = self.round_to_hour
            && h > 23
        {
            return Some((
                "round_to_hour",
                format!("round_to_hour {h}: an hour is 0 to 23"),
            ));
        }
        for d in &self.skip_days {
            if weekday(d).is_none() {
                return Some((
                    "skip_days",
                    format!("skip_days: `{d}` is not a weekday (mon … sun)"),
                ));
            }
        }
        if self.skip_days.len() >= 7 {
            return Some((
                "skip_days",
                "skip_days: at least one day must remain".to_string(),
            ));
        }
        [
            ("turn", self.turn),
            ("question", self.question),
            ("bid", self.bid),
        ]
        .into_iter()
        .find(|(_, s)| s.0 == 0)
        .map(|(key, _)| (key, "a deadline must be longer than 0m".to_string()))
    }

    /// The time zone.
    pub fn tz(&self) -> Result<Tz, String> {
        self.time_zone.parse::<Tz>().map_err(|_| {
            format!(
                "`{}` is not a time zone such as Europe/London or UTC",
                self.time_zone
            )
        })
    }

    /// The window for a kind of wait.
    pub fn window(&self, kind: WaitKind) -> Span {
        match kind {
            WaitKind::Turn => self.turn,
            WaitKind::Question => self.question,
            WaitKind::Bid => self.bid,
        }
    }

    /// The window for a kind of wait, to change.
    pub fn window_mut(&mut self, kind: WaitKind) -> &mut Span {
        match kind {
            WaitKind::Turn => &mut self.turn,
            WaitKind::Question => &mut self.question,
            WaitKind::Bid => &mut self.bid,
        }
    }

    /// The settings as game `kind` names them, for its JSON view: each
    /// wait under the game's own key (Rocket: `veto_question`).
    pub fn view(&self, kind: &str) -> serde_json::Value {
        let mut value = serde_json::to_value(self).unwrap_or_default();
        if let (Ok(entry), Some(map)) = (registry::find(kind), value.as_object_mut()) {
            // Only the waits the game has, under its names for them.
            for kind in [WaitKind::Question, WaitKind::Bid] {
                let value = map.remove(kind.neutral_name());
                let Some(w) = entry.waits.iter().find(|w| w.kind == kind) else {
                    continue;
                };
                if let Some(v) = value {
                    let key = w.key_alias.unwrap_or(kind.neutral_name());
                    map.insert(key.to_string(), v);
                }
            }
        }
        value
    }

    /// The deadline of a wait starting at `from`: the window, then on to the
    /// round hour, then past skipped weekdays.
    pub fn due(&self, kind: WaitKind, from: DateTime<Utc>) -> DateTime<Utc> {
        let raw = from + self.window(kind).duration();
        let tz = self.tz().unwrap_or(Tz::UTC);
        let mut local = raw.with_timezone(&tz);
        if let Some(h) = self.round_to_hour {
            let on_hour = local.date_naive().and_hms_opt(u32::from(h), 0, 0);
            let mut candidate = on_hour.and_then(|t| tz.from_local_datetime(&t).earliest());
            if candidate.is_none_or(|c| c < local) {
                let next = local
                    .date_naive()
                    .succ_opt()
                    .and_then(|d| d.and_hms_opt(u32::from(h), 0, 0));
                candidate = next.and_then(|t| tz.from_local_datetime(&t).earliest());
            }
            if let Some(c) = candidate {
                local = c;
            }
        }
        let skip: Vec<Weekday> = self.skip_days.iter().filter_map(|d| weekday(d)).collect();
        for _ in 0..7 {
            if !skip.contains(&local.weekday()) {
                break;
            }
            let next = local.naive_local() + Duration::days(1);
            local = tz
                .from_local_datetime(&next)
                .earliest()
                .unwrap_or(local + Duration::days(1));
        }
        local.with_timezone(&Utc)
    }

    /// `when` in the game's time zone, with how far off it is from `now`:
    /// `Sat 21 Nov 2026 18:00 GMT (in 31 hours)`.
    pub fn describe(&self, when: DateTime<Utc>, now: DateTime<Utc>) -> String {
        format!("{} ({})", self.when(when), relative(when, now))
    }

    /// `when` in the game's time zone, without the relative part:
    /// `Mon 23 Nov 2026 18:00 GMT`.
    pub fn when(&self, when: DateTime<Utc>) -> String {
        let tz = self.tz().unwrap_or(Tz::UTC);
        when.with_timezone(&tz)
            .format("%a %-d %b %Y %H:%M %Z")
            .to_string()
    }
}

/// A length of time for people, exact to the minute: `2 days 21 hours`,
/// `1 hour 5 minutes`, `45 minutes`; under a minute, `less than a minute`.
/// (A [`Span`] prints as written in commands, `2d21h`; [`relative`] rounds
/// to the nearest unit.)
pub fn duration_words(d: Duration) -> String {
    let minutes = d.num_minutes().max(0);
    if minutes == 0 {
        return "less than a minute".to_string();
    }
    let parts: Vec<String> = [
        (minutes / 1440, "day"),
        (minutes % 1440 / 60, "hour"),
        (minutes % 60, "minute"),
    ]
    .into_iter()
    .filter(|(n, _)| *n > 0)
    .map(|(n, unit)| format!("{n} {unit}{}", if n == 1 { "" } else { "s" }))
    .collect();
    parts.join(" ")
}

/// `in 31 hours`, `in 2 days`, `12 minutes ago`; `now` within the second
/// (a deadline handled the moment it passed).
pub fn relative(when: DateTime<Utc>, now: DateTime<Utc>) -> String {
    let secs = (when - now).num_seconds();
    if secs == 0 {
        return "now".to_string();
    }
    let a = secs.unsigned_abs();
    let text = if a < 90 * 60 {
        let m = a.div_ceil(60);
        format!("{m} minute{}", if m == 1 { "" } else { "s" })
    } else if a < 72 * 3600 {
        let h = (a + 1800) / 3600;
        format!("{h} hours")
    } else {
        let d = (a + 43200) / 86400;
        format!("{d} days")
    };
    if secs >= 0 {
        format!("in {text}")
    } else {
        format!("{text} ago")
    }
}

/// One awaited player's deadline.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Wait {
    /// Who.
    pub seat: Seat,
    /// For what kind of input.
    pub kind: WaitKind,
    /// Since when.
    pub since: DateTime<Utc>,
    /// By when.
    pub due: DateTime<Utc>,
    /// Reminder lead times already sent (minutes).
    pub reminded: Vec<u32>,
    /// The late notice was sent (policy `wait`: nothing else happens).
    pub late: bool,
    /// The missed-turn policy in force when the deadline started, which is
    /// the one it is handled under (`None` in deadlines stored before it
    /// was kept: the game's policy now).
    #[serde(default)]
    pub policy: Option<Policy>,
    /// The reminder lead times in force when it started (`None`: stored
    /// before they were kept; the game's now).
    #[serde(default)]
    pub reminders: Option<Vec<Span>>,
    /// The deadline before any absence held it: the window's end, or what
    /// a moderator set (`None`: stored before it was kept; worked out again
    /// from `since`).
    #[serde(default)]
    pub unheld: Option<DateTime<Utc>>,
}

impl Wait {
    /// The policy this deadline is handled under: the one in force when
    /// it started.
    pub fn policy(&self, settings: &ClockSettings) -> Policy {
        self.policy.unwrap_or(settings.policy)
    }

    /// The reminders of this deadline: those in force when it started.
    pub fn reminders<'a>(&'a self, settings: &'a ClockSettings) -> &'a [Span] {
        self.reminders.as_deref().unwrap_or(&settings.reminders)
    }

    /// The deadline before absences, as it was set when the deadline
    /// started (or moved by a moderator since).
    fn unheld(&self, settings: &ClockSettings) -> DateTime<Utc> {
        self.unheld
            .unwrap_or_else(|| settings.due(self.kind, self.since))
    }
}

/// A declared absence.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Away {
    /// From (start of that day in the game's time zone).
    pub from: DateTime<Utc>,
    /// To (end of that day).
    pub to: DateTime<Utc>,
    /// The warning before it ends was sent.
    pub warned: bool,
    /// The engine's bot plays the player's turns while they are away
    /// (`away … bot`, issue 36), until they send an order.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub bot: bool,
}

/// The wait a deadline setting's key stands for: `turn`, `question`,
/// `bid`, or a game's own name for one (`veto_question`).
pub fn wait_of_key(key: &str) -> Option<WaitKind> {
    let key = registry::deadline_aliases()
        .find(|(alias, _)| alias.eq_ignore_ascii_case(key.trim()))
        .map_or(key.trim(), |(_, neutral)| neutral);
    WaitKind::ALL
        .into_iter()
        .find(|k| k.neutral_name().eq_ignore_ascii_case(key))
}

/// Reads deadline settings as a config's `[deadlines]` or a stored game
/// writes them, with a game's own names for its waits (`veto_question`, as
/// configs and databases written before the neutral names have them) read
/// as the neutral keys. For `#[serde(deserialize_with)]`.
pub fn read_settings<'de, D>(d: D) -> Result<ClockSettings, D::Error>
where
    D: serde::Deserializer<'de>,
{
    use serde::de::Error;
    let mut map = serde_json::Map::<String, serde_json::Value>::deserialize(d)?;
    for (alias, neutral) in registry::deadline_aliases() {
        if let Some(v) = map.remove(alias) {
            if map.contains_key(neutral) {
                return Err(D::Error::custom(format!(
                    "`{alias}` and `{neutral}` are the same setting: give one"
                )));
            }
            map.insert(neutral.to_string(), v);
        }
    }
    ClockSettings::deserialize(serde_json::Value::Object(map)).map_err(D::Error::custom)
}

/// A game's clock: its settings and the deadlines running now.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Clock {
    /// The settings.
    #[serde(deserialize_with = "read_settings")]
    pub settings: ClockSettings,
    /// Deadlines of the players awaited now.
    pub waits: Vec<Wait>,
    /// Deadlines missed in a row, by seat.
    pub misses: Vec<u32>,
    /// By seat: whether the moderators were asked to replace the player
    /// in their present run of misses (once a run).
    pub replace_asked: Vec<bool>,
    /// Absences, by seat.
    pub away: Vec<Option<Away>>,
    /// When the scheduler must next look at the game.
    pub next_fire: Option<DateTime<Utc>>,
}

impl Clock {
    /// A clock for `players` players.
    pub fn new(settings: ClockSettings, players: usize) -> Clock {
        Clock {
            settings,
            waits: Vec::new(),
            misses: vec![0; players],
            replace_asked: vec![false; players],
            away: vec![None; players],
            next_fire: None,
        }
    }

    /// `seat` missed a deadline: one more in their run.
    pub fn missed_one(&mut self, seat: Seat) {
        if let Some(m) = self.misses.get_mut(seat.index()) {
            *m += 1;
        }
    }

    /// `seat` acted, or someone else took the seat: their run of misses ends.
    pub fn run_of_misses_ends(&mut self, seat: Seat) {
        if let Some(m) = self.misses.get_mut(seat.index()) {
            *m = 0;
        }
        if let Some(a) = self.replace_asked.get_mut(seat.index()) {
            *a = false;
        }
    }

    /// The length of `seat`'s run of misses if the moderators are to be
    /// asked to replace them now: the run has reached `replace_after` and
    /// they were not asked in it yet (after `set replace_after` lowered
    /// the setting below the run, at its next miss). Marks them asked.
    pub fn ask_to_replace(&mut self, seat: Seat) -> Option<u32> {
        let misses = self.misses.get(seat.index()).copied().unwrap_or(0);
        let after = self.settings.replace_after;
        if after == 0 || misses < after {
            return None;
        }
        if self.replace_asked.len() <= seat.index() {
            self.replace_asked.resize(seat.index() + 1, false);
        }
        if std::mem::replace(&mut self.replace_asked[seat.index()], true) {
            return None;
        }
        Some(misses)
    }

    /// Moves a deadline of `seat` past the part of their absence it overlaps.
    fn held(&self, seat: Seat, since: DateTime<Utc>, due: DateTime<Utc>) -> DateTime<Utc> {
        match self.away.get(seat.index()).and_then(|a| a.as_ref()) {
            Some(a) if a.from <= due && a.to >= since => {
                let start = if a.from > since { a.from } else { since };
                due + (a.to - start)
            }
            _ => due,
        }
    }

    /// Brings the deadlines in line with who is awaited now: a player still
    /// awaited for the same kind keeps their deadline; a newly awaited one
    /// gets a fresh one from `now` (held by an absence).
    pub fn sync(&mut self, awaited: &[Awaited], now: DateTime<Utc>) {
        let mut waits = Vec::new();
        for a in awaited {
            match self
                .waits
                .iter()
                .find(|w| w.seat == a.seat && w.kind == a.kind)
            {
                Some(w) => waits.push(w.clone()),
                None => {
                    let due = self.settings.due(a.kind, now);
                    waits.push(Wait {
                        seat: a.seat,
                        kind: a.kind,
                        since: now,
                        due: self.held(a.seat, now, due),
                        reminded: Vec::new(),
                        late: false,
                        policy: Some(self.settings.policy),
                        reminders: Some(self.settings.reminders.clone()),
                        unheld: Some(due),
                    });
                }
            }
        }
        self.waits = waits;
        self.plan();
    }

    /// Re-applies absences to running deadlines (after `away`), each from
    /// its deadline as set: the settings of when it started, or what a
    /// moderator made it, never the settings of now.
    pub fn hold_running(&mut self) {
        let held: Vec<DateTime<Utc>> = self
            .waits
            .iter()
            .map(|w| self.held(w.seat, w.since, w.unheld(&self.settings)))
            .collect();
        for (w, due) in self.waits.iter_mut().zip(held) {
            if !w.late {
                w.due = due;
            }
        }
        self.plan();
    }

    /// `seat` (named `name`) is away as `a` says: their running deadline
    /// waits for it. What everyone is told: `NAME is away from … to …;
    /// their deadlines wait.`
    pub fn away(&mut self, seat: Seat, name: &str, a: Away, now: DateTime<Utc>) -> String {
        let text = format!(
            "{name} is away from {} to {}; {}.",
            self.settings.describe(a.from, now),
            self.settings.describe(a.to, now),
            if a.bot {
                "the bot plays their turns meanwhile, until they send orders"
            } else {
                "their deadlines wait"
            }
        );
        if let Some(slot) = self.away.get_mut(seat.index()) {
            *slot = Some(a);
        }
        self.hold_running();
        text
    }

    /// `seat` is back: their absence ends now. A running deadline of
    /// theirs it held is held for the part of it they took (none if it had
    /// not begun), and that becomes its deadline as set, so a later
    /// absence holds it from there.
    pub fn back(&mut self, seat: Seat, now: DateTime<Utc>) {
        let Some(slot) = self.away.get_mut(seat.index()) else {
            return;
        };
        match slot {
            Some(a) if a.from < now => a.to = a.to.min(now),
            _ => *slot = None,
        }
        let held: Vec<Option<DateTime<Utc>>> = self
            .waits
            .iter()
            .map(|w| {
                (w.seat == seat && !w.late)
                    .then(|| self.held(w.seat, w.since, w.unheld(&self.settings)))
            })
            .collect();
        for (w, due) in self.waits.iter_mut().zip(held) {
            if let Some(due) = due {
                w.due = due;
                w.unheld = Some(due);
            }
        }
        self.away[seat.index()] = None;
        self.plan();
    }

    /// Moves every running deadline by `to` (a moderator's `extend`,
    /// `deadline`, or a resume after a pause): the deadline and the one an
    /// absence holds it from alike, so a later `away` keeps the move.
    pub fn move_running(&mut self, to: impl Fn(DateTime<Utc>) -> DateTime<Utc>) {
        for w in self.waits.iter_mut() {
            let unheld = w.unheld(&self.settings);
            w.unheld = Some(to(unheld));
            w.due = to(w.due);
        }
    }

    /// The deadline of `seat`, if awaited.
    pub fn due_of(&self, seat: Seat) -> Option<DateTime<Utc>> {
        self.waits.iter().find(|w| w.seat == seat).map(|w| w.due)
    }

    /// Reminders due at `now`, one for each deadline that has any: its
    /// seat, its kind, and every lead time come and not yet sent. After
    /// an outage several leads of one deadline are due at once; they make
    /// one reminder, and all count as sent.
    pub fn reminders_due(&self, now: DateTime<Utc>) -> Vec<(Seat, WaitKind, Vec<Span>)> {
        let mut out = Vec::new();
        for w in &self.waits {
            let leads: Vec<Span> = w
                .reminders(&self.settings)
                .iter()
                .filter(|lead| {
                    let at = w.due - lead.duration();
                    at > w.since && at <= now && now < w.due && !w.reminded.contains(&lead.0)
                })
                .copied()
                .collect();
            if !leads.is_empty() {
                out.push((w.seat, w.kind, leads));
            }
        }
        out
    }

    /// True if `seat` is away at `now` with the bot playing for them
    /// (`away … bot`).
    pub fn bot_away(&self, seat: Seat, now: DateTime<Utc>) -> bool {
        self.away
            .get(seat.index())
            .and_then(|a| a.as_ref())
            .is_some_and(|a| a.bot && a.from <= now && now < a.to)
    }

    /// `seat`'s absence goes on without the bot (they sent orders while
    /// away): true if the bot was playing for them.
    pub fn bot_away_ends(&mut self, seat: Seat) -> bool {
        match self.away.get_mut(seat.index()).and_then(|a| a.as_mut()) {
            Some(a) if a.bot => {
                a.bot = false;
                true
            }
            _ => false,
        }
    }

    /// Deadlines that have passed at `now` and are not yet dealt with.
    pub fn missed(&self, now: DateTime<Utc>) -> Vec<Wait> {
        self.waits
            .iter()
            .filter(|w| w.due <= now && !w.late)
            .cloned()
            .collect()
    }

    /// Absences ending within a day, not yet warned about.
    pub fn away_ending(&self, now: DateTime<Utc>) -> Vec<Seat> {
        self.away
            .iter()
            .enumerate()
            .filter_map(|(i, a)| a.as_ref().map(|a| (i, a)))
            .filter(|(_, a)| !a.warned && a.to - Duration::days(1) <= now && now < a.to)
            .map(|(i, _)| Seat(i as u8))
            .collect()
    }

    /// Works out when the scheduler must next look at the game.
    pub fn plan(&mut self) {
        let mut next: Option<DateTime<Utc>> = None;
        let mut consider = |t: DateTime<Utc>| {
            if next.is_none_or(|n| t < n) {
                next = Some(t);
            }
        };
        for w in &self.waits {
            if !w.late {
                consider(w.due);
            }
            for lead in w.reminders(&self.settings) {
                let at = w.due - lead.duration();
                if at > w.since && at < w.due && !w.reminded.contains(&lead.0) {
                    consider(at);
                }
            }
        }
        // An absence with the bot that begins while its player is awaited:
        // the bot takes the turn when it begins.
        for w in &self.waits {
            if let Some(Some(a)) = self.away.get(w.seat.index())
                && a.bot
                && a.from > w.since
            {
                consider(a.from);
            }
        }
        for a in self.away.iter().flatten() {
            if !a.warned {
                consider(a.to - Duration::days(1));
            }
            consider(a.to);
        }
        self.next_fire = next;
    }
}

/// Reads an `away` command's dates: `away 2026-12-01 to 2026-12-10`. The days
/// are whole days in the game's time zone.
pub fn parse_away(
    settings: &ClockSettings,
    line: &str,
    now: DateTime<Utc>,
) -> Result<Away, String> {
    let mut words: Vec<&str> = line.split_whitespace().collect();
    let form =
        "write `away YYYY-MM-DD to YYYY-MM-DD`, and `bot` after it to have the bot play for you";
    // `away … bot`: the engine's bot plays the player's turns meanwhile.
    let bot = words.len() > 3
        && words
            .last()
            .is_some_and(|w| w.eq_ignore_ascii_case("bot") || w.eq_ignore_ascii_case("autopilot"));
    if bot {
        words.pop();
    }
    let (from, to) = match words.as_slice() {
        [_, from, "to", to] | [_, from, "-", to] => (*from, *to),
        [_, from, to] => (*from, *to),
        _ => return Err(form.to_string()),
    };
    let date = |s: &str| {
        NaiveDate::parse_from_str(s, "%Y-%m-%d").map_err(|_| format!("`{s}` is not a date; {form}"))
    };
    let (from, to) = (date(from)?, date(to)?);
    if to < from {
        return Err("the absence ends before it starts".to_string());
    }
    let tz = settings.tz()?;
    let start = tz
        .from_local_datetime(&from.and_hms_opt(0, 0, 0).unwrap_or_default())
        .earliest()
        .ok_or("that day does not exist in the game's time zone")?
        .with_timezone(&Utc);
    let end = tz
        .from_local_datetime(
            &to.succ_opt()
                .unwrap_or(to)
                .and_hms_opt(0, 0, 0)
                .unwrap_or_default(),
        )
        .earliest()
        .ok_or("that day does not exist in the game's time zone")?
        .with_timezone(&Utc);
    if end <= now {
        return Err("that absence is over already".to_string());
    }
    if end - start > settings.away_max.duration() {
        return Err(format!(
            "an absence may last at most {} in this game",
            settings.away_max
        ));
    }
    Ok(Away {
        from: start,
        to: end,
        warned: false,
        bot,
    })
}

/// The time at the top of the hour, for neat displays.
pub fn minute(t: DateTime<Utc>) -> DateTime<Utc> {
    t.with_second(0)
        .and_then(|t| t.with_nanosecond(0))
        .unwrap_or(t)
}
