//! Streamed function-call arguments: the `functionCall.partialArgs` pieces a request with
//! `toolConfig.functionCallingConfig.streamFunctionCallArguments: true` receives, assembled
//! into one call's `args` object.
//!
//! Each piece names the argument it sets with an RFC 9535 JSON path (`$.recipe.items[0].name`)
//! and carries one of `stringValue`, `numberValue`, `boolValue` or `nullValue`. A string piece
//! with `willContinue: true` is continued by the next pieces of the same path, which append to
//! it; any other piece sets its value.

use serde_json::{Map, Value};

use crate::response::PartialArg;

/// One step of a JSON path.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Step {
    Key(String),
    Index(usize),
}

/// Parses the dot and bracket forms Gemini sends: `$.a.b`, `$.a[0]`, `$['a b']`, `$["a"]`.
fn parse_path(path: &str) -> Option<Vec<Step>> {
    let mut rest = path.strip_prefix('$')?;
    let mut steps = Vec::new();
    while !rest.is_empty() {
        if let Some(after) = rest.strip_prefix('.') {
            let end = after.find(['.', '[']).unwrap_or(after.len());
            if end == 0 {
                return None;
            }
            steps.push(Step::Key(after[..end].to_owned()));
            rest = &after[end..];
        } else if let Some(after) = rest.strip_prefix('[') {
            let close = after.find(']')?;
            let inner = &after[..close];
            let quoted = inner
                .strip_prefix('\'')
                .and_then(|s| s.strip_suffix('\''))
                .or_else(|| inner.strip_prefix('"').and_then(|s| s.strip_suffix('"')));
            steps.push(match quoted {
                Some(key) => Step::Key(key.to_owned()),
                None => Step::Index(inner.parse().ok()?),
            });
            rest = &after[close + 1..];
        } else {
            return None;
        }
    }
    Some(steps)
}

/// The value a path points at, creating the objects and arrays on the way.
fn slot<'a>(root: &'a mut Value, steps: &[Step]) -> Option<&'a mut Value> {
    let mut at = root;
    for step in steps {
        at = match step {
            Step::Key(key) => {
                if at.is_null() {
                    *at = Value::Object(Map::new());
                }
                at.as_object_mut()?.entry(key.clone()).or_insert(Value::Null)
            }
            Step::Index(i) => {
                if at.is_null() {
                    *at = Value::Array(Vec::new());
                }
                let items = at.as_array_mut()?;
                if items.len() <= *i {
                    items.resize(i + 1, Value::Null);
                }
                &mut items[*i]
            }
        };
    }
    Some(at)
}

/// The arguments of one streamed call, as far as they arrived.
#[derive(Debug, Clone, Default)]
pub(crate) struct PartialArgs {
    args: Value,
    /// The path of a string whose next piece appends to it.
    continuing: Option<String>,
}

impl PartialArgs {
    /// Starts from the `args` the first part may already carry.
    pub(crate) fn new(args: Option<&Value>) -> Self {
        let mut this = Self::default();
        if let Some(args) = args {
            this.merge_args(args);
        }
        this
    }

    /// Merges a whole `args` object sent next to the pieces.
    pub(crate) fn merge_args(&mut self, args: &Value) {
        if let Value::Object(theirs) = args {
            if !self.args.is_object() {
                self.args = Value::Object(Map::new());
            }
            if let Value::Object(ours) = &mut self.args {
                ours.extend(theirs.iter().map(|(k, v)| (k.clone(), v.clone())));
            }
        }
    }

    /// Applies one `partialArgs` item.
    ///
    /// # Errors
    /// A message naming the piece when its `jsonPath` cannot be read or clashes with a value
    /// already set (a scalar where an object or array should be).
    pub(crate) fn apply(&mut self, piece: &PartialArg<'_>) -> Result<(), String> {
        let path = piece.json_path.as_ref();
        let steps = parse_path(path).ok_or_else(|| format!("unreadable jsonPath `{path}` in partialArgs"))?;
        let appends = self.continuing.as_deref() == Some(path);
        let target = slot(&mut self.args, &steps).ok_or_else(|| {
            format!("jsonPath `{path}` in partialArgs clashes with an argument already set")
        })?;
        if let Some(s) = piece.string_value.as_deref() {
            match target {
                Value::String(current) if appends => current.push_str(s),
                other => *other = Value::String(s.to_owned()),
            }
        } else if let Some(n) = piece.number_value.as_ref().filter(|v| v.is_number()) {
            *target = n.clone();
        } else if let Some(b) = piece.bool_value {
            *target = Value::Bool(b);
        } else if piece.null_value {
            *target = Value::Null;
        }
        self.continuing = (piece.will_continue == Some(true)).then(|| path.to_owned());
        Ok(())
    }

    /// The assembled `args` object (`{}` when nothing arrived).
    pub(crate) fn into_value(self) -> Value {
        match self.args {
            Value::Object(_) => self.args,
            _ => Value::Object(Map::new()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;
    use serde_json::json;

    fn piece_of(v: &Value) -> PartialArg<'_> {
        PartialArg::deserialize(v).unwrap()
    }

    #[test]
    fn paths_in_dot_and_bracket_form() {
        assert_eq!(
            parse_path("$.recipe.ingredients[2].name"),
            Some(vec![
                Step::Key("recipe".into()),
                Step::Key("ingredients".into()),
                Step::Index(2),
                Step::Key("name".into())
            ])
        );
        assert_eq!(parse_path("$['a b'][\"c\"]"), Some(vec![Step::Key("a b".into()), Step::Key("c".into())]));
        assert_eq!(parse_path("location"), None);
        assert_eq!(parse_path("$.a[x]"), None);
        assert_eq!(parse_path("$..a"), None);
    }

    #[test]
    fn strings_continue_and_other_values_set() {
        let mut a = PartialArgs::new(Some(&json!({"unit": "c"})));
        for piece in [
            json!({"jsonPath": "$.city", "stringValue": "San ", "willContinue": true}),
            json!({"jsonPath": "$.city", "stringValue": "Francisco", "willContinue": true}),
            json!({"jsonPath": "$.city", "stringValue": ""}),
            json!({"jsonPath": "$.days[1]", "numberValue": 2}),
            json!({"jsonPath": "$.flags.hot", "boolValue": true}),
            json!({"jsonPath": "$.note", "nullValue": "NULL_VALUE"}),
            // A new string at a path that is not continuing replaces, never appends.
            json!({"jsonPath": "$.unit", "stringValue": "f"}),
        ] {
            a.apply(&piece_of(&piece)).unwrap();
        }
        assert_eq!(
            a.into_value(),
            json!({"unit": "f", "city": "San Francisco", "days": [null, 2], "flags": {"hot": true}, "note": null})
        );
    }

    #[test]
    fn clashing_and_unreadable_paths_are_errors() {
        let mut a = PartialArgs::new(None);
        a.apply(&piece_of(&json!({"jsonPath": "$.x", "stringValue": "s"}))).unwrap();
        let clash = json!({"jsonPath": "$.x.y", "stringValue": "t"});
        assert!(a.apply(&piece_of(&clash)).unwrap_err().contains("clashes"));
        let unreadable = json!({"jsonPath": "x", "stringValue": "t"});
        assert!(a.apply(&piece_of(&unreadable)).unwrap_err().contains("unreadable"));
    }
}
