//! Deadlines, reminders and missed moves, driven through weeks of game time
//! in seconds: the daemon's clock is whatever time the test hands it (as
//! `--now` does on the command line).

use stationmaster::engine::Viewer;
use std::sync::atomic::AtomicBool;

use chrono::{DateTime, Duration, Utc};
use mail_parser::MessageParser;
use stationmaster::clock::{ClockSettings, Policy, Span};
use stationmaster::config::Config;
use stationmaster::daemon::{self, Daemon, scheduler};
use stationmaster::engine::rng::SplitMix64;
use stationmaster::engine::{PlayerSetup, Seat, Setup, Status};
use stationmaster::mail::templates::Templates;
use stationmaster::mail::transport::{MemoryInbound, MemoryOutbound};
use stationmaster::registry::BoardSource;
use stationmaster::store::Store;
use stationmaster::store::{EntryKind, GameId};
use tempfile::TempDir;

const PLAYERS: [&str; 3] = ["alice", "bob", "cecil"];

struct Game {
    _dir: TempDir,
    daemon: Daemon,
    outbox: MemoryOutbound,
    /// What the players mail in.
    inbox: MemoryInbound,
    id: GameId,
    now: DateTime<Utc>,
    /// (to, subject, text) of every mail sent.
    mails: Vec<(String, String, String)>,
}

fn start() -> DateTime<Utc> {
    DateTime::parse_from_rfc3339("2026-11-23T09:00:00Z")
        .unwrap()
        .with_timezone(&Utc)
}

impl Game {
    fn new(clock: ClockSettings, seed: u64) -> Game {
        let dir = TempDir::new().unwrap();
        let store = Store::open(&dir.path().join("db")).unwrap();
        let outbox = MemoryOutbound::new();
        let inbox = MemoryInbound::new();
        let mut config = Config::default();
        config.mail.address = "sm@example.org".into();
        config.site.moderators = vec!["gm@example.org".into()];
        let daemon = Daemon::new(
            store,
            config,
            Templates::load(None).unwrap(),
            BoardSource::embedded(),
            Box::new(inbox.clone()),
            Box::new(outbox.clone()),
        );
        let setup = Setup {
            kind: "rocket".into(),
            players: PLAYERS
                .iter()
                .map(|n| PlayerSetup {
                    name: n.to_string(),
                    email: format!("{n}@example.org"),
                })
                .collect(),
            options: vec![],
            seed,
        };
        let id = daemon::create_game(&daemon.ctx(), &setup, clock, vec![], start()).unwrap();
        let mut g = Game {
            _dir: dir,
            daemon,
            outbox,
            inbox,
            id,
            now: start(),
            mails: Vec::new(),
        };
        g.cycle();
        g
    }

    fn cycle(&mut self) -> daemon::CycleReport {
        let r = self
            .daemon
            .process(self.now, &AtomicBool::new(false))
            .unwrap();
        for m in self.outbox.take() {
            let p = MessageParser::default().parse(&m.bytes).unwrap();
            self.mails.push((
                m.to.join(","),
                p.subject().unwrap_or_default().to_string(),
                crate::flowed::text_part(&p).unwrap_or_default(),
            ));
        }
        r
    }

    fn status(&self) -> Status {
        self.daemon.store().load(&self.id).unwrap().game.status()
    }

    fn view(&self) -> serde_json::Value {
        self.daemon
            .store()
            .load(&self.id)
            .unwrap()
            .game
            .view_json(Viewer::Spectator)
    }

    /// The awaited players who are not `absent`.
    fn present(&self, absent: &str) -> Vec<Seat> {
        match self.status() {
            Status::Active(a) => a
                .iter()
                .map(|a| a.seat)
                .filter(|s| PLAYERS[s.index()] != absent)
                .collect(),
            Status::Finished(_) => vec![],
        }
    }

    /// `seat` gives a random legal order, at once.
    fn play(&mut self, seat: Seat, rng: &mut SplitMix64) {
        let loaded = self.daemon.store().load(&self.id).unwrap();
        let legal = loaded.game.legal_order_lines(seat);
        let extends: Vec<&String> = legal.iter().filter(|l| l.starts_with("extend")).collect();
        let line = if !extends.is_empty() && rng.below(3) > 0 {
            extends[rng.below(extends.len())].clone()
        } else {
            legal[rng.below(legal.len())].clone()
        };
        daemon::apply_local(&self.daemon.ctx(), &self.id, seat, &[line], self.now)
            .unwrap_or_else(|e| panic!("{e}"));
    }

