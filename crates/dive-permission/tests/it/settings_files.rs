//! Settings files on disk: the user's file below the project's, and errors that name the
//! file holding the bad value.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use dive_permission::{PermissionMode, Settings};

fn write(path: &std::path::Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

#[test]
fn the_user_file_is_read_below_the_project_files() {
    let home = tempfile::tempdir().unwrap();
    let project = tempfile::tempdir().unwrap();
    let user = home.path().join(".dive/settings.json");
    write(
        &user,
        r#"{"permissions": {"allow": ["Bash(ls:*)"], "defaultMode": "acceptEdits"}, "stream": false}"#,
    );
    write(&project.path().join(".dive/settings.json"), r#"{"permissions": {"deny": ["Read(.env)"]}}"#);
    let settings = Settings::load_with_user(Some(&user), project.path()).unwrap();
    assert_eq!(settings.permissions.allow, ["Bash(ls:*)"]);
    assert_eq!(settings.permissions.deny, ["Read(.env)"]);
    assert_eq!(settings.permissions.default_mode, Some(PermissionMode::AcceptEdits));
    assert_eq!(settings.raw["stream"], false);
    let files: Vec<_> = settings.files.iter().map(|f| f.path.clone()).collect();
    assert_eq!(files, [user.clone(), project.path().join(".dive/settings.json")]);

    write(&project.path().join(".dive/settings.local.json"), r#"{"permissions": {"defaultMode": "plan"}}"#);
    let settings = Settings::load_with_user(Some(&user), project.path()).unwrap();
    assert_eq!(settings.permissions.default_mode, Some(PermissionMode::Plan), "the project wins");
    let missing = home.path().join("nowhere/settings.json");
    assert!(Settings::load_with_user(Some(&missing), project.path()).is_ok(), "a missing user file is fine");
}

#[test]
fn an_error_names_the_file_that_holds_the_bad_value() {
    let home = tempfile::tempdir().unwrap();
    let project = tempfile::tempdir().unwrap();
    let user = home.path().join(".dive/settings.json");
    write(&user, r#"{"permissions": {"defaultMode": "yolo"}}"#);
    write(&project.path().join(".dive/settings.json"), r#"{"permissions": {"allow": []}}"#);
    let err = Settings::load_with_user(Some(&user), project.path()).unwrap_err().to_string();
    assert!(err.contains(&user.display().to_string()), "{err}");

    write(&user, "{}");
    let local = project.path().join(".dive/settings.local.json");
    write(&local, r#"{"permissions": {"allow": "Bash(ls)"}}"#);
    let err = Settings::load_with_user(Some(&user), project.path()).unwrap_err().to_string();
    assert!(err.contains("settings.local.json"), "not blamed on settings.json: {err}");
}
