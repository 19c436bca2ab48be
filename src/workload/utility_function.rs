//! Piecewise-linear utility functions (Lee & Snavely, section 3.4): the value of finishing
//! a job t seconds after its submission.

use std::fmt;

/// A validated utility function: points (time, value) with the first time 0, times
/// strictly increasing, values non-increasing and non-negative, all finite. Linear between
/// points; zero after the last.
#[derive(Clone, Debug, PartialEq)]
pub struct UtilityFunction {
    points: Vec<(f64, f64)>,
}

/// Why a list of points is not a utility function; `at` is the index of the offending point.
#[derive(Clone, Debug, PartialEq)]
pub enum UtilityError {
    Empty,
    FirstTimeNotZero {
        time: f64,
    },
    NotFinite {
        at: usize,
    },
    Negative {
        at: usize,
    },
    TimeNotIncreasing {
        at: usize,
        previous: f64,
        time: f64,
    },
    ValueIncreases {
        at: usize,
        previous: f64,
        value: f64,
    },
    /// The text form: an odd number of numbers, or one that does not parse.
    Text {
        at: usize,
        token: String,
    },
}

impl fmt::Display for UtilityError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            UtilityError::Empty => {
                f.write_str("a utility function needs at least the point (0, start value)")
            }
            UtilityError::FirstTimeNotZero { time } => {
                write!(
                    f,
                    "point 0: the first time must be 0 (the submission), got {time}"
                )
            }
            UtilityError::NotFinite { at } => write!(f, "point {at}: times and values must be finite"),
            UtilityError::Negative { at } => write!(f, "point {at}: times and values must not be negative"),
            UtilityError::TimeNotIncreasing { at, previous, time } => write!(
                f,
                "point {at}: times must increase strictly, but {time} follows {previous}"
            ),
            UtilityError::ValueIncreases { at, previous, value } => write!(
                f,
                "point {at}: values must not increase, but {value} follows {previous}"
            ),
            UtilityError::Text { at, token } => write!(
                f,
                "utility tuple field {at}: '{token}' (expected pairs of numbers: time value time value ...)"
            ),
        }
    }
}

impl std::error::Error for UtilityError {}

impl UtilityFunction {
    /// Checks the rules of section 3.4.
    pub fn new(points: Vec<(f64, f64)>) -> Result<Self, UtilityError> {
        let Some(&(t0, _)) = points.first() else {
            return Err(UtilityError::Empty);
        };
        for (at, &(t, v)) in points.iter().enumerate() {
            if !(t.is_finite() && v.is_finite()) {
                return Err(UtilityError::NotFinite { at });
            }
            if t < 0.0 || v < 0.0 {
                return Err(UtilityError::Negative { at });
            }
            if at > 0 {
                let (pt, pv) = points[at - 1];
                if t <= pt {
                    return Err(UtilityError::TimeNotIncreasing {
                        at,
                        previous: pt,
                        time: t,
                    });
                }
                if v > pv {
                    return Err(UtilityError::ValueIncreases {
                        at,
                        previous: pv,
                        value: v,
                    });
                }
            }
        }
        if t0 != 0.0 {
            return Err(UtilityError::FirstTimeNotZero { time: t0 });
        }
        Ok(UtilityFunction { points })
    }

    pub fn points(&self) -> &[(f64, f64)] {
        &self.points
    }

    /// The value when the job completes, its turnaround `t` seconds after submission:
    /// linear between points, zero after the last (and before 0, where it is undefined).
    pub fn value(&self, t: f64) -> f64 {
        let p = &self.points;
        if t.is_nan() || t < 0.0 {
            return 0.0;
        }
        // The first point whose time exceeds t.
        let i = p.partition_point(|&(pt, _)| pt <= t);
        if i == p.len() {
            return if t == p[i - 1].0 { p[i - 1].1 } else { 0.0 };
        }
        let ((t0, v0), (t1, v1)) = (p[i - 1], p[i]);
        v0 + (v1 - v0) * (t - t0) / (t1 - t0)
    }

    /// The start value, earned by finishing at once.
    pub fn start_value(&self) -> f64 {
        self.points[0].1
    }