    /// Plays until the end: everyone but `absent` answers at once; when only
    /// `absent` is awaited, time passes an hour at a time. `on_wait` runs
    /// each simulated hour (a moderator, say). Returns the hours passed.
    fn play_to_end(&mut self, absent: &str, mut on_wait: impl FnMut(&mut Game)) -> i64 {
        let mut rng = SplitMix64::new(5);
        let mut hours = 0;
        for _ in 0..200_000 {
            if matches!(self.status(), Status::Finished(_)) {
                return hours;
            }
            let present = self.present(absent);
            if let Some(seat) = present.first() {
                self.play(*seat, &mut rng);
                self.cycle();
            } else {
                self.now += Duration::hours(1);
                hours += 1;
                self.cycle();
                on_wait(self);
            }
            assert!(hours < 24 * 365, "a year passed and the game did not end");
        }
        panic!("the game did not end");
    }

    fn mails_to(&self, who: &str) -> Vec<&(String, String, String)> {
        self.mails
            .iter()
            .filter(|(to, _, _)| to == &format!("{who}@example.org"))
            .collect()
    }

    fn log(&self) -> Vec<stationmaster::store::LogEntry> {
        self.daemon.store().log(&self.id).unwrap()
    }
}

#[test]
fn a_game_whose_player_never_answers_ends_under_the_skip_policy() {
    let mut g = Game::new(ClockSettings::default(), 7);
    let hours = g.play_to_end("cecil", |_| {});
    assert!(matches!(g.status(), Status::Finished(_)));
    let log = g.log();
    let skipped = log
        .iter()
        .filter(|e| e.player == "cecil" && e.order == "!skip")
        .count();
    assert!(skipped > 0, "cecil's turns were skipped");
    assert!(
        log.iter()
            .filter(|e| e.player == "cecil")
            .all(|e| e.source == Some(stationmaster::engine::Actor::Deadline))
    );
    assert!(
        hours >= 48 * skipped as i64,
        "each skip waited for a 48h deadline"
    );
    let cecil = g.mails_to("cecil");
    assert!(
        cecil
            .iter()
            .any(|(_, _, t)| t.contains("Reminder: your deadline is")),
        "reminded"
    );
    // The log, read later, gives the deadline's time, not how far off it
    // was when the reminder went ("in 22 hours").
    let reminders: Vec<&str> = log
        .iter()
        .filter(|e| e.order.starts_with("reminder sent"))
        .map(|e| e.order.as_str())
        .collect();
    assert!(
        !reminders.is_empty() && reminders.iter().all(|o| !o.contains("(in ")),
        "{reminders:?}"
    );
    assert!(
        cecil
            .iter()
            .any(|(_, _, t)| t.contains("the rest of your turn was skipped")),
        "late notice"
    );
    assert!(
        g.mails_to("gm")
            .iter()
            .any(|(_, _, t)| t.starts_with("Replace cecil?")),
        "moderators asked after 3 misses"
    );
    // Everyone is told why cecil was passed over: the deadline and the
    // policy, never the canonical `!skip` nor "has no legal action".
    assert!(
        log.iter()
            .filter(|e| e.player == "cecil" && e.order == "!skip")
            .all(|e| e.why.as_deref().is_some_and(|w| w
                .starts_with("missed the deadline of their turn (")
                && w.ends_with(
                    "; under the game's `skip` policy the turn's remaining actions are lost"
                ))),
        "each skip says why"
    );
    for who in ["alice", "bob"] {
        let mails = g.mails_to(who);
        assert!(
            mails.iter().any(
                |(_, _, t)| t.contains("cecil missed the deadline of their turn (")
                    && t.contains(
                        "under the game's `skip` policy the turn's remaining actions are lost"
                    )
                    && t.contains("cecil loses the rest of the turn.")
            ),
            "{who} is told why cecil was passed over"
        );
        assert!(
            mails.iter().all(|(_, _, t)| !t.contains("cecil: !skip")),
            "{who} never reads `!skip`"
        );
    }
    eprintln!("skip: the game ended after {hours} hours of waiting for cecil ({skipped} skips)");
}

