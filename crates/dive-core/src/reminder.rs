//! Reminders: typed runtime context for the model.
//!
//! A [`Reminder`] is stored in history as a `reminder` content block and rendered by each
//! provider at the edge: as a `<system-reminder name="…">…</system-reminder>` user text block,
//! or, for operator-tier reminders on endpoints that support it, as a native `system` or
//! `developer` role message. [`render_reminders`] does the rewriting for a provider.

use std::borrow::Cow;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::message::{Content, Message, Role};

/// Whose authority a reminder carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum ReminderTier {
    /// Context adjacent to the user's input (the default).
    #[default]
    Contextual,
    /// The application's (operator's) authority.
    Operator,
}

/// Whether a reminder enters the recorded history or is sent to the model once.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum ReminderDelivery {
    /// Saved with the turn; every later call sees it.
    #[default]
    Recorded,
    /// Sent with the next model call only, never saved.
    ModelOnly,
}

/// A typed reminder. Names match `[a-z][a-z0-9-]*`.
///
/// ```
/// use dive_core::reminder::{Reminder, ReminderTier};
/// let r = Reminder::new("todo-list", "3 items open").unwrap();
/// assert_eq!(r.tier, ReminderTier::Contextual);
/// assert_eq!(r.render(), "<system-reminder name=\"todo-list\">\n3 items open\n</system-reminder>");
/// assert!(Reminder::new("Bad Name", "x").is_err());
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Reminder {
    /// The reminder name; same-name reminders accumulate and the latest wins on conflict.
    pub name: String,
    /// Authority tier.
    #[serde(default)]
    pub tier: ReminderTier,
    /// The text the model sees.
    pub content: String,
    /// Structured data for the application, never rendered to the model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub details: Option<Map<String, Value>>,
}

/// The error returned for a reminder name outside `[a-z][a-z0-9-]*`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid reminder name {0:?}: names match [a-z][a-z0-9-]*")]
pub struct InvalidReminderName(pub String);

/// True when `name` matches `[a-z][a-z0-9-]*`.
#[must_use]
pub fn is_valid_reminder_name(name: &str) -> bool {
    let mut chars = name.chars();
    matches!(chars.next(), Some('a'..='z')) && chars.all(|c| matches!(c, 'a'..='z' | '0'..='9' | '-'))
}

impl Reminder {
    /// A contextual reminder.
    ///
    /// # Errors
    /// [`InvalidReminderName`] when the name is not `[a-z][a-z0-9-]*`.
    pub fn new(name: impl Into<String>, content: impl Into<String>) -> Result<Self, InvalidReminderName> {
        let name = name.into();
        if !is_valid_reminder_name(&name) {
            return Err(InvalidReminderName(name));
        }
        Ok(Self { name, tier: ReminderTier::Contextual, content: content.into(), details: None })
    }

    /// An operator-tier reminder.
    ///
    /// # Errors
    /// [`InvalidReminderName`] when the name is not `[a-z][a-z0-9-]*`.
    pub fn operator(
        name: impl Into<String>,
        content: impl Into<String>,
    ) -> Result<Self, InvalidReminderName> {
        Ok(Self { tier: ReminderTier::Operator, ..Self::new(name, content)? })
    }

    /// Attaches structured details (not rendered).
    #[must_use]
    pub fn with_details(mut self, details: Map<String, Value>) -> Self {
        self.details = Some(details);
        self
    }

    /// The `<system-reminder>` text form.
    #[must_use]
    pub fn render(&self) -> String {
        format!("<system-reminder name=\"{}\">\n{}\n</system-reminder>", self.name, self.content)
    }

    /// A user message holding just this reminder.
    #[must_use]
    pub fn into_message(self) -> Message {
        Message::new(Role::User, vec![Content::Reminder(self)])
    }
}

/// Whether any message holds a reminder block. The engine sends its rule for reading
/// reminders only when this is true of a request.
///
/// ```
/// use dive_core::{Message, Reminder, contains_reminders};
/// assert!(!contains_reminders(&[Message::user("hi")]));
/// assert!(contains_reminders(&[Reminder::new("clock", "noon").unwrap().into_message()]));
/// ```
#[must_use]
pub fn contains_reminders(messages: &[Message]) -> bool {
    messages.iter().any(|m| m.content.iter().any(|c| c.as_reminder().is_some()))
}