    /// Parses the tuples as they follow the 18 SWF fields: `time value time value ...`.
    pub fn parse_tokens<'a>(tokens: impl Iterator<Item = &'a str>) -> Result<Self, UtilityError> {
        let numbers: Vec<f64> = tokens
            .enumerate()
            .map(|(at, s)| {
                s.parse::<f64>().map_err(|_| UtilityError::Text {
                    at,
                    token: s.to_string(),
                })
            })
            .collect::<Result<_, _>>()?;
        if numbers.len() % 2 == 1 {
            return Err(UtilityError::Text {
                at: numbers.len(),
                token: "(missing value of the last tuple)".into(),
            });
        }
        Self::new(numbers.chunks(2).map(|c| (c[0], c[1])).collect())
    }
}

/// The SWF extension: the tuples as `time value` pairs separated by spaces, each number in
/// the shortest form that reads back to the same value.
impl fmt::Display for UtilityFunction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, (t, v)) in self.points.iter().enumerate() {
            if i > 0 {
                f.write_str(" ")?;
            }
            write!(f, "{t} {v}")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn u(points: &[(f64, f64)]) -> UtilityFunction {
        UtilityFunction::new(points.to_vec()).unwrap()
    }

    #[test]
    fn interpolates_linearly_and_is_zero_after_the_last_point() {
        let f = u(&[(0.0, 100.0), (10.0, 50.0), (20.0, 50.0), (30.0, 0.0)]);
        assert_eq!(f.value(0.0), 100.0);
        assert_eq!(f.value(5.0), 75.0);
        assert_eq!(f.value(15.0), 50.0);
        assert_eq!(f.value(25.0), 25.0);
        assert_eq!(f.value(30.0), 0.0);
        assert_eq!(f.value(1e9), 0.0);
        // A step kept after the last point's time is still zero past it.
        let g = u(&[(0.0, 8.0), (4.0, 8.0)]);
        assert_eq!((g.value(4.0), g.value(4.000001)), (8.0, 0.0));
        // A single point: its value at 0 only.
        let h = u(&[(0.0, 3.0)]);
        assert_eq!((h.value(0.0), h.value(1.0)), (3.0, 0.0));
    }

    #[test]
    fn validation_names_the_rule_and_the_point() {
        let bad = |points: &[(f64, f64)]| UtilityFunction::new(points.to_vec()).unwrap_err();
        assert_eq!(bad(&[]), UtilityError::Empty);
        assert_eq!(bad(&[(1.0, 5.0)]), UtilityError::FirstTimeNotZero { time: 1.0 });
        assert_eq!(
            bad(&[(0.0, 5.0), (2.0, 6.0)]),
            UtilityError::ValueIncreases {
                at: 1,
                previous: 5.0,
                value: 6.0
            }
        );
        assert_eq!(
            bad(&[(0.0, 5.0), (2.0, 4.0), (2.0, 3.0)]),
            UtilityError::TimeNotIncreasing {
                at: 2,
                previous: 2.0,
                time: 2.0
            }
        );
        assert_eq!(bad(&[(0.0, 5.0), (2.0, -1.0)]), UtilityError::Negative { at: 1 });
        assert_eq!(bad(&[(0.0, f64::NAN)]), UtilityError::NotFinite { at: 0 });
        assert!(bad(&[(0.0, 5.0), (2.0, 6.0)]).to_string().contains("point 1"));
    }

    #[test]
    fn the_text_form_round_trips() {
        let f = u(&[(0.0, 1234.5), (0.1, 1000.0), (7200.0, 3.25e-7), (86400.0, 0.0)]);
        let text = f.to_string();
        assert_eq!(UtilityFunction::parse_tokens(text.split_whitespace()).unwrap(), f);
        assert!(matches!(
            UtilityFunction::parse_tokens("0 5 10".split_whitespace()),
            Err(UtilityError::Text { at: 3, .. })
        ));
        assert!(matches!(
            UtilityFunction::parse_tokens("0 x".split_whitespace()),
            Err(UtilityError::Text { at: 1, .. })
        ));
    }
}
