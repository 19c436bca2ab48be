//! Priorities from a trace's queue field: the mapping of Lee & Snavely's section 4.1, which
//! normalises a system's queues to 0 (highest) .. N-1 (lowest).
//!
//! Text form: `queue:priority` pairs separated by commas, with `*:priority` for every queue
//! not listed (without it an unlisted queue is an error), or the name of a shipped map.
//!
//! Shipped: `sdsc-blue`. The SDSC Blue Horizon log (header of SDSC-BLUE-2000-4.2-cln) lists
//! queues 0 interactive, 1 express, 2 high, 3 normal, 4 low, 5 standby and 18 service
//! queues (diagnostics, tests, `parallel`, `unknown`, `legion`). The paper counts "six main
//! priority categories"; schedlab ranks the six in the header's order, which is also the
//! order of urgency their names and limits state (interactive sessions have a person
//! waiting; express is capped at 8 nodes for 2 hours for quick turnaround; high, normal and
//! low are charged at falling rates; standby runs on otherwise idle nodes), and counts the
//! service queues (60 of jobs 5000-10000) as normal.

use crate::error::UnmappedQueue;
use crate::params::ParamError;
use std::fmt;
use std::str::FromStr;

use crate::workload::Jobs;

/// A queue-to-priority mapping.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct PriorityMap {
    name: Option<&'static str>,
    /// (queue, priority), sorted by queue.
    pairs: Vec<(i32, u16)>,
    default: Option<u16>,
}

/// The shipped maps: (name, text form).
pub const SHIPPED: [(&str, &str); 1] = [("sdsc-blue", "0:0,1:1,2:2,3:3,4:4,5:5,*:3")];

impl PriorityMap {
    /// Number of priority levels N: the highest priority number used, plus one.
    pub fn levels(&self) -> u16 {
        let top = self.pairs.iter().map(|&(_, p)| p).chain(self.default).max();
        top.map_or(1, |p| p + 1)
    }

    /// The priority of jobs in `queue`, if the map has one.
    pub fn get(&self, queue: i32) -> Option<u16> {
        match self.pairs.binary_search_by_key(&queue, |&(q, _)| q) {
            Ok(i) => Some(self.pairs[i].1),
            Err(_) => self.default,
        }
    }

    /// Every job's priority, or an error naming the first job whose queue is not mapped.
    pub fn apply(&self, jobs: &Jobs) -> Result<Vec<u16>, UnmappedQueue> {
        jobs.queue
            .iter()
            .enumerate()
            .map(|(j, &queue)| {
                self.get(queue).ok_or_else(|| UnmappedQueue {
                    map: self.to_string(),
                    job: jobs.swf_id[j],
                    queue,
                })
            })
            .collect()
    }
}

impl FromStr for PriorityMap {
    type Err = ParamError;

    fn from_str(s: &str) -> Result<Self, ParamError> {
        if let Some(&(name, text)) = SHIPPED.iter().find(|(n, _)| *n == s.trim()) {
            let mut map: PriorityMap = text.parse()?;
            map.name = Some(name);
            return Ok(map);
        }
        let mut map = PriorityMap {
            name: None,
            pairs: Vec::new(),
            default: None,
        };
        for (i, item) in s.split(',').map(str::trim).enumerate() {
            let bad = || {
                ParamError::Invalid(format!(
                    "priority map '{s}', item {} '{item}': expected queue:priority with whole \
                     numbers (or *:priority), or one of: {}",
                    i + 1,
                    SHIPPED.map(|(n, _)| n).join(", ")
                ))
            };
            let (queue, priority) = item.split_once(':').ok_or_else(bad)?;
            let priority: u16 = priority.trim().parse().map_err(|_| bad())?;
            if queue.trim() == "*" {
                if map.default.replace(priority).is_some() {
                    return Err(ParamError::Invalid(format!(
                        "priority map '{s}': '*' given twice"
                    )));
                }
                continue;
            }
            let queue: i32 = queue.trim().parse().map_err(|_| bad())?;
            if map.pairs.iter().any(|&(q, _)| q == queue) {
                return Err(ParamError::Invalid(format!(
                    "priority map '{s}': queue {queue} given twice"
                )));
            }
            map.pairs.push((queue, priority));
        }
        map.pairs.sort_unstable();
        let levels = map.levels();
        let used: std::collections::BTreeSet<u16> =
            map.pairs.iter().map(|&(_, p)| p).chain(map.default).collect();
        if let Some(missing) = (0..levels).find(|p| !used.contains(p)) {
            return Err(ParamError::Invalid(format!(
                "priority map '{s}': priorities must be 0..N-1 with none skipped, but {missing} is unused"
            )));
        }
        Ok(map)
    }
}

impl fmt::Display for PriorityMap {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(name) = self.name {
            return f.write_str(name);
        }
        let items: Vec<String> = self
            .pairs
            .iter()
            .map(|(q, p)| format!("{q}:{p}"))
            .chain(self.default.map(|p| format!("*:{p}")))
            .collect();
        f.write_str(&items.join(","))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shipped_and_written_maps() {
        let blue: PriorityMap = "sdsc-blue".parse().unwrap();
        assert_eq!(blue.levels(), 6);
        assert_eq!(
            (blue.get(0), blue.get(5), blue.get(21)),
            (Some(0), Some(5), Some(3))
        );
        assert_eq!(blue.to_string(), "sdsc-blue");
        let m: PriorityMap = "7:1, 2:0".parse().unwrap();
        assert_eq!(
            (m.levels(), m.get(2), m.get(7), m.get(3)),
            (2, Some(0), Some(1), None)
        );
        assert_eq!(m.to_string(), "2:0,7:1");
        assert_eq!(m.to_string().parse::<PriorityMap>().unwrap(), m);
    }

    #[test]
    fn mistakes_are_named() {
        let e = |s: &str| s.parse::<PriorityMap>().unwrap_err().to_string();
        assert!(e("1:0,2").contains("item 2 '2'"));
        assert!(e("1:0,1:1").contains("queue 1 given twice"));
        assert!(e("1:0,2:2").contains("1 is unused"));
        assert!(e("*:0,*:1").contains("'*' given twice"));
        assert!(e("blue").contains("sdsc-blue"));
    }

    #[test]
    fn an_unmapped_queue_names_the_job() {
        use crate::workload::JobRecord;
        let mut r = JobRecord::new(42, 0, 1, 1, 1);
        r.queue = 9;
        let jobs = Jobs::from_records(&[r]);
        let m: PriorityMap = "1:0".parse().unwrap();
        let err = m.apply(&jobs).unwrap_err().to_string();
        assert!(err.contains("job 42 is in queue 9"), "{err}");
    }
}
