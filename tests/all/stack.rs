//! The loopback mail stack of `.ci/mailstack.sh`, as the tests that need it
//! find it: its ports and folders come in `SM_*` variables (`eval "$(
//! .ci/mailstack.sh start DIR)"`). Without them a test says by name that it
//! was skipped (`skipped: NAME: no mail stack …` on stderr; `cargo test --
//! --nocapture` or `2>&1 | grep skipped:` shows them) and does nothing,
//! unless `CI` or `SM_REQUIRE_STACK` is set: then it fails, so a CI run
//! with the stack up cannot pass by skipping.
//!
//! Every test runs in one binary, side by side (see `main.rs`), so the
//! stack is taken in turns: [`stack`] shares it with the other tests that
//! only read their own mail (found by a unique subject, as the transport
//! tests do), and [`stack_alone`] keeps it for one test that reads all of
//! gm's unseen mail (a daemon or a `process` on gm's INBOX): that test
//! would take the others' mail, and they would send it mail it does not
//! expect. The turn lasts as long as the [`Stack`] value.

#![allow(dead_code)]

use std::path::PathBuf;
use std::sync::{PoisonError, RwLock, RwLockReadGuard, RwLockWriteGuard};

/// Says which test did nothing and why (`skipped: NAME: REASON`), on the
/// real stderr: libtest's capture would hide a `println!` of a passing test.
/// With `CI` or `SM_REQUIRE_STACK` set a skip is a failure instead.
macro_rules! skip {
    ($($arg:tt)*) => {
        $crate::stack::skipped(&format!($($arg)*))
    };
}

/// What [`skip!`] does: names the test (libtest names each test's thread
/// after it) and the reason, or fails where the stack is required.
#[track_caller]
pub fn skipped(reason: &str) {
    use std::io::Write as _;
    let caller = std::panic::Location::caller();
    let here = std::thread::current();
    let name = match here.name() {
        Some(n) if n != "main" => n.to_string(),
        _ => format!("the test at {}:{}", caller.file(), caller.line()),
    };
    assert!(
        !required(),
        "{name}: {reason}; CI or SM_REQUIRE_STACK is set, so the mail stack must be running \
         (`eval \"$(TLS=1 .ci/mailstack.sh start DIR)\"` before `cargo test`)"
    );
    let _ = writeln!(std::io::stderr(), "skipped: {name}: {reason}");
}

/// Whether a skip must fail: `CI` (any value) or `SM_REQUIRE_STACK=1`.
fn required() -> bool {
    std::env::var_os("CI").is_some()
        || std::env::var("SM_REQUIRE_STACK").is_ok_and(|v| !v.is_empty() && v != "0")
}

/// The running stack.
pub struct Stack {
    /// IMAP, plain.
    pub imap: u16,
    /// SMTP (OpenSMTPD), plain.
    pub smtp: u16,
    /// SMTP submission with AUTH, if started.
    pub submission: Option<u16>,
    /// IMAP over TLS, if started with `TLS=1`.
    pub imaps: Option<u16>,
    /// The private CA of the TLS certificates.
    pub ca: Option<PathBuf>,
    /// The folder holding every user's Maildir.
    pub maildir_root: Option<PathBuf>,
    /// This test's turn on the stack, given back when the value is dropped.
    _turn: Turn,
}

/// The turns on the stack: shared by tests that only read their own mail,
/// or one test's alone.
static TURNS: RwLock<()> = RwLock::new(());

enum Turn {
    Shared(RwLockReadGuard<'static, ()>),
    Alone(RwLockWriteGuard<'static, ()>),
}

fn port_var(name: &str) -> Option<u16> {
    let v = std::env::var(name).ok()?;
    match v.trim().parse() {
        Ok(p) => Some(p),
        Err(_) => panic!("{name}={v:?} is not a port"),
    }
}

/// The stack, shared with the other tests that only read their own mail;
/// or None (after saying so) when it is not running. With `CI` set, a
/// missing stack fails the test.
#[track_caller]
pub fn stack() -> Option<Stack> {
    let ports = ports()?;
    let turn = Turn::Shared(TURNS.read().unwrap_or_else(PoisonError::into_inner));
    Some(running(ports, turn))
}

/// The stack, for this test alone until the value is dropped (the test
/// reads all of gm's unseen mail); or None, as [`stack`].
#[track_caller]
pub fn stack_alone() -> Option<Stack> {
    let ports = ports()?;
    let turn = Turn::Alone(TURNS.write().unwrap_or_else(PoisonError::into_inner));
    Some(running(ports, turn))
}

/// The IMAP and SMTP ports, or None after saying that the test is skipped.
#[track_caller]
fn ports() -> Option<(u16, u16)> {
    match (port_var("SM_IMAP_PORT"), port_var("SM_SMTP_PORT")) {
        (Some(imap), Some(smtp)) => Some((imap, smtp)),
        _ => {
            skip!("no mail stack (run .ci/mailstack.sh, see README)");
            None
        }
    }
}

fn running((imap, smtp): (u16, u16), turn: Turn) -> Stack {
    Stack {
        imap,
        smtp,
        submission: port_var("SM_SUBMISSION_PORT"),
        imaps: port_var("SM_IMAPS_PORT"),
        ca: std::env::var_os("SM_CA").map(PathBuf::from),
        maildir_root: std::env::var_os("SM_MAILDIR_ROOT").map(PathBuf::from),
        _turn: turn,
    }
}
