//! The CLI's settings files: the user's `~/.dive/settings.json`, then the project's
//! `.dive/settings.json` and `.dive/settings.local.json` (the project wins). Besides the
//! `permissions` section the CLI reads `model`, `stream`, `streamIdleTimeout`, `mcpServers` and
//! `disabledMcpjsonServers` (the last two in `mcp.rs`); any other key
//! is reported as a warning naming its file, and a value of the wrong type is an error naming
//! its file.

use std::path::Path;
use std::time::Duration;

use dive::permission::{PERMISSION_KEYS, Settings, SettingsFile};
use serde_json::Value;

/// The top-level keys the CLI understands.
pub const KNOWN_KEYS: [&str; 6] =
    ["permissions", "model", "stream", "streamIdleTimeout", "mcpServers", "disabledMcpjsonServers"];

/// What the settings files say.
pub struct CliSettings {
    /// The merged settings (permissions and the raw JSON).
    pub settings: Settings,
    /// `model`: the model spec used when `--model` is not given.
    pub model: Option<String>,
    /// `stream`: `false` turns streaming off.
    pub stream: Option<bool>,
    /// `streamIdleTimeout`: seconds a stream may stay silent.
    pub stream_idle: Option<Duration>,
    /// Unknown keys, one line each, naming the file.
    pub warnings: Vec<String>,
}

fn wrong_type(key: &str, file: &SettingsFile, expected: &str) -> String {
    format!("invalid setting {key:?} in {}: expected {expected}", file.path.display())
}

/// Checks the CLI's own keys in one file and lists the keys nobody reads.
fn check_file(file: &SettingsFile, warnings: &mut Vec<String>) -> Result<(), String> {
    let Some(object) = file.value.as_object() else {
        return Err(format!("invalid settings in {}: expected a JSON object", file.path.display()));
    };
    for (key, value) in object {
        match key.as_str() {
            "model" if !value.is_string() => return Err(wrong_type(key, file, "a model spec string")),
            "stream" if !value.is_boolean() => return Err(wrong_type(key, file, "true or false")),
            "streamIdleTimeout" if !value.as_f64().is_some_and(|s| s > 0.0 && s.is_finite()) => {
                return Err(wrong_type(key, file, "a number of seconds above 0"));
            }
            "permissions" => {
                for inner in value.as_object().into_iter().flat_map(|o| o.keys()) {
                    if !PERMISSION_KEYS.contains(&inner.as_str()) {
                        warnings.push(format!(
                            "unknown setting \"permissions.{inner}\" in {} (ignored; known: {})",
                            file.path.display(),
                            PERMISSION_KEYS.join(", ")
                        ));
                    }
                }
            }
            known if KNOWN_KEYS.contains(&known) => {}
            unknown => warnings.push(format!(
                "unknown setting {unknown:?} in {} (ignored; known: {})",
                file.path.display(),
                KNOWN_KEYS.join(", ")
            )),
        }
    }
    Ok(())
}

/// Reads the settings for `workspace`, the user's file from `HOME`.
///
/// # Errors
/// A message naming the file that cannot be read or holds a bad value.
pub fn load_from_env(workspace: &Path) -> Result<CliSettings, String> {
    let settings = Settings::from_env(workspace).map_err(|e| e.to_string())?;
    from_settings(settings)
}

fn from_settings(settings: Settings) -> Result<CliSettings, String> {
    let mut warnings = Vec::new();
    for file in &settings.files {
        check_file(file, &mut warnings)?;
    }
    let raw = &settings.raw;
    let model = raw.get("model").and_then(Value::as_str).map(str::to_owned);
    let stream = raw.get("stream").and_then(Value::as_bool);
    let stream_idle = raw.get("streamIdleTimeout").and_then(Value::as_f64).map(Duration::from_secs_f64);
    Ok(CliSettings { settings, model, stream, stream_idle, warnings })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_keys_warn_and_bad_values_name_their_file() {
        let home = tempfile::tempdir().unwrap();
        let project = tempfile::tempdir().unwrap();
        let user = home.path().join("settings.json");
        std::fs::write(&user, r#"{"stream": false, "streamIdleTimeout": 30, "thme": "dark"}"#).unwrap();
        std::fs::create_dir(project.path().join(".dive")).unwrap();
        let local = project.path().join(".dive/settings.local.json");
        std::fs::write(&local, r#"{"permissions": {"alow": []}, "model": "anthropic/"}"#).unwrap();
        let settings = Settings::load_with_user(Some(&user), project.path()).unwrap();
        let cli = from_settings(settings).unwrap();
        assert_eq!((cli.stream, cli.stream_idle), (Some(false), Some(Duration::from_secs(30))));
        assert_eq!(cli.model.as_deref(), Some("anthropic/"));
        assert_eq!(cli.warnings.len(), 2, "{:?}", cli.warnings);
        assert!(
            cli.warnings[0].contains("\"thme\"") && cli.warnings[0].contains(&user.display().to_string())
        );
        assert!(
            cli.warnings[1].contains("permissions.alow") && cli.warnings[1].contains("settings.local.json")
        );

        std::fs::write(&user, r#"{"stream": "no"}"#).unwrap();
        let settings = Settings::load_with_user(Some(&user), project.path()).unwrap();
        let err = from_settings(settings).err().unwrap();
        assert!(err.contains("\"stream\"") && err.contains(&user.display().to_string()), "{err}");
    }
}