#[test]
fn a_game_whose_player_never_answers_ends_under_the_default_policy() {
    let clock = ClockSettings {
        policy: Policy::Default,
        ..ClockSettings::default()
    };
    let mut g = Game::new(clock, 7);
    g.play_to_end("cecil", |_| {});
    let log = g.log();
    let defaults: Vec<&str> = log
        .iter()
        .filter(|e| {
            e.player == "cecil"
                && e.source == Some(stationmaster::engine::Actor::Deadline)
                && e.kind == EntryKind::Order
        })
        .map(|e| e.order.as_str())
        .collect();
    assert!(!defaults.is_empty());
    assert!(
        defaults.iter().all(|o| o.starts_with("token ")
            || o.starts_with("station ")
            || *o == "no veto"
            || *o == "pass"
            || *o == "!skip"),
        "only safe orders: {defaults:?}"
    );
    assert!(
        defaults.iter().any(|o| o.starts_with("token ")),
        "the safe order is a goods token"
    );
    // Each says why it was given.
    assert!(
        log.iter()
            .filter(|e| e.player == "cecil" && e.order.starts_with("token "))
            .all(|e| e.why.as_deref().is_some_and(|w| w.contains(
                "under the game's `default` policy a goods token is taken for them for each action left"
            ))),
        "each default order says why"
    );
    // A report says it once for the orders given in one go, not after
    // every order (issue 38).
    let policy = "`default` policy";
    for (_, _, text) in g.mails_to("alice") {
        let entries: Vec<&str> = text
            .lines()
            .filter(|l| !l.starts_with("   ") && !l.trim().is_empty())
            .collect();
        for pair in entries.windows(2) {
            assert!(
                !(pair[0].contains(policy) && pair[1].contains(policy)),
                "said twice in a row:\n{}\n{}",
                pair[0],
                pair[1]
            );
        }
    }
    assert!(
        g.mails_to("alice").iter().any(|(_, _, t)| t
            .lines()
            .any(|l| l.trim().starts_with("cecil: token ") && !l.contains("("))),
        "the second default order of a turn reads bare"
    );
}

#[test]
fn under_the_wait_policy_the_moderators_are_told_and_their_skip_moves_the_game_on() {
    let clock = ClockSettings {
        policy: Policy::Wait,
        ..ClockSettings::default()
    };
    let mut g = Game::new(clock, 7);
    let mut skips = 0;
    g.play_to_end("cecil", |g| {
        // The moderator reads their mail a day after it came and skips.
        let told = g
            .mails_to("gm")
            .iter()
            .filter(|(_, _, t)| t.starts_with("cecil missed a deadline"))
            .count();
        if told > skips && g.now.format("%H").to_string() == "12" {
            skips += 1;
            let change = scheduler::skip_awaited_because(
                &g.daemon.ctx(),
                &g.id,
                "gm@example.org",
                Some("no word from cecil"),
                g.now,
            )
            .unwrap();
            g.daemon.store().commit(&change).unwrap();
            g.cycle();
        }
    });
    assert!(skips > 0);
    let log = g.log();
    assert!(log.iter().any(|e| e.source
        == Some(stationmaster::engine::Actor::Moderator(
            "gm@example.org".into()
        ))));
    assert!(
        g.mails_to("alice").iter().any(|(_, _, t)| t.contains(
            "cecil was skipped by moderator gm@example.org (no word from cecil): the turn's remaining actions are lost"
        )),
        "the others are told who skipped cecil, and why"
    );
    let cecil = g.mails_to("cecil");
    assert!(
        cecil
            .iter()
            .any(|(_, _, t)| t.contains("The game waits for you; the moderators have been told"))
    );
    assert!(
        cecil
            .iter()
            .any(|(_, _, t)| t.contains("A moderator (gm@example.org) skipped your turn"))
    );
}

/// What the log keeps of a deadline missed under `wait` is read later
/// (`history`, `log`, the archive): it gives the deadline's time, not how
/// long ago it was when the scheduler saw it, and reads as a missed turn
/// under `skip` does ("bob missed …", not "bob: missed …").
#[test]
fn a_deadline_missed_under_wait_is_logged_without_a_relative_time() {
    let clock = ClockSettings {
        policy: Policy::Wait,
        ..ClockSettings::default()
    };
    let mut g = Game::new(clock, 7);
    // bob's deadline is Wed 25 Nov 09:00; the scheduler sees it an hour on.
    g.now = start() + Duration::hours(49);
    g.cycle();
    let entries: Vec<String> = g
        .log()
        .into_iter()
        .filter(|e| e.player == "bob" && e.order.starts_with("missed"))
        .map(|e| e.order)
        .collect();
    assert_eq!(
        entries,
        [
            "missed the deadline of their turn (Wed 25 Nov 2026 09:00 UTC); under the game's `wait` policy the game waits for them, and the moderators were told"
        ]
    );
    let log = stationmaster::local::log(g.daemon.store(), &g.id, None, false).unwrap();
    assert!(
        log.contains("bob missed the deadline of their turn (Wed 25 Nov 2026 09:00 UTC); under the game's `wait` policy")
            && !log.contains(" ago")
            && !log.contains("bob: missed"),
        "{log}"
    );
    // The mails of the moment may say how long ago it was.
    assert!(
        g.mails_to("bob").iter().any(|(_, _, t)| t.contains(
            "Your deadline for your turn passed at Wed 25 Nov 2026 09:00 UTC (60 minutes ago)."
        )),
        "bob is told"
    );
}

