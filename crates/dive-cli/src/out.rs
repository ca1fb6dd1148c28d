//! Writing to stdout without panicking when the reader has gone (`dive models | head`).

use std::io::Write;

/// Writes one line to stdout; a closed pipe or other write error is ignored. On a terminal,
/// control characters are shown as text ([`crate::sanitize`]); a pipe gets the text as is.
pub fn line(text: impl AsRef<str>) {
    let text = crate::sanitize::for_stdout(text.as_ref());
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{text}");
    let _ = out.flush();
}
