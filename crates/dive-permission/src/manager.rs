//! [`PermissionManager`]: evaluates a tool call against deny rules, the mode, session
//! grants, allow rules and ask rules, in that order.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, RwLock};

use dive_core::ToolAnnotations;
use serde_json::Value;

use crate::matcher::{
    CallPath, PathBase, SpecifierKind, command_matches, default_kind, extract, is_literal, url_host,
    url_matches, wildcard,
};
use crate::mode::PermissionMode;
use crate::rule::{Rule, Rules};
use crate::shell::{ShellCommand, effective_commands, split_command};

/// Tool names treated as edit tools in `acceptEdits` mode (besides the edit hint).
pub const EDIT_TOOLS: &[&str] =
    &["Edit", "Write", "MultiEdit", "NotebookEdit", "TextEditor", "str_replace_based_edit_tool"];
/// Tool names treated as read-only (besides the read-only hint).
pub const READ_ONLY_TOOLS: &[&str] = &["Read", "Glob", "Grep", "ListDirectory", "LS"];

/// Tools that read files: `Read(…)` rules apply to them too (as in Claude Code).
const READ_FAMILY: &[&str] = &["Read", "Glob", "Grep", "ListDirectory", "LS"];
/// Tools that edit files: `Edit(…)` rules apply to them too.
const EDIT_FAMILY: &[&str] =
    &["Edit", "Write", "MultiEdit", "NotebookEdit", "TextEditor", "str_replace_based_edit_tool"];

/// Redirection targets that write no file: output thrown away or sent where it goes anyway.
const HARMLESS_TARGETS: &[&str] = &["/dev/null", "/dev/stdout", "/dev/stderr"];

/// Input fields that name the directory a shell tool runs in (relative redirection targets
/// land there; it is relative to the root unless absolute).
const WORKING_DIR_FIELDS: &[&str] = &["working_directory", "cwd", "workdir"];

/// Commands after which a relative redirection target no longer names a workspace path.
const DIRECTORY_CHANGERS: &[&str] = &["cd", "pushd", "popd"];

/// Tools whose path is optional (they search from the root when it is missing).
const OPTIONAL_PATH_TOOLS: &[&str] = &["Glob", "Grep", "ListDirectory", "LS"];

/// Whether a rule names a tool, directly or as `Read(…)`/`Edit(…)` for the read and edit
/// families.
fn rule_applies(rule: &Rule, tool: &str) -> bool {
    rule.matches_tool(tool)
        || (rule.tool() == "Read" && READ_FAMILY.contains(&tool))
        || (rule.tool() == "Edit" && EDIT_FAMILY.contains(&tool))
}

/// The permission configuration.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct PermissionConfig {
    /// The mode.
    pub mode: PermissionMode,
    /// Allow, ask and deny rules.
    pub rules: Rules,
    /// The project root that relative paths and `/path` rules are anchored to (default: the
    /// current directory).
    pub root: Option<PathBuf>,
    /// Extra tools with specifiers: tool name → (kind, input fields to read).
    pub specifier_fields: BTreeMap<String, (SpecifierKind, Vec<String>)>,
    /// The home directory `~/` path rules are anchored to; without one, a `~/` rule matches
    /// no path. Set it with [`with_home`](Self::with_home), or from `HOME` with
    /// [`with_home_from_env`](Self::with_home_from_env).
    pub home: Option<PathBuf>,
}

impl PermissionConfig {
    /// A configuration with these rules in default mode.
    #[must_use]
    pub fn new(rules: Rules) -> Self {
        Self { rules, ..Self::default() }
    }

    /// Sets the mode.
    #[must_use]
    pub fn with_mode(mut self, mode: PermissionMode) -> Self {
        self.mode = mode;
        self
    }

    /// Sets the project root.
    #[must_use]
    pub fn with_root(mut self, root: impl Into<PathBuf>) -> Self {
        self.root = Some(root.into());
        self
    }

    /// Sets the home directory `~/` path rules are anchored to.
    #[must_use]
    pub fn with_home(mut self, home: impl Into<PathBuf>) -> Self {
        self.home = Some(home.into());
        self
    }

