//! One writer per results folder: a sweep or a merge holds `.lock` in the folder while it
//! writes there. The lock is the system's advisory file lock (`flock`), so it is released
//! when its holder ends however it ends (`kill -9` included) and a dead holder never
//! blocks the next writer; the file names the holder for the message a second writer gets.

use std::fs::{self, File, OpenOptions, TryLockError};
use std::io::Write;
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

/// The lock's file name in a results folder.
pub const LOCK_FILE: &str = ".lock";

/// A held lock on a results folder; dropping it releases the lock and removes the file.
/// On a file system without file locks (Lustre mounted `noflock`, NFS without its lock
/// daemon) it holds nothing: [`FolderLock::held`] says so, and the writer goes on unguarded.
#[derive(Debug)]
pub struct FolderLock {
    /// The locked file, or `None` where the file system has no locks.
    file: Option<File>,
    path: PathBuf,
}

impl FolderLock {
    /// Takes the lock of `dir` for `what` (a few words for the message another writer
    /// gets), or says who holds it. Temporary files that dead writers left in `dir` are
    /// removed once the lock is held.
    pub fn take(dir: &Path, what: &str) -> Result<FolderLock> {
        let path = dir.join(LOCK_FILE);
        let output = |error| Error::Output {
            path: dir.join(LOCK_FILE),
            error,
        };
        // A holder that ends removes the file after others may have opened it: a lock taken
        // on a file no longer at the path is no lock, so take it again (a few times: a file
        // system whose files change identity under us would loop).
        for _ in 0..8 {
            let file = OpenOptions::new()
                .read(true)
                .write(true)
                .create(true)
                .truncate(false)
                .open(&path)
                .map_err(output)?;
            match file.try_lock() {
                Ok(()) => {}
                Err(TryLockError::WouldBlock) => {
                    let holder = fs::read_to_string(&path).unwrap_or_default();
                    let holder = match holder.trim() {
                        "" => "another schedlab process".to_string(),
                        h => h.to_string(),
                    };
                    return Err(Error::Invalid(format!(
                        "{}: another writer holds this folder ({holder}); wait for it to end, or \
                         write elsewhere with --out",
                        dir.display()
                    )));
                }
                Err(TryLockError::Error(e)) if no_locks_here(&e) => {
                    return Ok(FolderLock { file: None, path });
                }
                Err(TryLockError::Error(e)) => return Err(output(e)),
            }
            if !same_file(&file, &path) {
                continue;
            }
            let mut file = file;
            file.set_len(0).map_err(output)?;
            let host = fs::read_to_string("/proc/sys/kernel/hostname").unwrap_or_default();
            writeln!(
                file,
                "{what}, process {} on {}",
                std::process::id(),
                match host.trim() {
                    "" => "this machine",
                    h => h,
                }
            )
            .map_err(output)?;
            remove_dead_temporaries(dir);
            return Ok(FolderLock {
                file: Some(file),
                path,
            });
        }
        Err(Error::Invalid(format!(
            "{}: its lock file {LOCK_FILE} kept changing under us; is another writer starting and stopping?",
            dir.display()
        )))
    }

    /// Whether the lock is held (false where the file system has no file locks).
    pub fn held(&self) -> bool {
        self.file.is_some()
    }
}

/// Whether `e` says the file system offers no file locks, rather than that locking failed.
fn no_locks_here(e: &std::io::Error) -> bool {
    // ENOLCK 37 and ENOSYS 38 on Linux.
    e.kind() == std::io::ErrorKind::Unsupported || matches!(e.raw_os_error(), Some(37 | 38))
}

impl Drop for FolderLock {
    fn drop(&mut self) {
        // Removed while still held, so that no one takes a lock on a file about to go.
        if let Some(file) = &self.file {
            let _ = fs::remove_file(&self.path);
            let _ = file.unlock();
        }
    }
}

/// Whether `path` still names the file `file` has open.
#[cfg(unix)]
fn same_file(file: &File, path: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (file.metadata(), fs::metadata(path)) {
        (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
        _ => false,
    }
}

#[cfg(not(unix))]
fn same_file(_: &File, _: &Path) -> bool {
    true
}

/// Removes the `.NAME.tmpPID` files (`crate::atomic::write_atomically`'s) in `dir` whose
/// writer is no longer running and that are over a minute old (a process of another host
/// or container is not in this `/proc`, but no writer keeps a temporary file that long).
/// Only where the system lists its processes (`/proc`): elsewhere nothing is removed.
fn remove_dead_temporaries(dir: &Path) {
    if !Path::new("/proc/self").exists() {
        return;
    }
    let Ok(entries) = fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(name) = name.to_str() else { continue };
        let pid = name
            .strip_prefix('.')
            .and_then(|n| n.rsplit_once(".tmp"))
            .map(|(_, pid)| pid)
            .filter(|pid| !pid.is_empty() && pid.bytes().all(|b| b.is_ascii_digit()));
        let old = entry
            .metadata()
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| t.elapsed().ok())
            .is_some_and(|age| age.as_secs() > 60);
        if let Some(pid) = pid
            && old
            && !Path::new("/proc").join(pid).exists()
        {
            let _ = fs::remove_file(entry.path());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn folder(tag: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("schedlab-lock-{tag}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    /// A second writer is refused, naming the first; once the first is done the folder is
    /// free and the lock file gone.
    #[test]
    fn one_writer_at_a_time() {
        let dir = folder("one");
        let first = FolderLock::take(&dir, "sweep quick").unwrap();
        let e = FolderLock::take(&dir, "merge").unwrap_err().to_string();
        assert!(
            e.contains("another writer holds this folder (sweep quick, process"),
            "{e}"
        );
        drop(first);
        assert!(!dir.join(LOCK_FILE).exists());
        drop(FolderLock::take(&dir, "merge").unwrap());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// A lock file left by a writer that died does not block: the system released its lock.
    #[test]
    fn a_dead_writers_lock_file_does_not_block() {
        let dir = folder("dead");
        std::fs::write(dir.join(LOCK_FILE), "sweep quick, process 1 on elsewhere\n").unwrap();
        drop(FolderLock::take(&dir, "sweep").unwrap());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// Temporary files of writers no longer running are removed, once over a minute old; a
    /// live writer's are kept.
    #[test]
    fn dead_writers_temporaries_are_removed() {
        if !Path::new("/proc/self").exists() {
            eprintln!("skipped: this system has no /proc to tell live processes by");
            return;
        }
        let dir = folder("temps");
        // Process ids past the kernel's largest (2^22) are never running.
        let dead = dir.join(".runs.csv.tmp99999999");
        let live = dir.join(format!(".summary.csv.tmp{}", std::process::id()));
        let other = dir.join("notes.tmp12");
        let young = dir.join(".summary.json.tmp99999998");
        let an_hour_ago = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
        for f in [&dead, &live, &other, &young] {
            std::fs::write(f, "x").unwrap();
            if f != &young {
                std::fs::File::options()
                    .write(true)
                    .open(f)
                    .unwrap()
                    .set_modified(an_hour_ago)
                    .unwrap();
            }
        }
        drop(FolderLock::take(&dir, "sweep").unwrap());
        assert!(!dead.exists());
        assert!(live.exists() && other.exists());
        assert!(
            young.exists(),
            "a minute's grace: it may be another host's writer"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
