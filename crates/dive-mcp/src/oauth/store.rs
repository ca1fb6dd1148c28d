//! Tokens on disk: one JSON file per server, written whole (a temporary file renamed over
//! the old one), readable by its owner only (mode 0600, in a 0700 directory).

use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use rmcp::transport::auth::{AuthError, CredentialStore, StoredCredentials};

/// The credential store rmcp's authorization manager reads and refreshes: one file.
#[derive(Debug, Clone)]
pub(crate) struct TokenFile {
    path: PathBuf,
}

impl TokenFile {
    pub(crate) fn new(path: PathBuf) -> Self {
        Self { path }
    }

    fn read(&self) -> io::Result<Option<StoredCredentials>> {
        let text = match fs::read_to_string(&self.path) {
            Ok(text) => text,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(e),
        };
        serde_json::from_str(&text).map(Some).map_err(|e| {
            io::Error::new(
                io::ErrorKind::InvalidData,
                format!("{} is not a token file ({e}); delete it and log in again", self.path.display()),
            )
        })
    }

    fn write(&self, credentials: &StoredCredentials) -> io::Result<()> {
        let text = serde_json::to_vec_pretty(credentials).map_err(io::Error::other)?;
        write_private(&self.path, &text)
    }
}

#[async_trait::async_trait]
impl CredentialStore for TokenFile {
    async fn load(&self) -> Result<Option<StoredCredentials>, AuthError> {
        self.read().map_err(|e| store_error(&self.path, &e))
    }

    async fn save(&self, credentials: StoredCredentials) -> Result<(), AuthError> {
        self.write(&credentials).map_err(|e| store_error(&self.path, &e))
    }

    async fn clear(&self) -> Result<(), AuthError> {
        remove(&self.path).map(drop).map_err(|e| store_error(&self.path, &e))
    }
}

fn store_error(path: &Path, e: &io::Error) -> AuthError {
    AuthError::CredentialStoreError(format!("token file {}: {e}", path.display()))
}

/// Removes a file; `false` when there was none.
pub(crate) fn remove(path: &Path) -> io::Result<bool> {
    match fs::remove_file(path) {
        Ok(()) => Ok(true),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(false),
        Err(e) => Err(e),
    }
}

/// Writes `bytes` to `path` atomically, owner-only: the directory is created 0700, the data
/// goes to a 0600 temporary file that is synced and renamed over `path`.
fn write_private(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    create_private_dir(dir)?;
    let tmp = path.with_extension("json.tmp");
    let mut file = private_options().open(&tmp)?;
    let written = file.write_all(bytes).and_then(|()| file.sync_all());
    drop(file);
    if let Err(e) = written.and_then(|()| fs::rename(&tmp, path)) {
        let _ = fs::remove_file(&tmp);
        return Err(e);
    }
    // The rename is durable once the directory entry is.
    fs::File::open(dir).and_then(|d| d.sync_all()).or(Ok(()))
}

#[cfg(unix)]
fn private_options() -> fs::OpenOptions {
    use std::os::unix::fs::OpenOptionsExt;
    let mut options = fs::OpenOptions::new();
    options.write(true).create(true).truncate(true).mode(0o600);
    options
}

#[cfg(not(unix))]
fn private_options() -> fs::OpenOptions {
    let mut options = fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    options
}

#[cfg(unix)]
fn create_private_dir(dir: &Path) -> io::Result<()> {
    use std::os::unix::fs::DirBuilderExt;
    fs::DirBuilder::new().recursive(true).mode(0o700).create(dir)
}

#[cfg(not(unix))]
fn create_private_dir(dir: &Path) -> io::Result<()> {
    fs::create_dir_all(dir)
}

/// The file name for a server's tokens: readable host and port, plus a hash of the whole URL
/// so two endpoints on one host never share a file.
pub(crate) fn file_name(url: &str) -> String {
    let host: String = url
        .split("://")
        .nth(1)
        .unwrap_or(url)
        .split('/')
        .next()
        .unwrap_or_default()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() || c == '.' || c == '-' { c } else { '_' })
        .take(64)
        .collect();
    format!("{host}-{:016x}.json", fnv1a(url.as_bytes()))
}

/// FNV-1a, 64 bits: stable across versions and platforms (the name must not change).
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes
        .iter()
        .fold(0xcbf2_9ce4_8422_2325_u64, |hash, b| (hash ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_keep_the_host_and_separate_endpoints() {
        let a = file_name("https://mcp.example.com/mcp");
        let b = file_name("https://mcp.example.com/other");
        assert!(a.starts_with("mcp.example.com-"), "{a}");
        assert_ne!(a, b);
        assert_eq!(file_name("http://127.0.0.1:8080/mcp"), file_name("http://127.0.0.1:8080/mcp"));
        assert!(file_name("http://127.0.0.1:8080/mcp").starts_with("127.0.0.1_8080-"));
    }

    #[cfg(unix)]
    #[test]
    fn writes_are_owner_only_and_whole() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("tokens/a.json");
        write_private(&path, b"{\"x\":1}").unwrap();
        write_private(&path, b"{\"x\":2}").unwrap();
        assert_eq!(fs::read_to_string(&path).unwrap(), "{\"x\":2}");
        assert_eq!(fs::metadata(&path).unwrap().permissions().mode() & 0o777, 0o600);
        assert_eq!(fs::metadata(path.parent().unwrap()).unwrap().permissions().mode() & 0o777, 0o700);
        assert!(!path.with_extension("json.tmp").exists());
    }

    #[test]
    fn a_corrupt_file_is_a_clear_error() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.json");
        fs::write(&path, "not json").unwrap();
        let e = TokenFile::new(path).read().unwrap_err();
        assert!(e.to_string().contains("log in again"), "{e}");
    }
}
