//! Every integration test, in one test binary: one module per subject
//! below, each opening with what it covers. One binary is linked once, not
//! twenty times against the library and its dependencies, and libtest runs
//! all of its tests side by side on every core, where cargo runs test
//! binaries one after another (docs/performance.md, "Build").
//!
//! Side by side means sharing one process: no test changes the process's
//! environment, working folder or other global state (each gives its own
//! folder and variables to the processes it starts), and the tests that
//! need the loopback mail stack take turns on it (`stack`).
//!
//! One subject: `cargo test --test all hostile::` (a module), or a test by
//! name: `cargo test --test all crash_consistency_long -- --ignored`.

#[macro_use]
mod stack;
mod binary;
mod common;

mod aborted;
mod architecture;
mod beside_daemon;
mod board;
mod bots;
mod bots_by_mail;
mod cli;
mod contract;
mod crash;
mod daemon;
mod deadlines;
mod e2e;
mod export;
mod flowed;
mod hostile;
mod ingest;
mod linie1_data;
mod linie1_e2e;
mod linie1_mail;
mod linie1_map;
mod linie1_picture;
mod linie1_playouts;
mod linie1_rules;
mod linie1_yours;
mod lobby;
mod moderator;
mod outage;
mod pictures;
mod player_mail;
mod readme;
mod records;
mod replies;
mod rocket_examples;
mod rocket_playouts;
mod rocket_rules;
mod site;
mod site_e2e;
mod transport;
mod upgrade;
mod web;