/// How a provider wants reminders rendered.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ReminderStyle {
    /// Every reminder becomes a `<system-reminder>` text block in place.
    UserText,
    /// Operator reminders become their own message with this role (`system` on Anthropic
    /// models that support it, `developer` on OpenAI); contextual ones become user text.
    NativeRole(Role),
}

/// Rewrites reminder blocks for a provider. Returns the input unchanged (borrowed) when it
/// holds no reminders.
#[must_use]
pub fn render_reminders<'a>(messages: &'a [Message], style: &ReminderStyle) -> Cow<'a, [Message]> {
    if !contains_reminders(messages) {
        return Cow::Borrowed(messages);
    }
    let mut out = Vec::with_capacity(messages.len() + 1);
    for m in messages {
        if !m.content.iter().any(|c| c.as_reminder().is_some()) {
            out.push(m.clone());
            continue;
        }
        let mut kept = Vec::with_capacity(m.content.len());
        let mut native = Vec::new();
        for c in &m.content {
            match (c, style) {
                (Content::Reminder(r), ReminderStyle::NativeRole(_)) if r.tier == ReminderTier::Operator => {
                    native.push(Content::text(r.render()));
                }
                (Content::Reminder(r), _) => kept.push(Content::text(r.render())),
                _ => kept.push(c.clone()),
            }
        }
        if !kept.is_empty() {
            out.push(Message { id: m.id.clone(), role: m.role.clone(), content: kept.into() });
        }
        if let (ReminderStyle::NativeRole(role), false) = (style, native.is_empty()) {
            out.push(Message::new(role.clone(), native));
        }
    }
    Cow::Owned(out)
}

/// The latest reminder named `name` in `messages`.
#[must_use]
pub fn find_latest_reminder<'a>(messages: &'a [Message], name: &str) -> Option<&'a Reminder> {
    messages
        .iter()
        .rev()
        .flat_map(|m| m.content.iter().rev())
        .filter_map(Content::as_reminder)
        .find(|r| r.name == name)
}

/// Removes every reminder block named `name` (or every reminder when `name` is `None`); drops
/// messages left empty.
#[must_use]
pub fn strip_reminders(messages: &[Message], name: Option<&str>) -> Vec<Message> {
    messages
        .iter()
        .filter_map(|m| {
            let content: Vec<Content> = m
                .content
                .iter()
                .filter(|c| match (c.as_reminder(), name) {
                    (Some(_), None) => false,
                    (Some(r), Some(n)) => r.name != n,
                    (None, _) => true,
                })
                .cloned()
                .collect();
            (!content.is_empty() || m.content.is_empty()).then(|| Message {
                id: m.id.clone(),
                role: m.role.clone(),
                content: content.into(),
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_operator_as_native_role() {
        let msgs = vec![Message::new(
            Role::User,
            vec![
                Content::text("hi"),
                Content::Reminder(Reminder::operator("policy", "be terse").unwrap()),
                Content::Reminder(Reminder::new("clock", "it is noon").unwrap()),
            ],
        )];
        let out = render_reminders(&msgs, &ReminderStyle::NativeRole(Role::Developer));
        assert_eq!(out.len(), 2);
        assert_eq!(out[0].content.len(), 2);
        assert!(out[0].text().contains("name=\"clock\""));
        assert_eq!(out[1].role, Role::Developer);
        assert!(out[1].text().contains("be terse"));
        let plain = render_reminders(&msgs, &ReminderStyle::UserText);
        assert_eq!(plain.len(), 1);
        assert_eq!(plain[0].content.len(), 3);
    }

    #[test]
    fn no_reminders_borrows() {
        let msgs = vec![Message::user("x")];
        assert!(matches!(render_reminders(&msgs, &ReminderStyle::UserText), Cow::Borrowed(_)));
    }

    #[test]
    fn find_and_strip() {
        let msgs = vec![
            Reminder::new("a", "1").unwrap().into_message(),
            Message::user("q"),
            Reminder::new("a", "2").unwrap().into_message(),
        ];
        assert_eq!(find_latest_reminder(&msgs, "a").map(|r| r.content.as_str()), Some("2"));
        assert_eq!(strip_reminders(&msgs, Some("a")).len(), 1);
    }
}
