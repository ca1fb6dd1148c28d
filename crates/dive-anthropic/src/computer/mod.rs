//! Computer use: [`ComputerUse`] declares Anthropic's computer tool family over a
//! [`Computer`] you implement (the screen, mouse and keyboard of a desktop, VM or container).
//!
//! The default version is the computer toolset (`computer_toolset_20260801`, no beta header):
//! one `tools[]` entry standing for seventeen member tools (`screenshot`, `left_click`, `type`,
//! …), each a tool of its own in the agent, so permission rules and hooks apply per member
//! (`type`, `key` and `hold_key` send keystrokes to whatever has focus: ask before them). The
//! dated single tools `computer_20251124` and `computer_20250124` (beta headers
//! `computer-use-2025-11-24`, `computer-use-2025-01-24`, for models before the toolset) are one
//! tool `computer` with an `action`, over the same [`Computer`]. A computer action halts its
//! batch: actions run one at a time, in order, and after a failed one the rest are skipped.

mod member;
mod tool;

use std::sync::Arc;

use dive_core::{BoxFuture, DeclarationError, DeclaredToolset, Tool, ToolContext, ToolError};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

pub use member::ComputerMember;

use crate::toolset::declare;
use tool::{MemberTool, SingleTool};

/// The toolset name: the `toolset_name` Anthropic puts on member calls.
pub const COMPUTER_TOOLSET: &str = "computer";
/// The computer toolset's `tools[]` type.
pub const COMPUTER_TOOLSET_TYPE: &str = "computer_toolset_20260801";

/// Which version of the computer tool family to declare.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum ComputerVersion {
    /// `computer_toolset_20260801`: member tools, no beta header, no display fields
    /// (coordinates are screenshot pixels). The models of 2026 take only this one.
    #[default]
    Toolset20260801,
    /// `computer_20251124` (beta `computer-use-2025-11-24`): one `computer` tool with an
    /// `action`, zoom included; needs a [`Display`].
    Computer20251124,
    /// `computer_20250124` (beta `computer-use-2025-01-24`): one `computer` tool, no zoom;
    /// needs a [`Display`].
    Computer20250124,
}

impl ComputerVersion {
    /// The `tools[]` type.
    #[must_use]
    pub fn tool_type(self) -> &'static str {
        match self {
            Self::Toolset20260801 => COMPUTER_TOOLSET_TYPE,
            Self::Computer20251124 => "computer_20251124",
            Self::Computer20250124 => "computer_20250124",
        }
    }

    /// The `anthropic-beta` value the version needs, if any.
    #[must_use]
    pub fn beta(self) -> Option<&'static str> {
        match self {
            Self::Toolset20260801 => None,
            Self::Computer20251124 => Some("computer-use-2025-11-24"),
            Self::Computer20250124 => Some("computer-use-2025-01-24"),
        }
    }

    /// Whether the version offers `member`.
    #[must_use]
    pub fn offers(self, member: ComputerMember) -> bool {
        self != Self::Computer20250124 || member != ComputerMember::Zoom
    }
}

/// The display a dated single computer tool declares (`display_width_px`,
/// `display_height_px`, `display_number`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Display {
    /// Width in pixels.
    pub width_px: u32,
    /// Height in pixels.
    pub height_px: u32,
    /// The X11 display number, if any.
    pub number: Option<u32>,
}

impl Display {
    /// A display of this size.
    #[must_use]
    pub fn new(width_px: u32, height_px: u32) -> Self {
        Self { width_px, height_px, number: None }
    }

    /// Sets the X11 display number.
    #[must_use]
    pub fn with_number(mut self, number: u32) -> Self {
        self.number = Some(number);
        self
    }
}

/// A scroll direction.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum ScrollDirection {
    /// Up.
    Up,
    /// Down.
    Down,
    /// Left.
    Left,
    /// Right.
    Right,
}

impl ScrollDirection {
    /// The wire value.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Up => "up",
            Self::Down => "down",
            Self::Left => "left",
            Self::Right => "right",
        }
    }
}

/// The input of one action; which fields are set depends on the [`ComputerMember`] (its
/// required ones are checked before your [`Computer`] sees the action).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ComputerInput {
    /// `(x, y)` in screenshot pixels.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub coordinate: Option<[i64; 2]>,
    /// Where a drag starts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start_coordinate: Option<[i64; 2]>,
    /// The text to type, the key to press, or the keys to hold during a click or scroll.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// How many times to press a key.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repeat: Option<u32>,
    /// Seconds to wait or to hold a key.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration: Option<u32>,
    /// Notches to scroll.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scroll_amount: Option<u32>,
    /// The scroll direction.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scroll_direction: Option<ScrollDirection>,
    /// `[x0, y0, x1, y1]`: the region a zoom shows.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub region: Option<[i64; 4]>,
}

/// One action the model asked for.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ComputerAction {
    /// What to do.
    pub member: ComputerMember,
    /// With what.
    pub input: ComputerInput,
}

