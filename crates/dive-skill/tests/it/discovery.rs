//! Discovery on real directories: search order and precedence, shadowing warnings, malformed
//! files reported with file and line, trust gating, single-file skills and commands, and a
//! bounded scan that skips `.git`/`node_modules` and survives symlink loops.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::fs;
use std::path::Path;

use dive_skill::{Discovery, Layout, Problem, Scope, Severity};

fn write(root: &Path, rel: &str, text: &str) {
    let path = root.join(rel);
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, text).unwrap();
}

fn skill(name: &str, description: &str) -> String {
    format!("---\nname: {name}\ndescription: {description}\n---\nBody of {description}\n")
}

#[test]
fn project_wins_over_user_and_earlier_directories_over_later_ones() {
    let project = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    write(project.path(), ".claude/skills/review/SKILL.md", &skill("review", "claude project review"));
    write(project.path(), ".dive/skills/review/SKILL.md", &skill("review", "dive project review"));
    write(home.path(), ".dive/skills/review/SKILL.md", &skill("review", "user review"));
    write(home.path(), ".agents/skills/deploy/SKILL.md", &skill("deploy", "user deploy"));
    write(project.path(), ".claude/commands/fix-issue.md", "Fix issue $1.\n");

    let set = Discovery::new().project(project.path(), true).home(home.path()).discover();
    let review = set.get("review").unwrap();
    assert_eq!(review.description, "dive project review");
    assert_eq!(review.scope, Scope::Project);
    assert_eq!(review.layout, Layout::Directory(project.path().join(".dive/skills/review")));
    assert_eq!(set.get("deploy").unwrap().scope, Scope::User);
    let command = set.get("fix-issue").unwrap();
    assert!(!command.model_invocable(), "a command without a description is for users only");
    assert_eq!(command.body, "Fix issue $1.\n");

    let shadowed: Vec<_> = set
        .diagnostics()
        .iter()
        .filter(|d| matches!(&d.problem, Problem::Shadowed { name, .. } if name == "review"))
        .collect();
    assert_eq!(shadowed.len(), 2, "{:?}", set.diagnostics());
    assert!(shadowed.iter().all(|d| d.severity == Severity::Warning));
    assert!(shadowed.iter().any(|d| d.file == project.path().join(".claude/skills/review/SKILL.md")));
    assert!(shadowed.iter().any(|d| d.file == home.path().join(".dive/skills/review/SKILL.md")));
    assert!(shadowed.iter().all(|d| d.to_string().contains(".dive/skills/review/SKILL.md")));
}

#[test]
fn an_untrusted_project_loads_only_user_skills_and_says_why() {
    let project = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    write(project.path(), ".agents/skills/evil/SKILL.md", &skill("evil", "runs things"));
    write(home.path(), ".claude/skills/mine/SKILL.md", &skill("mine", "my own"));
    let set = Discovery::new().project(project.path(), false).home(home.path()).discover();
    assert!(set.get("evil").is_none());
    assert!(set.get("mine").is_some());
    let untrusted: Vec<_> = set.diagnostics().iter().filter(|d| d.problem == Problem::Untrusted).collect();
    assert_eq!(untrusted.len(), 1);
    assert_eq!(untrusted[0].file, project.path().join(".agents/skills"));
}

#[test]
fn malformed_files_are_reported_with_file_and_line_and_the_rest_still_load() {
    let project = tempfile::tempdir().unwrap();
    write(
        project.path(),
        ".dive/skills/broken/SKILL.md",
        "---\nname: broken\ndescription: fine\nthis is not yaml\n---\n",
    );
    write(project.path(), ".dive/skills/nodesc/SKILL.md", "---\nname: nodesc\n---\nBody\n");
    write(project.path(), ".dive/skills/open/SKILL.md", "---\nname: open\ndescription: never closed\n");
    write(
        project.path(),
        ".dive/skills/colon/SKILL.md",
        "---\nname: colon\ndescription: Use when: asked\n---\nok\n",
    );
    write(project.path(), ".dive/skills/renamed/SKILL.md", &skill("other-name", "mismatch"));
    let set = Discovery::new().project(project.path(), true).discover();

    let at = |dir: &str| project.path().join(format!(".dive/skills/{dir}/SKILL.md"));
    let find = |dir: &str| set.diagnostics().iter().find(|d| d.file == at(dir)).cloned().unwrap();
    let broken = find("broken");
    assert_eq!((broken.severity, broken.line), (Severity::Error, Some(4)));
    assert!(matches!(broken.problem, Problem::Syntax(_)));
    assert!(broken.to_string().contains("SKILL.md:4: error:"), "{broken}");
    assert_eq!(find("nodesc").problem, Problem::MissingDescription);
    assert_eq!(find("open").problem, Problem::UnclosedFrontmatter);
    assert_eq!((find("colon").severity, find("colon").line), (Severity::Warning, Some(3)));
    assert!(matches!(find("renamed").problem, Problem::NameMismatch { .. }));

    let mut names: Vec<_> = set.iter().map(|s| s.name.as_str()).collect();
    names.sort_unstable();
    assert_eq!(names, ["colon", "other-name"], "errors skip a skill, warnings do not");
}

