//! Reading a callgrind profile (`--dump-instr=yes --compress-pos=no --compress-strings=no`)
//! into the set of code lines a turn runs, and naming the crate each line's code belongs to.

use std::collections::{BTreeMap, HashMap};

/// The bytes of a cache line.
pub const LINE_BYTES: u64 = 64;

/// The code lines whose instructions ran at least a given number of times, each with the
/// object file and function its first such instruction belongs to.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct HotLines {
    /// `(object, line index)` → function.
    lines: HashMap<(String, u64), String>,
}

impl HotLines {
    /// Reads a callgrind profile, keeping the 64-byte lines holding an instruction run at
    /// least `min_runs` times. The cost line that follows a `calls=` line is the call's
    /// inclusive cost, not an instruction of the caller, and is skipped.
    #[must_use]
    pub fn parse(profile: &str, min_runs: u64) -> Self {
        let mut lines = HashMap::new();
        let (mut object, mut function) = (String::new(), String::new());
        let mut after_call = false;
        for line in profile.lines() {
            if let Some(name) = line.strip_prefix("ob=") {
                name.clone_into(&mut object);
            } else if let Some(name) = line.strip_prefix("fn=") {
                name.clone_into(&mut function);
            } else if line.starts_with("calls=") {
                after_call = true;
            } else if let Some(hex) = line.strip_prefix("0x") {
                if std::mem::take(&mut after_call) {
                    continue;
                }
                let mut fields = hex.split_ascii_whitespace();
                let address = fields.next().and_then(|a| u64::from_str_radix(a, 16).ok());
                // Positions are `instr line`; the first event after them is `Ir`.
                let runs = fields.nth(1).and_then(|n| n.parse::<u64>().ok());
                if let (Some(address), Some(runs)) = (address, runs)
                    && runs >= min_runs
                {
                    lines.entry((object.clone(), address / LINE_BYTES)).or_insert_with(|| function.clone());
                }
            }
        }
        Self { lines }
    }

    /// How many lines.
    #[must_use]
    pub fn len(&self) -> usize {
        self.lines.len()
    }

    /// Whether there are none.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.lines.is_empty()
    }

    /// Lines by crate (see [`crate_of`]), `program` being the benchmark binary's path.
    #[must_use]
    pub fn by_crate(&self, program: &str) -> BTreeMap<String, usize> {
        let mut counts = BTreeMap::new();
        for ((object, _), function) in &self.lines {
            *counts.entry(crate_of(object, program, function)).or_insert(0) += 1;
        }
        counts
    }

    /// Lines by function, most first (ties by name).
    #[must_use]
    pub fn by_function(&self) -> Vec<(String, usize)> {
        let mut counts: HashMap<&str, usize> = HashMap::new();
        for function in self.lines.values() {
            *counts.entry(function).or_insert(0) += 1;
        }
        let mut list: Vec<(String, usize)> = counts.into_iter().map(|(f, n)| (f.to_owned(), n)).collect();
        list.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        list
    }
}

/// The crate a function's code is counted under: a shared library's file name for code
/// outside the program (`libc.so.6`); otherwise the first path of the symbol, inside an
/// `impl` header's `<…>` the implementing type's (`<dive_openai_wire::body::Body as
/// serde_core::ser::Serialize>::serialize` → `dive_openai_wire`), a primitive's the trait's.
/// Generic code is counted where it is defined (`core::ptr::drop_in_place<…>` → `core`).
#[must_use]
pub fn crate_of(object: &str, program: &str, function: &str) -> String {
    if object != program {
        return object.rsplit('/').next().unwrap_or(object).to_owned();
    }
    let mut path = function.trim_start_matches('<');
    for prefix in ["&mut ", "&", "dyn ", "*const ", "*mut "] {
        path = path.strip_prefix(prefix).unwrap_or(path);
    }
    // A primitive's impl (`<i64 as alloc::string::SpecToString>`): the trait's crate.
    if let Some((ty, rest)) = path.split_once(" as ")
        && !ty.contains("::")
    {
        path = rest;
    }
    match path.split_once("::") {
        Some((first, _))
            if !first.is_empty() && first.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') =>
        {
            first.to_owned()
        }
        _ => "(other)".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PROGRAM: &str = "/tmp/bench-clients";

    const PROFILE: &str = "\
# callgrind format
version: 1
positions: instr line
events: Ir
ob=/tmp/bench-clients
fl=src/run.rs
fn=dive_agent::run::Run::drive::{{closure}}
0x1000 1 600
0x1004 1 600
0x1040 2 600
0x1080 3 10
cob=/tmp/bench-clients
cfn=hyper::client::send
calls=600 0x9000 5
0x10c0 4 99999
fi=src/inlined.rs
0x1100 5 600
fn=<&mut serde_json::ser::Serializer<W,F> as serde_core::ser::Serializer>::serialize_str
0x1104 7 900
0x2000 8 600
ob=/usr/lib/x86_64-linux-gnu/libc.so.6
fl=malloc.c
fn=malloc
0x2000 0 1200
0x2040 0 3
totals: 1
";

    #[test]
    fn a_line_counts_once_when_an_instruction_on_it_ran_often_enough() {
        let hot = HotLines::parse(PROFILE, 580);
        // drive: 0x1000 and 0x1004 share a line, 0x1040 is the next, 0x1080 ran 10 times, the
        // cost after `calls=` is the callee's, 0x1100 (inlined code) is drive's; serialize_str
        // adds 0x2000 and shares 0x1104's line with drive; libc's malloc has one line.
        assert_eq!(hot.len(), 5);
        let crates = hot.by_crate(PROGRAM);
        assert_eq!(crates.get("dive_agent"), Some(&3));
        assert_eq!(crates.get("serde_json"), Some(&1));
        assert_eq!(crates.get("libc.so.6"), Some(&1));
        assert_eq!(crates.get("hyper"), None, "a call's inclusive cost is not the caller's code");
        let functions = hot.by_function();
        assert_eq!(functions[0], ("dive_agent::run::Run::drive::{{closure}}".to_owned(), 3));
    }

    #[test]
    fn a_higher_bar_keeps_fewer_lines() {
        assert_eq!(HotLines::parse(PROFILE, 1000).len(), 1);
        assert!(HotLines::parse(PROFILE, 1_000_000).is_empty());
        assert_eq!(HotLines::parse(PROFILE, 1).len(), 7);
    }

    #[test]
    fn crates_are_named_by_the_implementing_type_or_the_library() {
        let of = |f: &str| crate_of(PROGRAM, PROGRAM, f);
        assert_eq!(
            of("<dive_openai_wire::body::Body as serde_core::ser::Serialize>::serialize"),
            "dive_openai_wire"
        );
        assert_eq!(
            of("<&mut serde_json::ser::Serializer<W,F> as serde_core::ser::Serializer>::serialize_str"),
            "serde_json"
        );
        assert_eq!(of("core::ptr::drop_in_place<dive_agent::run::Run>"), "core");
        assert_eq!(of("<i64 as alloc::string::SpecToString>::spec_to_string"), "alloc");
        assert_eq!(of("_start"), "(other)");
        assert_eq!(crate_of("/usr/lib/x86_64-linux-gnu/libc.so.6", PROGRAM, "malloc"), "libc.so.6");
    }
}