/// What an action produced.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ComputerOutput {
    /// Done; an optional line for the model after the fixed acknowledgment (`Clicked.`).
    Done(Option<String>),
    /// An image (screenshot, zoom): base64 data and its media type.
    Image {
        /// `image/png`, `image/jpeg`, …
        media_type: String,
        /// Base64 data.
        data: String,
    },
    /// The cursor position, in screenshot pixels.
    Cursor {
        /// x.
        x: i64,
        /// y.
        y: i64,
    },
}

impl ComputerOutput {
    /// Done, nothing to add.
    #[must_use]
    pub fn done() -> Self {
        Self::Done(None)
    }

    /// A PNG screenshot (base64).
    #[must_use]
    pub fn png(data: impl Into<String>) -> Self {
        Self::Image { media_type: "image/png".into(), data: data.into() }
    }
}

/// The machine a computer-use agent drives. Implement [`run`](Self::run) for the actions your
/// backend supports and list them in [`members`](Self::members): the others are switched off
/// in the declaration, so the model is never offered them.
///
/// ```
/// use dive_anthropic::{Computer, ComputerAction, ComputerMember, ComputerOutput};
/// use dive_core::{BoxFuture, ToolContext, ToolError};
///
/// struct Screen;
/// impl Computer for Screen {
///     fn members(&self) -> Vec<ComputerMember> {
///         vec![ComputerMember::Screenshot, ComputerMember::LeftClick]
///     }
///     fn run(&self, action: ComputerAction, _ctx: ToolContext) -> BoxFuture<'_, Result<ComputerOutput, ToolError>> {
///         Box::pin(async move {
///             Ok(match action.member {
///                 ComputerMember::Screenshot => ComputerOutput::png("iVBORw0KGgo="),
///                 _ => ComputerOutput::done(),
///             })
///         })
///     }
/// }
/// ```
pub trait Computer: Send + Sync {
    /// The actions this computer performs (default: all of them).
    fn members(&self) -> Vec<ComputerMember> {
        ComputerMember::ALL.to_vec()
    }

    /// Performs one action. Return `Err` for a failure: the model reads it as an error result,
    /// and the later actions of the batch are skipped.
    fn run(
        &self,
        action: ComputerAction,
        ctx: ToolContext,
    ) -> BoxFuture<'_, Result<ComputerOutput, ToolError>>;
}

/// Why a [`ComputerUse`] could not be declared.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ComputerUseError {
    /// A dated single tool needs the display size.
    #[error("{version} needs the display size: call ComputerUse::with_display(Display::new(width, height))")]
    MissingDisplay {
        /// The tool type.
        version: &'static str,
    },
    /// The computer performs none of the version's actions.
    #[error("the computer performs none of the actions {version} offers: list them in Computer::members")]
    NoMembers {
        /// The tool type.
        version: &'static str,
    },
    /// The members did not make a toolset.
    #[error(transparent)]
    Declaration(#[from] DeclarationError),
}

/// Anthropic's computer use over a [`Computer`]: a provider-defined toolset to add to an agent
/// (`Agent::builder().toolset(ComputerUse::new(screen).build()?)`).
///
/// ```
/// # use dive_anthropic::{Computer, ComputerAction, ComputerOutput};
/// # use dive_core::{BoxFuture, ToolContext, ToolError};
/// # struct Screen;
/// # impl Computer for Screen {
/// #     fn run(&self, _a: ComputerAction, _c: ToolContext) -> BoxFuture<'_, Result<ComputerOutput, ToolError>> {
/// #         Box::pin(async { Ok(ComputerOutput::done()) })
/// #     }
/// # }
/// use dive_anthropic::{ComputerUse, ComputerVersion, Display};
/// use dive_core::Toolset;
/// let toolset = ComputerUse::new(Screen).build().unwrap();
/// let decl = toolset.declaration().unwrap();
/// assert_eq!((decl.toolset.as_str(), decl.members.len()), ("computer", 17));
/// assert_eq!(decl.payload("anthropic").unwrap()["tools"][0]["type"], "computer_toolset_20260801");
///
/// let legacy = ComputerUse::new(Screen)
///     .with_version(ComputerVersion::Computer20251124)
///     .with_display(Display::new(1280, 800))
///     .build()
///     .unwrap();
/// assert_eq!(legacy.declaration().unwrap().members, ["computer"]);
/// ```
pub struct ComputerUse {
    computer: Arc<dyn Computer>,
    version: ComputerVersion,
    display: Option<Display>,
}

impl std::fmt::Debug for ComputerUse {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ComputerUse")
            .field("version", &self.version)
            .field("display", &self.display)
            .finish_non_exhaustive()
    }
}

impl ComputerUse {
    /// Computer use over `computer`, as the computer toolset.
    #[must_use]
    pub fn new(computer: impl Computer + 'static) -> Self {
        Self::shared(Arc::new(computer))
    }

    /// Computer use over a computer already shared.
    #[must_use]
    pub fn shared(computer: Arc<dyn Computer>) -> Self {
        Self { computer, version: ComputerVersion::default(), display: None }
    }

