//! Any bytes as a mail: `ingest::parse` must return, whatever arrives.
//!
//! mail-parser (0.11.9) itself panics on some malformed nested multiparts
//! ("Invalid part ID, could not find multipart."); `parse` catches that and
//! calls the mail unreadable, which is the behaviour we want, and the
//! hostile corpus keeps one such mail. libfuzzer-sys's panic hook would
//! abort on that caught panic too, so a silent hook replaces it: a panic
//! that escapes `parse` still reaches libfuzzer-sys, which reports it as a
//! crash.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    static QUIET: std::sync::Once = std::sync::Once::new();
    QUIET.call_once(|| std::panic::set_hook(Box::new(|_| {})));
    let _ = stationmaster::mail::ingest::parse(data);
});
