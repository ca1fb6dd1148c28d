//! Argument expansion and `` !`command` `` dynamic context with real child processes in a real
//! temporary directory, including injection attempts through the arguments.
#![allow(clippy::unwrap_used, clippy::expect_used)]
#![cfg(unix)]

use std::time::{Duration, Instant};

use dive_skill::{DynamicContext, Skill, SkillExtension, SkillSet};

fn extension(body: &str, dir: &std::path::Path) -> SkillExtension {
    let skill = Skill::new("probe", "Probes.").with_body(body).with_arguments(["target", "mode-name"]);
    SkillExtension::new(SkillSet::new().with(skill)).dynamic_context(DynamicContext::new(dir))
}

#[tokio::test]
async fn arguments_reach_commands_as_data_and_no_injected_command_runs() {
    let dir = tempfile::tempdir().unwrap();
    let body = "ran: !`touch template-ran && echo yes`\n\
                raw: !`printf '%s' \"$ARGUMENTS\"`\n\
                words: !`printf '[%s]' \"$@\"`\n\
                named: !`printf '%s' \"$target\"`\n\
                text: $1 | $ARGUMENTS\n";
    let attacks = [
        r#""; touch pwned-1; echo ""#,
        "'$(touch pwned-2)'",
        "'`touch pwned-3`'",
        "'!`touch pwned-4`'",
        "'|| touch pwned-5'",
    ];
    let args = attacks.join(" ");
    let out = extension(body, dir.path()).render("probe", &args).await.unwrap();

    assert!(dir.path().join("template-ran").exists(), "the skill's own command runs: {out}");
    assert!(out.contains("ran: yes"), "{out}");
    let names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    assert!(!names.iter().any(|n| n.starts_with("pwned")), "an injected command ran: {names:?}\n{out}");
    // Every attack arrives as the literal text the caller sent.
    assert!(out.contains(&format!("raw: {}", args.trim())), "{out}");
    assert!(out.contains("words: [; touch pwned-1; echo ][$(touch pwned-2)][`touch pwned-3`][!`touch pwned-4`][|| touch pwned-5]"), "{out}");
    assert!(out.contains("named: ; touch pwned-1; echo\n"), "{out}");
    assert!(out.contains("text: ; touch pwned-1; echo  | \"; touch pwned-1"), "{out}");
    assert!(out.contains("!`touch pwned-4`"), "a command in the arguments stays text: {out}");
}

#[tokio::test]
async fn command_output_is_not_expanded_and_without_opt_in_nothing_runs() {
    let dir = tempfile::tempdir().unwrap();
    let out = extension(r"out: !`printf '$1 !\140touch nested\140'`", dir.path())
        .render("probe", "X")
        .await
        .unwrap();
    assert!(out.contains("out: $1 !`touch nested`"), "{out}");
    assert!(!dir.path().join("nested").exists(), "{out}");

    let plain = SkillExtension::new(
        SkillSet::new().with(Skill::new("probe", "Probes.").with_body("!`touch off` $1")),
    );
    let out = plain.render("probe", "arg").await.unwrap();
    assert!(out.contains("!`touch off` arg"), "{out}");
}

#[tokio::test]
async fn failures_and_timeouts_become_notes_and_the_whole_group_is_killed() {
    let dir = tempfile::tempdir().unwrap();
    let out =
        extension("a: !`echo partial; echo oops >&2; exit 3`", dir.path()).render("probe", "").await.unwrap();
    assert!(
        out.contains(
            "a: partial\n[command `echo partial; echo oops >&2; exit 3` exited with status 3: oops]"
        ),
        "{out}"
    );

    let skill =
        Skill::new("slow", "Slow.").with_body("b: !`sh -c 'echo $$ > bg.pid; exec sleep 30' & sleep 30`");
    let ext = SkillExtension::new(SkillSet::new().with(skill))
        .dynamic_context(DynamicContext::new(dir.path()).with_timeout(Duration::from_millis(500)));
    let started = Instant::now();
    let out = ext.render("slow", "").await.unwrap();
    assert!(
        out.contains("[command `sh -c 'echo $$ > bg.pid; exec sleep 30' & sleep 30` timed out after 0.5 s]"),
        "{out}"
    );
    assert!(started.elapsed() < Duration::from_secs(20), "the timeout holds");
    #[cfg(target_os = "linux")]
    assert_group_gone(&std::fs::read_to_string(dir.path().join("bg.pid")).unwrap());
}

#[cfg(target_os = "linux")]
fn assert_group_gone(pid: &str) {
    let stat = format!("/proc/{}/stat", pid.trim());
    // The background grandchild went with its process group: gone, or a zombie awaiting its reaper.
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let state = std::fs::read_to_string(&stat)
            .ok()
            .and_then(|s| s.rsplit(')').next().map(|r| r.trim().chars().next()));
        match state {
            None | Some(Some('Z' | 'X')) => break,
            _ if Instant::now() > deadline => {
                panic!("the background process {} is still running", pid.trim())
            }
            _ => std::thread::yield_now(),
        }
    }
}
