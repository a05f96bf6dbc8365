//! The clock's tests: spans, deadlines rounded to the hour past skipped
//! days in a time zone, times in words, absences and reminders. They sit
//! here, not in a `#[cfg(test)]` module, and `Cargo.toml` sets `test =
//! false`: a unit-test harness compiles the whole crate a second time
//! (issue 37, point 8); this file compiles only itself and links the
//! library already built.

use chrono::{DateTime, Duration, Utc};
use engine::{Awaited, Seat, WaitKind};
use stationmaster_clock::{Clock, ClockSettings, Span, duration_words, parse_away, relative};

fn t(s: &str) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(s).unwrap().with_timezone(&Utc)
}

#[test]
fn spans_read_and_print() {
    assert_eq!(Span::parse("48h").unwrap(), Span(2880));
    assert_eq!(Span::parse("2d").unwrap(), Span(2880));
    assert_eq!(Span::parse("1d12h30m").unwrap(), Span(2190));
    assert_eq!(Span(2190).to_string(), "1d12h30m");
    assert!(Span::parse("12").is_err());
    assert!(Span::parse("12x").is_err());
}

#[test]
fn a_deadline_is_the_window_rounded_to_the_hour_past_skipped_days() {
    let mut s = ClockSettings::default();
    // Thu 19 Nov 2026 10:30 UTC + 48h = Sat 21 Nov 10:30.
    assert_eq!(
        s.due(WaitKind::Turn, t("2026-11-19T10:30:00Z")),
        t("2026-11-21T10:30:00Z")
    );
    s.round_to_hour = Some(18);
    assert_eq!(
        s.due(WaitKind::Turn, t("2026-11-19T10:30:00Z")),
        t("2026-11-21T18:00:00Z")
    );
    s.skip_days = vec!["sat".into(), "sun".into()];
    assert_eq!(
        s.due(WaitKind::Turn, t("2026-11-19T10:30:00Z")),
        t("2026-11-23T18:00:00Z")
    );
    // In London in summer 18:00 is 17:00 UTC.
    s.time_zone = "Europe/London".into();
    s.skip_days.clear();
    assert_eq!(
        s.due(WaitKind::Turn, t("2026-07-01T08:00:00Z")),
        t("2026-07-03T17:00:00Z")
    );
    // 12h after midnight is 13:00 in London: on to 18:00 that day; 12h
    // after 08:00 is 21:00, past the hour: the next day's.
    assert_eq!(
        s.due(WaitKind::Question, t("2026-07-01T00:00:00Z")),
        t("2026-07-01T17:00:00Z")
    );
    assert_eq!(
        s.due(WaitKind::Question, t("2026-07-01T08:00:00Z")),
        t("2026-07-02T17:00:00Z")
    );
}

#[test]
fn relative_times_read_naturally() {
    let now = t("2026-11-21T18:00:00Z");
    assert_eq!(relative(t("2026-11-23T01:00:00Z"), now), "in 31 hours");
    assert_eq!(relative(t("2026-11-21T18:45:00Z"), now), "in 45 minutes");
    assert_eq!(relative(t("2026-11-28T18:00:00Z"), now), "in 7 days");
    assert_eq!(relative(t("2026-11-21T17:00:00Z"), now), "60 minutes ago");
}

#[test]
fn durations_in_words_are_exact_to_the_minute() {
    let words = |m: i64| duration_words(Duration::minutes(m));
    assert_eq!(words(4140), "2 days 21 hours");
    assert_eq!(words(1440 + 60 + 1), "1 day 1 hour 1 minute");
    assert_eq!(words(45), "45 minutes");
    assert_eq!(words(2 * 1440 + 5), "2 days 5 minutes");
    assert_eq!(duration_words(Duration::seconds(59)), "less than a minute");
}

#[test]
fn an_absence_holds_a_deadline_that_falls_in_it() {
    let mut c = Clock::new(ClockSettings::default(), 2);
    let now = t("2026-11-21T18:00:00Z");
    c.away[1] = Some(parse_away(&c.settings, "away 2026-11-22 to 2026-11-24", now).unwrap());
    c.sync(
        &[Awaited {
            seat: Seat(1),
            what: "2 actions".into(),
            kind: WaitKind::Turn,
        }],
        now,
    );
    // 48h from now is 23 Nov 18:00, inside the absence (22 Nov 00:00 to
    // 25 Nov 00:00): held by the 3 days of it.
    assert_eq!(c.due_of(Seat(1)), Some(t("2026-11-26T18:00:00Z")));
    assert!(parse_away(&c.settings, "away 2026-11-01 to 2026-12-31", now).is_err());
    assert!(parse_away(&c.settings, "away tomorrow", now).is_err());
}

#[test]
fn reminders_come_before_the_deadline_once_each() {
    let mut c = Clock::new(ClockSettings::default(), 2);
    let now = t("2026-11-21T18:00:00Z");
    c.sync(
        &[Awaited {
            seat: Seat(0),
            what: "x".into(),
            kind: WaitKind::Turn,
        }],
        now,
    );
    assert_eq!(
        c.next_fire,
        Some(t("2026-11-22T18:00:00Z")),
        "the 24h reminder first"
    );
    assert_eq!(
        c.reminders_due(t("2026-11-22T18:00:00Z")),
        vec![(Seat(0), WaitKind::Turn, vec![Span(1440)])]
    );
    // Looked at only an hour before the deadline (the daemon was
    // down): both leads have come, as one reminder.
    assert_eq!(
        c.reminders_due(t("2026-11-23T17:00:00Z")),
        vec![(Seat(0), WaitKind::Turn, vec![Span(1440), Span(120)])]
    );
    c.waits[0].reminded.push(1440);
    c.plan();
    assert_eq!(c.next_fire, Some(t("2026-11-23T16:00:00Z")));
    assert!(c.missed(t("2026-11-23T17:59:00Z")).is_empty());
    assert_eq!(c.missed(t("2026-11-23T18:00:00Z")).len(), 1);
}
