//! The engine contract, checked once for every game in the registry: player
//! counts, options, views for every player, help and hints, determinism, and
//! snapshots that read back to the same game. And the store on top of it:
//! the snapshot is always what replaying the log gives.

use chrono::{TimeZone, Utc};
use stationmaster::config::Config;
use stationmaster::daemon::{self, Ctx, LocalApplyError};
use stationmaster::engine::GameEntry;
use stationmaster::engine::Viewer;
use stationmaster::engine::rng::SplitMix64;
use stationmaster::engine::{AnyGame, PlayerSetup, Seat, Setup, Status};
use stationmaster::mail::templates::Templates;
use stationmaster::registry::{self, BoardSource};
use stationmaster::store::{GameId, Store, StoreError};

/// Orders as the command line gives them: through the daemon's one path.
fn apply(
    store: &Store,
    id: &GameId,
    seat: Seat,
    lines: &[String],
    now: chrono::DateTime<Utc>,
) -> Result<(), LocalApplyError> {
    let (config, templates, boards) = (
        Config::default(),
        Templates::load(None).unwrap(),
        BoardSource::embedded(),
    );
    let ctx = Ctx {
        store,
        config: &config,
        templates: &templates,
        boards: &boards,
    };
    daemon::apply_local(&ctx, id, seat, lines, now).map(|_| ())
}

fn setup(kind: &GameEntry, players: usize, seed: u64) -> Setup {
    Setup {
        kind: kind.name.to_string(),
        players: (0..players)
            .map(|i| PlayerSetup {
                name: format!("player{i}"),
                email: format!("p{i}@example.org"),
            })
            .collect(),
        options: vec![],
        seed,
    }
}

/// The player range the registry's list gives the game.
fn player_range(kind: &GameEntry) -> std::ops::RangeInclusive<usize> {
    kind.players.clone()
}

/// Plays `n` random legal orders through the object-safe face.
fn play(game: &mut dyn AnyGame, seed: u64, n: usize) -> Vec<(Seat, String)> {
    let mut rng = SplitMix64::new(seed);
    let mut played = Vec::new();
    for _ in 0..n {
        let Status::Active(awaited) = game.status() else {
            break;
        };
        let seat = awaited[rng.below(awaited.len())].seat;
        let legal = game.legal_order_lines(seat);
        let line = legal[rng.below(legal.len())].clone();
        game.apply_line(seat, &line).unwrap();
        played.push((seat, line));
    }
    played
}

#[test]
fn an_order_written_as_a_sentence_reads_as_the_order() {
    for kind in registry::GAMES.iter().copied() {
        let n = (*player_range(kind).start()).max(2);
        let new = || registry::new_game(&setup(kind, n, 3), &BoardSource::embedded()).unwrap();
        let (mut plain, mut written) = (new(), new());
        let mut rng = SplitMix64::new(5);
        for step in 0..80 {
            let Status::Active(awaited) = plain.status() else {
                break;
            };
            let seat = awaited[rng.below(awaited.len())].seat;
            let legal = plain.legal_order_lines(seat);
            let line = legal[rng.below(legal.len())].clone();
            let a = plain.apply_line(seat, &line).unwrap();
            // `;` as a list ends its items (`lay C4 SE;`, `pass; `).
            let marks = ["!", ".", " !", "!!", ";", "; ", " ;", ".;"];
            let line = format!("{line}{}", marks[step % marks.len()]);
            let b = written
                .apply_line(seat, &line)
                .unwrap_or_else(|e| panic!("{}: {line}: {e}", kind.name));
            assert_eq!(a.order, b.order, "{line}");
        }
    }
}

#[test]
fn player_counts_are_checked() {
    for kind in registry::GAMES.iter().copied() {
        for n in 0..=6 {
            let made = registry::new_game(&setup(kind, n, 1), &BoardSource::embedded());
            assert_eq!(
                made.is_ok(),
                player_range(kind).contains(&n),
                "{} with {n} players",
                kind.name
            );
            if let Err(e) = made {
                assert!(!e.to_string().is_empty());
            }
        }
    }
}

