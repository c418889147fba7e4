//! The engine's heap, counted: a global allocator over the system's that keeps the bytes
//! allocated now and the most ever allocated at once, for a run's memory budget
//! (`World::memory_budget`) and for the tests that hold the estimate (`estimate`) to what
//! a run takes. A program installs it (`#[global_allocator] static A: Counting = Counting;`;
//! the Python module does); without it both counts stay 0.
//!
//! Each allocation and free pays two relaxed atomic operations. The engine allocates when a
//! run sets up and when a table or buffer grows, not per packet, so the count stays off the
//! per-packet path (docs/performance.md).

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicU64, Ordering};

static ALLOCATED_BYTES: AtomicU64 = AtomicU64::new(0);
static PEAK_BYTES: AtomicU64 = AtomicU64::new(0);

/// The system allocator, counting what it hands out.
pub struct Counting;

impl Counting {
    fn grew(by: usize) {
        let now = ALLOCATED_BYTES.fetch_add(by as u64, Ordering::Relaxed) + by as u64;
        if now > PEAK_BYTES.load(Ordering::Relaxed) {
            PEAK_BYTES.fetch_max(now, Ordering::Relaxed);
        }
    }

    fn shrank(by: usize) {
        ALLOCATED_BYTES.fetch_sub(by as u64, Ordering::Relaxed);
    }
}

// SAFETY: every call is passed to `System` as it came; the counts only watch.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            Self::grew(layout.size());
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc_zeroed(layout) };
        if !p.is_null() {
            Self::grew(layout.size());
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) };
        Self::shrank(layout.size());
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            if new_size >= layout.size() {
                Self::grew(new_size - layout.size());
            } else {
                Self::shrank(layout.size() - new_size);
            }
        }
        p
    }
}

/// Heap bytes allocated now, by every thread of the process (0 without `Counting`).
pub fn allocated_bytes() -> u64 {
    ALLOCATED_BYTES.load(Ordering::Relaxed)
}

/// The most heap bytes allocated at once since the process started or `reset_peak`.
pub fn peak_bytes() -> u64 {
    PEAK_BYTES.load(Ordering::Relaxed)
}

/// Start the peak again from what is allocated now, to measure one run's.
pub fn reset_peak() {
    PEAK_BYTES.store(allocated_bytes(), Ordering::Relaxed);
}

/// `bytes` in the units a person reads: "812 MiB", "2.05 GiB".
pub fn human_bytes(bytes: u64) -> String {
    const UNITS: [&str; 4] = ["KiB", "MiB", "GiB", "TiB"];
    if bytes < 1024 {
        return format!("{bytes} B");
    }
    let (mut value, mut unit) = (bytes as f64 / 1024.0, 0);
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    let digits = if value >= 100.0 {
        0
    } else if value >= 10.0 {
        1
    } else {
        2
    };
    format!("{value:.digits$} {}", UNITS[unit])
}

#[cfg(test)]
mod tests {
    use super::human_bytes;

    #[test]
    fn human_bytes_reads_as_written() {
        assert_eq!(human_bytes(512), "512 B");
        assert_eq!(human_bytes(2048), "2.00 KiB");
        assert_eq!(human_bytes(812 << 20), "812 MiB");
        assert_eq!(human_bytes(2 << 30), "2.00 GiB");
        assert_eq!(human_bytes(21 << 29), "10.5 GiB");
    }
}
