//! Keeping the two threads of a split run (`crate::world::run_split`) on two CPUs.
//!
//! A new thread starts on its parent's CPU, and the scheduler may leave both there for
//! milliseconds. Two halves that wait on each other then take turns on one CPU through
//! `yield_now`, about 70 µs a turn where an exchange between two CPUs takes a few: at the
//! start of the benchmark's one-flow run, when the halves pass few packets and exchange
//! often, that was 15 ms of a 69 ms run. Each thread is therefore held on a CPU of its own
//! for the run, and the caller gets its own CPUs back after it.

/// The CPU the caller runs on, and another one it may run on.
pub fn two_cpus() -> Option<[usize; 2]> {
    imp::two_cpus()
}

/// Keep the calling thread on `cpu` until the guard drops; then it may run where it could
/// before. `None` when the system refuses.
pub fn pin(cpu: usize) -> Option<Pinned> {
    imp::pin(cpu)
}

pub use imp::Pinned;

#[cfg(target_os = "linux")]
mod imp {
    use libc::{cpu_set_t, sched_getaffinity, sched_getcpu, sched_setaffinity, CPU_ISSET, CPU_SET, CPU_SETSIZE};

    pub struct Pinned(cpu_set_t);

    fn allowed() -> Option<cpu_set_t> {
        // SAFETY: a zeroed cpu_set_t is an empty set, which the call fills in.
        let mut set: cpu_set_t = unsafe { std::mem::zeroed() };
        (unsafe { sched_getaffinity(0, size_of::<cpu_set_t>(), &mut set) } == 0).then_some(set)
    }

    fn set(cpus: &cpu_set_t) -> bool {
        // SAFETY: `cpus` is a valid set of the size given; 0 is the calling thread.
        unsafe { sched_setaffinity(0, size_of::<cpu_set_t>(), cpus) == 0 }
    }

    pub fn two_cpus() -> Option<[usize; 2]> {
        let cpus = allowed()?;
        // SAFETY: no arguments; a negative result is an error.
        let here = usize::try_from(unsafe { sched_getcpu() }).ok()?;
        let n = CPU_SETSIZE as usize;
        // SAFETY: every c is below CPU_SETSIZE, within the set.
        let other = (1..n).map(|i| (here + i) % n).find(|&c| unsafe { CPU_ISSET(c, &cpus) })?;
        Some([here, other])
    }

    pub fn pin(cpu: usize) -> Option<Pinned> {
        let before = allowed()?;
        if cpu >= CPU_SETSIZE as usize {
            return None;
        }
        // SAFETY: as in `allowed`; `cpu` is within the set.
        let mut one: cpu_set_t = unsafe { std::mem::zeroed() };
        unsafe { CPU_SET(cpu, &mut one) };
        set(&one).then_some(Pinned(before))
    }

    impl Drop for Pinned {
        fn drop(&mut self) {
            set(&self.0);
        }
    }
}

#[cfg(not(target_os = "linux"))]
mod imp {
    pub struct Pinned;

    pub fn two_cpus() -> Option<[usize; 2]> {
        None
    }

    pub fn pin(_cpu: usize) -> Option<Pinned> {
        None
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    #[test]
    fn a_pinned_thread_gets_its_cpus_back() {
        let before = imp_allowed();
        let Some([here, _]) = two_cpus() else { return }; // a one-CPU machine
        let guard = pin(here).expect("the caller may run where it runs");
        assert_eq!(imp_allowed(), vec![here]);
        drop(guard);
        assert_eq!(imp_allowed(), before);
    }

    fn imp_allowed() -> Vec<usize> {
        let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
        assert_eq!(unsafe { libc::sched_getaffinity(0, size_of::<libc::cpu_set_t>(), &mut set) }, 0);
        (0..libc::CPU_SETSIZE as usize).filter(|&c| unsafe { libc::CPU_ISSET(c, &set) }).collect()
    }
}
