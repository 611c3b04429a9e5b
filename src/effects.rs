//! The nondeterministic effects the library is handed rather than reaching
//! for: the clock and the id source. Tests pin both; the binary uses
//! [`SystemClock`] and [`UlidSource`].
//!
//! Timestamps are ISO-8601 UTC with milliseconds (`2026-11-29T15:28:41.123Z`,
//! 24 characters): they sort as text, which is how SQLite compares them.

use crate::model::ResourceId;
use std::fmt;
use std::sync::Mutex;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// Where "now" comes from.
pub trait Clock: Send + Sync + fmt::Debug {
    fn now(&self) -> SystemTime;
}

/// The operating system's clock.
#[derive(Debug, Default, Clone, Copy)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> SystemTime {
        SystemTime::now()
    }
}

/// A clock stuck at one instant, for tests.
#[derive(Debug, Clone, Copy)]
pub struct FixedClock(pub SystemTime);

impl Clock for FixedClock {
    fn now(&self) -> SystemTime {
        self.0
    }
}

/// Where new resource ids come from.
pub trait IdSource: Send + Sync + fmt::Debug {
    fn next_id(&self, now: SystemTime) -> ResourceId;
}

/// Monotonic ULIDs: ids made in one process sort in creation order even
/// within one millisecond.
#[derive(Debug, Default)]
pub struct UlidSource(Mutex<ulid::Generator>);

impl IdSource for UlidSource {
    fn next_id(&self, now: SystemTime) -> ResourceId {
        let mut generator = self.0.lock().unwrap_or_else(|p| p.into_inner());
        let ulid = match generator.generate_from_datetime(now) {
            Ok(ulid) => ulid,
            // 2^80 ids in one millisecond: move to the next one.
            Err(overflow) => overflow.commit_overflow_increment(),
        };
        ResourceId::from_ulid(ulid)
    }
}

/// Format `t` as `YYYY-MM-DDTHH:MM:SS.mmmZ` (UTC).
pub fn iso8601(t: SystemTime) -> String {
    let since = t.duration_since(UNIX_EPOCH).unwrap_or(Duration::ZERO);
    let secs = since.as_secs();
    let millis = since.subsec_millis();
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    let (y, m, d) = civil_from_days(days);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}.{millis:03}Z",
        rem / 3600,
        (rem % 3600) / 60,
        rem % 60
    )
}

/// Is `text` a timestamp as [`iso8601`] writes them — UTC,
/// `YYYY-MM-DDTHH:MM:SS` with an optional fraction of 1 to 9 digits, then
/// `Z` — naming a real day and time? What the registry stores and sorts
/// as text, so nothing else may come in (an imported document's).
pub fn is_iso8601(text: &str) -> bool {
    let b = text.as_bytes();
    let digits = |range: std::ops::Range<usize>| -> Option<u32> {
        let part = b.get(range)?;
        part.iter()
            .all(u8::is_ascii_digit)
            .then(|| part.iter().fold(0, |n, d| n * 10 + u32::from(d - b'0')))
    };
    let (Some(y), Some(m), Some(d), Some(hh), Some(mm), Some(ss)) = (
        digits(0..4),
        digits(5..7),
        digits(8..10),
        digits(11..13),
        digits(14..16),
        digits(17..19),
    ) else {
        return false;
    };
    let punctuated = b.get(4) == Some(&b'-')
        && b.get(7) == Some(&b'-')
        && b.get(10) == Some(&b'T')
        && b.get(13) == Some(&b':')
        && b.get(16) == Some(&b':');
    let fraction_ok = match &b[19.min(b.len())..] {
        [b'Z'] => true,
        [b'.', rest @ .., b'Z'] => {
            (1..=9).contains(&rest.len()) && rest.iter().all(u8::is_ascii_digit)
        }
        _ => false,
    };
    let leap = y % 4 == 0 && (y % 100 != 0 || y % 400 == 0);
    let days = match m {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => 0,
    };
    punctuated && fraction_ok && (1..=days).contains(&d) && hh < 24 && mm < 60 && ss < 60
}

/// Days since 1970-01-01 → (year, month, day), proleptic Gregorian
/// (Howard Hinnant's `civil_from_days`).
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_real_utc_timestamps_read_as_iso8601() {
        for good in [
            "2026-12-06T15:35:21.123Z",
            "2000-02-29T00:00:00Z",
            "1999-12-31T23:59:59.123456789Z",
        ] {
            assert!(is_iso8601(good), "{good}");
        }
        for bad in [
            "not a time",
            "",
            "2026-13-01T00:00:00.000Z",
            "2026-02-29T00:00:00.000Z",
            "2026-01-01T24:00:00.000Z",
            "2026-01-01T00:00:00.000",
            "2026-01-01 00:00:00.000Z",
            "2026-01-01T00:00:00.Z",
            "2026-01-01T00:00:00.000+01:00",
            "2026-01-01T00:00:00.000Z\0",
        ] {
            assert!(!is_iso8601(bad), "{bad:?}");
        }
        assert!(is_iso8601(&iso8601(SystemTime::now())));
    }

    #[test]
    fn iso8601_formats_utc_with_milliseconds() {
        let t = UNIX_EPOCH + Duration::from_millis(1_796_571_321_123);
        assert_eq!(iso8601(t), "2026-12-06T15:35:21.123Z");
        assert_eq!(iso8601(UNIX_EPOCH), "1970-01-01T00:00:00.000Z");
        let leap = UNIX_EPOCH + Duration::from_secs(951_782_400); // 2000-02-29
        assert_eq!(iso8601(leap), "2000-02-29T00:00:00.000Z");
    }

    #[test]
    fn ulid_source_is_monotonic_within_one_millisecond() {
        let ids = UlidSource::default();
        let now = SystemTime::now();
        let a = ids.next_id(now);
        let b = ids.next_id(now);
        assert!(a < b);
    }
}