    /// Sets the home directory from the `HOME` variable (unchanged when it is not set): the
    /// one place the permission configuration reads the environment.
    #[must_use]
    #[allow(clippy::disallowed_methods)] // a from_env-style constructor
    pub fn with_home_from_env(mut self) -> Self {
        if let Some(home) = std::env::var_os("HOME").filter(|h| !h.is_empty()) {
            self.home = Some(PathBuf::from(home));
        }
        self
    }

    /// Declares how to read a tool's specifier (for tools beyond the built-in names).
    #[must_use]
    pub fn with_specifier(mut self, tool: impl Into<String>, kind: SpecifierKind, fields: &[&str]) -> Self {
        self.specifier_fields.insert(tool.into(), (kind, fields.iter().map(|f| (*f).to_string()).collect()));
        self
    }
}

/// A tool call to evaluate.
#[derive(Debug, Clone, Copy)]
pub struct ToolCall<'a> {
    /// The tool name.
    pub name: &'a str,
    /// The input.
    pub input: &'a Value,
    /// The tool's annotations.
    pub annotations: &'a ToolAnnotations,
}

impl<'a> ToolCall<'a> {
    /// A call.
    #[must_use]
    pub fn new(name: &'a str, input: &'a Value, annotations: &'a ToolAnnotations) -> Self {
        Self { name, input, annotations }
    }

    fn is_read_only(&self) -> bool {
        self.annotations.is_read_only() || READ_ONLY_TOOLS.contains(&self.name)
    }

    fn is_edit(&self) -> bool {
        self.annotations.is_edit() || EDIT_TOOLS.contains(&self.name)
    }
}

/// The verdict.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Decision {
    /// Run the call.
    Allow,
    /// Ask the dialog.
    Ask,
    /// Refuse the call.
    Deny,
}

/// What decided.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum DecisionSource {
    /// A deny rule.
    DenyRule(Rule),
    /// A session grant.
    SessionGrant(Rule),
    /// An allow rule.
    AllowRule(Rule),
    /// An ask rule.
    AskRule(Rule),
    /// The mode.
    Mode(PermissionMode),
}

impl std::fmt::Display for DecisionSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::DenyRule(r) => write!(f, "deny rule {r}"),
            Self::SessionGrant(r) => write!(f, "session grant {r}"),
            Self::AllowRule(r) => write!(f, "allow rule {r}"),
            Self::AskRule(r) => write!(f, "ask rule {r}"),
            Self::Mode(m) => write!(f, "{m} mode"),
        }
    }
}

/// The result of evaluating a call.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Evaluation {
    /// The verdict.
    pub decision: Decision,
    /// What decided.
    pub source: DecisionSource,
    /// The rule a session approval of this call would grant (the exact specifier).
    pub grant: Option<Rule>,
}

/// Evaluates tool calls; holds the mode, the rules and the session grants.
///
/// Order: **deny rules** (absolute, in every mode, fail closed when the specifier cannot be
/// read) → **plan mode** (anything not read-only is denied) → **session grants** → **allow
/// rules** → **ask rules** → **the mode** (default and acceptEdits allow read-only tools,
/// acceptEdits also edit tools, bypass allows, dontAsk denies, the rest ask).
///
/// ```
/// use dive_permission::{Decision, PermissionConfig, PermissionManager, Rules, ToolCall};
/// let rules = Rules::new().allow("Bash(cargo test:*)").unwrap().deny("Bash(rm:*)").unwrap();
/// let pm = PermissionManager::new(PermissionConfig::new(rules));
/// let none = dive_core::ToolAnnotations::default();
/// let call = |cmd: &str| serde_json::json!({"command": cmd});
/// assert_eq!(pm.evaluate(ToolCall::new("Bash", &call("cargo test -p x"), &none)).decision, Decision::Allow);
/// assert_eq!(pm.evaluate(ToolCall::new("Bash", &call("cargo test && rm -rf /"), &none)).decision, Decision::Deny);
/// assert_eq!(pm.evaluate(ToolCall::new("Bash", &call("cargo build"), &none)).decision, Decision::Ask);
/// ```
#[derive(Debug)]
pub struct PermissionManager {
    config: RwLock<PermissionConfig>,
    base: PathBase,
    grants: Mutex<Vec<Rule>>,
}

