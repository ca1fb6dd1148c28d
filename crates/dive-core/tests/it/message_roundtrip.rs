//! Property: any message, including block types this version does not know, round-trips
//! through JSON unchanged — both as JSON (verbatim) and as the typed value.

use dive_core::{Content, Message};
use proptest::prelude::*;
use serde_json::{Map, Value, json};

fn text() -> impl Strategy<Value = String> {
    prop_oneof![".{0,20}", "[a-z ]{0,12}", Just(String::new())]
}

fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        text().prop_map(Value::String),
    ];
    leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::btree_map("[a-z]{1,6}", inner, 0..4)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

fn object() -> impl Strategy<Value = Value> {
    prop::collection::btree_map("[a-z]{1,6}", json_value(), 0..4)
        .prop_map(|m| Value::Object(m.into_iter().collect()))
}

/// Extra fields for verbatim blocks, never colliding with their own keys.
fn extra_fields() -> impl Strategy<Value = Map<String, Value>> {
    prop::collection::btree_map("f_[a-z]{1,5}", json_value(), 0..3).prop_map(|m| m.into_iter().collect())
}

fn with_fields(mut base: Value, fields: Map<String, Value>) -> Value {
    if let Value::Object(map) = &mut base {
        map.extend(fields);
    }
    base
}

/// Blocks in their canonical JSON shape (what this library writes).
fn block() -> impl Strategy<Value = Value> {
    prop_oneof![
        text().prop_map(|t| json!({"type": "text", "text": t})),
        (text(), text(), extra_fields()).prop_map(|(t, cited, f)| {
            let citation = with_fields(json!({"type": "char_location", "cited_text": cited}), f);
            json!({"type": "text", "text": t, "citations": [citation]})
        }),
        (text(), "[A-Za-z0-9+/]{0,16}").prop_map(|(_, data)| {
            json!({"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": data}})
        }),
        (text(), text()).prop_map(|(url, title)| {
            json!({"type": "document", "source": {"type": "url", "url": url}, "title": title})
        }),
        ("[a-z0-9_]{1,10}", "[a-z_]{1,10}", object()).prop_map(
            |(id, name, input)| json!({"type": "tool_use", "id": id, "name": name, "input": input})
        ),
        ("[a-z0-9_]{1,10}", text(), any::<bool>()).prop_map(|(id, t, err)| {
            let mut v =
                json!({"type": "tool_result", "tool_use_id": id, "content": [{"type": "text", "text": t}]});
            if err {
                v["is_error"] = json!(true);
            }
            v
        }),
        (text(), "[A-Za-z0-9]{1,12}")
            .prop_map(|(t, sig)| json!({"type": "thinking", "thinking": t, "signature": sig})),
        "[A-Za-z0-9]{1,12}".prop_map(|d| json!({"type": "redacted_thinking", "data": d})),
        text().prop_map(|t| json!({"type": "refusal", "refusal": t})),
        ("[a-z][a-z0-9-]{0,8}", text(), prop_oneof![Just("contextual"), Just("operator")])
            .prop_map(|(n, c, tier)| json!({"type": "reminder", "name": n, "tier": tier, "content": c})),
        ("[a-z0-9_]{1,10}", object(), extra_fields()).prop_map(|(id, input, f)| {
            with_fields(json!({"type": "server_tool_use", "id": id, "name": "web_search", "input": input}), f)
        }),
        ("[a-z]{1,8}", "[a-z0-9_]{1,10}", extra_fields()).prop_map(|(tool, id, f)| {
            with_fields(json!({"type": format!("{tool}_tool_result"), "tool_use_id": id}), f)
        }),
        extra_fields().prop_map(|f| with_fields(json!({"type": "mcp_list_tools"}), f)),
        // Block types from the future or from another provider.
        ("zz_[a-z]{1,8}", extra_fields()).prop_map(|(kind, f)| with_fields(json!({"type": kind}), f)),
        // No tag at all.
        prop::collection::btree_map("g_[a-z]{1,5}", json_value(), 1..3)
            .prop_map(|m| Value::Object(m.into_iter().collect())),
    ]
}

fn message() -> impl Strategy<Value = Value> {
    (
        prop_oneof![Just("user"), Just("assistant"), Just("system"), Just("developer"), Just("tool_other")],
        prop::option::of("[a-z0-9_]{1,10}"),
        prop::collection::vec(block(), 0..6),
    )
        .prop_map(|(role, id, content)| {
            let mut m = json!({"role": role, "content": content});
            if let Some(id) = id {
                m["id"] = json!(id);
            }
            m
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn json_round_trips_verbatim(original in message()) {
        let decoded: Message = serde_json::from_value(original.clone()).expect("every block decodes");
        let encoded = serde_json::to_value(&decoded).expect("encodes");
        prop_assert_eq!(&encoded, &original);
        let again: Message = serde_json::from_str(&serde_json::to_string(&decoded).expect("to string")).expect("decodes");
        prop_assert_eq!(again, decoded);
    }
}

#[test]
fn unknown_blocks_are_kept_not_rejected() {
    let m: Message = serde_json::from_value(json!({
        "role": "assistant",
        "content": [{"type": "hologram", "frames": [1, 2, 3]}]
    }))
    .expect("unknown block decodes");
    assert!(matches!(m.content[0], Content::Unknown(_)));
    assert_eq!(m.content[0].kind(), "hologram");
}
