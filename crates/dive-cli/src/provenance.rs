//! Where each setting came from, for `/status`: a flag, the environment, the project's
//! `.env`, a settings file, or the default. Key values are never shown, only where they are.

use std::collections::BTreeMap;
use std::sync::Arc;

use clap::ArgMatches;
use clap::parser::ValueSource;

use crate::env_file::EnvFile;
use crate::setup::Setup;

/// How an argument got its value, from clap.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ArgSource {
    Flag,
    Env,
}

/// The sources of the arguments and the `.env` that was read.
#[derive(Default)]
pub struct Provenance {
    env: Arc<EnvFile>,
    args: BTreeMap<&'static str, ArgSource>,
}

/// `(argument id, its environment variable)` of the arguments `/status` reports.
const ARGS: [(&str, Option<&str>); 5] = [
    ("model", Some("DIVE_MODEL")),
    ("session_dir", Some("DIVE_SESSION_DIR")),
    ("workspace", None),
    ("permission_mode", None),
    ("dangerously_skip_permissions", None),
];

impl Provenance {
    /// Records where clap took each argument from.
    pub fn new(env: Arc<EnvFile>, matches: &ArgMatches) -> Self {
        let args = ARGS
            .iter()
            .filter_map(|(id, _)| match matches.value_source(id) {
                Some(ValueSource::CommandLine) => Some((*id, ArgSource::Flag)),
                Some(ValueSource::EnvVariable) => Some((*id, ArgSource::Env)),
                _ => None,
            })
            .collect();
        Self { env, args }
    }

    fn arg(&self, id: &str, flag: &str, otherwise: &str) -> String {
        let var = ARGS.iter().find(|(a, _)| *a == id).and_then(|(_, v)| *v);
        match (self.args.get(id), var) {
            (Some(ArgSource::Flag), _) => format!("flag {flag}"),
            (Some(ArgSource::Env), Some(var)) => {
                format!("{var} from {}", self.env.origin(var).unwrap_or_else(|| "the environment".into()))
            }
            _ => otherwise.to_owned(),
        }
    }

    /// The `/status` lines for `setup`.
    pub fn status(&self, setup: &Setup) -> Vec<String> {
        let settings = crate::cli_settings::load_from_env(&setup.workspace, setup.trusted).ok();
        let vendor = dive::vendors().into_iter().find(|v| v.name == setup.model.llm.provider());
        let model_origin = if setup.model.offline && !self.args.contains_key("model") {
            "no key found".to_owned()
        } else if let Some(file) = settings_file(settings.as_ref(), &["model"])
            && !self.args.contains_key("model")
        {
            format!("settings file {file}")
        } else {
            let picked = vendor.and_then(|v| v.key_env).map_or_else(
                || "the first provider with a key".to_owned(),
                |k| format!("picked because {k} is set"),
            );
            self.arg("model", "--model", &picked)
        };
        let mut lines = vec![format!("model {} ({model_origin})", setup.model.label)];
        if let Some(vendor) = vendor.filter(|_| !setup.model.offline) {
            if let Some(key) = vendor.key_env {
                let from = self.env.origin(key).unwrap_or_else(|| "not set".into());
                lines.push(format!("  key {key} from {from}"));
            }
            let url = vendor.base_url_env;
            let ignored = self.env.ignored.iter().any(|i| i.var == url);
            let line = match (std::env::var(url).ok().filter(|v| !v.trim().is_empty()), ignored) {
                (Some(value), _) => {
                    format!("  endpoint {value} ({url} from {})", self.env.origin(url).unwrap_or_default())
                }
                (None, true) => format!("  endpoint the provider's default ({url} from .env was ignored)"),
                (None, false) => "  endpoint the provider's default".to_owned(),
            };
            lines.push(line);
        }
        lines.push(format!("session {}", setup.session.id()));
        lines.push(format!(
            "session directory {} ({})",
            setup.guard.keeper.dir().display(),
            self.arg("session_dir", "--session-dir", "default")
        ));
        lines.push(format!(
            "workspace {} ({})",
            setup.workspace.display(),
            self.arg("workspace", "--workspace", "the current directory")
        ));
        let mode_origin = if self.args.contains_key("permission_mode") {
            "flag --permission-mode".to_owned()
        } else if self.args.contains_key("dangerously_skip_permissions") {
            "flag --dangerously-skip-permissions".to_owned()
        } else if let Some(file) = settings_file(settings.as_ref(), &["permissions", "defaultMode"]) {
            format!("settings file {file}")
        } else {
            "default".to_owned()
        };
        lines.push(format!("permission mode {} ({mode_origin})", setup.manager.mode()));
        if let Some(path) = &self.env.path {
            lines.push(format!("project .env {}", path.display()));
        }
        lines
    }
}

/// The settings file with the highest precedence that sets the key at `path`.
fn settings_file(settings: Option<&crate::cli_settings::CliSettings>, path: &[&str]) -> Option<String> {
    settings?
        .settings
        .files
        .iter()
        .rev()
        .find(|f| path.iter().try_fold(&f.value, |v, key| v.get(key)).is_some())
        .map(|f| f.path.display().to_string())
}
