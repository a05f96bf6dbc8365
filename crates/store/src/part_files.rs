//! The bytes of outbox parts (a report's picture: some 95 KB of base64 in
//! the mails, kept as its PNG, a quarter smaller), kept as files of their
//! own in the database's folder, `parts/`, one a part, named by its key in
//! the `parts` tree (16 hex digits).
//!
//! Kept in sled, a picture lay in the pages of the `parts` tree beside the
//! others waiting (a leaf holds up to 16), and sled compresses a page whole
//! every time it writes it again: each picture queued or sent made sled
//! compress the pictures around it once more, sled's page cache held
//! them while the outbox drained, and its log kept their space after they
//! left (docs/performance.md, "3. Storage").
//!
//! The order of writes keeps a crash's guarantees:
//! - a part's file is written and synced, with the folder, *before* the
//!   transaction that stores the mails that carry it, so no stored mail
//!   ever lacks its part (sled may make a commit durable at any moment);
//! - a part's file is removed only *after* the flush that made its entry's
//!   removal durable, so a crash in between brings back mails whose part
//!   is still there;
//! - what a crash leaves behind (a file written for a transaction that
//!   never happened, or whose removal was not yet flushed) is removed at
//!   the next start ([`sweep`]): a file whose key has no entry.

use std::fs;
use std::io::{ErrorKind, Write};
use std::path::{Path, PathBuf};

use super::recovery::folder_error;

/// The folder of the parts' files, inside the database's.
pub(super) const FOLDER: &str = "parts";

/// The file of part `key` in the database in `db`.
pub(super) fn path(db: &Path, key: u64) -> PathBuf {
    db.join(FOLDER).join(format!("{key:016x}"))
}

/// The part key a file name stands for, if it is one.
fn key_of(name: &str) -> Option<u64> {
    (name.len() == 16)
        .then(|| u64::from_str_radix(name, 16).ok())
        .flatten()
}

/// Writes the parts `(key, bytes)` of one transaction, each synced, then
/// their folder. Returns each part's CRC-32, to be checked when read. On
/// failure the files written are removed again (a failure to remove is
/// left to [`sweep`]).
pub(super) fn write(db: &Path, parts: &[(u64, &[u8])]) -> std::io::Result<Vec<u32>> {
    if parts.is_empty() {
        return Ok(Vec::new());
    }
    let folder = db.join(FOLDER);
    let mut written = Vec::with_capacity(parts.len());
    // An error names its file, and keeps its kind (a full disk is told as
    // such: see `describe_sled`).
    let at = |file: &Path| {
        let file = file.display().to_string();
        move |e: std::io::Error| std::io::Error::new(e.kind(), format!("{file}: {e}"))
    };
    let result = (|| {
        if !folder.is_dir() {
            fs::create_dir_all(&folder).map_err(at(&folder))?;
            // The folder's own name, durable in the database's.
            fs::File::open(db)
                .and_then(|d| d.sync_all())
                .map_err(at(db))?;
        }
        let mut crcs = Vec::with_capacity(parts.len());
        for (key, bytes) in parts {
            let file = path(db, *key);
            written.push(file.clone());
            let mut f = fs::File::create(&file).map_err(at(&file))?;
            f.write_all(bytes).map_err(at(&file))?;
            f.sync_all().map_err(at(&file))?;
            crcs.push(crc32fast::hash(bytes));
        }
        fs::File::open(&folder)
            .and_then(|d| d.sync_all())
            .map_err(at(&folder))?;
        Ok(crcs)
    })();
    if result.is_err() {
        for file in written {
            let _ = fs::remove_file(file);
        }
    }
    result
}

/// The bytes of part `key`, checked against their CRC-32 (where they go
/// in a mail, the reader checks that they fit).
pub(super) fn read(db: &Path, key: u64, crc: u32) -> Result<Vec<u8>, String> {
    let file = path(db, key);
    let bytes = fs::read(&file).map_err(|e| match e.kind() {
        ErrorKind::NotFound => format!("its part {key} is missing ({})", file.display()),
        _ => format!("its part {key} cannot be read ({}): {e}", file.display()),
    })?;
    if crc32fast::hash(&bytes) != crc {
        return Err(format!(
            "its part {key} is damaged ({}: {} bytes, another checksum)",
            file.display(),
            bytes.len()
        ));
    }
    Ok(bytes)
}

