//! Writing to stdout without panicking when the reader has gone (`dive models | head`).

use std::io::Write;

/// Writes one line to stdout; a closed pipe or other write error is ignored.
pub fn line(text: impl AsRef<str>) {
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{}", text.as_ref());
    let _ = out.flush();
}
