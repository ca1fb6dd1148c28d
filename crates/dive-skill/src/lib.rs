//! Agent skills for Dive for Rust: instructions a model loads when a task calls for them.
//!
//! A skill is a `SKILL.md` directory (with optional bundled files), a single markdown file,
//! a `.claude/commands` command, a [`Skill`] built in code, or a `SKILL.md` embedded in the
//! binary ([`Skill::embedded`] with `include_str!`). [`Discovery`] finds them on disk in the
//! project (only when the workspace is trusted) and in the user's home; frontmatter is read
//! leniently and every problem is a [`Diagnostic`] naming the file and the line.
//!
//! [`SkillExtension`] puts them in front of a model in three layers: rules in the system
//! prompt, a catalog of the skills as a model-only reminder, and the `Skill` tool (its name
//! parameter an enum of the real skills), whose content arrives through a PostToolUse hook
//! as `<skill_content name="…">`. While a skill with `allowed-tools` is active, a PreToolUse
//! hook refuses every other tool.
//!
//! **Invariant:** a skill's arguments are data: they are never spliced into a shell command
//! (`` !`command` `` dynamic context runs on the raw template and sees the arguments only as
//! environment variables and positional parameters), and project skills never load in an
//! untrusted workspace.
//!
//! ```
//! use dive_core::Extension;
//! use dive_skill::{Skill, SkillExtension, SkillSet};
//!
//! let skills = SkillSet::new().with(
//!     Skill::new("haiku", "Writes a haiku. Use when asked for a poem.")
//!         .with_body("Write a haiku about $ARGUMENTS: 5, 7 and 5 syllables."),
//! );
//! let extension = SkillExtension::new(skills);
//! assert_eq!(extension.tools()[0].name(), "Skill");
//! assert!(extension.catalog().unwrap().contains("- haiku: Writes a haiku."));
//! ```

// Library code reads no environment variables outside `from_env`-style constructors.
#![cfg_attr(not(test), deny(clippy::disallowed_methods))]
#![deny(missing_docs)]

mod allowed;
mod carry_over;
mod content;
mod diagnostic;
mod discover;
mod dynamic;
mod expand;
mod extension;
mod fork;
pub mod frontmatter;
mod set;
mod skill;
mod state;
mod tool;

pub use carry_over::carry_over;
pub use diagnostic::{Diagnostic, InvalidSkill, Problem, Severity};
pub use discover::{Discovery, SEARCH_DIRS, home_from_env};
pub use dynamic::DynamicContext;
pub use expand::{Arguments, expand_arguments};
pub use extension::{CATALOG_REMINDER, SkillExtension};
pub use fork::SkillFork;
pub use set::SkillSet;
pub use skill::{
    ExecutionContext, Kind, Layout, MAX_COMPATIBILITY, MAX_DESCRIPTION, MAX_NAME, Scope, Skill, name_problem,
};
pub use tool::SKILL_TOOL;