impl PermissionManager {
    /// A manager for this configuration.
    #[must_use]
    pub fn new(config: PermissionConfig) -> Self {
        let root = config
            .root
            .clone()
            .or_else(|| std::env::current_dir().ok())
            .unwrap_or_else(|| PathBuf::from("/"));
        let root = root.canonicalize().unwrap_or(root);
        let home = config.home.clone();
        Self { config: RwLock::new(config), base: PathBase { root, home }, grants: Mutex::new(Vec::new()) }
    }

    /// The current mode.
    #[must_use]
    pub fn mode(&self) -> PermissionMode {
        self.config.read().map_or(PermissionMode::Default, |c| c.mode)
    }

    /// Changes the mode (e.g. leaving plan mode).
    pub fn set_mode(&self, mode: PermissionMode) {
        if let Ok(mut c) = self.config.write() {
            c.mode = mode;
        }
    }

    /// Grants a rule for the rest of the session (what a dialog's "allow for session" does).
    pub fn grant_for_session(&self, rule: Rule) {
        if let Ok(mut g) = self.grants.lock()
            && !g.contains(&rule)
        {
            g.push(rule);
        }
    }

    /// The session grants.
    #[must_use]
    pub fn session_grants(&self) -> Vec<Rule> {
        self.grants.lock().map(|g| g.clone()).unwrap_or_default()
    }

    /// Drops every session grant.
    pub fn clear_session_grants(&self) {
        if let Ok(mut g) = self.grants.lock() {
            g.clear();
        }
    }

    fn kind(&self, config: &PermissionConfig, tool: &str) -> Option<(SpecifierKind, Vec<String>)> {
        config
            .specifier_fields
            .get(tool)
            .cloned()
            .or_else(|| default_kind(tool).map(|(k, f)| (k, f.iter().map(|s| (*s).to_string()).collect())))
    }

    /// Evaluates a call.
    #[must_use]
    pub fn evaluate(&self, call: ToolCall<'_>) -> Evaluation {
        let Ok(config) = self.config.read() else {
            return self.verdict(Decision::Deny, DecisionSource::Mode(PermissionMode::DontAsk), None);
        };
        let kind = self.kind(&config, call.name);
        let spec = kind.as_ref().and_then(|(kind, fields)| {
            // Search tools default to the root when no path is given; that is their specifier.
            let searches_root = *kind == SpecifierKind::Path && OPTIONAL_PATH_TOOLS.contains(&call.name);
            extract(call.input, fields).or_else(|| searches_root.then(|| ".".to_string()))
        });
        let grant = self.suggest_grant(call.name, kind.as_ref().map(|k| k.0), spec.as_deref());
        let mode = config.mode;

        for rule in config.rules.deny.iter().filter(|r| rule_applies(r, call.name)) {
            if self.matches_any_part(rule, kind.as_ref().map(|k| k.0), spec.as_deref()) {
                return self.verdict(Decision::Deny, DecisionSource::DenyRule(rule.clone()), grant);
            }
        }
        if mode == PermissionMode::Plan && !call.is_read_only() {
            return self.verdict(Decision::Deny, DecisionSource::Mode(mode), grant);
        }
        let grants = self.session_grants();
        let cwd = WORKING_DIR_FIELDS.iter().find_map(|f| call.input.get(*f).and_then(Value::as_str));
        if let Some(rule) =
            self.allowed_by(&config, &grants, call.name, kind.as_ref().map(|k| k.0), spec.as_deref(), cwd)
        {
            return self.verdict(Decision::Allow, DecisionSource::SessionGrant(rule), grant);
        }
        if let Some(rule) = self.allowed_by(
            &config,
            &config.rules.allow,
            call.name,
            kind.as_ref().map(|k| k.0),
            spec.as_deref(),
            cwd,
        ) {
            return self.verdict(Decision::Allow, DecisionSource::AllowRule(rule), grant);
        }
        for rule in config.rules.ask.iter().filter(|r| rule_applies(r, call.name)) {
            if self.matches_any_part(rule, kind.as_ref().map(|k| k.0), spec.as_deref()) {
                let decision = match mode {
                    PermissionMode::BypassPermissions => Decision::Allow,
                    PermissionMode::DontAsk => Decision::Deny,
                    _ => Decision::Ask,
                };
                return self.verdict(decision, DecisionSource::AskRule(rule.clone()), grant);
            }
        }
        let decision = match mode {
            PermissionMode::BypassPermissions => Decision::Allow,
            PermissionMode::DontAsk => Decision::Deny,
            PermissionMode::Plan => Decision::Allow,
            PermissionMode::Default | PermissionMode::AcceptEdits if call.is_read_only() => Decision::Allow,
            PermissionMode::AcceptEdits if call.is_edit() => Decision::Allow,
            PermissionMode::Default | PermissionMode::AcceptEdits => Decision::Ask,
        };
        self.verdict(decision, DecisionSource::Mode(mode), grant)
    }

