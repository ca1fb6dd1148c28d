//! Properties of the readers: no input makes them panic, quoted values round-trip (or, when
//! only whitespace, are reported missing), and
//! expansion never reads an argument's text as a placeholder.
#![allow(clippy::unwrap_used)]

use std::path::Path;

use dive_skill::{Arguments, Kind, Problem, Skill, expand_arguments};
use proptest::prelude::*;

/// Text skewed towards what frontmatter is made of, with some Unicode whitespace in it.
fn frontmatterish() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        Just("---\n".to_owned()),
        Just("\n".to_owned()),
        Just("  ".to_owned()),
        Just("\t".to_owned()),
        Just("\u{3000}".to_owned()),
        Just("- ".to_owned()),
        Just(": ".to_owned()),
        Just("|".to_owned()),
        Just(">-".to_owned()),
        Just("[".to_owned()),
        Just("]".to_owned()),
        Just("{".to_owned()),
        Just("}".to_owned()),
        Just("\"".to_owned()),
        Just("'".to_owned()),
        Just("\\u12".to_owned()),
        Just("#".to_owned()),
        Just("name".to_owned()),
        Just("description".to_owned()),
        Just("allowed-tools".to_owned()),
        "[a-zé$()!`,]{0,4}",
    ];
    prop::collection::vec(piece, 0..40).prop_map(|p| p.concat())
}

proptest! {
    #[test]
    fn reading_any_text_never_panics(text in frontmatterish(), raw in any::<String>()) {
        for kind in [Kind::Skill, Kind::Command] {
            let _ = Skill::parse(&text, Path::new("x/SKILL.md"), "x", kind);
            let _ = Skill::parse(&raw, Path::new("x/SKILL.md"), "x", kind);
        }
    }

    #[test]
    fn a_double_quoted_description_round_trips(description in "[^\\u{0}-\\u{1f}]{1,60}") {
        let escaped = description.replace('\\', "\\\\").replace('"', "\\\"");
        let text = format!("---\nname: x\ndescription: \"{escaped}\"\n---\nbody\n");
        let (skill, diagnostics) = Skill::parse(&text, Path::new("x/SKILL.md"), "x", Kind::Skill);
        if description.trim().is_empty() {
            // Only whitespace (a space, U+0085, U+3000…) is no description at all.
            prop_assert!(skill.is_none());
            prop_assert_eq!(diagnostics.len(), 1);
            prop_assert_eq!(&diagnostics[0].problem, &Problem::MissingDescription);
        } else {
            prop_assert!(diagnostics.is_empty(), "{:?}", diagnostics);
            prop_assert_eq!(skill.unwrap().description, description);
        }
    }

    #[test]
    fn argument_text_is_inserted_as_is(args in "[a-z$0-9 ]{0,30}") {
        let parsed = Arguments::parse(&args);
        let out = expand_arguments("<$ARGUMENTS>", &parsed, &["a".to_owned()]);
        prop_assert_eq!(out, format!("<{}>", args.trim()));
    }
}
