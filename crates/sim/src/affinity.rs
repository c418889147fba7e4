//! Keeping the two threads of a split run (`crate::world::World::run_split`) on different CPUs.
//!
//! A new thread starts on its parent's CPU, and left to the scheduler the two halves then
//! take turns on one CPU at a run's start, when they pass few packets and exchange often:
//! each wait ends in `yield_now`, which takes far longer than an exchange between two CPUs
//! (docs/performance-steps.md, "One flow split too"). So for the run the caller is held on
//! the CPU it is on and the other half on the other CPUs it may use (where the scheduler
//! can still move it off a busy one); the caller gets its CPUs back after the run.

pub use imp::{pin, split_cpus, CpuSet, Pinned};

#[cfg(target_os = "linux")]
mod imp {
    use libc::{cpu_set_t, sched_getaffinity, sched_getcpu, sched_setaffinity, CPU_CLR, CPU_COUNT, CPU_SET, CPU_SETSIZE};

    pub type CpuSet = cpu_set_t;

    /// The calling thread's CPUs, restored when dropped.
    pub struct Pinned(CpuSet);

    fn empty() -> CpuSet {
        // SAFETY: an all-zero cpu_set_t is the empty set.
        unsafe { std::mem::zeroed() }
    }

    pub(super) fn allowed() -> Option<CpuSet> {
        let mut set = empty();
        // SAFETY: `set` is a cpu_set_t of the size given; 0 is the calling thread.
        (unsafe { sched_getaffinity(0, size_of::<CpuSet>(), &mut set) } == 0).then_some(set)
    }

    fn set(cpus: &CpuSet) -> bool {
        // SAFETY: as in `allowed`.
        unsafe { sched_setaffinity(0, size_of::<CpuSet>(), cpus) == 0 }
    }

    /// The CPU the caller runs on, and the other CPUs it may run on (none: `None`).
    pub fn split_cpus() -> Option<[CpuSet; 2]> {
        let mut others = allowed()?;
        // SAFETY: no arguments; a negative result is an error.
        let here = usize::try_from(unsafe { sched_getcpu() }).ok().filter(|&c| c < CPU_SETSIZE as usize)?;
        let mut mine = empty();
        // SAFETY: `here` is below CPU_SETSIZE, within both sets.
        unsafe {
            CPU_SET(here, &mut mine);
            CPU_CLR(here, &mut others);
        }
        // SAFETY: a valid set.
        (unsafe { CPU_COUNT(&others) } > 0).then_some([mine, others])
    }

    /// Keep the calling thread on `cpus` until the guard drops. `None` when the system
    /// refuses.
    pub fn pin(cpus: &CpuSet) -> Option<Pinned> {
        let before = allowed()?;
        set(cpus).then_some(Pinned(before))
    }

    impl Drop for Pinned {
        fn drop(&mut self) {
            // The saved CPUs may have left the thread's cpuset meanwhile; then every CPU
            // (the kernel keeps those of the cpuset).
            if !set(&self.0) {
                let mut every = empty();
                for c in 0..CPU_SETSIZE as usize {
                    // SAFETY: c is below CPU_SETSIZE.
                    unsafe { CPU_SET(c, &mut every) };
                }
                set(&every);
            }
        }
    }
}

#[cfg(not(target_os = "linux"))]
mod imp {
    pub struct CpuSet;
    pub struct Pinned;

    pub fn split_cpus() -> Option<[CpuSet; 2]> {
        None
    }

    pub fn pin(_cpus: &CpuSet) -> Option<Pinned> {
        None
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    fn cpus(set: &CpuSet) -> Vec<usize> {
        // SAFETY: every c is below CPU_SETSIZE.
        (0..libc::CPU_SETSIZE as usize).filter(|&c| unsafe { libc::CPU_ISSET(c, set) }).collect()
    }

    #[test]
    fn the_caller_is_held_apart_and_gets_its_cpus_back() {
        let before = cpus(&imp::allowed().unwrap());
        let Some([mine, others]) = split_cpus() else {
            assert_eq!(before.len(), 1, "no other CPU only on a one-CPU machine");
            return;
        };
        let (mine, others) = (cpus(&mine), cpus(&others));
        assert_eq!(mine.len(), 1);
        assert!(!others.contains(&mine[0]) && others.iter().all(|c| before.contains(c)));
        let guard = pin(&split_cpus().unwrap()[0]).expect("the caller may run where it runs");
        assert_eq!(cpus(&imp::allowed().unwrap()).len(), 1);
        drop(guard);
        assert_eq!(cpus(&imp::allowed().unwrap()), before);
    }
}