    fn verdict(&self, decision: Decision, source: DecisionSource, grant: Option<Rule>) -> Evaluation {
        Evaluation { decision, source, grant }
    }

    /// Deny / ask matching: the whole input or any part of it (any shell segment or
    /// substitution; the lexical or the resolved path). Fails closed: a rule with a
    /// specifier matches when the specifier cannot be read.
    fn matches_any_part(&self, rule: &Rule, kind: Option<SpecifierKind>, spec: Option<&str>) -> bool {
        let Some(pattern) = rule.specifier() else { return true };
        let (Some(kind), Some(value)) = (kind, spec) else { return true };
        match kind {
            SpecifierKind::Command => {
                command_matches(pattern, value)
                    || all_segments(value).iter().any(|s| command_matches(pattern, s))
            }
            SpecifierKind::Path => {
                let CallPath { lexical, resolved } = self.base.call_path(value);
                self.base.path_matches(pattern, &lexical) || self.base.path_matches(pattern, &resolved)
            }
            SpecifierKind::Url => url_matches(pattern, value),
            SpecifierKind::Plain => wildcard(pattern, value),
        }
    }

    /// Allow matching: a rule without specifier; for Bash, the identical literal command, or
    /// (without substitution) every segment matched by some rule and every file its output
    /// redirections write allowed as a write ([`Self::writes_allowed`]); for paths, the
    /// resolved path; for URLs the real host.
    fn allowed_by(
        &self,
        config: &PermissionConfig,
        rules: &[Rule],
        tool: &str,
        kind: Option<SpecifierKind>,
        spec: Option<&str>,
        cwd: Option<&str>,
    ) -> Option<Rule> {
        let rules: Vec<&Rule> = rules.iter().filter(|r| rule_applies(r, tool)).collect();
        if let Some(r) = rules.iter().find(|r| r.specifier().is_none()) {
            return Some((*r).clone());
        }
        let (Some(kind), Some(value)) = (kind, spec) else { return None };
        let with_spec = rules.iter().filter_map(|r| r.specifier().map(|s| (*r, s)));
        match kind {
            SpecifierKind::Command => {
                let specs: Vec<(&Rule, &str)> = with_spec.collect();
                if let Some((r, _)) = specs.iter().find(|(_, p)| is_literal(p) && command_matches(p, value)) {
                    return Some((*r).clone());
                }
                let parsed = split_command(value);
                if parsed.has_substitution || parsed.segments.is_empty() {
                    return None;
                }
                let mut first = None;
                for segment in &parsed.segments {
                    let (r, _) = specs.iter().find(|(_, p)| command_matches(p, segment))?;
                    first.get_or_insert(*r);
                }
                if !self.writes_allowed(config, &parsed, cwd) {
                    return None;
                }
                first.cloned()
            }
            SpecifierKind::Path => {
                let resolved = self.base.call_path(value).resolved;
                with_spec
                    .into_iter()
                    .find(|(_, p)| self.base.path_matches(p, &resolved))
                    .map(|(r, _)| r.clone())
            }
            SpecifierKind::Url => {
                with_spec.into_iter().find(|(_, p)| url_matches(p, value)).map(|(r, _)| r.clone())
            }
            SpecifierKind::Plain => {
                with_spec.into_iter().find(|(_, p)| wildcard(p, value)).map(|(r, _)| r.clone())
            }
        }
    }

