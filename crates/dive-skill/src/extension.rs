//! [`SkillExtension`]: skills wired into an agent in three layers — rules in the system
//! prompt, the catalog as a model-only reminder before each model call, and the `Skill` tool
//! whose content a PostToolUse hook delivers — plus the PreToolUse hook that enforces
//! `allowed-tools` while a skill is active.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use dive_core::{
    BoxFuture, Extension, GenerationContext, GenerationEdit, HookError, Hooks, PostToolUseDecision,
    PostToolUseHook, PreGenerationHook, PreIterationHook, PreToolUseDecision, PreToolUseHook, QueuedReminder,
    Reminder, Tool, ToolResultContext, ToolUseContext,
};
use serde_json::Value;

use crate::allowed::ToolRule;
use crate::content;
use crate::dynamic::DynamicContext;
use crate::expand::{self, Arguments};
use crate::fork::SkillFork;
use crate::set::SkillSet;
use crate::skill::Skill;
use crate::state::{Active, Pending, SkillState};
use crate::tool::{SKILL_TOOL, SkillTool};

/// The name of the catalog reminder.
pub const CATALOG_REMINDER: &str = "skills";

/// The longest catalog entry of one skill, in characters.
const ENTRY_MAX: usize = 1_536;

const RULES: &str = "Skills are instructions for particular kinds of task, loaded when needed. The `skills` \
reminder lists the skills there are. When a task matches a skill's description, call the `Skill` tool with \
its name (and its arguments in `args`) before you start, then follow the instructions it returns inside \
`<skill_content>`. Load only the skills a task needs. A loaded skill's bundled files are listed, not \
included: read one only when its instructions call for it, with paths relative to the skill's base \
directory. While a skill that names its allowed tools is active, only those tools run.";

/// Skills as an agent [`Extension`].
///
/// ```
/// use dive_agent::Agent;
/// use dive_core::ModelResponse;
/// use dive_skill::{Skill, SkillExtension, SkillSet};
/// use dive_test::ScriptedModel;
///
/// let skills = SkillSet::new().with(Skill::new("haiku", "Writes haikus. Use when asked for a poem.").with_body("5-7-5."));
/// let model = ScriptedModel::new([ModelResponse::text("ok")]);
/// let agent = Agent::builder().model(model).extension(SkillExtension::new(skills)).build().unwrap();
/// # let _ = agent;
/// ```
#[derive(Debug, Clone)]
pub struct SkillExtension {
    shared: Arc<Shared>,
}

/// What the tool and the hooks share.
#[derive(Debug)]
pub(crate) struct Shared {
    pub(crate) skills: SkillSet,
    dynamic: Option<DynamicContext>,
    pub(crate) fork: Option<Arc<dyn SkillFork>>,
}

impl std::fmt::Debug for dyn SkillFork {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SkillFork")
    }
}

impl SkillExtension {
    /// These skills; `` !`command` `` dynamic context stays off.
    #[must_use]
    pub fn new(skills: SkillSet) -> Self {
        Self { shared: Arc::new(Shared { skills, dynamic: None, fork: None }) }
    }

    /// Turns on `` !`command` `` dynamic context: commands in skill bodies run when a skill is
    /// loaded (only skills from trusted sources should be given this).
    #[must_use]
    pub fn dynamic_context(self, dynamic: DynamicContext) -> Self {
        let Shared { skills, fork, .. } = &*self.shared;
        Self {
            shared: Arc::new(Shared { skills: skills.clone(), dynamic: Some(dynamic), fork: fork.clone() }),
        }
    }

    /// Runs `context: fork` skills in a subagent through `fork` (dive-subagent's `AgentTool`
    /// is one): the model gets the subagent's answer, not the instructions. Without it such
    /// skills run inline.
    #[must_use]
    pub fn with_fork(self, fork: impl SkillFork + 'static) -> Self {
        let Shared { skills, dynamic, .. } = &*self.shared;
        let fork: Option<Arc<dyn SkillFork>> = Some(Arc::new(fork));
        Self { shared: Arc::new(Shared { skills: skills.clone(), dynamic: dynamic.clone(), fork }) }
    }