    /// Declares another version.
    #[must_use]
    pub fn with_version(mut self, version: ComputerVersion) -> Self {
        self.version = version;
        self
    }

    /// The display (required by the dated single tools; the toolset takes none).
    #[must_use]
    pub fn with_display(mut self, display: Display) -> Self {
        self.display = Some(display);
        self
    }

    /// The toolset: its member tools and the declaration Anthropic sends in their place.
    ///
    /// # Errors
    /// [`ComputerUseError`]: a dated single tool without a display, or no action to offer.
    pub fn build(self) -> Result<DeclaredToolset, ComputerUseError> {
        let version = self.version;
        let served: Vec<ComputerMember> = {
            let listed = self.computer.members();
            ComputerMember::ALL.into_iter().filter(|m| listed.contains(m) && version.offers(*m)).collect()
        };
        if served.is_empty() {
            return Err(ComputerUseError::NoMembers { version: version.tool_type() });
        }
        let betas: Vec<&'static str> = version.beta().into_iter().collect();
        if version == ComputerVersion::Toolset20260801 {
            let mut entry = json!({"type": COMPUTER_TOOLSET_TYPE});
            let off: Map<String, Value> = ComputerMember::ALL
                .into_iter()
                .filter(|m| !served.contains(m))
                .map(|m| (m.as_str().to_owned(), json!({"enabled": false})))
                .collect();
            if !off.is_empty() {
                entry["configs"] = Value::Object(off);
            }
            let tools: Vec<Arc<dyn Tool>> = served
                .iter()
                .map(|m| Arc::new(MemberTool::new(*m, Arc::clone(&self.computer))) as Arc<dyn Tool>)
                .collect();
            let names = served.iter().map(|m| m.as_str());
            return Ok(DeclaredToolset::new(declare(COMPUTER_TOOLSET, names, vec![entry], betas), tools)?);
        }
        let display =
            self.display.ok_or(ComputerUseError::MissingDisplay { version: version.tool_type() })?;
        let mut entry = json!({
            "type": version.tool_type(),
            "name": tool::SINGLE_TOOL_NAME,
            "display_width_px": display.width_px,
            "display_height_px": display.height_px,
        });
        if let Some(n) = display.number {
            entry["display_number"] = json!(n);
        }
        if version == ComputerVersion::Computer20251124 {
            entry["enable_zoom"] = json!(served.contains(&ComputerMember::Zoom));
        }
        let single: Arc<dyn Tool> = Arc::new(SingleTool::new(served, self.computer));
        let decl = declare(COMPUTER_TOOLSET, [tool::SINGLE_TOOL_NAME], vec![entry], betas);
        Ok(DeclaredToolset::new(decl, vec![single])?)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use dive_core::Toolset;

    struct Clicks;
    impl Computer for Clicks {
        fn members(&self) -> Vec<ComputerMember> {
            vec![ComputerMember::Screenshot, ComputerMember::LeftClick, ComputerMember::Zoom]
        }
        fn run(
            &self,
            _a: ComputerAction,
            _c: ToolContext,
        ) -> BoxFuture<'_, Result<ComputerOutput, ToolError>> {
            Box::pin(async { Ok(ComputerOutput::done()) })
        }
    }

    #[test]
    fn members_not_served_are_switched_off_and_not_declared() {
        let set = ComputerUse::new(Clicks).build().unwrap();
        let decl = set.declaration().unwrap();
        assert_eq!(decl.members, ["left_click", "screenshot", "zoom"]);
        let entry = &decl.payload("anthropic").unwrap()["tools"][0];
        let configs = entry["configs"].as_object().unwrap();
        assert_eq!(configs.len(), 14);
        assert_eq!(configs["type"], json!({"enabled": false}));
        assert!(!configs.contains_key("screenshot"));
        assert!(decl.payload("anthropic").unwrap().get("betas").is_none(), "the toolset needs no beta");
    }

    #[test]
    fn a_dated_tool_needs_a_display_and_its_beta() {
        let err =
            ComputerUse::new(Clicks).with_version(ComputerVersion::Computer20250124).build().unwrap_err();
        assert!(matches!(err, ComputerUseError::MissingDisplay { version: "computer_20250124" }));
        let set = ComputerUse::new(Clicks)
            .with_version(ComputerVersion::Computer20250124)
            .with_display(Display::new(1024, 768).with_number(1))
            .build()
            .unwrap();
        let payload = set.declaration().unwrap().payload("anthropic").unwrap().clone();
        assert_eq!(
            payload,
            json!({"tools": [{"type": "computer_20250124", "name": "computer", "display_width_px": 1024,
                              "display_height_px": 768, "display_number": 1}],
                   "betas": ["computer-use-2025-01-24"]})
        );
        let schema = set.tools()[0].input_schema();
        let actions = schema["properties"]["action"]["enum"].as_array().unwrap();
        assert_eq!(actions.len(), 2, "zoom is not a computer_20250124 action: {actions:?}");
    }
}