    /// Whether every file `command`'s output redirections write could be written by the
    /// Write tool without asking: `/dev/null`-like targets always; otherwise a literal path
    /// (nothing the shell expands; relative only when no segment changes directory, and then
    /// taken from `cwd`, the tool's working directory, when the call names one) that resolves
    /// inside the root and that the deny, allow and ask rules and the mode allow as a `Write`
    /// of that path.
    fn writes_allowed(&self, config: &PermissionConfig, command: &ShellCommand, cwd: Option<&str>) -> bool {
        let moves = command
            .segments
            .iter()
            .flat_map(|s| effective_commands(s))
            .any(|c| c.split_whitespace().next().is_some_and(|w| DIRECTORY_CHANGERS.contains(&w)));
        command.writes.iter().all(|target| {
            let path = target.path.as_str();
            let absolute = Path::new(path).is_absolute();
            let landing = match cwd {
                Some(dir) if !absolute => Path::new(dir).join(path).to_string_lossy().into_owned(),
                _ => path.to_string(),
            };
            target.literal
                && (HARMLESS_TARGETS.contains(&path)
                    || ((!moves || absolute) && self.write_allowed(config, &landing)))
        })
    }

    /// Whether a `Write` of `path` inside the root would be allowed without asking.
    fn write_allowed(&self, config: &PermissionConfig, path: &str) -> bool {
        const TOOL: &str = "Write";
        let (kind, spec) = (Some(SpecifierKind::Path), Some(path));
        if !self.base.call_path(path).resolved.starts_with(&self.base.root) {
            return false;
        }
        let applying = |rules: &[Rule]| -> Vec<Rule> {
            rules.iter().filter(|r| rule_applies(r, TOOL)).cloned().collect()
        };
        if applying(&config.rules.deny).iter().any(|r| self.matches_any_part(r, kind, spec)) {
            return false;
        }
        if self.allowed_by(config, &self.session_grants(), TOOL, kind, spec, None).is_some()
            || self.allowed_by(config, &config.rules.allow, TOOL, kind, spec, None).is_some()
        {
            return true;
        }
        if applying(&config.rules.ask).iter().any(|r| self.matches_any_part(r, kind, spec)) {
            return false;
        }
        matches!(config.mode, PermissionMode::AcceptEdits | PermissionMode::BypassPermissions)
    }

    /// The exact rule a session approval grants.
    fn suggest_grant(&self, tool: &str, kind: Option<SpecifierKind>, spec: Option<&str>) -> Option<Rule> {
        let specifier = match (kind, spec) {
            (Some(SpecifierKind::Command | SpecifierKind::Plain), Some(v)) if !v.contains('*') => {
                Some(v.to_string())
            }
            (Some(SpecifierKind::Path), Some(v)) => {
                let resolved = self.base.call_path(v).resolved;
                let text = resolved.to_string_lossy();
                Some(format!("/{}", globset::escape(&text)))
            }
            (Some(SpecifierKind::Url), Some(v)) => url_host(v).map(|h| format!("domain:{h}")),
            (Some(_), _) => return None,
            (None, _) => None,
        };
        Rule::new(escape_tool(tool), specifier).ok()
    }
}

/// Every command a command line may run: each segment (and what its wrappers or `sh -c`
/// run) and, recursively, the segments of its substitutions.
fn all_segments(command: &str) -> Vec<String> {
    let parsed = split_command(command);
    let mut out: Vec<String> = parsed.segments.iter().flat_map(|s| effective_commands(s)).collect();
    for body in &parsed.substitutions {
        out.extend(all_segments(body));
    }
    out
}

fn escape_tool(tool: &str) -> String {
    globset::escape(tool)
}
