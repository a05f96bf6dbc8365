//! Game states and queued mails are stored packed: compressed with zstd
//! against a dictionary built into the program (a fresh game's state, a
//! welcome mail and a report, in `dictionary/`), each value on its own.
//!
//! Why: sled keeps in memory every page it reads, or moves for its segment
//! cleaner, as the tree holds it, and its cache counts a page by its size
//! on disk. With only sled's own compression (whole pages, on disk) a leaf
//! of 16 states was some 170 KB in memory for a few KB on disk, and a leaf
//! of queued mails 220 KB: the 8 MiB cache held 87 MB of pages, and one
//! `process` draining 10,002 welcome mails peaked at 107 MiB
//! (docs/performance.md as of 9fafdd2, "Disk and the outbox's
//! drain"). Packed, a value
//! is about as small in memory as on disk: against the dictionary (which
//! holds what values of a kind share: the board, the templates, the map) a
//! fresh game's state takes 22 bytes instead of 8,841, a welcome mail some
//! 300 instead of 13,500, a report about 1,000 instead of 15,000, so a page
//! is small too. zstd alone, without the dictionary, would make each
//! value three times as large on disk as sled's compression of whole pages.
//!
//! The stored form: a NUL byte, the dictionary's version (one byte), then a
//! zstd frame that records the value's length. Neither a state (JSON) nor a
//! message (RFC 5322) begins with NUL, so values that earlier versions
//! stored as they are read back as they are. A dictionary never changes
//! once released (a test pins its bytes): a new one gets the next version,
//! and every version stays here for the values packed with it.

use std::borrow::Cow;
use std::cell::RefCell;
use std::sync::OnceLock;

use zstd::zstd_safe::{self, CCtx, CDict, DCtx, DDict};

/// The first byte of a packed value.
const PACKED: u8 = 0;

/// The version of the dictionary new values are packed with.
const VERSION: u8 = 1;

/// zstd's level: its fastest. The tables zstd clears for every value
/// follow the dictionary's level, and at level 3 (zstd's default) clearing
/// them was over half of packing a 15 KB report: level 1 packs one in
/// half the instructions (callgrind: 0.28 against 0.59 million, with
/// the tables made once), for values some 5 % larger (docs/performance.md
/// as of 9fafdd2, "A mail's cost as a game grows"). Any level unpacks with
/// the same dictionary, so values packed at 3 read back as before.
const LEVEL: i32 = 1;

/// A packed value longer than this when unpacked is taken to be damaged
/// (a state is some 10 KB, a mail some 15 KB).
const MAX_UNPACKED: u64 = 64 * 1024 * 1024;

/// Dictionary version 1, in this order. Never to be changed: values packed
/// with it need exactly these bytes.
const DICTIONARY_V1: [&[u8]; 3] = [
    include_bytes!("dictionary/v1/state.json"),
    include_bytes!("dictionary/v1/welcome.eml"),
    include_bytes!("dictionary/v1/report.eml"),
];

/// A value could not be packed or unpacked.
#[derive(Debug, thiserror::Error)]
pub enum PackError {
    /// Packed with a dictionary this program does not have.
    #[error(
        "packed with dictionary version {0}, which this Stationmaster does not know (a newer version wrote it)"
    )]
    UnknownVersion(u8),
    /// The stored bytes are not a whole zstd frame of a known length.
    #[error("packed value damaged: {0}")]
    Damaged(String),
    /// zstd failed to compress.
    #[error("zstd failed to compress: {0}")]
    Compress(&'static str),
}

fn dictionary(version: u8) -> Option<&'static [u8]> {
    static V1: OnceLock<Vec<u8>> = OnceLock::new();
    match version {
        1 => Some(V1.get_or_init(|| DICTIONARY_V1.concat())),
        _ => None,
    }
}

/// The dictionary new values are packed with, prepared once per process.
fn encoder() -> &'static CDict<'static> {
    static CDICT: OnceLock<CDict<'static>> = OnceLock::new();
    CDICT.get_or_init(|| zstd_safe::create_cdict(dictionary(VERSION).unwrap_or_default(), LEVEL))
}

/// The prepared dictionary of `version`, if this program has it.
fn decoder(version: u8) -> Option<&'static DDict<'static>> {
    static V1: OnceLock<DDict<'static>> = OnceLock::new();
    match version {
        1 => Some(V1.get_or_init(|| zstd_safe::create_ddict(dictionary(1).unwrap_or_default()))),
        _ => None,
    }
}

thread_local! {
    /// zstd's working memory, kept for the thread's next value: made anew
    /// for each, it was most of the time packing took.
    static CCTX: RefCell<Option<CCtx<'static>>> = const { RefCell::new(None) };
    static DCTX: RefCell<DCtx<'static>> = RefCell::new(DCtx::create());
}

