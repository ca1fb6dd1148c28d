//! Settings files: `.dive/settings.json` then `.dive/settings.local.json`, deep-merged
//! (objects merge per key, arrays and scalars replace).

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
}

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
    /// [`SettingsError`] when a file exists but cannot be read or parsed.
    pub fn load(project_dir: impl AsRef<Path>) -> Result<Self, SettingsError> {
        let dir = project_dir.as_ref();
        let mut merged = Value::Object(serde_json::Map::new());
        for name in ["settings.json", "settings.local.json"] {
            let path = dir.join(".dive").join(name);
            let text = match std::fs::read_to_string(&path) {
                Ok(t) => t,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
                Err(source) => return Err(SettingsError::Io { path, source }),
            };
            let value: Value =
                serde_json::from_str(&text).map_err(|source| SettingsError::Json { path, source })?;
            deep_merge(&mut merged, value);
        }
        let permissions = match merged.get("permissions") {
            Some(p) => serde_json::from_value(p.clone())
                .map_err(|source| SettingsError::Json { path: dir.join(".dive/settings.json"), source })?,
            None => PermissionSettings::default(),
        };
        Ok(Self { permissions, raw: merged, project_dir: dir.to_path_buf() })
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
