//! The loopback mail stack of `.ci/mailstack.sh`, as the tests that need it
//! find it: its ports and folders come in `SM_*` variables (`eval "$(
//! .ci/mailstack.sh start DIR)"`). Without them a test says by name that it
//! was skipped (`skipped: NAME: no mail stack …` on stderr; `cargo test --
//! --nocapture` or `2>&1 | grep skipped:` shows them) and does nothing,
//! unless `CI` or `SM_REQUIRE_STACK` is set: then it fails, so a CI run
//! with the stack up cannot pass by skipping.

#![allow(dead_code)]

use std::path::PathBuf;

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
}

fn port_var(name: &str) -> Option<u16> {
    let v = std::env::var(name).ok()?;
    match v.trim().parse() {
        Ok(p) => Some(p),
        Err(_) => panic!("{name}={v:?} is not a port"),
    }
}

/// The stack, or None (after saying so) when it is not running. With `CI`
/// set, a missing stack fails the test.
#[track_caller]
pub fn stack() -> Option<Stack> {
    match (port_var("SM_IMAP_PORT"), port_var("SM_SMTP_PORT")) {
        (Some(imap), Some(smtp)) => Some(Stack {
            imap,
            smtp,
            submission: port_var("SM_SUBMISSION_PORT"),
            imaps: port_var("SM_IMAPS_PORT"),
            ca: std::env::var_os("SM_CA").map(PathBuf::from),
            maildir_root: std::env::var_os("SM_MAILDIR_ROOT").map(PathBuf::from),
        }),
        _ => {
            skip!("no mail stack (run .ci/mailstack.sh, see README)");
            None
        }
    }
}