#[test]
fn unknown_options_and_duplicate_names_are_refused() {
    for kind in registry::GAMES.iter().copied() {
        let mut s = setup(kind, 2, 1);
        s.options = vec!["no_such_option".into()];
        let e = registry::new_game(&s, &BoardSource::embedded())
            .err()
            .unwrap();
        assert!(e.to_string().contains("no_such_option"), "{e}");
        for option in kind.options {
            let given: Vec<String> = match option.values {
                [] => vec![option.name.to_string()],
                values => values
                    .iter()
                    .map(|v| format!("{}={v}", option.name))
                    .collect(),
            };
            for option in given {
                let mut s = setup(kind, 2, 1);
                s.options = vec![option.clone()];
                assert!(
                    registry::new_game(&s, &BoardSource::embedded()).is_ok(),
                    "{option}"
                );
            }
            let mut s = setup(kind, 2, 1);
            s.options = vec![format!("{}=no_such_value", option.name)];
            let e = registry::new_game(&s, &BoardSource::embedded())
                .err()
                .unwrap();
            assert!(e.to_string().contains(option.name), "{e}");
        }
        let mut s = setup(kind, 2, 1);
        s.players[1].name = "PLAYER0".into();
        assert!(
            registry::new_game(&s, &BoardSource::embedded()).is_err(),
            "names differ only in case"
        );
    }
}

#[test]
fn every_player_gets_a_view_help_and_hints() {
    for kind in registry::GAMES.iter().copied() {
        let n = *player_range(kind).end();
        let game = registry::new_game(&setup(kind, n, 3), &BoardSource::embedded()).unwrap();
        assert!(!game.help().is_empty());
        for s in 0..n {
            let seat = Seat(s as u8);
            assert!(!game.render(Viewer::Player(seat)).is_empty());
            assert!(game.view_json(Viewer::Player(seat)).is_object());
        }
        let Status::Active(awaited) = game.status() else {
            panic!("a new game is going on")
        };
        for a in awaited {
            assert!(
                !game.hints(a.seat).is_empty(),
                "an awaited player gets hints"
            );
            assert!(!game.legal_order_lines(a.seat).is_empty());
        }
    }
}

#[test]
fn the_same_setup_and_orders_give_the_same_game_byte_for_byte() {
    for kind in registry::GAMES.iter().copied() {
        for seed in 0..20 {
            let mut a =
                registry::new_game(&setup(kind, 3, seed), &BoardSource::embedded()).unwrap();
            let played = play(&mut *a, seed, 60);
            let mut b =
                registry::new_game(&setup(kind, 3, seed), &BoardSource::embedded()).unwrap();
            for (seat, line) in &played {
                b.apply_line(*seat, line).unwrap();
            }
            let sa = a.snapshot().unwrap();
            assert_eq!(sa, b.snapshot().unwrap(), "seed {seed}");
            // A snapshot reads back to the same game, which plays on the same.
            let mut c = registry::from_snapshot(kind.name, a.state_version(), &sa).unwrap();
            assert_eq!(c.snapshot().unwrap(), sa);
            let more = play(&mut *a, seed + 1000, 20);
            for (seat, line) in &more {
                c.apply_line(*seat, line).unwrap();
            }
            assert_eq!(a.snapshot().unwrap(), c.snapshot().unwrap());
        }
    }
}

#[test]
fn a_state_of_a_newer_format_is_refused_with_a_clear_error() {
    for kind in registry::GAMES.iter().copied() {
        let game = registry::new_game(&setup(kind, 3, 1), &BoardSource::embedded()).unwrap();
        let newer = game.state_version() + 1;
        let err = match registry::from_snapshot(kind.name, newer, &game.snapshot().unwrap()) {
            Ok(_) => panic!("a state of format {newer} was read"),
            Err(e) => e.to_string(),
        };
        assert!(
            err.contains("saved by a newer Stationmaster") && err.contains(&newer.to_string()),
            "{err}"
        );
    }
}

#[test]
fn an_event_that_cannot_be_read_is_an_error_not_a_silence() {
    for kind in registry::GAMES.iter().copied() {
        let game = registry::new_game(&setup(kind, 3, 1), &BoardSource::embedded()).unwrap();
        let garbage = [serde_json::json!({"type": "no_such_event", "x": 1})];
        assert!(game.describe_events(&garbage, Viewer::Spectator).is_err());
    }
}