    /// The skills.
    #[must_use]
    pub fn skills(&self) -> &SkillSet {
        &self.shared.skills
    }

    /// The directories of the directory skills: allow reads there in a permission layer so
    /// reading a bundled file never prompts.
    #[must_use]
    pub fn skill_dirs(&self) -> Vec<PathBuf> {
        self.shared.skills.iter().filter_map(|s| s.dir().map(Path::to_owned)).collect()
    }

    /// The catalog the model sees each call (`None` when no skill is for the model).
    #[must_use]
    pub fn catalog(&self) -> Option<String> {
        self.shared.catalog()
    }

    /// A skill's `<skill_content>` block for these arguments, as the model would receive it
    /// (for user invocation, e.g. a slash command); `None` for an unknown skill.
    pub async fn render(&self, name: &str, args: &str) -> Option<String> {
        let skill = self.shared.skills.get(name)?;
        Some(self.shared.render(skill, args).await.content)
    }

    fn has_model_skills(&self) -> bool {
        self.shared.skills.model_invocable().next().is_some()
    }
}

impl Shared {
    fn catalog(&self) -> Option<String> {
        let mut entries = self.skills.model_invocable().peekable();
        entries.peek()?;
        let mut out = String::from("The skills you can load with the Skill tool (this list is complete):\n");
        for skill in entries {
            let mut entry = format!("- {}: {}", skill.name, skill.description.trim());
            if let Some(when) = &skill.when_to_use {
                entry.push_str(&format!(" When to use: {}", when.trim()));
            }
            if let Some(hint) = &skill.argument_hint {
                entry.push_str(&format!(" Arguments: {hint}"));
            }
            if entry.chars().count() > ENTRY_MAX {
                entry = entry.chars().take(ENTRY_MAX - 1).collect::<String>() + "…";
            }
            out.push_str(&entry);
            out.push('\n');
        }
        Some(out.trim_end().to_owned())
    }

    /// Renders a skill's content: arguments, dynamic context, bundled files.
    pub(crate) async fn render(&self, skill: &Skill, args: &str) -> Pending {
        let args = Arguments::parse(args);
        let instructions = expand::render(skill, &args, self.dynamic.as_ref()).await;
        let dir = skill.dir().map(Path::to_owned);
        let listing = dir.clone();
        let files = tokio::task::spawn_blocking(move || {
            listing.map(|d| content::bundled_files(&d)).unwrap_or_default()
        })
        .await
        .unwrap_or_default();
        let content = content::wrap(&skill.name, dir.as_deref(), &instructions, &files);
        let active = (!skill.allowed_tools.is_empty()).then(|| Active {
            name: skill.name.clone(),
            rules: skill.allowed_tools.iter().map(|r| ToolRule::parse(r)).collect(),
            listed: skill.allowed_tools.clone(),
            dir: dir.map(|d| d.canonicalize().unwrap_or(d)),
        });
        Pending { content, active }
    }
}

impl Extension for SkillExtension {
    fn name(&self) -> &str {
        "skills"
    }

    fn tools(&self) -> Vec<Arc<dyn Tool>> {
        if self.has_model_skills() { vec![Arc::new(SkillTool::new(self.shared.clone()))] } else { Vec::new() }
    }

    fn hooks(&self) -> Hooks {
        if !self.has_model_skills() {
            return Hooks::new();
        }
        let hooks = Arc::new(SkillHooks { shared: self.shared.clone() });
        Hooks::new()
            .on_pre_generation(hooks.clone())
            .on_pre_iteration(hooks.clone())
            .on_pre_tool_use(hooks.clone())
            .on_post_tool_use(hooks)
    }

    fn rules(&self) -> Option<String> {
        self.has_model_skills().then(|| RULES.to_owned())
    }
}

/// The extension's hooks, one value for every phase it takes part in.
struct SkillHooks {
    shared: Arc<Shared>,
}

impl PreGenerationHook for SkillHooks {
    fn name(&self) -> &str {
        "skills"
    }

