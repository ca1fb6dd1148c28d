//! [`SkillSet`]: the skills an agent can use, one per name, with the diagnostics gathered
//! while loading them.

use crate::diagnostic::{Diagnostic, Problem, Severity};
use crate::skill::Skill;

/// Skills by name (in the order they were added) and what was found wrong loading them.
///
/// ```
/// use dive_skill::{Skill, SkillSet};
/// let mut set = SkillSet::new()
///     .with(Skill::new("review", "Reviews a change.").with_body("Run the tests first."));
/// set.insert(Skill::new("review", "Reviews a change, strictly."));
/// assert_eq!(set.len(), 1);
/// assert_eq!(set.get("review").map(|s| s.description.as_str()), Some("Reviews a change, strictly."));
/// assert_eq!(set.diagnostics().len(), 1, "the replaced skill is reported as shadowed");
/// ```
#[derive(Debug, Clone, Default)]
pub struct SkillSet {
    skills: Vec<Skill>,
    diagnostics: Vec<Diagnostic>,
}

impl SkillSet {
    /// No skills.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a skill, replacing one of the same name (see [`insert`](Self::insert)).
    #[must_use]
    pub fn with(mut self, skill: Skill) -> Self {
        self.insert(skill);
        self
    }

    /// Adds a skill. One of the same name already here is replaced — the later addition is
    /// the caller's explicit choice — and reported as shadowed.
    pub fn insert(&mut self, skill: Skill) {
        if let Some(at) = self.position(&skill.name) {
            let old = std::mem::replace(&mut self.skills[at], skill);
            self.shadowed(&old, &self.skills[at].origin());
        } else {
            self.skills.push(skill);
        }
    }

    /// Adds a skill unless one of the same name is here already, in which case the new one is
    /// reported as shadowed (discovery's rule: the first scope searched wins).
    pub fn insert_if_absent(&mut self, skill: Skill) {
        match self.position(&skill.name) {
            Some(at) => {
                let by = self.skills[at].origin();
                self.shadowed(&skill, &by);
            }
            None => self.skills.push(skill),
        }
    }

    /// Adds the skills of `other` that are not here yet (those that are, are reported as
    /// shadowed), and all of its diagnostics.
    pub fn extend_under(&mut self, other: SkillSet) {
        self.diagnostics.extend(other.diagnostics);
        for skill in other.skills {
            self.insert_if_absent(skill);
        }
    }

    /// Records a diagnostic.
    pub fn push_diagnostic(&mut self, diagnostic: Diagnostic) {
        self.diagnostics.push(diagnostic);
    }

    fn position(&self, name: &str) -> Option<usize> {
        self.skills.iter().position(|s| s.name == name)
    }

    fn shadowed(&mut self, loser: &Skill, by: &str) {
        let file = loser.file().unwrap_or_else(|| format!("code:{}", loser.name).into());
        let problem = Problem::Shadowed { name: loser.name.clone(), by: by.to_owned() };
        self.diagnostics.push(Diagnostic::new(Severity::Warning, file, None, problem));
    }

    /// The skill of this name.
    #[must_use]
    pub fn get(&self, name: &str) -> Option<&Skill> {
        self.skills.iter().find(|s| s.name == name)
    }

    /// Every skill, in the order added.
    pub fn iter(&self) -> impl Iterator<Item = &Skill> {
        self.skills.iter()
    }

    /// The skills the model may invoke.
    pub fn model_invocable(&self) -> impl Iterator<Item = &Skill> {
        self.skills.iter().filter(|s| s.model_invocable())
    }

    /// The skills a user may invoke (slash commands): `user-invocable` is not `false`.
    pub fn user_invocable(&self) -> impl Iterator<Item = &Skill> {
        self.skills.iter().filter(|s| s.user_invocable)
    }

    /// How many skills.
    #[must_use]
    pub fn len(&self) -> usize {
        self.skills.len()
    }

    /// Whether there are none.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.skills.is_empty()
    }

    /// What was found wrong while loading, in order.
    #[must_use]
    pub fn diagnostics(&self) -> &[Diagnostic] {
        &self.diagnostics
    }
}