#[test]
fn a_veto_round_in_which_nobody_answers_resolves() {
    // bob and cecil take L&Y shares; then alice moves L&Y and nobody answers.
    let mut g = Game::new(ClockSettings::default(), 7);
    let ctx_apply = |g: &mut Game, who: usize, lines: &[&str]| {
        let lines: Vec<String> = lines.iter().map(|s| s.to_string()).collect();
        daemon::apply_local(&g.daemon.ctx(), &g.id, Seat(who as u8), &lines, g.now).unwrap();
        g.cycle();
    };
    ctx_apply(&mut g, 1, &["extend ly b4", "token london steel"]); // bob
    ctx_apply(&mut g, 2, &["extend ly c5"]); // cecil: bob is asked
    assert_eq!(g.view()["phase"], "veto_question");
    g.now += Duration::hours(13);
    g.cycle();
    assert_eq!(
        g.view()["phase"],
        "actions",
        "the question closed as no veto"
    );
    ctx_apply(&mut g, 2, &["token london steel"]); // cecil's second action
    ctx_apply(&mut g, 0, &["extend ly d5"]); // alice: bob and cecil are asked
    assert_eq!(g.view()["phase"], "veto_question");
    let bob = g.mails_to("bob").last().unwrap().2.clone();
    assert!(
        bob.contains("Deadlines:") && bob.contains("You (veto or no veto on L&Y to D5): by"),
        "{bob}"
    );
    // Nobody answers for 12 hours.
    g.now += Duration::hours(12);
    g.cycle();
    let v = g.view();
    assert_eq!(v["phase"], "actions");
    let ly = v["lines"]
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["id"] == "L&Y")
        .unwrap()
        .clone();
    assert_eq!(ly["locomotive"], "D5", "the move stands");
    let log = g.log();
    let closed: Vec<&str> = log.iter().rev().take(2).map(|e| e.order.as_str()).collect();
    assert_eq!(closed, ["no veto", "no veto"]);

    // A round in which nobody bids: the caller's bid deadline passes too.
    ctx_apply(&mut g, 0, &["token manchester steel"]);
    ctx_apply(&mut g, 1, &["extend ly e5"]); // bob moves; alice and cecil asked
    ctx_apply(&mut g, 2, &["veto"]); // cecil calls, then nobody bids
    assert_eq!(g.view()["phase"], "veto_round");
    for _ in 0..3 {
        g.now += Duration::hours(13);
        g.cycle();
    }
    assert_eq!(
        g.view()["phase"],
        "actions",
        "every bidder passed by deadline"
    );
}

#[test]
fn reminders_go_only_to_players_who_owe_input_and_deadlines_show_in_reports() {
    let clock = ClockSettings {
        reminders: vec![Span(24 * 60), Span(2 * 60)],
        ..ClockSettings::default()
    };
    let mut g = Game::new(clock, 7);
    // bob starts: welcome mails show his deadline, absolute and relative.
    let welcome = g.mails_to("alice")[0].2.clone();
    assert!(
        welcome.contains("bob (2 actions): by Wed 25 Nov 2026 09:00 UTC (in 48 hours)"),
        "{welcome}"
    );
    g.now += Duration::hours(24);
    g.cycle();
    let reminders: Vec<&String> = g
        .mails
        .iter()
        .filter(|(_, _, t)| t.contains("Reminder:"))
        .map(|(to, _, _)| to)
        .collect();
    assert_eq!(reminders, ["bob@example.org"]);
    g.now += Duration::hours(22);
    g.cycle();
    let reminders = g
        .mails
        .iter()
        .filter(|(_, _, t)| t.contains("Reminder:"))
        .count();
    assert_eq!(reminders, 2, "24h and 2h before");
    g.now += Duration::hours(1);
    let r = g.cycle();
    assert_eq!(r.scheduled, 0, "nothing due: no game looked at");
    // bob acts: the reports of his order are not news of his reminders,
    // which the log keeps (issue 38: everyone read them, twice).
    let sent = g.mails.len();
    let mut rng = SplitMix64::new(3);
    g.play(Seat(1), &mut rng);
    g.cycle();
    let reports = &g.mails[sent..];
    assert!(!reports.is_empty());
    for (to, _, text) in reports {
        assert!(!text.contains("reminder sent"), "{to} reads:\n{text}");
    }
    assert_eq!(
        g.log().iter().filter(|e| e.is_reminder()).count(),
        2,
        "the log keeps both"
    );
}

