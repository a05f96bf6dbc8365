//! Issue 11: replies as real mail clients write them (top-posted,
//! bottom-posted, inline; text and HTML; in many languages), each in
//! `tests/fixtures/replies/`, listed in `cases.toml` with the orders it must
//! yield and the chatter lines the player must be shown. Every file goes
//! through `ingest::parse` and the daemon's chatter filter, as a mail does.

use serde::Deserialize;
use stationmaster::daemon::commands::player_vocabulary;
use stationmaster::engine::chatter::Reading;
use stationmaster::engine::{PlayerSetup, Setup};
use stationmaster::mail::ingest::parse;
use stationmaster::registry::{self, BoardSource};

#[derive(Deserialize)]
struct Manifest {
    case: Vec<Case>,
}

#[derive(Deserialize)]
struct Case {
    file: String,
    client: String,
    orders: Vec<String>,
    chatter: Vec<String>,
}

fn dir() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/replies")
}

fn manifest() -> Manifest {
    let text = std::fs::read_to_string(dir().join("cases.toml")).unwrap();
    toml::from_str(&text).unwrap()
}

fn rocket() -> Box<dyn stationmaster::engine::AnyGame> {
    let setup = Setup {
        kind: "rocket".to_string(),
        players: ["alice", "bob", "cecil"]
            .iter()
            .map(|n| PlayerSetup {
                name: n.to_string(),
                email: format!("{n}@example.org"),
            })
            .collect(),
        seed: 7,
        options: Vec::new(),
    };
    registry::new_game(&setup, &BoardSource::embedded()).unwrap()
}

#[test]
fn every_client_reply_yields_its_orders_and_shows_its_chatter() {
    let game = rocket();
    let vocabulary = player_vocabulary(&*game);
    let mut failures = Vec::new();
    let cases = manifest().case;
    for case in &cases {
        let raw = std::fs::read(dir().join(&case.file)).unwrap();
        let m = parse(&raw).unwrap_or_else(|e| panic!("{}: {e}", case.file));
        assert_eq!(m.game.as_deref(), Some("rocket-3"), "{}", case.file);
        assert_eq!(m.token.as_deref(), Some("k7p2xq9m"), "{}", case.file);
        assert_eq!(m.auto_reply, None, "{}", case.file);
        let (orders, chatter) = vocabulary.split(&m.body);
        let orders: Vec<String> = orders.iter().map(|l| l.trim().to_string()).collect();
        let chatter: Vec<String> = chatter.iter().map(|l| l.trim().to_string()).collect();
        if orders != case.orders || chatter != case.chatter {
            failures.push(format!(
                "{} ({}):\n  body    {:?}\n  orders  {:?}, expected {:?}\n  chatter {:?}, expected {:?}",
                case.file, case.client, m.body, orders, case.orders, chatter, case.chatter
            ));
        }
        // What is read as an order is one the grammar knows (or a typo it
        // will refuse and explain): none of these is a typo.
        for o in &orders {
            assert_eq!(vocabulary.read(o), Reading::Order, "{}: {o}", case.file);
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} cases failed:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}

#[test]
fn every_fixture_is_in_the_manifest_and_the_clients_are_covered() {
    let cases = manifest().case;
    let listed: std::collections::BTreeSet<String> = cases.iter().map(|c| c.file.clone()).collect();
    assert_eq!(listed.len(), cases.len(), "a file listed twice");
    for entry in std::fs::read_dir(dir()).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().to_string();
        if name.ends_with(".eml") {
            assert!(listed.contains(&name), "{name} is not in cases.toml");
        }
    }
    let clients: std::collections::BTreeSet<&str> = cases
        .iter()
        .map(|c| c.file.rsplit_once('-').map_or(c.file.as_str(), |(a, _)| a))
        .collect();
    assert!(clients.len() >= 20, "{clients:?}");
}
