//! Atomic file output: write to a temporary file beside the target, then rename, so a
//! reader never sees a half-written file and an interrupted run leaves the old one intact.

use std::fs::{self, File};
use std::io::BufWriter;
use std::path::Path;

use crate::error::{Error, Result};

/// Writes `path` atomically with the bytes `write` produces.
pub fn write_atomically(
    path: &Path,
    write: impl FnOnce(&mut BufWriter<File>) -> std::io::Result<()>,
) -> Result<()> {
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .ok_or_else(|| Error::Invalid(format!("{}: not a file path", path.display())))?;
    let tmp = dir.join(format!(".{}.tmp{}", name.to_string_lossy(), std::process::id()));
    let result = (|| {
        let mut out = BufWriter::with_capacity(1 << 16, File::create(&tmp)?);
        write(&mut out)?;
        out.into_inner().map_err(|e| e.into_error())?.sync_all()?;
        fs::rename(&tmp, path)
    })();
    if let Err(e) = result {
        let _ = fs::remove_file(&tmp);
        return Err(Error::Output {
            path: path.to_path_buf(),
            error: e,
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

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
}
