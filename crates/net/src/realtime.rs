//! The path's user-space parts (the delay line, rampup over UDP) keep their timing on a busy
//! machine by running under the real-time scheduler: a process at normal priority waits
//! behind whatever else is runnable, and a delay line or an end woken late releases what it
//! holds at once, a burst that the path would not make (a queue full of frames that came
//! together rather than paced by the bottleneck).

use std::io;

/// SCHED_FIFO's priority for the path's processes: above every normal process, and below the
/// kernel's own real-time threads (priority 99 and the 50 of threaded interrupts are left
/// alone). Each process blocks in poll between frames, so it never holds a CPU for long; the
/// kernel's real-time throttling (`sched_rt_runtime_us`) bounds it besides.
const PRIORITY: libc::c_int = 40;

/// Run this process under SCHED_FIFO at `PRIORITY`. Without CAP_SYS_NICE (or RLIMIT_RTPRIO)
/// that is refused: `program` says so in one line on stderr and runs as it was.
pub fn run_realtime(program: &str) {
    let param = libc::sched_param { sched_priority: PRIORITY };
    // SAFETY: sched_setscheduler reads one sched_param; pid 0 is this process.
    if unsafe { libc::sched_setscheduler(0, libc::SCHED_FIFO, &param) } < 0 {
        let e = io::Error::last_os_error();
        eprintln!("{program}: runs at normal priority (SCHED_FIFO refused: {e}); on a busy machine it may release frames late");
    }
}