/// A compression context set up once per thread: the dictionary, and
/// its tables used where they are (attached) for every value. By default
/// zstd copies the dictionary's tables into the context for a value over
/// some 16 KB, which made a late Linie 1 report (17 to 28 KB as the board
/// fills) cost far more to pack than an early one (docs/performance.md as
/// of 9fafdd2, "A mail's cost as a game grows").
fn packing_context() -> Result<CCtx<'static>, usize> {
    let mut cctx = CCtx::create();
    cctx.ref_cdict(encoder())?;
    cctx.set_parameter(zstd_safe::CParameter::ForceAttachDict(
        zstd_safe::DictAttachPref::ForceAttach,
    ))?;
    cctx.set_parameter(zstd_safe::CParameter::ContentSizeFlag(true))?;
    Ok(cctx)
}

/// `value` in its stored form (see the module's doc).
pub fn pack(value: &[u8]) -> Result<Vec<u8>, PackError> {
    let mut frame = Vec::with_capacity(zstd_safe::compress_bound(value.len()));
    CCTX.with_borrow_mut(|cctx| {
        let cctx = match cctx {
            Some(cctx) => cctx,
            None => cctx.insert(packing_context()?),
        };
        cctx.compress2(&mut frame, value)
    })
    .map_err(|code| PackError::Compress(zstd_safe::get_error_name(code)))?;
    let mut stored = Vec::with_capacity(2 + frame.len());
    stored.extend_from_slice(&[PACKED, VERSION]);
    stored.extend_from_slice(&frame);
    Ok(stored)
}

/// The value that `stored` holds: unpacked, or as it is if it was stored
/// unpacked (by an earlier version).
pub fn unpack(stored: &[u8]) -> Result<Cow<'_, [u8]>, PackError> {
    let [PACKED, version, frame @ ..] = stored else {
        return Ok(Cow::Borrowed(stored));
    };
    let ddict = decoder(*version).ok_or(PackError::UnknownVersion(*version))?;
    let len = zstd_safe::get_frame_content_size(frame);
    if len == zstd_safe::CONTENTSIZE_UNKNOWN || len == zstd_safe::CONTENTSIZE_ERROR {
        return Err(PackError::Damaged("no length in its frame".to_string()));
    }
    if len > MAX_UNPACKED {
        return Err(PackError::Damaged(format!(
            "claims {len} bytes, more than any value stored"
        )));
    }
    let len =
        usize::try_from(len).map_err(|_| PackError::Damaged(format!("claims {len} bytes")))?;
    let mut value = Vec::with_capacity(len);
    let written = DCTX
        .with_borrow_mut(|dctx| dctx.decompress_using_ddict(&mut value, frame, ddict))
        .map_err(|code| PackError::Damaged(zstd_safe::get_error_name(code).to_string()))?;
    if written != len {
        return Err(PackError::Damaged(format!(
            "{written} bytes where its frame says {len}"
        )));
    }
    Ok(Cow::Owned(value))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_dictionary_never_changes() {
        use sha2::{Digest, Sha256};
        let hash = Sha256::digest(dictionary(1).unwrap_or_default());
        let hex: String = hash.iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(
            hex, "7e7e3e50848eb9f2266decb7ca40136919863177d757a0e2acb21925b049bffe",
            "values packed with dictionary 1 need exactly its bytes: add a new version instead"
        );
    }

    #[test]
    fn a_value_reads_back_as_it_was_packed() {
        for value in [
            &b""[..],
            b"{}",
            DICTIONARY_V1[0],
            DICTIONARY_V1[2],
            "Ünïcödé £ 🚂".as_bytes(),
        ] {
            let stored = pack(value).unwrap();
            assert_eq!(stored[..2], [PACKED, VERSION]);
            assert_eq!(unpack(&stored).unwrap().as_ref(), value);
        }
    }

    #[test]
    fn a_state_packs_to_a_fraction_of_its_size() {
        let state = DICTIONARY_V1[0];
        let stored = pack(state).unwrap();
        assert!(stored.len() * 20 < state.len(), "{} bytes", stored.len());
    }

    #[test]
    fn values_stored_unpacked_read_as_they_are() {
        for value in [
            &b"{\"board\":{}}"[..],
            b"From: a@example.org\r\n\r\nhi",
            b"",
        ] {
            assert!(matches!(unpack(value).unwrap(), Cow::Borrowed(v) if v == value));
        }
    }

    #[test]
    fn an_unknown_dictionary_or_a_damaged_frame_is_an_error() {
        let mut stored = pack(b"{\"a\":1}").unwrap();
        stored[1] = 9;
        assert!(matches!(unpack(&stored), Err(PackError::UnknownVersion(9))));
        let stored = pack(DICTIONARY_V1[1]).unwrap();
        let cut = &stored[..stored.len() / 2];
        assert!(
            matches!(unpack(cut), Err(PackError::Damaged(_))),
            "a cut frame"
        );
        assert!(matches!(
            unpack(&[PACKED, VERSION]),
            Err(PackError::Damaged(_))
        ));
    }
}
