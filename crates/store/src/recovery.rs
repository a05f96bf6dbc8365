//! Guards against the recovery defects of sled 0.34.7, run on the database
//! folder before sled opens it, so that no crash of ours leaves a database
//! that cannot be opened; and the look for room that lets a flush that
//! cannot end give up (the last item below).
//!
//! - **A half-written snapshot** (sled issue #1527). sled writes its
//!   recovery snapshot only while it opens a database: into
//!   `snap.<LSN>.generating`, synced, then renamed to `snap.<LSN>`, and the
//!   older snapshot is removed after the rename. When it opens, it lists
//!   every `snap.*` file, the `.generating` ones included, takes the highest
//!   name and refuses to open if its checksum fails; and it reopens a
//!   `.generating` file without truncating it, so a longer stale one would
//!   keep its tail under the next snapshot of the same LSN. A crash while a
//!   snapshot is written leaves exactly such a file. Until its rename, a
//!   `.generating` file is no part of the database (the previous snapshot
//!   and the log are still there), so removing it returns the folder to
//!   where it was before that open began.
//! - **A half-written `conf`.** sled writes its settings file once, when it
//!   creates a database, and cannot open one whose file is cut short. A new
//!   database is therefore made in a sibling folder `NAME.creating.PID` and
//!   renamed into place only once sled has written and closed it; a crash
//!   before the rename leaves only the sibling, removed at a later start.
//! - **A write lost for want of space.** sled writes a page larger than a
//!   quarter of its 512 KB log segments as a file of its own (`blobs/`);
//!   when that write fails, the log buffer it was to go in is never
//!   written, and every later flush waits for it for ever. [`Store::flush`](super::Store::flush)
//!   therefore gives up once there is no [`room_to_write`].
//!
//! Nothing is touched while another process holds the database: sled locks
//! the file `db` in the folder, and we take the same lock first.

use std::fs::{self, File, OpenOptions, TryLockError};
use std::io::ErrorKind;
use std::path::{Path, PathBuf};

use super::StoreError;

/// What [`prepare`] did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Prepared {
    /// The database was created (through a `.creating` sibling).
    pub created: bool,
    /// Half-written snapshot files removed.
    pub removed: Vec<PathBuf>,
}

pub(super) fn folder_error(path: &Path, cause: std::io::Error) -> StoreError {
    StoreError::Folder {
        path: path.display().to_string(),
        cause,
    }
}

/// Makes the folder `path` safe for sled to open: creates a new database
/// whole, or clears a crash's half-written snapshots from an existing one
/// that no other process has open.
pub fn prepare(path: &Path) -> Result<Prepared, StoreError> {
    if is_missing_or_empty(path)? {
        create(path)?;
        return Ok(Prepared {
            created: true,
            removed: Vec::new(),
        });
    }
    Ok(Prepared {
        created: false,
        removed: clear_half_written_snapshots(path)?,
    })
}

fn is_missing_or_empty(path: &Path) -> Result<bool, StoreError> {
    match fs::read_dir(path) {
        Ok(mut entries) => Ok(entries.next().is_none()),
        Err(e) if e.kind() == ErrorKind::NotFound => Ok(true),
        Err(e) => Err(folder_error(path, e)),
    }
}

/// The prefix of the sibling folders new databases are made in:
/// `NAME.creating.`, then the process id.
fn creating_prefix(path: &Path) -> String {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "db".to_string());
    format!("{name}.creating.")
}

/// How old a `.creating` sibling must be to count as left by a crash.
const STALE_CREATING: std::time::Duration = std::time::Duration::from_secs(600);

/// Creates an empty sled database in `path`, which is missing or empty: in
/// a sibling folder of this process first, then renamed into place. If
/// another process got there first, its database is kept.
fn create(path: &Path) -> Result<(), StoreError> {
    let parent = match path.parent().filter(|p| !p.as_os_str().is_empty()) {
        Some(p) => p.to_path_buf(),
        None => PathBuf::from("."),
    };
    mail::folders::private_folder(&parent).map_err(|e| folder_error(&parent, e))?;
    let prefix = creating_prefix(path);
    remove_stale_siblings(&parent, &prefix)?;
    let temp = parent.join(format!("{prefix}{}", std::process::id()));
    match fs::remove_dir_all(&temp) {
        Ok(()) => {}
        Err(e) if e.kind() == ErrorKind::NotFound => {}
        Err(e) => return Err(folder_error(&temp, e)),
    }
    // The database holds every key: its folder is the operator's alone,
    // made so before sled writes in it.
    mail::folders::private_folder(&temp).map_err(|e| folder_error(&temp, e))?;
    {
        let db = super::open_sled(&temp)?;
        db.flush()?;
    }
    // rename(2) replaces an empty folder; a missing one is simply created.
    match fs::rename(&temp, path) {
        Ok(()) => sync_folder(&parent),
        Err(e) if !is_missing_or_empty(path)? => {
            tracing::debug!(error = %e, "another process created the database first");
            fs::remove_dir_all(&temp).map_err(|e| folder_error(&temp, e))?;
        }
        Err(e) => return Err(folder_error(path, e)),
    }
    Ok(())
}

