//! Settings files: the user's `~/.dive/settings.json`, then the project's
//! `.dive/settings.json` and `.dive/settings.local.json`, deep-merged in that order (objects
//! merge per key, arrays and scalars replace, so the project wins over the user).

use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde_json::Value;

use crate::error::SettingsError;
use crate::manager::PermissionConfig;
use crate::mode::PermissionMode;
use crate::rule::Rules;

/// The `permissions` section of a settings file.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct PermissionSettings {
    /// Allow rules.
    #[serde(default)]
    pub allow: Vec<String>,
    /// Ask rules.
    #[serde(default)]
    pub ask: Vec<String>,
    /// Deny rules.
    #[serde(default)]
    pub deny: Vec<String>,
    /// The starting mode.
    #[serde(default)]
    pub default_mode: Option<PermissionMode>,
}

/// One settings file that was read.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct SettingsFile {
    /// Where it is.
    pub path: PathBuf,
    /// Its JSON.
    pub value: Value,
}

/// Loaded settings (only the parts this crate reads; the merged JSON is kept whole).
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
pub struct Settings {
    /// The permissions section.
    pub permissions: PermissionSettings,
    /// The merged JSON of every file read.
    pub raw: Value,
    /// The project directory the files were read from.
    pub project_dir: PathBuf,
    /// The files read, lowest precedence first (missing files are not listed), so a caller
    /// can say where a setting came from or warn about keys it does not know, per file.
    pub files: Vec<SettingsFile>,
}

/// The keys of the `permissions` section this crate reads.
pub const PERMISSION_KEYS: [&str; 4] = ["allow", "ask", "deny", "defaultMode"];

/// Merges `over` into `base`: objects per key, everything else replaced.
pub fn deep_merge(base: &mut Value, over: Value) {
    match (base, over) {
        (Value::Object(b), Value::Object(o)) => {
            for (k, v) in o {
                deep_merge(b.entry(k).or_insert(Value::Null), v);
            }
        }
        (slot, v) => *slot = v,
    }
}

impl Settings {
    /// Reads `<project>/.dive/settings.json` and `<project>/.dive/settings.local.json`
    /// (either may be missing).
    ///
    /// # Errors
    /// [`SettingsError`] when a file exists but cannot be read or parsed; the error names
    /// that file.
    pub fn load(project_dir: impl AsRef<Path>) -> Result<Self, SettingsError> {
        Self::load_with_user(None, project_dir)
    }

    /// Reads the user's settings file `user_file` (when given; it may be missing) below the
    /// project's two files.
    ///
    /// # Errors
    /// As [`load`](Self::load).
    pub fn load_with_user(
        user_file: Option<&Path>,
        project_dir: impl AsRef<Path>,
    ) -> Result<Self, SettingsError> {
        let dir = project_dir.as_ref();
        let mut paths: Vec<PathBuf> = user_file.map(Path::to_path_buf).into_iter().collect();
        paths.extend(["settings.json", "settings.local.json"].map(|name| dir.join(".dive").join(name)));
        let mut merged = Value::Object(serde_json::Map::new());
        let mut files = Vec::new();
        for path in paths {
            let text = match std::fs::read_to_string(&path) {
                Ok(t) => t,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
                Err(source) => return Err(SettingsError::Io { path, source }),
            };
            let value: Value = match serde_json::from_str(&text) {
                Ok(v) => v,
                Err(source) => return Err(SettingsError::Json { path, source }),
            };
            // Each file's section must be valid on its own, so a bad value is blamed on the
            // file that holds it.
            if let Some(section) = value.get("permissions")
                && let Err(source) = serde_json::from_value::<PermissionSettings>(section.clone())
            {
                return Err(SettingsError::Json { path, source });
            }
            deep_merge(&mut merged, value.clone());
            files.push(SettingsFile { path, value });
        }
        let permissions = match merged.get("permissions") {
            Some(p) => serde_json::from_value(p.clone()).map_err(|source| SettingsError::Json {
                path: files.last().map_or_else(|| dir.join(".dive/settings.json"), |f| f.path.clone()),
                source,
            })?,
            None => PermissionSettings::default(),
        };
        Ok(Self { permissions, raw: merged, project_dir: dir.to_path_buf(), files })
    }

    /// The user's settings file, `$HOME/.dive/settings.json`; `None` without `HOME`.
    #[must_use]
    #[allow(clippy::disallowed_methods)] // a from_env-style constructor
    pub fn user_file_from_env() -> Option<PathBuf> {
        std::env::var_os("HOME")
            .filter(|h| !h.is_empty())
            .map(|home| PathBuf::from(home).join(".dive/settings.json"))
    }

    /// [`load_with_user`](Self::load_with_user) with the user's file from `HOME`.
    ///
    /// # Errors
    /// As [`load`](Self::load).
    pub fn from_env(project_dir: impl AsRef<Path>) -> Result<Self, SettingsError> {
        Self::load_with_user(Self::user_file_from_env().as_deref(), project_dir)
    }

    /// The permission configuration these settings describe, rooted at the project.
    ///
    /// # Errors
    /// [`SettingsError::Rule`] for a rule that does not parse.
    pub fn permission_config(&self) -> Result<PermissionConfig, SettingsError> {
        let p = &self.permissions;
        let rules = Rules::parse(&p.allow, &p.ask, &p.deny)?;
        Ok(PermissionConfig::new(rules)
            .with_mode(p.default_mode.unwrap_or_default())
            .with_root(self.project_dir.clone()))
    }
}