/// The daemon was down while both reminders of a deadline came (12h and
/// 2h before): once back, the player gets one reminder, not one a lead,
/// and the log one entry; neither comes again.
#[test]
fn reminders_that_came_during_an_outage_make_one_mail() {
    let clock = ClockSettings {
        reminders: vec![Span(12 * 60), Span(2 * 60)],
        ..ClockSettings::default()
    };
    let mut g = Game::new(clock, 7);
    // bob's deadline is Wed 25 Nov 09:00; the daemon is back an hour before.
    g.now = start() + Duration::hours(47);
    g.cycle();
    g.now += Duration::minutes(30);
    g.cycle();
    let reminders: Vec<&String> = g
        .mails_to("bob")
        .into_iter()
        .filter(|(_, _, t)| t.contains("Reminder:"))
        .map(|(_, _, t)| t)
        .collect();
    assert_eq!(reminders.len(), 1, "one reminder, not one a lead");
    assert!(
        reminders[0]
            .contains("Reminder: your deadline is Wed 25 Nov 2026 09:00 UTC (in 60 minutes)."),
        "{}",
        reminders[0]
    );
    let logged: Vec<String> = g
        .log()
        .into_iter()
        .filter(|e| e.order.starts_with("reminder sent"))
        .map(|e| e.order)
        .collect();
    assert_eq!(
        logged,
        ["reminder sent: deadline Wed 25 Nov 2026 09:00 UTC"]
    );
}

#[test]
fn deadlines_round_to_an_hour_in_the_games_time_zone_and_skip_weekends() {
    let clock = ClockSettings {
        time_zone: "Europe/London".into(),
        round_to_hour: Some(18),
        skip_days: vec!["sat".into(), "sun".into()],
        turn: Span(72 * 60),
        ..ClockSettings::default()
    };
    let mut g = Game::new(clock, 7);
    // Monday 09:00 + 72h = Thursday 09:00, on to 18:00 London (GMT).
    let welcome = g.mails_to("bob")[0].2.clone();
    assert!(
        welcome.contains("You (2 actions): by Thu 26 Nov 2026 18:00 GMT"),
        "{welcome}"
    );
    daemon::apply_local(
        &g.daemon.ctx(),
        &g.id,
        Seat(1),
        &[
            "token london steel".to_string(),
            "token london steel".to_string(),
        ],
        g.now + Duration::hours(60),
    )
    .unwrap();
    g.now += Duration::hours(60);
    g.cycle();
    // Thursday 21:00 + 72h = Sunday 21:00: on to 18:00 Monday (weekend skipped).
    let cecil = g.mails_to("cecil").last().unwrap().2.clone();
    assert!(
        cecil.contains("You (2 actions): by Mon 30 Nov 2026 18:00 GMT"),
        "{cecil}"
    );
}

#[test]
fn an_absence_holds_the_players_deadlines_and_everyone_is_told() {
    let mut g = Game::new(ClockSettings::default(), 7);
    // Through the mail path: bob announces an absence with his key.
    let token = g.daemon.store().meta(&g.id).unwrap().tokens[1].clone();
    let inbox = g.inbox.clone();
    inbox.push(format!(
        "From: bob@example.org\r\nTo: sm@example.org\r\nSubject: Re: [rocket-1 {token}] x\r\nMessage-ID: <away1@example.org>\r\n\r\naway 2026-11-24 to 2026-11-27\r\n"
    ));
    g.cycle();
    for who in PLAYERS {
        assert!(
            g.mails_to(who)
                .iter()
                .any(|(_, _, t)| t.contains("bob is away from Tue 24 Nov 2026 00:00 UTC")),
            "{who} was not told"
        );
    }
    // His 48h deadline (Wed 25 09:00) falls in the absence (Tue 00:00 to
    // Sat 00:00): its clock stops for the 4 days, to Sun 29 09:00.
    let last = g.mails_to("bob").last().unwrap().2.clone();
    assert!(
        last.contains("You (2 actions): by Sun 29 Nov 2026 09:00 UTC"),
        "{last}"
    );
    assert!(!last.contains("no orders in it"), "{last}");
    // Warned a day before it ends.
    g.now = DateTime::parse_from_rfc3339("2026-11-27T01:00:00Z")
        .unwrap()
        .with_timezone(&Utc);
    g.cycle();
    assert!(
        g.mails_to("bob")
            .iter()
            .any(|(_, _, t)| t.contains("Your absence ends"))
    );
    // The log, read later, says when it ends, not "within a day".
    assert!(
        g.log()
            .iter()
            .any(|e| e.order == "warned that their absence ends Sat 28 Nov 2026 00:00 UTC"),
        "{:?}",
        g.log().iter().map(|e| &e.order).collect::<Vec<_>>()
    );
    // A longer absence than the game allows is refused.
    inbox.push(format!(
        "From: bob@example.org\r\nTo: sm@example.org\r\nSubject: Re: [rocket-1 {token}] x\r\nMessage-ID: <away2@example.org>\r\n\r\naway 2026-12-01 to 2027-01-31\r\n"
    ));
    g.cycle();
    let last = g.mails_to("bob").last().unwrap().2.clone();
    assert!(last.contains("an absence may last at most 14d"), "{last}");
    // Two absences in one mail: the second would undo the first unseen.
    let before = g.daemon.store().meta(&g.id).unwrap().clock;
    inbox.push(format!(
        "From: bob@example.org\r\nTo: sm@example.org\r\nSubject: Re: [rocket-1 {token}] x\r\nMessage-ID: <away3@example.org>\r\n\r\naway 2026-12-01 to 2026-12-03\r\naway 2026-12-05 to 2026-12-07\r\n"
    ));
    g.cycle();
    let last = g.mails_to("bob").last().unwrap().2.clone();
    assert!(
        last.contains("away 2026-12-05 to 2026-12-07")
            && last.contains("one `away` or `back` a mail: this one has 2"),
        "{last}"
    );
    assert_eq!(g.daemon.store().meta(&g.id).unwrap().clock, before);
}

