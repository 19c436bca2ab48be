//! Atomic file output: write to a temporary file beside the target, then rename, so a
//! reader never sees a half-written file and an interrupted run leaves the old one intact.
//! Special files (FIFOs, devices, `/dev/stdout`) are written into, never replaced.

use std::fs::{self, File, OpenOptions};
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

/// Where `path` leads: a regular file (or none yet) to replace atomically at the returned
/// path, with symbolic links followed so the link stays and its target is replaced in its
/// own folder; or a special file (a FIFO, a device, `/dev/stdout`) to write into directly.
enum Target {
    Replace(PathBuf),
    Special,
}

fn target(path: &Path) -> std::io::Result<Target> {
    match fs::metadata(path) {
        Ok(m) if m.is_dir() => Err(std::io::Error::other("is a directory")),
        Ok(m) if !m.is_file() => Ok(Target::Special),
        Ok(_) => Ok(Target::Replace(fs::canonicalize(path)?)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            // A dangling link: create what it points to.
            match fs::read_link(path) {
                Ok(to) => Ok(Target::Replace(path.parent().unwrap_or(Path::new(".")).join(to))),
                Err(_) => Ok(Target::Replace(path.to_path_buf())),
            }
        }
        Err(e) => Err(e),
    }
}

/// What a path names, to tell whether two paths are one file: a file that exists, by what
/// it resolves to (links followed; on Unix its device and inode, so hard links too), or a
/// file still to be made, by its folder (resolved) and name. A special file (a FIFO, a
/// device) names nothing that can be lost: two outputs may both go to `/dev/null`.
#[derive(Debug, PartialEq)]
enum Identity {
    #[cfg(not(unix))]
    Existing(PathBuf),
    #[cfg(unix)]
    Inode(u64, u64),
    New(PathBuf),
    Special,
}

fn identity(path: &Path) -> Identity {
    match fs::metadata(path) {
        Ok(m) if !m.is_file() => Identity::Special,
        #[cfg(unix)]
        Ok(m) => {
            use std::os::unix::fs::MetadataExt;
            Identity::Inode(m.dev(), m.ino())
        }
        #[cfg(not(unix))]
        Ok(_) => Identity::Existing(fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())),
        Err(_) => {
            let folder = match path.parent() {
                Some(p) if !p.as_os_str().is_empty() => p,
                _ => Path::new("."),
            };
            let folder = fs::canonicalize(folder).unwrap_or_else(|_| folder.to_path_buf());
            Identity::New(folder.join(path.file_name().unwrap_or_default()))
        }
    }
}

/// Refuses, before any work, outputs (`(option, path)`) that would overwrite one of the
/// `inputs` (the same file under any name) or another output: the run would destroy its
/// own input, or silently keep one of two results.
pub fn check_outputs(inputs: &[(&str, &Path)], outputs: &[(&str, &Path)]) -> Result<()> {
    let clash = |what: &str, path: &Path, conflict: String| {
        Err(Error::OutputClash {
            what: what.to_string(),
            path: path.to_path_buf(),
            conflict,
        })
    };
    let inputs: Vec<(&str, &Path, Identity)> = inputs.iter().map(|&(w, p)| (w, p, identity(p))).collect();
    let mut seen: Vec<(&str, Identity)> = Vec::new();
    for &(what, path) in outputs {
        let id = identity(path);
        if id == Identity::Special {
            continue;
        }
        if let Some((input, input_path, _)) = inputs.iter().find(|(_, _, i)| *i == id) {
            return clash(what, path, format!("is the {input} {}", input_path.display()));
        }
        if let Some((other, _)) = seen.iter().find(|(_, i)| *i == id) {
            return clash(what, path, format!("is also given to {other}"));
        }
        seen.push((what, id));
    }
    Ok(())
}

