//! The `stationmaster` binary as the command-line tests run it: in a
//! folder of the test's own, on the embedded default, at a fixed time.

use std::path::Path;

use assert_cmd::Command;

/// The time every command runs at (`STATIONMASTER_NOW`).
pub const NOW: &str = "2026-11-21T18:00:00Z";

/// A command of the binary in `dir`, with its own database there: the
/// embedded default (no `STATIONMASTER_CONFIG` from the caller's
/// environment), at [`NOW`].
pub fn sm(dir: impl AsRef<Path>) -> Command {
    let mut c = Command::cargo_bin("stationmaster").unwrap();
    c.current_dir(dir.as_ref())
        .env_remove("STATIONMASTER_CONFIG")
        .env("STATIONMASTER_NOW", NOW);
    c
}

/// What the command printed on stdout; fails the test, with both outputs,
/// if it did not succeed.
pub fn stdout(c: &mut Command) -> String {
    let out = c.output().unwrap();
    assert!(
        out.status.success(),
        "failed: {}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}
