//! Folders Stationmaster makes for what it keeps: the database's, the
//! `.eml` outbox's. Used by the store and the transports alike, so it sits
//! below both.

use std::fs;
use std::os::unix::fs::DirBuilderExt;
use std::path::Path;

/// Creates folder `path` where missing, and the missing folders above it,
/// readable by the operator's user alone (mode 0700): what Stationmaster
/// keeps there (keys, players' addresses, mail waiting) is nobody else's,
/// whatever the umask. A folder there already is left as it is.
pub fn private_folder(path: &Path) -> std::io::Result<()> {
    if path.is_dir() {
        return Ok(());
    }
    fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(path)
}