/// Writes `path` with the bytes `write` produces: a regular file atomically (temporary file
/// beside it, then rename; through a symbolic link, its target), a special file such as a
/// FIFO or `/dev/stdout` directly; never replaces a special file or a link.
pub fn write_atomically(
    path: &Path,
    write: impl FnOnce(&mut BufWriter<File>) -> std::io::Result<()>,
) -> Result<()> {
    let output_error = |error| Error::Output {
        path: path.to_path_buf(),
        error,
    };
    let real = match target(path).map_err(output_error)? {
        Target::Special => {
            let result = (|| {
                let mut out = BufWriter::with_capacity(1 << 16, OpenOptions::new().write(true).open(path)?);
                write(&mut out)?;
                out.flush()
            })();
            return result.map_err(output_error);
        }
        Target::Replace(real) => real,
    };
    let dir = real
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = real
        .file_name()
        .ok_or_else(|| Error::Invalid(format!("{}: not a file path", path.display())))?;
    let tmp = dir.join(format!(".{}.tmp{}", name.to_string_lossy(), std::process::id()));
    let result = (|| {
        let mut out = BufWriter::with_capacity(1 << 16, File::create(&tmp)?);
        write(&mut out)?;
        out.into_inner().map_err(|e| e.into_error())?.sync_all()?;
        fs::rename(&tmp, &real)
    })();
    if let Err(e) = result {
        let _ = fs::remove_file(&tmp);
        return Err(output_error(e));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replaces_whole_file_or_nothing() {
        let dir = std::env::temp_dir().join(format!("schedlab-atomic-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let path = dir.join("out.csv");
        write_atomically(&path, |w| w.write_all(b"first")).unwrap();
        let failed = write_atomically(&path, |w| {
            w.write_all(b"partial")?;
            Err(std::io::Error::other("interrupted"))
        });
        assert!(failed.is_err());
        assert_eq!(fs::read(&path).unwrap(), b"first");
        assert_eq!(
            fs::read_dir(&dir).unwrap().count(),
            1,
            "temporary file left behind"
        );
        fs::remove_dir_all(&dir).unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn links_are_followed_and_special_files_written_into() {
        use std::os::unix::fs::{FileTypeExt, symlink};
        let dir = std::env::temp_dir().join(format!("schedlab-special-{}", std::process::id()));
        fs::create_dir_all(dir.join("real")).unwrap();
        // A link to a file: the file is replaced in its own folder, the link stays.
        let file = dir.join("real/jobs.csv");
        fs::write(&file, b"old").unwrap();
        let link = dir.join("jobs.csv");
        symlink(&file, &link).unwrap();
        write_atomically(&link, |w| w.write_all(b"new")).unwrap();
        assert!(fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
        assert_eq!(fs::read(&file).unwrap(), b"new");
        // A dangling link: its target is created.
        let dangling = dir.join("later.csv");
        symlink(dir.join("real/later.csv"), &dangling).unwrap();
        write_atomically(&dangling, |w| w.write_all(b"made")).unwrap();
        assert_eq!(fs::read(dir.join("real/later.csv")).unwrap(), b"made");
        assert!(fs::symlink_metadata(&dangling).unwrap().file_type().is_symlink());
        // A link to a device is written into; the device and the link stay.
        let null = dir.join("null");
        symlink("/dev/null", &null).unwrap();
        write_atomically(&null, |w| w.write_all(b"gone")).unwrap();
        assert!(fs::symlink_metadata(&null).unwrap().file_type().is_symlink());
        assert!(fs::metadata("/dev/null").unwrap().file_type().is_char_device());
        // A FIFO is written into, not replaced.
        let fifo = dir.join("fifo");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        if made.is_ok_and(|s| s.success()) {
            let reader = {
                let fifo = fifo.clone();
                std::thread::spawn(move || fs::read(fifo).unwrap())
            };
            write_atomically(&fifo, |w| w.write_all(b"through")).unwrap();
            assert_eq!(reader.join().unwrap(), b"through");
            assert!(fs::symlink_metadata(&fifo).unwrap().file_type().is_fifo());
        } else {
            eprintln!("SKIPPED the FIFO case: mkfifo is not available");
        }
        // A directory is an error naming it.
        let e = write_atomically(&dir.join("real"), |w| w.write_all(b"x")).unwrap_err();
        assert!(e.to_string().contains("is a directory"), "{e}");
        fs::remove_dir_all(&dir).unwrap();
    }
}
