//! [`ExactShape`]: the bytes of the last event an exact reader accepted, with the values it
//! read cut out, so the next event of the same shape is read by comparing whole runs of bytes
//! instead of walking its keys again.
//!
//! A stream's text events differ from one another only in a few values (the text, a counter);
//! everything else (the keys, the message id, the model, the spacing) repeats byte for byte.
//! An [`ExactJson`] reader that accepts an event records where the values it uses stand
//! ([`ShapeHoles`]); [`ExactShape::learn`] keeps the bytes around them. An event that holds
//! the same bytes around values of the same kinds is one the reader would accept with the same
//! steps, so [`ExactShape::read`] hands over those values as the reader would have found them.

use super::{ExactJson, ExactStr};

/// What kind of value stands in a hole: how [`ExactShape::read`] reads it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum HoleKind {
    /// A JSON string, read by [`ExactJson::string_at`].
    Str,
    /// An unsigned integer, read by [`ExactJson::uint`].
    Uint,
}

/// A value a reader read, where it stood in the event (recorded by [`ShapeHoles`]).
#[derive(Debug, Clone, Copy)]
struct Recorded {
    start: usize,
    end: usize,
    kind: HoleKind,
    tag: u8,
}

/// The values an exact reader read while it accepted one event: where each stood, its kind
/// and the caller's tag for it (what the value means to the reader). Values the reader reads
/// through these methods become holes of the shape; everything else it moves over (keys,
/// punctuation, values it checks or skips) must match byte for byte next time.
///
/// A reader should read through here only values whose content does not change the steps it
/// takes: values it keeps, not values it branches on.
///
/// ```
/// use dive_provider::{ExactJson, ShapeHoles};
/// let mut holes = ShapeHoles::default();
/// let mut j = ExactJson::new(r#"{"n":7,"text":"hi"}"#);
/// j.lit(r#"{"n":"#).unwrap();
/// assert_eq!(holes.uint(&mut j, 1), Some(7));
/// j.lit(r#","text":"#).unwrap();
/// assert!(holes.string(&mut j, 0).is_some());
/// assert_eq!(holes.len(), 2);
/// ```
#[derive(Debug, Default, Clone)]
pub struct ShapeHoles {
    recorded: Vec<Recorded>,
}

impl ShapeHoles {
    /// Forgets what was recorded (before a reader starts on the next event).
    pub fn clear(&mut self) {
        self.recorded.clear();
    }

    /// How many values were recorded.
    #[must_use]
    pub fn len(&self) -> usize {
        self.recorded.len()
    }

    /// Whether no value was recorded.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.recorded.is_empty()
    }

    /// [`ExactJson::string_at`], recording the string as a hole tagged `tag`.
    pub fn string(&mut self, j: &mut ExactJson<'_>, tag: u8) -> Option<ExactStr> {
        let start = j.position();
        let value = j.string_at()?;
        self.recorded.push(Recorded { start, end: j.position(), kind: HoleKind::Str, tag });
        Some(value)
    }

    /// [`ExactJson::uint`], recording the number as a hole tagged `tag`.
    pub fn uint(&mut self, j: &mut ExactJson<'_>, tag: u8) -> Option<u64> {
        let start = j.position();
        let value = j.uint()?;
        self.recorded.push(Recorded { start, end: j.position(), kind: HoleKind::Uint, tag });
        Some(value)
    }
}

/// A value [`ExactShape::read`] found in a hole.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ShapeValue {
    /// A string, as [`ExactJson::string_at`] reads it (positions in the event just read).
    Str(ExactStr),
    /// An unsigned integer.
    Uint(u64),
}

/// A hole of the learned shape: the literal bytes before it end at `end`.
#[derive(Debug, Clone, Copy)]
struct Hole {
    end: usize,
    kind: HoleKind,
    tag: u8,
}