/// A report reads every entry's events and the status block from one view
/// of its reader ([`AnyGame::read`]): the same sentences and status as
/// describing each entry and rendering the status on their own, for every
/// reader, at every point of random games.
#[test]
fn one_reading_says_what_each_entry_and_the_status_say_on_their_own() {
    for kind in registry::GAMES.iter().copied() {
        for seed in 0..3 {
            let mut g =
                registry::new_game(&setup(kind, 4, seed), &BoardSource::embedded()).unwrap();
            let mut log: Vec<Vec<serde_json::Value>> = Vec::new();
            let mut rng = SplitMix64::new(seed);
            for step in 0..300 {
                let Status::Active(awaited) = g.status() else {
                    break;
                };
                let seat = awaited[rng.below(awaited.len())].seat;
                let legal = g.legal_order_lines(seat);
                let line = legal[rng.below(legal.len())].clone();
                log.push(g.apply_line(seat, &line).unwrap().events);
                if step % 7 != 0 {
                    continue;
                }
                let recent: Vec<&[serde_json::Value]> =
                    log.iter().rev().take(5).rev().map(Vec::as_slice).collect();
                let readers = (0..4)
                    .map(|s| Viewer::Player(Seat(s)))
                    .chain([Viewer::Spectator]);
                for viewer in readers {
                    let reading = g.read(&recent, viewer, true).unwrap();
                    let alone: Vec<Vec<String>> = recent
                        .iter()
                        .map(|events| g.describe_events(events, viewer).unwrap())
                        .collect();
                    assert_eq!(reading.sentences, alone, "{} seed {seed}", kind.name);
                    assert_eq!(reading.status, Some(g.render_status(viewer)));
                    assert_eq!(g.read(&recent, viewer, false).unwrap().status, None);
                }
            }
            assert!(
                log.len() > 20,
                "{} seed {seed}: {} orders",
                kind.name,
                log.len()
            );
            let garbage = [serde_json::json!({"type": "no_such_event"})];
            assert!(
                g.read(&[&log[0], &garbage], Viewer::Spectator, true)
                    .is_err()
            );
        }
    }
}

/// The HTML map shows exactly the text map: with its tags taken out and
/// its entities read, every line is the text line (the text trims trailing
/// blanks). And the whole page is the map and the status block.
#[test]
fn the_html_map_says_what_the_text_map_says() {
    for kind in registry::GAMES.iter().copied() {
        for seed in 0..10 {
            let mut g =
                registry::new_game(&setup(kind, 4, seed), &BoardSource::embedded()).unwrap();
            play(&mut *g, seed, 40 * seed as usize);
            let seat = Viewer::Player(Seat(0));
            // The spectator's map, and a player's (with their own layer,
            // where the game draws them one).
            for stationmaster::engine::Map { text, html } in [g.render_map(), g.render_map_to(seat)]
            {
                let mut plain = String::new();
                let mut in_tag = false;
                for c in html.chars() {
                    match c {
                        '<' => in_tag = true,
                        '>' if in_tag => in_tag = false,
                        _ if !in_tag => plain.push(c),
                        _ => {}
                    }
                }
                let plain = plain
                    .replace("&lt;", "<")
                    .replace("&gt;", ">")
                    .replace("&amp;", "&");
                let lines: Vec<&str> = plain.lines().map(str::trim_end).collect();
                assert_eq!(lines, text.lines().collect::<Vec<_>>(), "seed {seed}");
                // No two spans of one colour with only blanks between them on
                // one line (the canvas joins runs within a line; a run may end
                // a line and the next begin with the colour again).
                let spans: Vec<(&str, &str)> = html
                    .split("<span style=\"color:")
                    .skip(1)
                    .filter_map(|p| {
                        let (colour, rest) = p.split_once('"')?;
                        Some((colour, rest.split_once("</span>")?.1))
                    })
                    .collect();
                for w in spans.windows(2) {
                    assert!(
                        !(w[0].0 == w[1].0 && w[0].1.trim().is_empty() && !w[0].1.contains('\n')),
                        "seed {seed}: two {} spans side by side",
                        w[0].0
                    );
                }
            }
            let stationmaster::engine::Map { text, html } = g.render_map_to(seat);
            assert_eq!(g.render(seat), format!("{text}\n{}", g.render_status(seat)));
            assert!(g.render_html(seat).starts_with("<pre"));
            assert!(g.render_html(seat).contains(&html));
        }
    }
}

