//! [`ComputerMember`]: the seventeen actions of Anthropic's computer tool family (the member
//! tools of `computer_toolset_20260801`, the `action` values of the dated single tools), with
//! the input schema each is checked against and the acknowledgment the model reads.

use serde_json::{Map, Value, json};

use super::ComputerInput;

/// One action of the computer tool family: a member tool of the computer toolset (named as
/// [`as_str`](Self::as_str) returns), or an `action` of a dated single computer tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum ComputerMember {
    /// Press a key or key combination (`text`, optional `repeat`).
    Key,
    /// Hold a key for `duration` seconds (`text`, `duration`).
    HoldKey,
    /// Type a string (`text`).
    Type,
    /// Report the cursor position.
    CursorPosition,
    /// Move the mouse to `coordinate`.
    MouseMove,
    /// Press the left mouse button.
    LeftMouseDown,
    /// Release the left mouse button.
    LeftMouseUp,
    /// Left-click (at `coordinate`, or where the cursor is).
    LeftClick,
    /// Drag from `start_coordinate` to `coordinate`.
    LeftClickDrag,
    /// Right-click.
    RightClick,
    /// Middle-click.
    MiddleClick,
    /// Double-click.
    DoubleClick,
    /// Triple-click.
    TripleClick,
    /// Scroll `scroll_amount` notches in `scroll_direction`.
    Scroll,
    /// Wait `duration` seconds.
    Wait,
    /// Take a screenshot.
    Screenshot,
    /// A zoomed screenshot of `region` (`[x0, y0, x1, y1]`).
    Zoom,
}

impl ComputerMember {
    /// Every member, in the API's order.
    pub const ALL: [ComputerMember; 17] = [
        Self::Key,
        Self::HoldKey,
        Self::Type,
        Self::CursorPosition,
        Self::MouseMove,
        Self::LeftMouseDown,
        Self::LeftMouseUp,
        Self::LeftClick,
        Self::LeftClickDrag,
        Self::RightClick,
        Self::MiddleClick,
        Self::DoubleClick,
        Self::TripleClick,
        Self::Scroll,
        Self::Wait,
        Self::Screenshot,
        Self::Zoom,
    ];

    /// The member's name on the wire (the member tool's name, the single tool's `action`).
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Key => "key",
            Self::HoldKey => "hold_key",
            Self::Type => "type",
            Self::CursorPosition => "cursor_position",
            Self::MouseMove => "mouse_move",
            Self::LeftMouseDown => "left_mouse_down",
            Self::LeftMouseUp => "left_mouse_up",
            Self::LeftClick => "left_click",
            Self::LeftClickDrag => "left_click_drag",
            Self::RightClick => "right_click",
            Self::MiddleClick => "middle_click",
            Self::DoubleClick => "double_click",
            Self::TripleClick => "triple_click",
            Self::Scroll => "scroll",
            Self::Wait => "wait",
            Self::Screenshot => "screenshot",
            Self::Zoom => "zoom",
        }
    }

    /// The member of this wire name.
    #[must_use]
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|m| m.as_str() == name)
    }

    /// Whether the action only looks (screenshot, zoom, cursor position, wait).
    #[must_use]
    pub fn is_read_only(self) -> bool {
        matches!(self, Self::Screenshot | Self::Zoom | Self::CursorPosition | Self::Wait)
    }

    /// Whether the action answers with an image.
    #[must_use]
    pub fn returns_image(self) -> bool {
        matches!(self, Self::Screenshot | Self::Zoom)
    }

    pub(crate) fn description(self) -> &'static str {
        match self {
            Self::Key => "Press a key or key combination (xdotool syntax, e.g. ctrl+s).",
            Self::HoldKey => "Hold a key down for a number of seconds.",
            Self::Type => "Type a string of text on the keyboard.",
            Self::CursorPosition => "Report the mouse cursor's (x, y) position.",
            Self::MouseMove => "Move the mouse cursor to a coordinate.",
            Self::LeftMouseDown => "Press the left mouse button.",
            Self::LeftMouseUp => "Release the left mouse button.",
            Self::LeftClick => "Left-click at a coordinate, or where the cursor is.",
            Self::LeftClickDrag => "Drag with the left button from one coordinate to another.",
            Self::RightClick => "Right-click at a coordinate, or where the cursor is.",
            Self::MiddleClick => "Middle-click at a coordinate, or where the cursor is.",
            Self::DoubleClick => "Double-click at a coordinate, or where the cursor is.",
            Self::TripleClick => "Triple-click at a coordinate, or where the cursor is.",
            Self::Scroll => "Scroll in a direction by a number of notches.",
            Self::Wait => "Wait a number of seconds.",
            Self::Screenshot => "Take a screenshot of the screen.",
            Self::Zoom => "Take a zoomed-in screenshot of a region of the screen.",
        }
    }

    /// The input fields of the member: (name, required).
    fn fields(self) -> &'static [(&'static str, bool)] {
        const CLICK: &[(&str, bool)] = &[("coordinate", false), ("text", false)];
        match self {
            Self::Key => &[("text", true), ("repeat", false)],
            Self::HoldKey => &[("text", true), ("duration", true)],
            Self::Type => &[("text", true)],
            Self::MouseMove => &[("coordinate", true)],
            Self::LeftClick
            | Self::RightClick
            | Self::MiddleClick
            | Self::DoubleClick
            | Self::TripleClick => CLICK,
            Self::LeftClickDrag => &[("start_coordinate", true), ("coordinate", true), ("text", false)],
            Self::Scroll => {
                &[("scroll_direction", true), ("scroll_amount", true), ("coordinate", false), ("text", false)]
            }
            Self::Wait => &[("duration", true)],
            Self::Zoom => &[("region", true)],
            Self::CursorPosition | Self::LeftMouseDown | Self::LeftMouseUp | Self::Screenshot => &[],
        }
    }

    /// The JSON Schema a call's input is checked against before it runs.
    pub(crate) fn input_schema(self) -> Value {
        let mut properties = Map::new();
        let mut required = Vec::new();
        for (name, needed) in self.fields() {
            properties.insert((*name).to_owned(), field_schema(self, name));
            if *needed {
                required.push(json!(name));
            }
        }
        json!({"type": "object", "properties": properties, "required": required})
    }

    /// What the model reads after an action that returns no image or position.
    pub(crate) fn acknowledgment(self, input: &ComputerInput) -> String {
        let text = input.text.as_deref().unwrap_or("");
        let secs = input.duration.unwrap_or(0);
        match self {
            Self::Key => format!("Pressed {text}."),
            Self::HoldKey => format!("Held {text} for {secs}s."),
            Self::Type => "Typed.".to_owned(),
            Self::MouseMove => "Moved the mouse.".to_owned(),
            Self::LeftMouseDown => "Pressed the left mouse button.".to_owned(),
            Self::LeftMouseUp => "Released the left mouse button.".to_owned(),
            Self::LeftClick => "Clicked.".to_owned(),
            Self::LeftClickDrag => "Dragged.".to_owned(),
            Self::RightClick => "Right-clicked.".to_owned(),
            Self::MiddleClick => "Middle-clicked.".to_owned(),
            Self::DoubleClick => "Double-clicked.".to_owned(),
            Self::TripleClick => "Triple-clicked.".to_owned(),
            Self::Scroll => format!("Scrolled {}.", input.scroll_direction.map_or("", |d| d.as_str())),
            Self::Wait => format!("Waited {secs}s."),
            Self::CursorPosition | Self::Screenshot | Self::Zoom => "Done.".to_owned(),
        }
    }
}

