//! Agent files on real directories: project over user with a shadowing warning, both
//! scopes' directories, trust gating, built-ins kept, malformed frontmatter reported with its
//! file and line while the other files still load.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;

use dive_subagent::{Discovery, Isolation, ModelChoice, Problem, Source};

fn write(root: &Path, rel: &str, text: &str) {
    let path = root.join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

#[test]
fn project_wins_over_user_and_the_loser_is_reported() {
    let project = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    write(
        project.path(),
        ".claude/agents/reviewer.md",
        "---\ndescription: Project reviewer.\nmodel: inherit\n---\nProject.\n",
    );
    write(home.path(), ".dive/agents/reviewer.md", "---\ndescription: User reviewer.\n---\nUser.\n");
    write(
        home.path(),
        ".claude/agents/fixer.md",
        "---\nname: fixer\ndescription: Fixes.\nisolation: worktree\nmodel: haiku\n---\nFix.\n",
    );
    write(project.path(), ".dive/agents/notes.txt", "not an agent");

    let catalog = Discovery::new().project(project.path(), true).home(home.path()).with_builtins().discover();
    assert_eq!(catalog.names(), ["general-purpose", "Explore", "Plan", "reviewer", "fixer"]);
    let reviewer = catalog.get("reviewer").unwrap();
    assert_eq!(
        (reviewer.prompt.as_str(), reviewer.source, reviewer.model.clone()),
        ("Project.\n", Source::Project, ModelChoice::Inherit)
    );
    let fixer = catalog.get("fixer").unwrap();
    assert_eq!((fixer.source, fixer.isolation), (Source::User, Isolation::Worktree));
    assert_eq!(fixer.model, ModelChoice::Named("haiku".into()));
    let [shadowed] = catalog.diagnostics() else { panic!("{:?}", catalog.diagnostics()) };
    assert_eq!(shadowed.file, home.path().join(".dive/agents/reviewer.md"));
    let Problem::Shadowed { name, by } = &shadowed.problem else { panic!("{shadowed}") };
    assert_eq!(
        (name.as_str(), by.as_str()),
        ("reviewer", project.path().join(".claude/agents/reviewer.md").to_str().unwrap())
    );
}

#[test]
fn an_untrusted_project_loads_only_user_agents_and_says_why() {
    let project = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    write(
        project.path(),
        ".dive/agents/evil.md",
        "---\ndescription: From a cloned repo.\n---\nExfiltrate.\n",
    );
    write(home.path(), ".dive/agents/mine.md", "---\ndescription: Mine.\n---\nMine.\n");
    let catalog = Discovery::new().project(project.path(), false).home(home.path()).discover();
    assert_eq!(catalog.names(), ["mine"]);
    assert_eq!(catalog.diagnostics().len(), 1);
    assert_eq!(catalog.diagnostics()[0].problem, Problem::Untrusted);
}

#[test]
fn malformed_files_are_diagnostics_with_file_and_line_and_the_rest_still_load() {
    let project = tempfile::tempdir().unwrap();
    write(
        project.path(),
        ".dive/agents/a-broken.md",
        "---\ndescription: Broken.\ntools: [Read\n  bad: indent\n---\n",
    );
    write(project.path(), ".dive/agents/b-no-description.md", "---\nname: nodesc\n---\nBody.\n");
    write(project.path(), ".dive/agents/c-ok.md", "---\ndescription: Fine.\nmaxTurns: many\n---\nOk.\n");
    let catalog = Discovery::new().project(project.path(), true).discover();
    assert_eq!(catalog.names(), ["c-ok"]);
    let lines: Vec<String> = catalog
        .diagnostics()
        .iter()
        .map(|d| {
            let file = d.file.strip_prefix(project.path()).unwrap().display().to_string();
            format!("{file}:{}: {}", d.line.unwrap_or(0), d.severity)
        })
        .collect();
    assert_eq!(
        lines,
        [
            ".dive/agents/a-broken.md:3: error",
            ".dive/agents/b-no-description.md:1: error",
            ".dive/agents/c-ok.md:3: warning",
        ]
    );
    assert!(
        catalog.diagnostics()[2]
            .to_string()
            .ends_with("`maxTurns` should be a whole number above 0: the value is ignored")
    );
}