#[test]
fn the_store_snapshot_is_what_replaying_the_log_gives() {
    let dir = tempfile::TempDir::new().unwrap();
    let store = Store::open(dir.path()).unwrap();
    let now = Utc.with_ymd_and_hms(2026, 11, 21, 18, 0, 0).unwrap();
    let id = store
        .create(
            &setup(&stationmaster::rocket::ENTRY, 3, 5),
            &BoardSource::embedded(),
            now,
        )
        .unwrap();
    assert_eq!(id, GameId("rocket-1".into()));
    play_stored(&store, &id, 5, 80);
    let log = store.log(&id).unwrap();
    assert!(log.len() >= 40);
    assert!(log.iter().enumerate().all(|(i, e)| e.seq == i as u64 + 1));
    let rebuilt = store.rebuild(&id).unwrap();
    let loaded = store.load(&id).unwrap();
    assert_eq!(loaded.seq, log.len() as u64);
    assert_eq!(rebuilt.snapshot().unwrap(), loaded.game.snapshot().unwrap());
}

#[test]
fn a_refused_batch_stores_nothing() {
    let dir = tempfile::TempDir::new().unwrap();
    let store = Store::open(dir.path()).unwrap();
    let now = Utc.with_ymd_and_hms(2026, 11, 21, 18, 0, 0).unwrap();
    let id = store
        .create(
            &setup(&stationmaster::rocket::ENTRY, 2, 5),
            &BoardSource::embedded(),
            now,
        )
        .unwrap();
    let loaded = store.load(&id).unwrap();
    let seat = loaded.game.status();
    let Status::Active(awaited) = seat else {
        panic!()
    };
    let seat = awaited[0].seat;
    let good = loaded.game.legal_order_lines(seat)[0].clone();
    let err = apply(&store, &id, seat, &[good, "extend GWR A1".to_string()], now)
        .err()
        .unwrap();
    match err {
        LocalApplyError::Rejected(r) => assert_eq!(r.line_no, 2),
        other => panic!("{other}"),
    }
    assert!(store.log(&id).unwrap().is_empty());
    assert_eq!(
        store.load(&id).unwrap().game.snapshot().unwrap(),
        loaded.game.snapshot().unwrap()
    );
    assert!(matches!(
        store.load(&GameId("rocket-9".into())),
        Err(StoreError::NoSuchGame(_))
    ));
}

/// Plays `n` random orders of game `id` through the store.
fn play_stored(store: &Store, id: &GameId, seed: u64, n: usize) {
    let now = Utc.with_ymd_and_hms(2026, 11, 21, 18, 0, 0).unwrap();
    let mut rng = SplitMix64::new(seed);
    for _ in 0..n {
        let loaded = store.load(id).unwrap();
        let Status::Active(awaited) = loaded.game.status() else {
            break;
        };
        let seat = awaited[0].seat;
        let legal = loaded.game.legal_order_lines(seat);
        let line = legal[rng.below(legal.len())].clone();
        apply(store, id, seat, &[line], now).unwrap();
    }
}

/// States are stored packed (`store::pack`): compressed against a built-in
/// dictionary, a fresh game's state takes a few dozen bytes in sled instead
/// of its 9 KB of JSON, so that sled's pages are small in memory too.
#[test]
fn states_are_stored_packed() {
    let dir = tempfile::TempDir::new().unwrap();
    let now = Utc.with_ymd_and_hms(2026, 11, 21, 18, 0, 0).unwrap();
    let (id, json) = {
        let store = Store::open(dir.path()).unwrap();
        let id = store
            .create(
                &setup(&stationmaster::rocket::ENTRY, 3, 8),
                &BoardSource::embedded(),
                now,
            )
            .unwrap();
        let json = store.load(&id).unwrap().game.snapshot().unwrap();
        (id, json)
    };
    let db = stationmaster::store::open_raw(dir.path()).unwrap();
    for tree in ["initial", "snapshots"] {
        let stored = db
            .open_tree(tree)
            .unwrap()
            .get(id.0.as_bytes())
            .unwrap()
            .unwrap();
        assert_eq!(stored[..2], [0, 1], "{tree}: packed with dictionary 1");
        assert!(
            stored.len() * 50 < json.len(),
            "{tree}: {} bytes",
            stored.len()
        );
        let back = stationmaster::store::pack::unpack(&stored).unwrap();
        assert_eq!(back.as_ref(), json.as_bytes());
    }
}