fn field_schema(member: ComputerMember, name: &str) -> Value {
    let point = |description: &str| {
        json!({"type": "array", "items": {"type": "integer"}, "minItems": 2, "maxItems": 2,
               "description": description})
    };
    match name {
        "coordinate" => point("(x, y): pixels from the left and top edges of the screenshot."),
        "start_coordinate" => point("(x, y) where the drag starts."),
        "region" => json!({"type": "array", "items": {"type": "integer"}, "minItems": 4, "maxItems": 4,
                           "description": "[x0, y0, x1, y1]: the region's top-left and bottom-right corners."}),
        "text" => match member {
            ComputerMember::Type => json!({"type": "string", "description": "The text to type."}),
            ComputerMember::Key | ComputerMember::HoldKey => {
                json!({"type": "string", "description": "The key or combination, e.g. \"Return\" or \"ctrl+s\"."})
            }
            _ => json!({"type": "string", "description": "Keys to hold during the action, e.g. \"shift\"."}),
        },
        "repeat" => json!({"type": "integer", "minimum": 1, "description": "How many times to press it."}),
        "duration" => json!({"type": "integer", "minimum": 0, "description": "Seconds."}),
        "scroll_amount" => json!({"type": "integer", "minimum": 0, "description": "Notches to scroll."}),
        "scroll_direction" => json!({"type": "string", "enum": ["up", "down", "left", "right"]}),
        _ => json!({}),
    }
}

/// The input schema of a dated single computer tool: `action` (one of `actions`) and every
/// field any action takes, each optional (the action's own required fields are checked when
/// it runs).
pub(crate) fn single_tool_schema(actions: &[ComputerMember]) -> Value {
    let mut properties = Map::new();
    let names: Vec<&str> = actions.iter().map(|m| m.as_str()).collect();
    properties.insert("action".into(), json!({"type": "string", "enum": names}));
    for member in actions {
        for (name, _) in member.fields() {
            properties.entry((*name).to_owned()).or_insert_with(|| field_schema(*member, name));
        }
    }
    json!({"type": "object", "properties": properties, "required": ["action"]})
}

/// The fields `member` requires that `input` lacks.
pub(crate) fn missing_fields(member: ComputerMember, input: &Value) -> Vec<&'static str> {
    member
        .fields()
        .iter()
        .filter(|(name, needed)| *needed && input.get(*name).is_none_or(Value::is_null))
        .map(|(name, _)| *name)
        .collect()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn names_round_trip_and_schemas_require_what_the_member_needs() {
        for m in ComputerMember::ALL {
            assert_eq!(ComputerMember::from_name(m.as_str()), Some(m));
        }
        let drag = ComputerMember::LeftClickDrag.input_schema();
        assert_eq!(drag["required"], json!(["start_coordinate", "coordinate"]));
        assert_eq!(ComputerMember::Screenshot.input_schema()["required"], json!([]));
        let single = single_tool_schema(&ComputerMember::ALL);
        assert_eq!(single["properties"]["action"]["enum"].as_array().unwrap().len(), 17);
        assert_eq!(missing_fields(ComputerMember::Type, &json!({"action": "type"})), vec!["text"]);
    }
}
