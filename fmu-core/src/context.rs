//! What a circuit's `configure` may know about the FMU it runs in: the
//! `resources/` folder the master extracted (trained surrogate weights,
//! tables), decoded from FMI 2's `fmuResourceLocation` URI or FMI 3's
//! `resourcePath`.

use std::path::{Path, PathBuf};

/// The FMU's resource folder, as far as the master told us.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ResourceFolder {
    /// A folder that exists.
    Found(PathBuf),
    /// The master gave none (NULL), or one that cannot be used; the text
    /// says why.
    Unavailable(String),
}

impl ResourceFolder {
    /// From FMI 2's `fmuResourceLocation`: a URI, normally
    /// `file:///path/to/resources` (also `file:/path`, `file://localhost/path`),
    /// with percent-encoded bytes.
    pub fn from_fmi2_uri(uri: Option<&str>) -> Self {
        let Some(uri) = uri.map(str::trim).filter(|u| !u.is_empty()) else {
            return ResourceFolder::Unavailable(
                "the master passed no fmuResourceLocation (NULL or empty)".into(),
            );
        };
        let Some(rest) = strip_prefix_ignore_case(uri, "file:") else {
            return ResourceFolder::Unavailable(format!(
                "fmuResourceLocation '{uri}' is not a file: URI"
            ));
        };
        // file:///p, file://localhost/p, file:/p (and file://p from some masters).
        let path = if let Some(after) = rest.strip_prefix("//") {
            match after.find('/') {
                Some(0) => after,
                Some(i) if after[..i].eq_ignore_ascii_case("localhost") => &after[i..],
                _ => rest.trim_start_matches('/'),
            }
        } else {
            rest
        };
        let decoded = match percent_decode(path) {
            Ok(p) => p,
            Err(e) => {
                return ResourceFolder::Unavailable(format!(
                    "fmuResourceLocation '{uri}' cannot be decoded: {e}"
                ));
            }
        };
        // A Windows drive path comes as /C:/... in a URI.
        let native = if cfg!(windows) && decoded.len() > 2 && decoded.as_bytes()[2] == b':' {
            decoded[1..].to_owned()
        } else {
            decoded
        };
        Self::existing(PathBuf::from(native), uri)
    }

    /// From FMI 3's `resourcePath`: a native path to the folder, normally
    /// with a trailing separator.
    pub fn from_fmi3_path(path: Option<&str>) -> Self {
        match path.filter(|p| !p.is_empty()) {
            Some(p) => Self::existing(PathBuf::from(p), p),
            None => ResourceFolder::Unavailable(
                "the master passed no resourcePath (NULL or empty)".into(),
            ),
        }
    }

    fn existing(path: PathBuf, given: &str) -> Self {
        if path.is_dir() {
            ResourceFolder::Found(path)
        } else {
            ResourceFolder::Unavailable(format!(
                "the resource folder '{given}' the master passed does not exist"
            ))
        }
    }

    /// The folder, if there is one.
    pub fn path(&self) -> Option<&Path> {
        match self {
            ResourceFolder::Found(p) => Some(p),
            ResourceFolder::Unavailable(_) => None,
        }
    }
}

fn strip_prefix_ignore_case<'a>(text: &'a str, prefix: &str) -> Option<&'a str> {
    let head = text.get(..prefix.len())?;
    head.eq_ignore_ascii_case(prefix)
        .then(|| &text[prefix.len()..])
}

/// Decodes `%XX` escapes (UTF-8 bytes) of a URI path.
fn percent_decode(text: &str) -> Result<String, String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = text
                .get(i + 1..i + 3)
                .ok_or_else(|| format!("incomplete escape at byte {i}"))?;
            let byte = u8::from_str_radix(hex, 16)
                .map_err(|_| format!("'%{hex}' is not a hexadecimal escape"))?;
            out.push(byte);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).map_err(|_| "the decoded path is not UTF-8".into())
}

/// What `configure` gets besides the parameter values.
#[derive(Debug, Clone, Copy)]
pub struct Context<'a> {
    resources: &'a ResourceFolder,
}

impl<'a> Context<'a> {
    /// A context with the given resource folder.
    pub fn new(resources: &'a ResourceFolder) -> Self {
        Context { resources }
    }

    /// The resource folder, if the master gave one that exists.
    pub fn resource_folder(&self) -> Option<&'a Path> {
        self.resources.path()
    }

    /// The path of the resource file `name` (relative to `resources/`),
    /// which must exist; a clear error otherwise.
    pub fn resource(&self, name: &str) -> Result<PathBuf, String> {
        match self.resources {
            ResourceFolder::Found(folder) => {
                let path = folder.join(name);
                if path.is_file() {
                    Ok(path)
                } else {
                    Err(format!(
                        "resource file '{name}' is missing from the FMU's resources folder {}",
                        folder.display()
                    ))
                }
            }
            ResourceFolder::Unavailable(why) => {
                Err(format!("resource file '{name}' is needed, but {why}"))
            }
        }
    }

    /// The bytes of the resource file `name`; a clear error when it is
    /// missing or unreadable.
    pub fn read_resource(&self, name: &str) -> Result<Vec<u8>, String> {
        let path = self.resource(name)?;
        std::fs::read(&path).map_err(|e| format!("cannot read resource {}: {e}", path.display()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fmi2_uris_are_decoded() {
        let dir = std::env::temp_dir().join("fluidfmu resources ä");
        std::fs::create_dir_all(&dir).unwrap();
        let plain = dir.to_str().unwrap().to_owned();
        let encoded = plain.replace(' ', "%20").replace('ä', "%C3%A4");
        for uri in [
            format!("file://{encoded}"),
            format!("file:{encoded}"),
            format!("file://localhost{encoded}"),
            format!("FILE://{encoded}/"),
        ] {
            assert_eq!(
                ResourceFolder::from_fmi2_uri(Some(&uri)).path(),
                Some(dir.as_path()),
                "{uri}"
            );
        }
        for bad in [
            None,
            Some(""),
            Some("http://example.org/r"),
            Some("file:///no/such/folder/x"),
            Some("file:///a%zz"),
        ] {
            assert!(
                ResourceFolder::from_fmi2_uri(bad).path().is_none(),
                "{bad:?}"
            );
        }
    }

    #[test]
    fn fmi3_paths_and_missing_resources_give_clear_errors() {
        let dir = std::env::temp_dir().join("fluidfmu-res-test");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("table.txt"), b"1 2 3").unwrap();
        let with_slash = format!("{}/", dir.display());
        let folder = ResourceFolder::from_fmi3_path(Some(&with_slash));
        let ctx = Context::new(&folder);
        assert_eq!(ctx.read_resource("table.txt").unwrap(), b"1 2 3");
        let e = ctx.read_resource("weights.bin").unwrap_err();
        assert!(e.contains("weights.bin") && e.contains("missing"), "{e}");
        let none = ResourceFolder::from_fmi3_path(None);
        let e = Context::new(&none).resource("weights.bin").unwrap_err();
        assert!(e.contains("no resourcePath"), "{e}");
    }
}
