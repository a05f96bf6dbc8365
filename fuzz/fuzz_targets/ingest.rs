//! Any bytes as a mail: ingest must never panic.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = stationmaster::mail::ingest::parse(data);
});