/// `back` ends an absence: a running deadline it held keeps only the part
/// of the absence the player took, and an absence not yet begun holds
/// nothing.
#[test]
fn back_gives_a_held_deadline_only_the_part_of_the_absence_taken() {
    let at = |t: &str| DateTime::parse_from_rfc3339(t).unwrap().with_timezone(&Utc);
    let bob_due = |g: &Game| g.daemon.store().meta(&g.id).unwrap().clock.due_of(Seat(1));
    for (back_at, due) in [
        // Two days of the absence (Tue 00:00 to Thu 00:00) taken.
        ("2026-11-26T00:00:00Z", "2026-11-27T09:00:00Z"),
        // Back before it began: the deadline as it was set.
        ("2026-11-23T12:00:00Z", "2026-11-25T09:00:00Z"),
    ] {
        let mut g = Game::new(ClockSettings::default(), 7);
        let token = g.daemon.store().meta(&g.id).unwrap().tokens[1].clone();
        let mail = |id: &str, body: &str| {
            format!(
                "From: bob@example.org\r\nTo: sm@example.org\r\nSubject: Re: [rocket-1 {token}] x\r\nMessage-ID: <{id}@example.org>\r\n\r\n{body}\r\n"
            )
        };
        g.inbox.push(mail("away", "away 2026-11-24 to 2026-11-27"));
        g.cycle();
        assert_eq!(bob_due(&g), Some(at("2026-11-29T09:00:00Z")), "held 4 days");
        g.now = at(back_at);
        g.inbox.push(mail("back", "back"));
        g.cycle();
        assert_eq!(bob_due(&g), Some(at(due)), "back at {back_at}");
        let last = g.mails_to("bob").last().unwrap().2.clone();
        assert!(last.contains("bob is back"), "{last}");
        // A later absence holds the deadline from there, the part taken kept.
        g.inbox.push(mail("away2", "away 2026-12-10 to 2026-12-11"));
        g.cycle();
        assert_eq!(
            bob_due(&g),
            Some(at(due)),
            "an absence after it changes nothing"
        );
    }
}

/// The moderators are asked once a run of misses to replace a player: when
/// the run reaches `replace_after`, or, `replace_after` lowered below a run
/// already longer, at the run's next missed deadline (as `set` tells
/// everyone); not again at each miss after, nor when a moderator skips.
#[test]
fn the_moderators_are_asked_once_a_run_to_replace_a_player_even_when_replace_after_is_lowered() {
    let clock = ClockSettings {
        replace_after: 5,
        ..ClockSettings::default()
    };
    let mut g = Game::new(clock, 7);
    let mut lowered = false;
    let mut skipped = false;
    g.play_to_end("cecil", |g| {
        let misses = g.daemon.store().meta(&g.id).unwrap().clock.misses[2];
        if misses == 3 && !lowered {
            lowered = true;
            stationmaster::local::moderate(
                &g.daemon.ctx(),
                &g.id,
                "gm@example.org",
                "set replace_after 2",
                None,
                g.now,
            )
            .unwrap();
            g.cycle();
        }
        if misses == 4 && !skipped {
            // A moderator's skip is not a missed deadline: no new request.
            skipped = true;
            let change = scheduler::skip_awaited_because(
                &g.daemon.ctx(),
                &g.id,
                "gm@example.org",
                None,
                g.now,
            )
            .unwrap();
            g.daemon.store().commit(&change).unwrap();
            g.cycle();
        }
    });
    assert!(lowered && skipped);
    let asked: Vec<&str> = g
        .mails_to("gm")
        .iter()
        .filter(|(_, s, t)| s.contains("Replace cecil?") || t.starts_with("Replace cecil?"))
        .map(|(_, _, t)| t.as_str())
        .collect();
    assert_eq!(asked.len(), 1, "asked once: {asked:#?}");
    assert!(
        asked[0].contains("cecil has missed 4 deadlines in a row"),
        "{}",
        asked[0]
    );
}