#[test]
fn the_scan_is_bounded_skips_git_and_node_modules_and_survives_symlink_loops() {
    let project = tempfile::tempdir().unwrap();
    write(project.path(), ".dive/skills/group/nested/SKILL.md", &skill("nested", "nested one"));
    write(project.path(), ".dive/skills/node_modules/pkg/SKILL.md", &skill("pkg", "from node_modules"));
    write(project.path(), ".dive/skills/.git/hooks/SKILL.md", &skill("hooks", "from git"));
    write(project.path(), ".dive/skills/a/b/c/d/e/f/deep/SKILL.md", &skill("deep", "too deep"));
    write(project.path(), ".dive/skills/notes.md", &skill("notes", "single-file skill"));
    write(project.path(), ".dive/skills/group/stray.md", "not a skill, not at the top");
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(
            project.path().join(".dive/skills"),
            project.path().join(".dive/skills/group/loop"),
        )
        .unwrap();
        std::os::unix::fs::symlink(
            project.path().join(".dive/skills/group"),
            project.path().join(".dive/skills/linked"),
        )
        .unwrap();
    }
    let set = Discovery::new().project(project.path(), true).discover();
    assert!(set.get("nested").is_some());
    assert!(matches!(set.get("notes").unwrap().layout, Layout::File(_)));
    assert!(set.get("pkg").is_none() && set.get("hooks").is_none() && set.get("deep").is_none());
    assert!(set.diagnostics().iter().any(|d| matches!(d.problem, Problem::ScanLimit { what: "levels", .. })));
    assert!(!set.diagnostics().iter().any(|d| d.is_error()), "{:?}", set.diagnostics());

    let limited = Discovery::new().project(project.path(), true).max_directories(1).discover();
    assert!(
        limited
            .diagnostics()
            .iter()
            .any(|d| matches!(d.problem, Problem::ScanLimit { limit: 1, what: "directories" }))
    );
}

#[test]
fn a_file_too_large_is_an_error_not_a_read() {
    let project = tempfile::tempdir().unwrap();
    let big = format!("---\nname: big\ndescription: big\n---\n{}", "x".repeat(1 << 21));
    write(project.path(), ".dive/skills/big/SKILL.md", &big);
    let set = Discovery::new().project(project.path(), true).discover();
    assert!(set.is_empty());
    assert!(matches!(set.diagnostics()[0].problem, Problem::TooLarge { .. }));
}

#[test]
fn search_dirs_are_in_the_documented_order() {
    let dirs = Discovery::new().project("/p", true).home("/h").search_dirs();
    let shown: Vec<String> = dirs.iter().map(|(_, d, _)| d.display().to_string()).collect();
    assert_eq!(
        shown,
        [
            "/p/.dive/skills",
            "/p/.agents/skills",
            "/p/.claude/skills",
            "/p/.claude/commands",
            "/h/.dive/skills",
            "/h/.agents/skills",
            "/h/.claude/skills",
            "/h/.claude/commands"
        ]
    );
}

#[test]
fn from_env_searches_the_home_directory_of_the_environment() {
    const NAME: &str = "from_env_searches_the_home_directory_of_the_environment";
    if !dive_test::child::is_child(NAME) {
        let home = tempfile::tempdir().unwrap();
        write(home.path(), ".agents/skills/mine/SKILL.md", &skill("mine", "from the home directory"));
        let home = home.path().to_str().unwrap();
        return dive_test::child::rerun_with_env(NAME, &["USERPROFILE"], &[("HOME", home)]);
    }
    #[allow(clippy::disallowed_methods)] // the child checks the environment it was given
    let home = std::path::PathBuf::from(std::env::var_os("HOME").unwrap());
    let set = Discovery::from_env().discover();
    let mine = set.get("mine").expect("the skill in $HOME/.agents/skills");
    assert_eq!(mine.scope, Scope::User);
    assert_eq!(mine.file(), Some(home.join(".agents/skills/mine/SKILL.md")));
}