/// Removes `.creating` siblings that a crash left (older than
/// [`STALE_CREATING`]).
fn remove_stale_siblings(parent: &Path, prefix: &str) -> Result<(), StoreError> {
    for entry in fs::read_dir(parent).map_err(|e| folder_error(parent, e))? {
        let entry = entry.map_err(|e| folder_error(parent, e))?;
        if !entry.file_name().to_string_lossy().starts_with(prefix) {
            continue;
        }
        let age = entry
            .metadata()
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| t.elapsed().ok());
        if age.is_some_and(|a| a >= STALE_CREATING) {
            let stale = entry.path();
            fs::remove_dir_all(&stale).map_err(|e| folder_error(&stale, e))?;
            tracing::warn!(folder = %stale.display(), "removed a database left half-created by a crash");
        }
    }
    Ok(())
}

/// Whether 64 KiB can still be written beside the database in `path`
/// (a file of this call's own written there, not synced, and removed: the
/// system takes or refuses the space as it is written).
pub fn room_to_write(path: &Path) -> bool {
    use std::io::Write as _;
    use std::sync::atomic::{AtomicU64, Ordering};
    static PROBES: AtomicU64 = AtomicU64::new(0);
    let n = PROBES.fetch_add(1, Ordering::Relaxed);
    let probe = path.join(format!("room.{}.{n}.probe", std::process::id()));
    let written = File::create(&probe).and_then(|mut f| f.write_all(&[0; 64 * 1024]));
    let _ = fs::remove_file(&probe);
    written.is_ok()
}

/// Makes a rename in `dir` durable where the system allows it.
fn sync_folder(dir: &Path) {
    if let Ok(d) = File::open(dir) {
        let _ = d.sync_all();
    }
}

/// Removes `snap.*.generating` files from the database in `path`, unless
/// another process holds the database's lock: then [`StoreError::Locked`].
fn clear_half_written_snapshots(path: &Path) -> Result<Vec<PathBuf>, StoreError> {
    let lock_path = path.join("db");
    let lock = match OpenOptions::new().read(true).write(true).open(&lock_path) {
        Ok(f) => f,
        // No data file yet: sled makes one, and no snapshot can exist.
        Err(e) if e.kind() == ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(folder_error(&lock_path, e)),
    };
    match lock.try_lock() {
        Ok(()) => {}
        Err(TryLockError::WouldBlock) => return Err(locked(path)),
        Err(TryLockError::Error(e)) => return Err(folder_error(&lock_path, e)),
    }
    let mut removed = Vec::new();
    for entry in fs::read_dir(path).map_err(|e| folder_error(path, e))? {
        let entry = entry.map_err(|e| folder_error(path, e))?;
        let name = entry.file_name();
        let Some(name) = name.to_str() else { continue };
        if name.starts_with("snap.") && name.ends_with(".generating") {
            let file = entry.path();
            fs::remove_file(&file).map_err(|e| folder_error(&file, e))?;
            tracing::warn!(
                file = %file.display(),
                "removed a half-written sled snapshot left by a crash (sled issue #1527)"
            );
            removed.push(file);
        }
    }
    if !removed.is_empty() {
        sync_folder(path);
    }
    drop(lock);
    Ok(removed)
}

/// The error for a database in `path` that another process holds, naming
/// that process where the system tells.
pub fn locked(path: &Path) -> StoreError {
    StoreError::Locked {
        path: path.display().to_string(),
        pid: lock_holder(path),
    }
}

/// The process that holds the lock of the database in `path` (sled locks
/// the file `db` with `flock`), from Linux's `/proc/locks`; `None` where
/// the system does not tell.
pub fn lock_holder(path: &Path) -> Option<u32> {
    use std::os::unix::fs::MetadataExt;
    let meta = fs::metadata(path.join("db")).ok()?;
    let dev = meta.dev();
    let (major, minor) = (
        ((dev >> 8) & 0xfff) | ((dev >> 32) & !0xfff),
        (dev & 0xff) | ((dev >> 12) & !0xff),
    );
    let file = format!("{major:02x}:{minor:02x}:{}", meta.ino());
    let locks = fs::read_to_string("/proc/locks").ok()?;
    locks.lines().find_map(|line| {
        // `1: FLOCK  ADVISORY  WRITE 4242 08:01:1234567 0 EOF`
        let words: Vec<&str> = line.split_whitespace().collect();
        (words.get(1) == Some(&"FLOCK") && words.get(5) == Some(&file.as_str()))
            .then(|| words.get(4)?.parse().ok())
            .flatten()
    })
}
