//! Skills as slash commands: `/name args` runs a user-invocable skill (a `SKILL.md`, a
//! single-file skill or a `.claude/commands` file) by sending its rendered content as the
//! message, in interactive and print mode; `/help` lists them with their argument hints.

use dive::skill::SkillExtension;

/// A slash command line split into the command name and its arguments.
pub fn split(line: &str) -> Option<(&str, &str)> {
    let command = line.strip_prefix('/')?;
    let (name, args) = command.split_once(char::is_whitespace).unwrap_or((command, ""));
    (!name.is_empty()).then(|| (name, args.trim()))
}

/// The message a skill command sends: the skill's content for these arguments; `None` when
/// `name` is no user-invocable skill.
pub async fn expand(skills: &SkillExtension, name: &str, args: &str) -> Option<String> {
    skills.skills().user_invocable().find(|s| s.name == name)?;
    skills.render(name, args).await
}

/// A prompt that starts with a skill command, expanded (print mode); other prompts, and
/// prompts that merely start with a path such as `/etc/hosts`, stay as they are.
pub async fn expand_prompt(skills: &SkillExtension, prompt: String) -> String {
    let Some((name, args)) = split(prompt.trim_start()) else { return prompt };
    match expand(skills, name, args).await {
        Some(content) => content,
        None => prompt,
    }
}

/// The `/help` lines of the skill commands (empty when there are none).
pub fn help(skills: &SkillExtension) -> String {
    let mut out = String::new();
    for skill in skills.skills().user_invocable() {
        let usage = match &skill.argument_hint {
            Some(hint) => format!("/{} {hint}", skill.name),
            None => format!("/{}", skill.name),
        };
        let description: String = skill.description.trim().chars().take(70).collect();
        out.push_str(&format!("  {usage:<16} {description}\n"));
    }
    if out.is_empty() { out } else { format!("Skills and commands:\n{out}") }
}

#[cfg(test)]
mod tests {
    use super::*;
    use dive::skill::{Skill, SkillSet};

    fn skills() -> SkillExtension {
        let mut review =
            Skill::new("review", "Reviews a file for bugs.").with_body("Review $ARGUMENTS carefully.");
        review.argument_hint = Some("[file]".into());
        let mut hidden = Skill::new("hidden", "Only for the model.").with_body("x");
        hidden.user_invocable = false;
        SkillExtension::new(SkillSet::new().with(review).with(hidden))
    }

    #[test]
    fn splits_the_name_from_the_arguments() {
        assert_eq!(split("/review src/main.rs  "), Some(("review", "src/main.rs")));
        assert_eq!(split("/help"), Some(("help", "")));
        assert_eq!(split("/"), None);
        assert_eq!(split("review"), None);
    }

    #[tokio::test]
    async fn a_skill_command_sends_the_rendered_skill_and_paths_stay_text() {
        let skills = skills();
        let sent = expand_prompt(&skills, "/review src/lib.rs".into()).await;
        assert!(
            sent.contains("<skill_content name=\"review\"") && sent.contains("Review src/lib.rs carefully."),
            "{sent}"
        );
        assert_eq!(expand_prompt(&skills, "/etc/hosts is odd".into()).await, "/etc/hosts is odd");
        assert_eq!(expand_prompt(&skills, "/hidden".into()).await, "/hidden", "not user-invocable");
    }

    #[test]
    fn help_lists_user_commands_with_their_hints() {
        let help = help(&skills());
        assert!(help.contains("/review [file]") && help.contains("Reviews a file"), "{help}");
        assert!(!help.contains("hidden"));
        assert_eq!(super::help(&SkillExtension::new(SkillSet::new())), "");
    }
}
