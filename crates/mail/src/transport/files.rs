//! Outbound into a folder of `.eml` files.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use super::io_error;
use crate::{OutMail, Outbound, TransportError};

/// Outbound mail written as one `.eml` file per message: the embedded
/// default (`var/outbox`).
///
/// The file is `<dir>/<Message-ID>.eml`, the Message-ID sanitised into a
/// safe file name (see [`EmlFiles::file_name`]). It is written under a
/// temporary dotfile name and renamed into place, so a reader never sees
/// half a message; sending the same message again overwrites the same file,
/// so a retry is harmless.
#[derive(Debug)]
pub struct EmlFiles {
    dir: PathBuf,
}

/// Longest file stem kept from a Message-ID.
const MAX_STEM: usize = 150;

impl EmlFiles {
    /// Opens the folder, creating it if missing.
    /// Temporary files that a killed writer left are removed (see
    /// [`remove_stale_temps`]).
    pub fn open(dir: impl AsRef<Path>) -> Result<Self, TransportError> {
        let dir = dir.as_ref().to_path_buf();
        // The mails carry the players' keys: a new folder is the
        // operator's alone.
        crate::folders::private_folder(&dir).map_err(|e| io_error(&dir, e))?;
        let removed = remove_stale_temps(&dir)?;
        if removed > 0 {
            tracing::info!(dir = %dir.display(), removed, "removed temporary files left by a crash");
        }
        Ok(EmlFiles { dir })
    }

    /// The folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The file name a Message-ID is written to: the ID without angle
    /// brackets, with every character but ASCII letters, digits and
    /// `. _ - + = @` replaced by `_`; when anything was replaced or cut (or
    /// the name would start with a dot), a hash of the whole ID is appended,
    /// so two different IDs never share a file. The same ID always gives the
    /// same name.
    pub fn file_name(message_id: &str) -> String {
        let id = message_id.trim();
        let id = id
            .strip_prefix('<')
            .and_then(|s| s.strip_suffix('>'))
            .unwrap_or(id);
        let mut stem: String = id
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || "._-+=@".contains(c) {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        let changed = stem != id || stem.len() > MAX_STEM || stem.starts_with('.');
        if changed {
            stem.truncate(MAX_STEM);
            let stem_trimmed = stem.trim_start_matches('.');
            stem = format!("{stem_trimmed}-{:016x}", fnv1a(message_id.as_bytes()));
        }
        format!("{stem}.eml")
    }
}

/// FNV-1a, 64 bits: stable across builds and platforms (unlike
/// `DefaultHasher`), which file names need.
fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in bytes {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// A temporary name unique to this process and call.
fn temp_name(final_name: &str) -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    format!(".{final_name}.tmp.{}.{n}", std::process::id())
}

/// How old a temporary file of a process we cannot see must be to count as
/// left by a crash.
const STALE_TEMP: std::time::Duration = std::time::Duration::from_secs(3600);

/// The process id in a temporary name made by [`temp_name`].
fn temp_pid(name: &str) -> Option<u32> {
    let rest = name.strip_prefix('.')?;
    let (_, tail) = rest.rsplit_once(".tmp.")?;
    let (pid, n) = tail.split_once('.')?;
    n.parse::<u64>().ok()?;
    pid.parse().ok()
}

/// True if process `pid` still runs, as far as this system tells; where
/// it cannot tell (no `/proc`), None.
fn process_alive(pid: u32) -> Option<bool> {
    if !Path::new("/proc/self").exists() {
        return None;
    }
    Some(Path::new(&format!("/proc/{pid}")).exists())
}

/// Removes the temporary files of [`write_atomic`] in `dir` that a killed
/// process left: those of a process that no longer runs (or, where that
/// cannot be told, older than an hour). Returns how many.
pub(crate) fn remove_stale_temps(dir: &Path) -> Result<usize, TransportError> {
    let mut removed = 0;
    for entry in fs::read_dir(dir).map_err(|e| io_error(dir, e))? {
        let entry = entry.map_err(|e| io_error(dir, e))?;
        let name = entry.file_name();
        let Some(pid) = name.to_str().and_then(temp_pid) else {
            continue;
        };
        let stale = match process_alive(pid) {
            Some(alive) => !alive && pid != std::process::id(),
            None => entry
                .metadata()
                .and_then(|m| m.modified())
                .ok()
                .and_then(|t| t.elapsed().ok())
                .is_some_and(|age| age >= STALE_TEMP),
        };
        if stale {
            let path = entry.path();
            match fs::remove_file(&path) {
                Ok(()) => removed += 1,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => return Err(io_error(&path, e)),
            }
        }
    }
    Ok(removed)
}

/// Writes `bytes` to `path` atomically: a temporary file in the same folder,
/// synced, then renamed over `path`.
pub(super) fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), TransportError> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = dir.join(temp_name(&name));
    let result = (|| {
        let mut f = fs::File::create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        drop(f);
        fs::rename(&tmp, path)
    })();
    if let Err(e) = result {
        let _ = fs::remove_file(&tmp);
        return Err(io_error(path, e));
    }
    // Make the rename itself durable; not every file system can sync a folder.
    if let Ok(d) = fs::File::open(dir) {
        let _ = d.sync_all();
    }
    Ok(())
}

/// Checks that a file can be created in `dir`, and removes it again.
pub(super) fn check_writable(dir: &Path) -> Result<(), TransportError> {
    let probe = dir.join(temp_name("check-config"));
    fs::write(&probe, b"probe").map_err(|e| io_error(dir, e))?;
    fs::remove_file(&probe).map_err(|e| io_error(&probe, e))
}

impl Outbound for EmlFiles {
    fn send(&mut self, mail: &OutMail) -> Result<(), TransportError> {
        if mail.message_id.trim().is_empty() {
            return Err(TransportError::Config(
                "a mail to send has no Message-ID, which names its .eml file".to_string(),
            ));
        }
        let path = self.dir.join(Self::file_name(&mail.message_id));
        write_atomic(&path, &mail.bytes)
    }
}