    fn pre_generation(&self, ctx: GenerationContext) -> BoxFuture<'_, Result<GenerationEdit, HookError>> {
        SkillState::reset(&ctx.run.values);
        Box::pin(async { Ok(GenerationEdit::unchanged()) })
    }
}

impl PreIterationHook for SkillHooks {
    fn name(&self) -> &str {
        "skills"
    }

    /// Notes which skills the conversation already holds, and adds the catalog.
    fn pre_iteration(&self, ctx: GenerationContext) -> BoxFuture<'_, Result<GenerationEdit, HookError>> {
        let state = SkillState::of(&ctx.run.values);
        {
            let mut inner = state.lock();
            for message in &ctx.messages {
                for block in &message.content {
                    let text = match block.as_tool_result() {
                        Some(result) => result.text_content(),
                        None => block.as_text().unwrap_or_default().to_owned(),
                    };
                    inner.loaded.extend(content::blocks(&text).map(str::to_owned));
                }
            }
        }
        let catalog = self.shared.catalog();
        Box::pin(async move {
            let mut edit = GenerationEdit::unchanged();
            if let Some(catalog) = catalog {
                let reminder =
                    Reminder::new(CATALOG_REMINDER, catalog).map_err(|e| HookError::new(e.to_string()))?;
                edit = edit.with_reminder(QueuedReminder::model_only(reminder));
            }
            Ok(edit)
        })
    }
}

impl PostToolUseHook for SkillHooks {
    fn name(&self) -> &str {
        "skills"
    }

    /// Delivers the content the Skill tool rendered, and activates its `allowed-tools`.
    fn post_tool_use(&self, ctx: ToolResultContext) -> BoxFuture<'_, Result<PostToolUseDecision, HookError>> {
        let decision = if ctx.call.name == SKILL_TOOL {
            let state = SkillState::of(&ctx.run.values);
            let mut inner = state.lock();
            match inner.pending.remove(&ctx.call.id) {
                Some(pending) => {
                    inner.loaded.insert(pending.content.clone());
                    inner.active.extend(pending.active);
                    PostToolUseDecision::keep().with_context(pending.content)
                }
                None => PostToolUseDecision::keep(),
            }
        } else {
            PostToolUseDecision::keep()
        };
        Box::pin(async move { Ok(decision) })
    }
}

impl PreToolUseHook for SkillHooks {
    fn name(&self) -> &str {
        "skills"
    }

    /// Refuses a tool no active skill's `allowed-tools` names (reads inside an active
    /// skill's directory, and the Skill tool itself, always run).
    fn pre_tool_use(&self, ctx: ToolUseContext) -> BoxFuture<'_, Result<PreToolUseDecision, HookError>> {
        let decision = if ctx.call.name == SKILL_TOOL {
            PreToolUseDecision::allow()
        } else {
            let state = SkillState::of(&ctx.run.values);
            let inner = state.lock();
            let reads_skill_dir = ctx.annotations.read_only_hint == Some(true)
                && inner
                    .active
                    .iter()
                    .any(|a| a.dir.as_deref().is_some_and(|d| reads_inside(&ctx.call.input, d)));
            let refusing = inner
                .active
                .iter()
                .find(|a| !a.rules.iter().any(|r| r.allows(&ctx.call.name, &ctx.call.input)));
            match refusing {
                Some(active) if !reads_skill_dir => PreToolUseDecision::deny(format!(
                    "`{}` cannot run while the skill `{}` is active: it allows only {} (until this turn ends). \
                     Use one of those tools instead.",
                    ctx.call.name,
                    active.name,
                    active.listed.join(", ")
                )),
                _ => PreToolUseDecision::allow(),
            }
        };
        Box::pin(async move { Ok(decision) })
    }
}

/// Whether a call's path argument is inside `dir` (resolved, so `..` and links cannot leave it).
fn reads_inside(input: &Value, dir: &Path) -> bool {
    ["file_path", "filePath", "path"].iter().filter_map(|f| input.get(*f).and_then(Value::as_str)).any(|p| {
        let path = Path::new(p);
        path.is_absolute() && path.canonicalize().is_ok_and(|real| real.starts_with(dir))
    })
}