/// The byte shape of the last event an exact reader accepted: its bytes with the recorded
/// values cut out. Empty (reading nothing) until it learns one.
///
/// ```
/// use dive_provider::{ExactJson, ExactShape, ShapeHoles, ShapeValue};
/// let first = r#"{"id":"msg_1","n":7,"text":"hi"}"#;
/// let mut holes = ShapeHoles::default();
/// let mut j = ExactJson::new(first);
/// j.lit(r#"{"id":"msg_1","n":"#).unwrap();
/// holes.uint(&mut j, 1).unwrap();
/// j.lit(r#","text":"#).unwrap();
/// holes.string(&mut j, 0).unwrap();
/// j.lit("}").unwrap();
/// let mut shape = ExactShape::default();
/// shape.learn(first, &holes);
///
/// let next = r#"{"id":"msg_1","n":12,"text":"there"}"#;
/// let mut values = Vec::new();
/// shape.read(next, |tag, value| Some(values.push((tag, value)))).unwrap();
/// assert_eq!(values[0], (1, ShapeValue::Uint(12)));
/// assert!(matches!(&values[1], (0, ShapeValue::Str(s)) if s.as_str_in(next) == "there"));
/// // Another message id is another shape.
/// assert!(shape.read(r#"{"id":"msg_2","n":12,"text":"there"}"#, |_, _| Some(())).is_none());
/// ```
#[derive(Debug, Default, Clone)]
pub struct ExactShape {
    /// The event's bytes without its holes.
    literal: Vec<u8>,
    holes: Vec<Hole>,
    learned: bool,
    /// The holes a reader records under [`learn_with`](Self::learn_with), kept for the next.
    recording: ShapeHoles,
}

impl ExactShape {
    /// Learns the shape of `data`, an event a reader accepted while recording `holes`; the
    /// shape learned before is forgotten. Holes must be recorded in the order they stand.
    pub fn learn<T: AsRef<[u8]> + ?Sized>(&mut self, data: &T, holes: &ShapeHoles) {
        let data = data.as_ref();
        self.literal.clear();
        self.holes.clear();
        let mut at = 0;
        for hole in &holes.recorded {
            let Some(before) = data.get(at..hole.start) else {
                // Not in order: nothing sound can be learned from it.
                self.forget();
                return;
            };
            self.literal.extend_from_slice(before);
            self.holes.push(Hole { end: self.literal.len(), kind: hole.kind, tag: hole.tag });
            at = hole.end;
        }
        self.literal.extend_from_slice(data.get(at..).unwrap_or_default());
        self.learned = true;
    }

    /// Runs `reader` over `data`, recording its holes, and learns the shape of `data` when
    /// the reader accepts it (`Some`), or forgets the shape when it does not: what a mapper
    /// does with an event its learned shape did not read. The reader's answer is returned.
    ///
    /// ```
    /// use dive_provider::{ExactJson, ExactShape, ShapeValue};
    /// let reader = |data: &str, holes: &mut dive_provider::ShapeHoles| {
    ///     let mut j = ExactJson::new(data);
    ///     j.lit(r#"{"n":"#)?;
    ///     let n = holes.uint(&mut j, 0)?;
    ///     j.lit("}")?;
    ///     j.is_end().then_some(n)
    /// };
    /// let mut shape = ExactShape::default();
    /// assert_eq!(shape.learn_with(r#"{"n":1}"#, |holes| reader(r#"{"n":1}"#, holes)), Some(1));
    /// let mut n = None;
    /// shape.read(r#"{"n":22}"#, |_, v| Some(n = Some(v))).unwrap();
    /// assert_eq!(n, Some(ShapeValue::Uint(22)));
    /// assert_eq!(shape.learn_with("[]", |holes| reader("[]", holes)), None);
    /// assert!(shape.read(r#"{"n":22}"#, |_, _| Some(())).is_none());
    /// ```
    pub fn learn_with<T, D: AsRef<[u8]> + ?Sized>(
        &mut self,
        data: &D,
        reader: impl FnOnce(&mut ShapeHoles) -> Option<T>,
    ) -> Option<T> {
        let mut recording = std::mem::take(&mut self.recording);
        recording.clear();
        let answer = reader(&mut recording);
        match answer {
            Some(_) => self.learn(data, &recording),
            None => self.forget(),
        }
        self.recording = recording;
        answer
    }

    /// Forgets the shape: [`read`](Self::read) reads nothing until the next
    /// [`learn`](Self::learn).
    pub fn forget(&mut self) {
        self.literal.clear();
        self.holes.clear();
        self.learned = false;
    }

