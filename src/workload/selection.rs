//! Job selection: an SWF job-number range (`5000..=10000`) and a first-N limit.

use crate::params::ParamError;
use std::ops::RangeInclusive;
use std::str::FromStr;

/// Which job lines of a trace to simulate. The range is on SWF job numbers (field 1), not
/// on line positions; `first` keeps the first N jobs that pass the range and skip rules.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Selection {
    pub range: Option<JobRange>,
    pub first: Option<usize>,
}

impl Selection {
    #[inline]
    pub fn contains(&self, swf_id: u64) -> bool {
        self.range.as_ref().is_none_or(|r| r.0.contains(&swf_id))
    }
}

/// An inclusive range of SWF job numbers, written `A..=B`, `A..B` (B excluded), `A..` or
/// `..=B`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct JobRange(pub RangeInclusive<u64>);

impl std::fmt::Display for JobRange {
    /// `A..=B`, or `A..` when open-ended; parses back to the same range.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match *self.0.end() {
            u64::MAX => write!(f, "{}..", self.0.start()),
            end => write!(f, "{}..={end}", self.0.start()),
        }
    }
}

impl FromStr for JobRange {
    type Err = ParamError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let bad = || ParamError::BadValue {
            key: "jobs".into(),
            value: s.into(),
            expected: "a job range A..=B, A..B, A.. or ..=B".into(),
        };
        let (lo, hi, inclusive) = if let Some((a, b)) = s.split_once("..=") {
            (a, b, true)
        } else if let Some((a, b)) = s.split_once("..") {
            (a, b, false)
        } else {
            return Err(bad());
        };
        let lo: u64 = if lo.is_empty() {
            0
        } else {
            lo.trim().parse().map_err(|_| bad())?
        };
        let hi: u64 = match (hi.trim(), inclusive) {
            ("", false) => u64::MAX,
            ("", true) => return Err(bad()),
            (h, true) => h.parse().map_err(|_| bad())?,
            (h, false) => h
                .parse::<u64>()
                .map_err(|_| bad())?
                .checked_sub(1)
                .ok_or_else(bad)?,
        };
        if lo > hi {
            return Err(ParamError::BadValue {
                key: "jobs".into(),
                value: s.into(),
                expected: "a range that holds a job (A <= B)".into(),
            });
        }
        Ok(JobRange(lo..=hi))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_every_form() {
        assert_eq!("5000..=10000".parse(), Ok(JobRange(5000..=10000)));
        assert_eq!("5..10".parse(), Ok(JobRange(5..=9)));
        assert_eq!("7..".parse(), Ok(JobRange(7..=u64::MAX)));
        assert_eq!("..=3".parse(), Ok(JobRange(0..=3)));
        assert!("10..=5".parse::<JobRange>().is_err());
        assert!("abc".parse::<JobRange>().is_err());
        assert!("1..=x".parse::<JobRange>().is_err());
    }
}
