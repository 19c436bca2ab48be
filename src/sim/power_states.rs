//! Nodes switched off when idle and booted when a job needs them: which of a pool's free
//! nodes are on and which are off, and how long a start waits for a boot.
//! docs/semantics.md, "Power states", states the rules.
//!
//! A pool of one-core nodes, so nodes and processors count alike. Free nodes are on and
//! idle, or off (switching off, then off). Both are kept as runs of nodes that changed
//! state at the same instant, oldest first: a start takes the idle nodes that went idle
//! last, so the longest idle reach their timeout first, and boots the nodes that went off
//! first, so they are the likeliest to have finished switching off. Timeouts are applied
//! lazily, at the next instant with an event: between events nothing but timeouts changes,
//! and nothing reads the nodes' states, so each switch-off is logged at the time it
//! happened. The runs grow with the events, so a run's buffers are sized once.

use std::collections::VecDeque;

use crate::Time;

/// When a pool's idle nodes are switched off, and how long switching takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SwitchOffPolicy {
    /// A node idle for longer than this, seconds, is switched off.
    pub after: Time,
    /// No node is switched off while it would leave fewer than this many on (busy or idle).
    pub keep_on: u32,
    /// Seconds from the switch-off to off, and from the boot to on.
    pub shutdown_s: Time,
    pub boot_s: Time,
}

/// Nodes began switching off (`on` false) or booting (`on` true) at `at`. A boot is logged
/// once per start that needed it, with how long that start waited (`waited`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NodeSwitch {
    pub at: Time,
    pub nodes: u32,
    pub on: bool,
    /// For a boot, the seconds from the scheduler's decision to the job's start.
    pub waited: Time,
    /// The machine's partition (set when a run of parts is assembled; 0 in a part).
    pub partition: u32,
}

/// The power states of a run's free nodes ([`SwitchOffPolicy`]); inert without a policy.
#[derive(Debug, Default)]
pub(crate) struct PowerStates {
    policy: Option<SwitchOffPolicy>,
    nodes: u32,
    /// Idle nodes that are on: (idle since, nodes), oldest first.
    idle: VecDeque<(Time, u32)>,
    /// Nodes off or switching off: (switch-off began, nodes), oldest first.
    off: VecDeque<(Time, u32)>,
    off_count: u32,
    pub(crate) log: Vec<NodeSwitch>,
}

impl PowerStates {
    /// A run of `jobs` jobs on `nodes` nodes, all on and idle from `first` (the first
    /// submit), under `policy` (none: nodes stay on, and nothing here does anything).
    pub(crate) fn reset(&mut self, policy: Option<SwitchOffPolicy>, nodes: u32, first: Time, jobs: usize) {
        self.policy = policy;
        self.nodes = nodes;
        self.idle.clear();
        self.off.clear();
        self.off_count = 0;
        self.log.clear();
        if policy.is_some() {
            // Each end adds at most one idle run, each switch-off one off run and one log
            // entry, each start one boot entry.
            self.idle.reserve(jobs + 1);
            self.off.reserve(jobs + 1);
            self.log.reserve(2 * jobs + 1);
            self.idle.push_back((first, nodes));
        }
    }

    /// The longest a start now may wait for its nodes: a switch-off under way, then a
    /// boot; 0 while no node is off or switching off (every free node is on and idle, so no
    /// start waits). Reservations leave this much room (`crate::sched::easy`).
    #[inline]
    pub(crate) fn margin(&self) -> Time {
        match self.policy {
            Some(p) if self.off_count > 0 => p.shutdown_s + p.boot_s,
            _ => 0,
        }
    }

    /// The longest any start may wait for its nodes, now or later.
    #[inline]
    pub(crate) fn most_margin(&self) -> Time {
        self.policy.map_or(0, |p| p.shutdown_s + p.boot_s)
    }

    /// Switches off the idle nodes whose timeout ran out before `now`, in the order it ran
    /// out, while more than `keep_on` nodes are on. A timeout at `now` itself waits for the
    /// instant's pass: a node that reaches it as a job wants it is still on.
    #[inline]
    pub(crate) fn advance(&mut self, now: Time) {
        let Some(policy) = self.policy else { return };
        while let Some(front) = self.idle.front_mut() {
            let at = front.0 + policy.after;
            let room = (self.nodes - self.off_count).saturating_sub(policy.keep_on);
            // The nodes on only fall here, and rise only at a boot, which finds no idle
            // node on: so a run held back by `keep_on` waits for nodes released later.
            if at >= now || room == 0 {
                break;
            }
            let k = front.1.min(room);
            front.1 -= k;
            if front.1 == 0 {
                self.idle.pop_front();
            }
            match self.off.back_mut() {
                Some(last) if last.0 == at => last.1 += k,
                _ => self.off.push_back((at, k)),
            }
            self.off_count += k;
            match self.log.last_mut() {
                Some(last) if !last.on && last.at == at => last.nodes += k,
                _ => self.log.push(NodeSwitch {
                    at,
                    nodes: k,
                    on: false,
                    waited: 0,
                    partition: 0,
                }),
            }
        }
    }