    /// Reads `data` when it has the learned shape: the same bytes around its holes, and in
    /// each hole a value of the kind learned there. Each value goes to `value` with its tag,
    /// in order; `None` when the data has another shape (or `value` gave up), which says
    /// nothing about the data: its reader must judge it.
    pub fn read<T: AsRef<[u8]> + ?Sized>(
        &self,
        data: &T,
        mut value: impl FnMut(u8, ShapeValue) -> Option<()>,
    ) -> Option<()> {
        if !self.learned {
            return None;
        }
        let data = data.as_ref();
        let mut j = ExactJson::new(data);
        let mut from = 0;
        for hole in &self.holes {
            j.bytes(self.literal.get(from..hole.end)?)?;
            from = hole.end;
            let found = match hole.kind {
                HoleKind::Str => ShapeValue::Str(j.string_at()?),
                HoleKind::Uint => ShapeValue::Uint(j.uint()?),
            };
            value(hole.tag, found)?;
        }
        j.bytes(self.literal.get(from..)?)?;
        j.is_end().then_some(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A reader of `{"n":N,"text":"…"}` (optionally with `"id"` first) that records its holes.
    fn reader(data: &str, holes: &mut ShapeHoles) -> Option<(u64, String)> {
        let mut j = ExactJson::new(data);
        j.lit("{")?;
        if j.lit(r#""id":"#).is_some() {
            j.string_at()?;
            j.lit(",")?;
        }
        j.lit(r#""n":"#)?;
        let n = holes.uint(&mut j, 1)?;
        j.lit(r#","text":"#)?;
        let text = holes.string(&mut j, 0)?.to_string_in(data);
        j.lit("}")?;
        j.is_end().then_some((n, text))
    }

    fn read(shape: &ExactShape, data: &str) -> Option<(u64, String)> {
        let (mut n, mut text) = (None, None);
        shape.read(data, |tag, value| {
            match (tag, value) {
                (1, ShapeValue::Uint(v)) => n = Some(v),
                (0, ShapeValue::Str(s)) => text = Some(s.to_string_in(data)),
                _ => return None,
            }
            Some(())
        })?;
        Some((n?, text?))
    }

    fn event(id: Option<&str>, n: &str, text: &str) -> String {
        let id = id.map(|id| format!(r#""id":"{id}","#)).unwrap_or_default();
        format!(r#"{{{id}"n":{n},"text":{text}}}"#)
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(2000))]

        /// Whatever the learned event and the next one, the shape reads the next one exactly
        /// as the reader does, or leaves it to the reader: it never answers otherwise.
        #[test]
        fn a_shape_reads_what_its_reader_reads_or_nothing(
            first in (proptest::option::of("[a-c]{1,2}"), "[0-9]{1,3}", "\"([a-z]|\\\\n|\\\\\")*\""),
            next in (proptest::option::of("[a-c]{1,2}"), "[0-9]{1,3}|1\\.5|-1|", "\"([a-z]|\\\\n|\\\\\"|\\\\x)*\"?"),
        ) {
            let first = event(first.0.as_deref(), &first.1, &first.2);
            let next = event(next.0.as_deref(), &next.1, &next.2);
            let mut holes = ShapeHoles::default();
            let mut shape = ExactShape::default();
            if reader(&first, &mut holes).is_some() {
                shape.learn(&first, &holes);
                proptest::prop_assert_eq!(read(&shape, &first), reader(&first, &mut ShapeHoles::default()));
            }
            if let Some(got) = read(&shape, &next) {
                proptest::prop_assert_eq!(Some(got), reader(&next, &mut ShapeHoles::default()), "{} then {}", first, next);
            }
        }
    }

    #[test]
    fn an_unlearned_or_forgotten_shape_reads_nothing() {
        let data = event(None, "1", r#""a""#);
        let mut shape = ExactShape::default();
        assert_eq!(read(&shape, &data), None);
        let mut holes = ShapeHoles::default();
        reader(&data, &mut holes).unwrap();
        shape.learn(&data, &holes);
        assert_eq!(read(&shape, &data), Some((1, "a".to_owned())));
        shape.forget();
        assert_eq!(read(&shape, &data), None);
    }

    #[test]
    fn other_bytes_around_the_holes_are_another_shape() {
        let mut holes = ShapeHoles::default();
        let first = event(Some("ab"), "1", r#""a""#);
        reader(&first, &mut holes).unwrap();
        let mut shape = ExactShape::default();
        shape.learn(&first, &holes);
        assert_eq!(read(&shape, &event(Some("ab"), "250", r#""x\ny""#)), Some((250, "x\ny".to_owned())));
        for other in [
            event(Some("ac"), "1", r#""a""#),
            event(None, "1", r#""a""#),
            event(Some("ab"), "01", r#""a""#),
            event(Some("ab"), "1.5", r#""a""#),
            event(Some("ab"), "1", r#""a\x""#),
            format!("{} ", event(Some("ab"), "1", r#""a""#)),
        ] {
            assert_eq!(read(&shape, &other), None, "{other}");
        }
    }
}