/// Removes the files of parts whose entries are gone (durably: see the
/// module's order of writes).
pub(super) fn remove(db: &Path, keys: &[u64]) {
    for key in keys {
        let file = path(db, *key);
        match fs::remove_file(&file) {
            Ok(()) => {}
            Err(e) if e.kind() == ErrorKind::NotFound => {}
            // Left for the next start's sweep.
            Err(e) => {
                tracing::warn!(file = %file.display(), error = %e, "an outbox part's file could not be removed")
            }
        }
    }
}

/// Removes the files in the parts folder that no entry stands for
/// (`has_entry` says which do): left by a crash. Returns how many.
///
/// What sled read at its start may hold a removal that the process before
/// did not make durable (killed before its flush, the system still holding
/// the write): sled's own file is synced first, so that a power cut after
/// the sweep cannot bring back an entry whose file is gone. A file that
/// cannot be removed is left, and said (the next start tries again).
pub(super) fn sweep(
    db: &Path,
    mut has_entry: impl FnMut(u64) -> Result<bool, super::StoreError>,
) -> Result<usize, super::StoreError> {
    let folder = db.join(FOLDER);
    let entries = match fs::read_dir(&folder) {
        Ok(entries) => entries,
        Err(e) if e.kind() == ErrorKind::NotFound => return Ok(0),
        Err(e) => return Err(folder_error(&folder, e)),
    };
    let mut orphans = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|e| folder_error(&folder, e))?;
        let name = entry.file_name();
        // Only the files this module names; anything else is not ours.
        let Some(key) = name.to_str().and_then(key_of) else {
            continue;
        };
        if !has_entry(key)? {
            orphans.push(key);
        }
    }
    if orphans.is_empty() {
        return Ok(0);
    }
    let sled_file = db.join("db");
    if let Err(e) = fs::File::open(&sled_file).and_then(|f| f.sync_all()) {
        tracing::warn!(file = %sled_file.display(), error = %e, "could not sync the database; outbox parts' files left by a crash are kept for now");
        return Ok(0);
    }
    let removed = orphans
        .iter()
        .filter(|key| {
            let file = path(db, **key);
            fs::remove_file(&file)
                .inspect_err(|e| tracing::warn!(file = %file.display(), error = %e, "an outbox part's file left by a crash could not be removed"))
                .is_ok()
        })
        .count();
    tracing::info!(removed, folder = %folder.display(), "removed outbox parts' files left by a crash");
    Ok(removed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_names_of_parts_count_as_parts() {
        assert_eq!(key_of("00000000000000ff"), Some(255));
        assert_eq!(key_of("ff"), None);
        assert_eq!(key_of("00000000000000fg"), None);
        assert_eq!(key_of(".00000000000000f"), None);
    }

    #[test]
    fn a_part_reads_back_only_whole() {
        let dir = tempfile::TempDir::new().unwrap();
        let crcs = write(dir.path(), &[(7, b"picture"), (8, b"other")]).unwrap();
        assert_eq!(read(dir.path(), 7, crcs[0]).unwrap(), b"picture");
        // Cut short, or changed: the checksum finds it, and the error
        // names the file.
        fs::write(path(dir.path(), 8), b"othe").unwrap();
        let e = read(dir.path(), 8, crcs[1]).unwrap_err();
        assert!(
            e.contains("damaged") && e.contains("0000000000000008"),
            "{e}"
        );
        fs::write(path(dir.path(), 8), b"OTHER").unwrap();
        assert!(read(dir.path(), 8, crcs[1]).is_err());
        remove(dir.path(), &[8, 9]);
        let e = read(dir.path(), 8, crcs[1]).unwrap_err();
        assert!(e.contains("missing"), "{e}");
        // The sweep leaves what has an entry, and what is not a part (it
        // syncs sled's file first: without one, it removes nothing).
        fs::write(dir.path().join(FOLDER).join("notes.txt"), b"mine").unwrap();
        write(dir.path(), &[(9, b"left")]).unwrap();
        assert_eq!(sweep(dir.path(), |k| Ok(k == 7)).unwrap(), 0);
        fs::write(dir.path().join("db"), b"sled").unwrap();
        write(dir.path(), &[(9, b"left")]).unwrap();
        assert_eq!(sweep(dir.path(), |k| Ok(k == 7)).unwrap(), 1);
        assert!(path(dir.path(), 7).exists());
        assert!(!path(dir.path(), 9).exists());
        assert!(dir.path().join(FOLDER).join("notes.txt").exists());
    }
}