/// `set policy` applies to deadlines that start after it, as every player
/// is told: a deadline running under `skip` is handled under `skip`, the
/// next one under the new policy.
#[test]
fn a_running_deadline_keeps_the_policy_it_started_under() {
    let mut g = Game::new(ClockSettings::default(), 7);
    let ctx = g.daemon.ctx();
    stationmaster::local::moderate(
        &ctx,
        &g.id,
        "gm@example.org",
        "set policy default",
        None,
        g.now,
    )
    .unwrap();
    g.cycle();
    assert!(
        g.mails_to("bob").iter().any(|(_, _, t)| t.contains(
            "changed the deadline setting policy to default; it applies to deadlines that start from now; running ones keep theirs."
        )),
        "bob is told"
    );
    // bob's deadline (started under `skip`) passes: his turn is skipped.
    g.now = start() + Duration::hours(48);
    g.cycle();
    let log = g.log();
    let bob: Vec<&str> = log
        .iter()
        .filter(|e| e.player == "bob" && e.source == Some(stationmaster::engine::Actor::Deadline))
        .map(|e| e.order.as_str())
        .collect();
    assert_eq!(bob, ["!skip"], "{log:#?}");
    // cecil's, started after the change, is handled under `default`.
    g.now += Duration::hours(48);
    g.cycle();
    let cecil: Vec<String> = g
        .log()
        .into_iter()
        .filter(|e| e.player == "cecil" && e.source == Some(stationmaster::engine::Actor::Deadline))
        .map(|e| e.order)
        .collect();
    assert!(
        !cecil.is_empty() && cecil.iter().all(|o| o.starts_with("token ")),
        "{cecil:?}"
    );
}

/// A running deadline keeps its reminders and its length whatever `set`
/// changes meanwhile, and a moderator's `extend` stays when the player
/// then declares an absence.
#[test]
fn a_running_deadline_keeps_its_reminders_and_its_time() {
    let mut g = Game::new(ClockSettings::default(), 7);
    let ctx = g.daemon.ctx();
    let bob_due = |g: &Game| {
        g.daemon
            .store()
            .meta(&g.id)
            .unwrap()
            .clock
            .due_of(Seat(1))
            .unwrap()
    };
    for command in ["set reminders 1h", "set turn 24h", "extend 24h"] {
        stationmaster::local::moderate(&ctx, &g.id, "gm@example.org", command, None, g.now)
            .unwrap();
    }
    g.cycle();
    assert_eq!(
        bob_due(&g),
        start() + Duration::hours(72),
        "48h and 24h more"
    );
    // An absence that does not touch the deadline leaves it where it is.
    let token = g.daemon.store().meta(&g.id).unwrap().tokens[1].clone();
    g.inbox.push(format!(
        "From: bob@example.org\r\nTo: sm@example.org\r\nSubject: Re: [rocket-1 {token}] x\r\nMessage-ID: <away1@example.org>\r\n\r\naway 2026-12-10 to 2026-12-12\r\n"
    ));
    g.cycle();
    assert_eq!(
        bob_due(&g),
        start() + Duration::hours(72),
        "kept after `away`"
    );
    // The reminder a day before, as when the deadline started.
    g.now = start() + Duration::hours(48);
    g.cycle();
    assert!(
        g.mails_to("bob")
            .iter()
            .any(|(_, _, t)| t.contains("Reminder: your deadline is Thu 26 Nov 2026 09:00 UTC")),
        "the 24h reminder of when the deadline started"
    );
}

