//! [`Input`]: a tool call's input, shared by the copies of the call.

use std::fmt;
use std::ops::{Deref, DerefMut};
use std::sync::Arc;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;

/// The arguments of a tool call: a JSON [`Value`] that the copies of the call share.
///
/// An agent holds one call in several places (the model's message, the `tool_call` item, the
/// call's result, the saved turn); cloning an `Input` only counts one more owner, so a large
/// input (a file to write, say) is not copied for each. Reading goes through [`Deref`] to the
/// `Value`; writing through [`DerefMut`] copies it first when another copy still shares it
/// (copy-on-write), so a change to one call never shows in another.
///
/// ```
/// use dive_core::{Input, ToolUse};
/// use serde_json::json;
///
/// let call = ToolUse::new("c1", "write", json!({"path": "a.txt", "text": "hello"}));
/// let mut copy = call.clone(); // shares the input
/// copy.input["text"] = json!("changed"); // copies it before the write
/// assert_eq!(call.input["text"], "hello");
/// assert_eq!(copy.input, Input::from(json!({"path": "a.txt", "text": "changed"})));
/// ```
#[derive(Clone, Default)]
pub struct Input(Arc<Value>);

impl Input {
    /// The input as an owned value: moved out when no other copy shares it, copied otherwise.
    #[must_use]
    pub fn into_value(self) -> Value {
        Arc::unwrap_or_clone(self.0)
    }

    /// Whether `self` and `other` are one shared value (copies of one call's input).
    #[must_use]
    pub fn ptr_eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl Deref for Input {
    type Target = Value;

    fn deref(&self) -> &Value {
        &self.0
    }
}

impl DerefMut for Input {
    /// The value to change: this call's own (copied first when another copy shares it).
    fn deref_mut(&mut self) -> &mut Value {
        Arc::make_mut(&mut self.0)
    }
}

impl From<Value> for Input {
    fn from(value: Value) -> Self {
        Self(Arc::new(value))
    }
}

impl From<Input> for Value {
    fn from(input: Input) -> Self {
        input.into_value()
    }
}

impl PartialEq for Input {
    fn eq(&self, other: &Self) -> bool {
        self.ptr_eq(other) || *self.0 == *other.0
    }
}

impl PartialEq<Value> for Input {
    fn eq(&self, other: &Value) -> bool {
        *self.0 == *other
    }
}

impl fmt::Debug for Input {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&*self.0, f)
    }
}

impl fmt::Display for Input {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&*self.0, f)
    }
}

impl Serialize for Input {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for Input {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Value::deserialize(deserializer).map(Self::from)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn copies_share_until_one_writes() {
        let a = Input::from(json!({"a": 1}));
        let mut b = a.clone();
        assert!(a.ptr_eq(&b));
        b["a"] = json!(2);
        assert!(!a.ptr_eq(&b));
        assert_eq!(a, json!({"a": 1}));
        assert_eq!(b, json!({"a": 2}));
    }

    #[test]
    fn json_is_the_plain_value_and_a_sole_owner_moves_out() {
        let a = Input::from(json!({"a": [1, "x"]}));
        assert_eq!(serde_json::to_string(&a).unwrap(), r#"{"a":[1,"x"]}"#);
        let back: Input = serde_json::from_str(r#"{"a":[1,"x"]}"#).unwrap();
        assert_eq!(back, a);
        assert_eq!(a.to_string(), r#"{"a":[1,"x"]}"#);
        assert_eq!(a.into_value(), json!({"a": [1, "x"]}));
    }
}
