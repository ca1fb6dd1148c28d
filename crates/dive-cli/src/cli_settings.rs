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

/// Reads the settings for `workspace`, the user's file from `HOME`. In a workspace that is
/// not `trusted` the project's files may only tighten permissions (see [`untrusted_only_tighten`]).
///
/// # Errors
/// A message naming the file that cannot be read or holds a bad value.
pub fn load_from_env(workspace: &Path, trusted: bool) -> Result<CliSettings, String> {
    let mut settings = Settings::from_env(workspace).map_err(|e| e.to_string())?;
    let dropped = if trusted { Vec::new() } else { untrusted_only_tighten(&mut settings, workspace)? };
    let mut cli = from_settings(settings)?;
    cli.warnings.extend(dropped);
    Ok(cli)
}

/// The project's settings of a workspace nobody trusted yet come with the repository, so they
/// may only make permissions stricter: their `permissions.allow` rules and a `defaultMode` of
/// `acceptEdits` or `bypassPermissions` are dropped (deny and ask rules, and the stricter
/// modes, still apply). Returns a warning for each thing dropped.
fn untrusted_only_tighten(settings: &mut Settings, workspace: &Path) -> Result<Vec<String>, String> {
    let project = workspace.join(".dive");
    let mut dropped = Vec::new();
    for file in settings.files.iter_mut().filter(|f| f.path.starts_with(&project)) {
        let Some(permissions) = file.value.get_mut("permissions").and_then(Value::as_object_mut) else {
            continue;
        };
        if permissions.remove("allow").is_some() {
            dropped.push(format!("permissions.allow in {}", file.path.display()));
        }
        let loosens = permissions
            .get("defaultMode")
            .and_then(Value::as_str)
            .is_some_and(|mode| matches!(mode, "acceptEdits" | "bypassPermissions"));
        if loosens {
            permissions.remove("defaultMode");
            dropped.push(format!("permissions.defaultMode in {}", file.path.display()));
        }
    }
    if dropped.is_empty() {
        return Ok(dropped);
    }
    let mut merged = Value::Object(serde_json::Map::new());
    for file in &settings.files {
        dive::permission::deep_merge(&mut merged, file.value.clone());
    }
    settings.permissions = match merged.get("permissions") {
        Some(p) => serde_json::from_value(p.clone()).map_err(|e| e.to_string())?,
        None => dive::permission::PermissionSettings::default(),
    };
    settings.raw = merged;
    Ok(dropped
        .into_iter()
        .map(|what| format!("{what} not applied: this workspace is not trusted (`dive trust` trusts it)"))
        .collect())
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
    fn an_untrusted_project_may_only_tighten_permissions() {
        let home = tempfile::tempdir().unwrap();
        let project = tempfile::tempdir().unwrap();
        let user = home.path().join("settings.json");
        std::fs::write(&user, r#"{"permissions": {"allow": ["Read"], "deny": ["Bash(rm:*)"]}}"#).unwrap();
        std::fs::create_dir(project.path().join(".dive")).unwrap();
        std::fs::write(
            project.path().join(".dive/settings.json"),
            r#"{"permissions": {"allow": ["Bash(*)"], "ask": ["Write"], "defaultMode": "bypassPermissions"}}"#,
        )
        .unwrap();
        let mut settings = Settings::load_with_user(Some(&user), project.path()).unwrap();
        let dropped = untrusted_only_tighten(&mut settings, project.path()).unwrap();
        assert_eq!(dropped.len(), 2, "{dropped:?}");
        assert!(
            dropped[0].contains("permissions.allow") && dropped[1].contains("defaultMode"),
            "{dropped:?}"
        );
        let p = &settings.permissions;
        assert_eq!(p.allow, ["Read"], "the user's allow rules stay; the project's are gone");
        assert_eq!(
            (p.ask.as_slice(), p.deny.as_slice()),
            (&["Write".to_owned()][..], &["Bash(rm:*)".to_owned()][..])
        );
        assert_eq!(p.default_mode, None);

        std::fs::write(
            project.path().join(".dive/settings.json"),
            r#"{"permissions": {"defaultMode": "plan"}}"#,
        )
        .unwrap();
        let mut settings = Settings::load_with_user(Some(&user), project.path()).unwrap();
        assert!(
            untrusted_only_tighten(&mut settings, project.path()).unwrap().is_empty(),
            "a stricter mode stays"
        );
        assert_eq!(settings.permissions.default_mode, Some(dive::permission::PermissionMode::Plan));
    }

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
