//! Simulation (Algorithm 3): the system projected with an analytical model of each job's
//! remaining time (PROP, MPL or CPU) and of its CPU time (MPL or CPU), written `REM-CPU`.

use std::fmt;

use super::{CpuMethod, Estimating, HistDb, Kernel, RemMethod};
use crate::call::{Call, CallError};
use crate::nondedicated::model::ParallelJob;
use crate::plugin::Entry;

/// Algorithm 3 with RemTime by `rem` (equations 1-8) and CPUtime_cur by `cpu` (equations
/// 9-12).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Simulation {
    pub rem: RemMethod,
    pub cpu: CpuMethod,
}

const REM: [(&str, RemMethod); 3] = [
    ("prop", RemMethod::Prop),
    ("mpl", RemMethod::Mpl),
    ("cpu", RemMethod::Cpu),
];
const CPU: [(&str, CpuMethod); 2] = [("mpl", CpuMethod::Mpl), ("cpu", CpuMethod::Cpu)];

impl Simulation {
    /// The kernel a name `REM-CPU` writes, if it is one.
    fn named(name: &str) -> Option<Simulation> {
        let (r, c) = name.split_once('-')?;
        let rem = REM.iter().find(|(n, _)| *n == r)?.1;
        let cpu = CPU.iter().find(|(n, _)| *n == c)?.1;
        Some(Simulation { rem, cpu })
    }
}

impl Entry for Simulation {
    const NAME: &'static str = "REM-CPU";
    const SYNTAX: &'static str = "REM-CPU (REM prop|mpl|cpu, CPU mpl|cpu)";
    const HELP: &'static str = "the system projected with RemTime by REM and CPUtime_cur by CPU: prop-cpu, \
        mpl-cpu (the paper's best), cpu-cpu, prop-mpl, mpl-mpl, cpu-mpl";
    fn chosen_by(name: &str) -> bool {
        Simulation::named(name).is_some()
    }
    fn parse(call: &mut Call) -> Result<Self, CallError> {
        Ok(Simulation::named(call.name()).expect("chosen by its name"))
    }
    fn write(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let rem = REM
            .iter()
            .find(|(_, m)| *m == self.rem)
            .expect("every method named")
            .0;
        let cpu = CPU
            .iter()
            .find(|(_, m)| *m == self.cpu)
            .expect("every method named")
            .0;
        write!(f, "{rem}-{cpu}")
    }
}

impl Estimating for Simulation {
    fn reads_history(&self) -> bool {
        false
    }
    fn kernel<'a>(&self, jobs: &'a [ParallelJob], _db: &'a HistDb) -> Option<Kernel<'a>> {
        Some(Kernel {
            jobs,
            rem: Some(self.rem),
            cpu: self.cpu,
            db: None,
        })
    }
}
