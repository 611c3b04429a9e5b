//! How long the log keeps events: the `events.keep` registry setting
//! (`90d`: events younger than 90 days; `10000`: the newest ten thousand;
//! absent: everything), stored in `registry_meta`, and pruning. Retention
//! is applied on write, cheaply: one event in [`EVERY`] (by seq) reads
//! the setting and prunes, inside the transaction that wrote it; `agents
//! events prune --before` prunes at once.

use crate::registry::error::EventsError;
use crate::store::{StoreError, Writer};
use std::time::{Duration, SystemTime};

/// The `registry_meta` key of the setting.
pub const KEEP_KEY: &str = "events.keep";

/// Retention is applied when a write's event seq is a multiple of this.
pub(crate) const EVERY: i64 = 256;

/// The longest a count or a number of days may be.
const MAX: u64 = 1 << 40;

/// What the log keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Keep {
    /// Events younger than this many days.
    Days(u32),
    /// The newest this many events.
    Count(u64),
}

impl Keep {
    /// `90d` or `10000`; anything else is refused.
    pub fn parse(text: &str) -> Result<Self, EventsError> {
        let bad = || EventsError::BadKeep {
            value: text.to_owned(),
        };
        let (digits, days) = text.strip_suffix('d').map_or((text, false), |d| (d, true));
        // One to 13 digits (`parse` would take a sign).
        let n = Some(digits)
            .filter(|d| (1..=13).contains(&d.len()) && d.bytes().all(|b| b.is_ascii_digit()))
            .and_then(|d| d.parse::<u64>().ok())
            .filter(|n| (1..=MAX).contains(n))
            .ok_or_else(bad)?;
        Ok(if days {
            Keep::Days(u32::try_from(n).map_err(|_| bad())?)
        } else {
            Keep::Count(n)
        })
    }
}

impl std::fmt::Display for Keep {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Keep::Days(d) => write!(f, "{d}d"),
            Keep::Count(n) => write!(f, "{n}"),
        }
    }
}

/// The setting as stored (an unreadable value keeps everything: it was
/// checked when it was set, so it can only be a newer binary's).
pub(crate) fn read(r: &crate::store::Reader<'_>) -> Result<Option<Keep>, StoreError> {
    Ok(r.meta(KEEP_KEY)?.and_then(|v| Keep::parse(&v).ok()))
}

/// The oldest time kept `days` before `now`.
pub(crate) fn cutoff(now: SystemTime, days: u32) -> String {
    let back = Duration::from_secs(u64::from(days) * 86_400);
    crate::effects::iso8601(now.checked_sub(back).unwrap_or(SystemTime::UNIX_EPOCH))
}

/// Prune what the setting no longer keeps, in `w`'s transaction; how
/// many events went.
pub(crate) fn apply(w: &Writer<'_>, now: SystemTime) -> Result<u64, StoreError> {
    match read(w)? {
        None => Ok(0),
        Some(Keep::Days(days)) => w.prune_events(None, Some(&cutoff(now, days))),
        Some(Keep::Count(n)) => {
            let last = w.last_event_seq()?;
            let first_kept = last.saturating_sub(i64::try_from(n).unwrap_or(i64::MAX)) + 1;
            w.prune_events(Some(first_kept), None)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keep_reads_days_and_counts_and_refuses_the_rest() {
        assert_eq!(Keep::parse("90d").unwrap(), Keep::Days(90));
        assert_eq!(Keep::parse("10000").unwrap(), Keep::Count(10000));
        for bad in [
            "",
            "d",
            "0",
            "0d",
            "-3",
            "90h",
            "1e3",
            "90 d",
            "99999999999999",
        ] {
            let err = Keep::parse(bad).unwrap_err().to_string();
            assert!(err.contains("events.keep"), "{bad}: {err}");
        }
        assert_eq!(Keep::Days(7).to_string(), "7d");
    }

    #[test]
    fn the_cutoff_is_whole_days_back() {
        let now = SystemTime::UNIX_EPOCH + Duration::from_secs(10 * 86_400);
        assert_eq!(cutoff(now, 3), "1970-01-08T00:00:00.000Z");
        assert_eq!(cutoff(now, 30), "1970-01-01T00:00:00.000Z");
    }
}