/// A database of the first format (the initial state inside the record,
/// the sequence number and hash inside the snapshot) is brought up to date
/// when it is opened: the game loads as it was, its log still verifies, and
/// play goes on.
#[test]
fn a_database_of_the_first_format_is_upgraded_on_open() {
    let dir = tempfile::TempDir::new().unwrap();
    let now = Utc.with_ymd_and_hms(2026, 11, 21, 18, 0, 0).unwrap();
    let (id, state, entries) = {
        let store = Store::open(dir.path()).unwrap();
        let id = store
            .create(
                &setup(&stationmaster::rocket::ENTRY, 3, 8),
                &BoardSource::embedded(),
                now,
            )
            .unwrap();
        play_stored(&store, &id, 8, 30);
        let state = store.load(&id).unwrap().game.snapshot().unwrap();
        let entries = store.log(&id).unwrap();
        (id, state, entries)
    };
    // Rewrite it as the first format wrote it, with sled itself.
    {
        let db = stationmaster::store::open_raw(dir.path()).unwrap();
        let key = id.0.as_bytes();
        let (games, initial, snapshots, heads, meta) = (
            db.open_tree("games").unwrap(),
            db.open_tree("initial").unwrap(),
            db.open_tree("snapshots").unwrap(),
            db.open_tree("heads").unwrap(),
            db.open_tree("meta").unwrap(),
        );
        let mut record: serde_json::Value =
            serde_json::from_slice(&games.get(key).unwrap().unwrap()).unwrap();
        // States are stored packed (store::pack); the first format had them as JSON.
        let state_of = |tree: &sled::Tree| -> serde_json::Value {
            let stored = tree.get(key).unwrap().unwrap();
            serde_json::from_slice(&stationmaster::store::pack::unpack(&stored).unwrap()).unwrap()
        };
        let start = state_of(&initial);
        record["initial"] = start;
        games
            .insert(key, serde_json::to_vec(&record).unwrap())
            .unwrap();
        let head: serde_json::Value =
            serde_json::from_slice(&heads.get(key).unwrap().unwrap()).unwrap();
        let current = state_of(&snapshots);
        let old = serde_json::json!({
            "seq": head["seq"], "state": current, "last_hash": head["last_hash"],
        });
        snapshots
            .insert(key, serde_json::to_vec(&old).unwrap())
            .unwrap();
        initial.clear().unwrap();
        heads.clear().unwrap();
        meta.remove("format").unwrap();
        db.flush().unwrap();
    }
    let store = Store::open(dir.path()).unwrap();
    let loaded = store.load(&id).unwrap();
    assert_eq!(loaded.game.snapshot().unwrap(), state);
    assert_eq!(loaded.seq, entries.len() as u64);
    assert_eq!(store.log(&id).unwrap(), entries);
    assert!(matches!(
        store.verify(&id).unwrap(),
        stationmaster::store::Verified::Good { .. }
    ));
    play_stored(&store, &id, 9, 10);
    assert!(store.log(&id).unwrap().len() > entries.len());
    assert!(matches!(
        store.verify(&id).unwrap(),
        stationmaster::store::Verified::Good { .. }
    ));
    // Opening it again changes nothing more.
    drop(store);
    let store = Store::open(dir.path()).unwrap();
    assert!(matches!(
        store.verify(&id).unwrap(),
        stationmaster::store::Verified::Good { .. }
    ));
}

