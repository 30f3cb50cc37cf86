//! The FMU archive: its model description read without unpacking, and the
//! one unpacker (every entry into a folder, none allowed outside it).

use anyhow::{Context, Result, anyhow};
use std::fs::File;
use std::io::Read;
use std::path::Path;

fn open(fmu: &Path) -> Result<zip::ZipArchive<File>> {
    let file = File::open(fmu).with_context(|| format!("cannot open {}", fmu.display()))?;
    zip::ZipArchive::new(file).with_context(|| format!("{} is not a zip archive", fmu.display()))
}

/// The text of the archive's `modelDescription.xml`, read without
/// unpacking anything.
pub fn read_model_description(fmu: &Path) -> Result<String> {
    let mut archive = open(fmu)?;
    let mut entry = archive
        .by_name("modelDescription.xml")
        .with_context(|| format!("{} has no modelDescription.xml", fmu.display()))?;
    let mut xml = String::new();
    entry
        .read_to_string(&mut xml)
        .with_context(|| format!("{}: cannot read modelDescription.xml", fmu.display()))?;
    Ok(xml)
}

/// Unpacks an FMU archive into `dest` (created if missing), refusing entries
/// whose path would leave `dest`. Returns the unpacked file paths relative to
/// `dest`, with `/` separators, sorted.
pub fn unpack(fmu: &Path, dest: &Path) -> Result<Vec<String>> {
    let mut archive = open(fmu)?;
    let mut names = Vec::new();
    for i in 0..archive.len() {
        let mut entry = archive.by_index(i)?;
        let relative = entry
            .enclosed_name()
            .ok_or_else(|| anyhow!("{}: entry {i} has an unsafe path", fmu.display()))?;
        let target = dest.join(&relative);
        if entry.is_dir() {
            std::fs::create_dir_all(&target)?;
            continue;
        }
        if let Some(parent) = target.parent() {
            std::fs::create_dir_all(parent)?;
        }
        let mut out =
            File::create(&target).with_context(|| format!("cannot create {}", target.display()))?;
        std::io::copy(&mut entry, &mut out)?;
        names.push(
            relative
                .components()
                .map(|c| c.as_os_str().to_string_lossy())
                .collect::<Vec<_>>()
                .join("/"),
        );
    }
    names.sort();
    Ok(names)
}

/// Unpacks an FMU archive ([`unpack`]) into a new temporary folder, removed
/// when the returned handle is dropped.
pub fn unpack_to_temp_dir(fmu: &Path) -> Result<tempfile::TempDir> {
    let dir = tempfile::Builder::new()
        .prefix("fmu-")
        .tempdir()
        .context("cannot create a folder to unpack into")?;
    unpack(fmu, dir.path()).with_context(|| format!("cannot unpack {}", fmu.display()))?;
    Ok(dir)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn archive(path: &Path, entries: &[(&str, &str)]) {
        let mut zip = zip::ZipWriter::new(File::create(path).unwrap());
        for (name, text) in entries {
            zip.start_file(*name, zip::write::SimpleFileOptions::default())
                .unwrap();
            zip.write_all(text.as_bytes()).unwrap();
        }
        zip.finish().unwrap();
    }

    #[test]
    fn an_archive_is_unpacked_and_its_description_read() {
        let dir = tempfile::tempdir().unwrap();
        let fmu = dir.path().join("m.fmu");
        archive(
            &fmu,
            &[
                ("modelDescription.xml", "<fmiModelDescription/>"),
                ("resources/a/b.txt", "b"),
            ],
        );
        assert_eq!(
            read_model_description(&fmu).unwrap(),
            "<fmiModelDescription/>"
        );
        let out = unpack_to_temp_dir(&fmu).unwrap();
        assert_eq!(
            std::fs::read_to_string(out.path().join("resources/a/b.txt")).unwrap(),
            "b"
        );
        let names = unpack(&fmu, &dir.path().join("again")).unwrap();
        assert_eq!(names, ["modelDescription.xml", "resources/a/b.txt"]);
    }

    #[test]
    fn missing_foreign_and_escaping_archives_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        assert!(read_model_description(&dir.path().join("none.fmu")).is_err());
        let text = dir.path().join("text.fmu");
        std::fs::write(&text, "not a zip").unwrap();
        let e = read_model_description(&text).unwrap_err();
        assert!(format!("{e:#}").contains("is not a zip archive"), "{e:#}");
        let escaping = dir.path().join("escaping.fmu");
        archive(&escaping, &[("../outside.txt", "x")]);
        assert!(unpack(&escaping, &dir.path().join("out")).is_err());
        assert!(!dir.path().join("outside.txt").exists());
        let bare = dir.path().join("bare.fmu");
        archive(&bare, &[("other.txt", "x")]);
        let e = read_model_description(&bare).unwrap_err();
        assert!(format!("{e:#}").contains("has no modelDescription.xml"));
    }
}