    /// Takes `n` free nodes for a job the scheduler starts now: idle ones first, the last
    /// to go idle first; the rest are booted, once they have finished switching off.
    /// Returns how long the job waits for them (0 when no boot is needed).
    #[inline]
    pub(crate) fn take(&mut self, now: Time, mut n: u32) -> Time {
        let Some(policy) = self.policy else { return 0 };
        while n > 0 {
            let Some(last) = self.idle.back_mut() else { break };
            let k = n.min(last.1);
            last.1 -= k;
            n -= k;
            if last.1 == 0 {
                self.idle.pop_back();
            }
        }
        if n == 0 {
            return 0;
        }
        let boot = n;
        let mut ready = now;
        while n > 0 {
            let first = self.off.front_mut().expect("free nodes are idle or off");
            ready = ready.max(first.0 + policy.shutdown_s);
            let k = n.min(first.1);
            first.1 -= k;
            n -= k;
            if first.1 == 0 {
                self.off.pop_front();
            }
        }
        self.off_count -= boot;
        let waited = ready + policy.boot_s - now;
        self.log.push(NodeSwitch {
            at: ready,
            nodes: boot,
            on: true,
            waited,
            partition: 0,
        });
        waited
    }

    /// `n` nodes went idle now.
    #[inline]
    pub(crate) fn release(&mut self, now: Time, n: u32) {
        if self.policy.is_none() {
            return;
        }
        match self.idle.back_mut() {
            Some(last) if last.0 == now => last.1 += n,
            _ => self.idle.push_back((now, n)),
        }
    }

    /// Checks that the free nodes are those idle and those off (validation).
    pub(crate) fn check(&self, free: u32, now: Time) {
        if self.policy.is_none() {
            return;
        }
        let idle: u32 = self.idle.iter().map(|r| r.1).sum();
        let off: u32 = self.off.iter().map(|r| r.1).sum();
        assert_eq!(off, self.off_count, "t={now}: off nodes miscounted");
        assert_eq!(
            idle + off,
            free,
            "t={now}: {idle} idle and {off} off nodes, but {free} free"
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn policy(after: Time, keep_on: u32) -> SwitchOffPolicy {
        SwitchOffPolicy {
            after,
            keep_on,
            shutdown_s: 10,
            boot_s: 100,
        }
    }

    /// Four nodes idle from 0, a timeout of 60 s: at 61 all four went off at 60; a start of
    /// three at 65 waits for the switch-off to end (70) and the boot (100): 105 s.
    #[test]
    fn idle_nodes_go_off_and_a_start_waits_for_the_boot() {
        let mut s = PowerStates::default();
        s.reset(Some(policy(60, 0)), 4, 0, 10);
        s.advance(60);
        assert!(
            s.log.is_empty(),
            "a timeout at the instant itself waits for its pass"
        );
        assert_eq!((s.margin(), s.most_margin()), (0, 110), "no node is off yet");
        s.advance(65);
        assert_eq!(s.margin(), 110);
        assert_eq!(
            s.log,
            [NodeSwitch {
                at: 60,
                nodes: 4,
                on: false,
                waited: 0,
                partition: 0
            }]
        );
        assert_eq!(s.take(65, 3), 105);
        s.check(1, 65);
        assert_eq!(
            s.log[1],
            NodeSwitch {
                at: 70,
                nodes: 3,
                on: true,
                waited: 105,
                partition: 0
            }
        );
        // Nodes released at 300 are on: a start of two at 320 takes them at once.
        s.release(300, 3);
        assert_eq!(s.take(320, 2), 0);
        s.check(2, 320);
    }

    /// `keep_on` of 3 on 4 idle nodes: one goes off; the others stay on for good.
    #[test]
    fn keep_on_holds_nodes_on() {
        let mut s = PowerStates::default();
        s.reset(Some(policy(5, 3)), 4, 0, 10);
        s.advance(1_000);
        assert_eq!(
            s.log,
            [NodeSwitch {
                at: 5,
                nodes: 1,
                on: false,
                waited: 0,
                partition: 0
            }]
        );
        s.check(4, 1_000);
        // A start of two takes the idle ones: no wait.
        assert_eq!(s.take(1_000, 2), 0);
    }

    /// The last to go idle are taken first, so the earliest reach their timeout.
    #[test]
    fn a_start_takes_the_last_to_go_idle() {
        let mut s = PowerStates::default();
        s.reset(Some(policy(100, 0)), 3, 0, 10);
        assert_eq!(s.take(0, 3), 0);
        s.release(10, 1);
        s.release(50, 2);
        assert_eq!(s.take(60, 1), 0);
        // At 200: the node idle since 10 went off at 110; the one idle since 50 at 150.
        s.advance(200);
        let offs: Vec<(Time, u32)> = s.log.iter().map(|l| (l.at, l.nodes)).collect();
        assert_eq!(offs, [(110, 1), (150, 1)]);
        // A start of one boots the first to go off, ready at once: 100 s.
        assert_eq!(s.take(200, 1), 100);
    }

    #[test]
    fn without_a_policy_nothing_happens() {
        let mut s = PowerStates::default();
        s.reset(None, 4, 0, 10);
        s.advance(1_000_000);
        assert_eq!(s.take(1_000_000, 4), 0);
        assert_eq!((s.margin(), s.most_margin()), (0, 0));
        assert!(s.log.is_empty());
    }
}