/// The mails of a change that show the same picture keep one copy of it in
/// the outbox (a report's picture is some 80 KB of base64 that packing
/// hardly shrinks, and a change mails it to every player), as a file of
/// the database's folder `parts/`: each mail comes back whole however it
/// waits, and the copy goes with the last of them (once that is flushed),
/// or at the next start after a crash between the two.
#[test]
fn a_picture_the_mails_of_a_change_show_is_stored_once() {
    use stationmaster::mail::OutMail;
    use stationmaster::mail::compose::{Draft, InlinePicture, compose};
    use stationmaster::store::Change;
    let dir = tempfile::TempDir::new().unwrap();
    let now = Utc.with_ymd_and_hms(2026, 11, 21, 18, 0, 0).unwrap();
    let mut config = Config::default();
    config.mail.address = "sm@example.org".into();
    // 30 KB that packing cannot shrink, as a PNG's.
    let mut rng = SplitMix64::new(5);
    let png: Vec<u8> = (0..30_000).map(|_| rng.next_u64() as u8).collect();
    let cid = "board.1@example.org".to_string();
    let picture = InlinePicture::new(cid.clone(), "board.png".into(), png.clone());
    let draft = |to: &str, picture: Option<InlinePicture>| Draft {
        to: to.into(),
        subject: "Your turn".into(),
        text: format!("Hello {to}"),
        html: Some(format!(r#"<p>Hello {to}</p><img src="cid:{cid}">"#)),
        picture,
        ..Default::default()
    };
    let mut mails: Vec<OutMail> = ["a", "b", "c"]
        .iter()
        .map(|n| {
            let to = format!("{n}@example.org");
            let id = format!("{n}.1@example.org");
            compose(&draft(&to, Some(picture.clone())), &config.mail, &id, now).unwrap()
        })
        .collect();
    let alone = draft("d@example.org", None);
    mails.push(compose(&alone, &config.mail, "d.1@example.org", now).unwrap());
    assert!(mails[..3].iter().all(|m| m.shared.is_some()));
    assert!(mails[3].shared.is_none());
    let change = Change {
        outbox: mails.clone(),
        ..Default::default()
    };
    // The parts' entries and files, and the stored items' sizes.
    let files = |dir: &std::path::Path| -> Vec<std::path::PathBuf> {
        match std::fs::read_dir(dir.join("parts")) {
            Ok(rd) => rd.map(|e| e.unwrap().path()).collect(),
            Err(_) => Vec::new(),
        }
    };
    let stored = |dir: &std::path::Path| -> (usize, Vec<usize>) {
        let db = stationmaster::store::open_raw(dir).unwrap();
        let parts = db.open_tree("parts").unwrap();
        assert!(
            parts.iter().all(|e| e.unwrap().1.len() < 100),
            "no entry holds the picture"
        );
        assert_eq!(files(dir).len(), parts.len(), "a file for each part");
        let items = db.open_tree("outbox").unwrap();
        (
            parts.len(),
            items.iter().map(|e| e.unwrap().1.len()).collect(),
        )
    };
    let whole = |store: &Store| -> Vec<(u64, stationmaster::store::OutboxItem)> {
        store.outbox_due(now, None, 10).unwrap()
    };
    let keys: Vec<u64> = {
        let store = Store::open(dir.path()).unwrap();
        let keys = store.commit_unflushed(&change).unwrap();
        store.flush().unwrap();
        keys.into_iter().map(|(k, _)| k).collect()
    };
    let (parts, items) = stored(dir.path());
    assert_eq!(parts, 1, "the picture is stored once");
    assert!(
        items.iter().all(|&len| len < 10_000),
        "no item holds the picture: {items:?}"
    );
    let shared = mails[0].shared.as_ref().unwrap();
    assert_eq!(
        std::fs::read(&files(dir.path())[0]).unwrap(),
        png,
        "the file holds the PNG (the mails carry it in base64, a third larger)"
    );
    let store = Store::open(dir.path()).unwrap();
    let due = whole(&store);
    let bytes: Vec<&[u8]> = due.iter().map(|(_, i)| i.bytes.as_slice()).collect();
    let sent: Vec<&[u8]> = mails.iter().map(|m| m.bytes.as_slice()).collect();
    assert_eq!(bytes, sent, "every mail comes back whole");
    // One fails and waits (stored again), one goes.
    let mut first = due[0].1.clone();
    first.attempts = 1;
    first.last_error = Some("421 try later".into());
    store.outbox_retry(keys[0], Some(&first)).unwrap();
    store.outbox_sent(keys[1]).unwrap();
    drop(store);
    let store = Store::open(dir.path()).unwrap();
    let due = whole(&store);
    assert_eq!(due.len(), 3);
    assert_eq!((due[0].1.bytes.as_slice(), due[0].1.attempts), (sent[0], 1));
    assert_eq!(due[1].1.bytes, sent[2]);
    // Given up, then sent: the picture goes with the last mail that shows
    // it, its file once that is durable (until then a crash brings the
    // mail back, and it needs its picture).
    store.outbox_retry(keys[0], None).unwrap();
    store.outbox_sent(keys[2]).unwrap();
    assert_eq!(files(dir.path()).len(), 1, "the file stays until the flush");
    store.flush().unwrap();
    assert!(files(dir.path()).is_empty(), "the file went with the flush");
    drop(store);
    assert_eq!(stored(dir.path()).0, 0, "the picture left with its mails");
    // A crash between a mail's removal and its picture's leaves the picture:
    // the next start removes it.
    let store = Store::open(dir.path()).unwrap();
    let keys = store.commit_unflushed(&change).unwrap();
    store.flush().unwrap();
    drop(store);
    {
        let db = stationmaster::store::open_raw(dir.path()).unwrap();
        let outbox = db.open_tree("outbox").unwrap();
        for (key, _) in &keys[..3] {
            outbox.remove(key.to_be_bytes()).unwrap();
        }
        db.flush().unwrap();
    }
    assert_eq!(stored(dir.path()).0, 1);
    // A file written for a change that a crash kept from being committed.
    std::fs::write(dir.path().join("parts/00000000ffffffff"), b"half a picture").unwrap();
    drop(Store::open(dir.path()).unwrap());
    assert_eq!(stored(dir.path()), (0, vec![items[3], items[3]]));
    assert!(
        files(dir.path()).is_empty(),
        "what the crashes left is gone"
    );

    // A damaged picture: its mails are left alone (and said so in the
    // log), the others go on.
    let store = Store::open(dir.path()).unwrap();
    store.commit_unflushed(&change).unwrap();
    store.flush().unwrap();
    std::fs::write(&files(dir.path())[0], b"not the picture").unwrap();
    let due = whole(&store);
    assert_eq!(
        due.len(),
        3,
        "the mail without the picture, and the two before"
    );
    assert!(due.iter().all(|(_, i)| i.part.is_none()));
    // The operator's export still works, those three mails in it.
    assert_eq!(store.export(now).unwrap().outbox.len(), 3);
    drop(store);

    // A change that fails (here: its game is not in the database) leaves
    // no picture's file behind.
    std::fs::remove_dir_all(dir.path()).unwrap();
    let store = Store::open(dir.path()).unwrap();
    let failing = Change {
        update: Some(stationmaster::store::GameUpdate {
            id: stationmaster::store::GameId("rocket-9".into()),
            base_seq: 0,
            entries: Vec::new(),
            state: String::new(),
            state_version: 1,
            meta: Default::default(),
            old_fire: None,
            over: false,
            missed: Vec::new(),
            ended: None,
        }),
        ..change.clone()
    };
    assert!(store.commit_unflushed(&failing).is_err());
    assert!(files(dir.path()).is_empty(), "{:?}", files(dir.path()));
    assert_eq!(store.outbox_len(), 0);
    drop(store);

    // Parts stored in the forms of earlier versions are still read: the
    // entry's count word and what follows the keys, and the file (none: the
    // picture is in the entry).
    let earlier_form = |count: u32, tail: &[u8], file: Option<&[u8]>| {
        std::fs::remove_dir_all(dir.path()).unwrap();
        let keys: Vec<u64> = {
            let store = Store::open(dir.path()).unwrap();
            let keys = store.commit_unflushed(&change).unwrap();
            store.flush().unwrap();
            keys.into_iter().map(|(k, _)| k).collect()
        };
        {
            let db = stationmaster::store::open_raw(dir.path()).unwrap();
            let parts = db.open_tree("parts").unwrap();
            let (key, _) = parts.iter().next().unwrap().unwrap();
            let mut entry = count.to_be_bytes().to_vec();
            for k in &keys[..3] {
                entry.extend_from_slice(&k.to_be_bytes());
            }
            entry.extend_from_slice(tail);
            parts.insert(key, entry).unwrap();
            db.flush().unwrap();
        }
        for f in files(dir.path()) {
            match file {
                Some(bytes) => std::fs::write(f, bytes).unwrap(),
                None => std::fs::remove_file(f).unwrap(),
            }
        }
        let store = Store::open(dir.path()).unwrap();
        let due = whole(&store);
        let bytes: Vec<&[u8]> = due.iter().map(|(_, i)| i.bytes.as_slice()).collect();
        assert_eq!(bytes, sent, "every mail comes back whole");
    };
    // The picture in the entry.
    earlier_form(3, shared.bytes(), None);
    // A file holding the base64 as the mails carry it.
    let crc = crc32fast::hash(shared.bytes()).to_be_bytes();
    earlier_form(3 | 1 << 31, &crc, Some(shared.bytes()));
}
