//! A UTC timestamp with millisecond precision, serialized as RFC 3339 (`2026-11-30T21:51:06.123Z`).
//!
//! dive-core keeps its dependency list tiny, so this is a small hand-written civil-calendar
//! conversion instead of a date-time crate.

use std::fmt;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// Milliseconds since the Unix epoch, in UTC.
///
/// ```
/// use dive_core::Timestamp;
/// let t = Timestamp::from_millis(1_764_539_466_123);
/// assert_eq!(t.to_string(), "2025-11-30T21:51:06.123Z");
/// assert_eq!(t.to_string().parse::<Timestamp>().unwrap(), t);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Timestamp(i64);

impl Timestamp {
    /// The current time.
    #[must_use]
    pub fn now() -> Self {
        Self::from(SystemTime::now())
    }

    /// A timestamp from milliseconds since the Unix epoch.
    #[must_use]
    pub const fn from_millis(millis: i64) -> Self {
        Self(millis)
    }

    /// Milliseconds since the Unix epoch.
    #[must_use]
    pub const fn as_millis(self) -> i64 {
        self.0
    }

    /// Time elapsed from `earlier` to `self`, zero if `earlier` is later.
    #[must_use]
    pub fn duration_since(self, earlier: Timestamp) -> Duration {
        Duration::from_millis(u64::try_from(self.0 - earlier.0).unwrap_or(0))
    }
}

impl From<SystemTime> for Timestamp {
    fn from(t: SystemTime) -> Self {
        match t.duration_since(UNIX_EPOCH) {
            Ok(d) => Self(i64::try_from(d.as_millis()).unwrap_or(i64::MAX)),
            Err(e) => Self(-i64::try_from(e.duration().as_millis()).unwrap_or(i64::MAX)),
        }
    }
}

// Howard Hinnant's days_from_civil / civil_from_days.
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = if y >= 0 { y } else { y - 399 } / 400;
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 719_468;
    let era = if z >= 0 { z } else { z - 146_096 } / 146_097;
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (if m <= 2 { y + 1 } else { y }, m, d)
}

impl fmt::Display for Timestamp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let millis = self.0.rem_euclid(1000);
        let secs = self.0.div_euclid(1000);
        let days = secs.div_euclid(86_400);
        let sod = secs.rem_euclid(86_400);
        let (y, m, d) = civil_from_days(days);
        write!(
            f,
            "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}.{millis:03}Z",
            sod / 3600,
            (sod % 3600) / 60,
            sod % 60
        )
    }
}

/// The error returned when a string is not an RFC 3339 timestamp.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid RFC 3339 timestamp {0:?}")]
pub struct ParseTimestampError(String);

impl std::str::FromStr for Timestamp {
    type Err = ParseTimestampError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let err = || ParseTimestampError(s.to_owned());
        let b = s.as_bytes();
        if b.len() < 20 || b[4] != b'-' || b[7] != b'-' || !matches!(b[10], b'T' | b't' | b' ') {
            return Err(err());
        }
        let num = |r: std::ops::Range<usize>| -> Result<i64, ParseTimestampError> {
            s.get(r).and_then(|x| x.parse::<i64>().ok()).ok_or_else(err)
        };
        let (y, mo, d) = (num(0..4)?, num(5..7)?, num(8..10)?);
        let (h, mi, se) = (num(11..13)?, num(14..16)?, num(17..19)?);
        if !(1..=12).contains(&mo) || !(1..=31).contains(&d) || h > 23 || mi > 59 || se > 60 {
            return Err(err());
        }
        let mut rest = &s[19..];
        let mut millis = 0i64;
        if let Some(frac) = rest.strip_prefix('.') {
            let digits = frac.bytes().take_while(u8::is_ascii_digit).count();
            if digits == 0 {
                return Err(err());
            }
            let mut ms = frac[..digits.min(3)].parse::<i64>().map_err(|_| err())?;
            for _ in digits.min(3)..3 {
                ms *= 10;
            }
            millis = ms;
            rest = &frac[digits..];
        }
        let offset_secs = match rest {
            "Z" | "z" => 0,
            _ if rest.len() == 6 && matches!(&rest[..1], "+" | "-") && &rest[3..4] == ":" => {
                let oh: i64 = rest[1..3].parse().map_err(|_| err())?;
                let om: i64 = rest[4..6].parse().map_err(|_| err())?;
                let sign = if &rest[..1] == "-" { -1 } else { 1 };
                sign * (oh * 3600 + om * 60)
            }
            _ => return Err(err()),
        };
        let secs = days_from_civil(y, mo, d) * 86_400 + h * 3600 + mi * 60 + se - offset_secs;
        Ok(Self(secs * 1000 + millis))
    }
}

impl Serialize for Timestamp {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Timestamp {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let s = std::borrow::Cow::<'de, str>::deserialize(deserializer)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_and_parses() {
        for millis in [0, 1, 999, 86_400_000, 951_782_400_000, 4_102_444_800_123, -1] {
            let t = Timestamp::from_millis(millis);
            let s = t.to_string();
            assert_eq!(s.parse::<Timestamp>(), Ok(t), "{s}");
        }
        assert_eq!(Timestamp::from_millis(0).to_string(), "1970-01-01T00:00:00.000Z");
        assert_eq!(
            "2000-02-29T12:00:00+02:00".parse::<Timestamp>().map(|t| t.to_string()),
            Ok("2000-02-29T10:00:00.000Z".to_owned())
        );
        assert!("2000-13-01T00:00:00Z".parse::<Timestamp>().is_err());
        assert!("yesterday".parse::<Timestamp>().is_err());
    }
}