/// A paused game is out of the scheduler's way until it is resumed, even
/// when an order from the command line (the operator's override) moves
/// it on meanwhile; resumed, its deadlines count again.
#[test]
fn a_paused_game_is_not_looked_at_by_the_scheduler_until_resumed() {
    let mut g = Game::new(ClockSettings::default(), 7);
    let ctx = g.daemon.ctx();
    stationmaster::local::moderate(&ctx, &g.id, "gm@example.org", "pause", None, g.now).unwrap();
    let mut rng = SplitMix64::new(3);
    let seat = g.present("")[0];
    let before = g.log().len();
    g.play(seat, &mut rng);
    assert!(g.log().len() > before, "the operator's order was applied");
    // Past every deadline and reminder the game had: nothing is due,
    // cycle after cycle.
    for days in [3, 10, 30] {
        g.now = start() + Duration::days(days);
        assert_eq!(
            g.cycle().scheduled,
            0,
            "day {days}: a paused game was looked at"
        );
    }
    let ctx = g.daemon.ctx();
    stationmaster::local::moderate(&ctx, &g.id, "gm@example.org", "resume", None, g.now).unwrap();
    // Resumed, its deadlines run again, and fall due.
    g.now += Duration::days(3);
    assert_eq!(g.cycle().scheduled, 1, "resumed, its deadline counts");
}

#[test]
fn the_command_line_clock_drives_process() {
    let dir = TempDir::new().unwrap();
    let sm = |args: &[&str]| {
        let out = assert_cmd::Command::cargo_bin("stationmaster")
            .unwrap()
            .current_dir(dir.path())
            .env_remove("STATIONMASTER_CONFIG")
            .args(args)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    };
    sm(&[
        "--now",
        "2026-11-23T09:00:00Z",
        "new",
        "rocket",
        "--player",
        "a=a@x.org",
        "--player",
        "b=b@x.org",
        "--seed",
        "1",
        "--turn",
        "24h",
    ]);
    let v: serde_json::Value = serde_json::from_str(&sm(&["show", "rocket-1", "--json"])).unwrap();
    assert_eq!(v["awaiting"][0]["deadline"], "2026-11-24T09:00:00+00:00");
    assert_eq!(v["deadlines"]["turn"], "1d");
    let out = sm(&["--now", "2026-11-24T09:30:00Z", "process"]);
    assert!(out.contains("mail(s) read"), "{out}");
    let log = sm(&["log", "rocket-1"]);
    assert!(
        log.contains("missed the deadline of their turn (Tue 24 Nov 2026 09:00 UTC); under the game's `skip` policy the turn's remaining actions are lost")
            && !log.contains("!skip")
            && !log.contains("has no legal action"),
        "the log says why the missed turn was skipped: {log}"
    );
    // The reason is in the hashed entry; the chain and the replay hold.
    sm(&["verify", "rocket-1"]);
    let out = std::env::var("STATIONMASTER_NOW");
    assert!(out.is_err() || out.is_ok());
}

/// The question to replace a player tells a moderator who moderates by
/// mail what to reply (`replace bob NEW-ADDRESS`), not only the command
/// line's `stationmaster mod …`, which the creator of a game made by mail
/// has no way to run; and one missed deadline is "1 deadline".
#[test]
fn the_question_to_replace_a_player_says_what_to_reply() {
    let clock = ClockSettings {
        replace_after: 1,
        ..ClockSettings::default()
    };
    let mut g = Game::new(clock, 7);
    // bob starts; his 48 hours pass.
    g.now = start() + Duration::hours(49);
    g.cycle();
    let asked: Vec<&str> = g
        .mails_to("gm")
        .iter()
        .filter(|(_, _, t)| t.starts_with("Replace bob?"))
        .map(|(_, _, t)| t.as_str())
        .collect();
    assert_eq!(asked.len(), 1, "{:#?}", g.mails_to("gm"));
    assert!(
        asked[0].contains("bob has missed 1 deadline in a row.")
            && asked[0].contains("reply to this mail with `replace bob NEW-ADDRESS`"),
        "{}",
        asked[0]
    );
    let log = g.log();
    assert!(
        log.iter().any(|e| e
            .order
            .contains("missed 1 deadline in a row: the moderators")),
        "{:#?}",
        log.iter().map(|e| &e.order).collect::<Vec<_>>()
    );
}

/// A deadline handled the second it passes (a daemon whose cycle falls on
/// it, or `--now` at the deadline) is told as passed "(now)", not as
/// "passed at … (in 0 minutes)", which read as still to come.
#[test]
fn a_deadline_handled_as_it_passes_is_not_in_0_minutes() {
    let mut g = Game::new(ClockSettings::default(), 7);
    g.now = start() + Duration::hours(48);
    g.cycle();
    let told: Vec<&str> = g
        .mails_to("bob")
        .iter()
        .map(|(_, _, t)| t.as_str())
        .filter(|t| t.contains("Your deadline for your turn passed at"))
        .collect();
    assert_eq!(told.len(), 1, "{:#?}", g.mails_to("bob"));
    assert!(
        told[0].contains("passed at Wed 25 Nov 2026 09:00 UTC (now)")
            && !told[0].contains("in 0 minutes"),
        "{}",
        told[0]
    );
}
