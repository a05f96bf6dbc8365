//! The loopback mail stack of `.ci/mailstack.sh`, as the tests that need it
//! find it: its ports and folders come in `SM_*` variables (`eval "$(
//! .ci/mailstack.sh start DIR)"`). Without them a test says so and does
//! nothing, unless `CI` is set: then it fails.

#![allow(dead_code)]

use std::path::PathBuf;

/// Says why a test did nothing, on the real stderr: libtest's capture would
/// hide a `println!` of a passing test.
macro_rules! skip {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr(), $($arg)*);
    }};
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
            assert!(
                std::env::var_os("CI").is_none(),
                "CI is set but SM_IMAP_PORT / SM_SMTP_PORT are not: CI must start the mail \
                 stack with `eval \"$(.ci/mailstack.sh start DIR)\"` before `cargo test`"
            );
            skip!("skipped: no mail stack (run .ci/mailstack.sh)");
            None
        }
    }
}
