//! `bench-clients footprint`: the code a turn runs, by crate. Each client runs its turns
//! under callgrind against the mock; the 64-byte code lines holding an instruction run at
//! least once a turn (95% of the turns' count, so code run on every turn and not only in
//! start-up or warm-up) are that client's footprint. A turn that touches more code than a
//! CPU's cache holds fetches it again every turn: on a 512 KiB L2, that is most of dive's
//! ratio to raw (docs/benchmarks.md).

mod parse;

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;
use std::process::{Command, Stdio};

pub use parse::{HotLines, LINE_BYTES, crate_of};

use crate::BenchError;
use crate::args::FootprintArgs;
use crate::client::ClientKind;
use crate::cpus;
use crate::orchestrate::{MockProcess, check_count, current_exe, value};

/// One client's footprint.
#[derive(Debug, Clone)]
pub struct Footprint {
    /// The client.
    pub client: ClientKind,
    /// The code lines run every turn.
    pub hot: HotLines,
    /// The benchmark binary's path, as the profile names it.
    pub program: String,
}

/// A crate below this share of a KiB in every client is folded into one row.
const SMALL_KIB: f64 = 0.5;

/// Runs every client of `args` under callgrind and reads its footprint.
///
/// # Errors
/// When valgrind is missing or fails, a turn fails, or the mock's request count is off.
pub fn measure(args: &FootprintArgs) -> Result<Vec<Footprint>, BenchError> {
    let exe = current_exe()?;
    let placement = cpus::split(&cpus::allowed()?);
    let mock = MockProcess::start(&exe, placement.as_ref())?;
    let clients =
        if args.client.is_empty() { vec![ClientKind::Raw, ClientKind::Dive] } else { args.client.clone() };
    let program = exe.to_string_lossy().into_owned();
    let turns = args.warmup + args.turns;
    let min_runs = (turns as u64 * 95).div_ceil(100).max(1);
    let mut footprints = Vec::new();
    for client in clients {
        let out = std::env::temp_dir().join(format!(
            "bench-footprint-{}-{}.out",
            std::process::id(),
            value(client)
        ));
        let before = mock.requests()?;
        let ran =
            run_under_callgrind(&exe, &out, &mock.url, client, args, placement.as_ref().map(|p| &*p.clients));
        let profile = ran.and_then(|()| Ok(std::fs::read_to_string(&out)?));
        let _ = std::fs::remove_file(&out);
        let profile = profile?;
        check_count(&mock, before, turns)?;
        let hot = HotLines::parse(&profile, min_runs);
        if hot.is_empty() {
            return Err(BenchError::Child(format!(
                "callgrind's profile of {} has no code run {min_runs} times",
                client.label()
            )));
        }
        footprints.push(Footprint { client, hot, program: program.clone() });
    }
    Ok(footprints)
}

fn run_under_callgrind(
    exe: &Path,
    out: &Path,
    url: &str,
    client: ClientKind,
    args: &FootprintArgs,
    cpus: Option<&str>,
) -> Result<(), BenchError> {
    let mut command = Command::new("valgrind");
    command.args(["--tool=callgrind", "--dump-instr=yes", "--compress-pos=no", "--compress-strings=no"]);
    command.arg(format!("--callgrind-out-file={}", out.display())).arg("--").arg(exe);
    command.args(["client", "--url", url, "--client", &value(client), "--provider", &value(args.provider)]);
    command.args(["--concurrency", &args.concurrency.to_string()]);
    command.args(["--turns", &args.turns.to_string(), "--warmup", &args.warmup.to_string()]);
    if args.stream {
        command.arg("--stream");
    }
    if let Some(list) = cpus {
        command.args(["--cpus", list]);
    }
    let output = command.stdin(Stdio::null()).output().map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => BenchError::Child(
            "valgrind is not installed; `footprint` runs the clients under callgrind (Debian: apt install valgrind)"
                .into(),
        ),
        _ => BenchError::Io(e),
    })?;
    if output.status.success() {
        return Ok(());
    }
    let stderr = String::from_utf8_lossy(&output.stderr);
    let tail: Vec<&str> = stderr.lines().rev().take(12).collect();
    Err(BenchError::Child(format!(
        "{} under callgrind failed ({}): {}",
        client.label(),
        output.status,
        tail.into_iter().rev().collect::<Vec<_>>().join("\n")
    )))
}

/// The footprints as markdown: KiB by crate, one column a client (and dive − raw with both),
/// then each client's `top` largest functions.
#[must_use]
pub fn render(footprints: &[Footprint], args: &FootprintArgs) -> String {
    let kib = |lines: usize| (lines as u64 * LINE_BYTES) as f64 / 1024.0;
    let per_crate: Vec<BTreeMap<String, usize>> =
        footprints.iter().map(|f| f.hot.by_crate(&f.program)).collect();
    let mut crates: Vec<&String> = per_crate.iter().flat_map(BTreeMap::keys).collect();
    crates.sort();
    crates.dedup();
    let largest =
        |name: &String| per_crate.iter().map(|c| c.get(name).copied().unwrap_or(0)).max().unwrap_or(0);
    crates.sort_by(|a, b| largest(b).cmp(&largest(a)).then_with(|| a.cmp(b)));
    let difference = match footprints {
        [raw, dive] if raw.client == ClientKind::Raw && dive.client == ClientKind::Dive => Some((0, 1)),
        _ => None,
    };
    let mut text = String::new();
    let _ = writeln!(
        text,
        "Code run every turn, {} {} at concurrency {}: 64-byte lines holding an instruction run at least once a turn ({} turns, warm-up included), by crate (KiB):\n",
        args.provider.label(),
        if args.stream { "streaming" } else { "plain" },
        args.concurrency,
        args.warmup + args.turns,
    );
    let mut header = "| Crate |".to_owned();
    let mut rule = "|---|".to_owned();
    for f in footprints {
        let _ = write!(header, " {} |", f.client.label());
        rule.push_str("---|");
    }
    if difference.is_some() {
        header.push_str(" dive − raw |");
        rule.push_str("---|");
    }
    let _ = writeln!(text, "{header}\n{rule}");
    let row = |text: &mut String, name: &str, counts: &[usize]| {
        let _ = write!(text, "| {name} |");
        for &n in counts {
            let _ = write!(text, " {:.1} |", kib(n));
        }
        if let Some((raw, dive)) = difference {
            let _ = write!(text, " {:+.1} |", kib(counts[dive]) - kib(counts[raw]));
        }
        text.push('\n');
    };
    let mut small = vec![0; footprints.len()];
    for name in crates {
        let counts: Vec<usize> = per_crate.iter().map(|c| c.get(name).copied().unwrap_or(0)).collect();
        if counts.iter().all(|&n| kib(n) < SMALL_KIB) {
            small.iter_mut().zip(&counts).for_each(|(s, n)| *s += n);
        } else {
            row(&mut text, name, &counts);
        }
    }
    row(&mut text, "(crates under 0.5 KiB)", &small);
    let totals: Vec<usize> = footprints.iter().map(|f| f.hot.len()).collect();
    row(&mut text, "**all**", &totals);
    for f in footprints {
        let _ = writeln!(
            text,
            "\nThe {} largest functions of {} (KiB):\n\n| Function | KiB |\n|---|---|",
            args.top,
            f.client.label()
        );
        for (function, lines) in f.hot.by_function().into_iter().take(args.top) {
            let _ = writeln!(text, "| `{}` | {:.1} |", function.replace('|', "\\|"), kib(lines));
        }
    }
    text
}
