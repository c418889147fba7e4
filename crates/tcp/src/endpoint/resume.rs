//! What an end carries between connections to the same peer (Careful Resume's saved path,
//! draft-ietf-tsvwg-careful-resume §3.1) and the pacing a restart policy asks for by phase.

use super::Endpoint;
use crate::restart::{RestartMetrics, SavedPath};
use crate::time::Time;

impl Endpoint {
    /// Before any data: the parameters an earlier connection to the same peer saved, for a
    /// restart policy that resumes from them (Careful Resume).
    pub fn resume_from(&mut self, saved: SavedPath, now: Time) {
        self.sender.resume(saved, now);
    }
    /// What this connection saves of the path for a later one to the same peer, at `now`.
    pub fn saved_path(&self, now: Time) -> Option<SavedPath> {
        self.sender.saved_path(now, &self.measure)
    }
    /// The restart policy's own figures.
    pub fn restart_metrics(&self) -> RestartMetrics {
        self.sender.restart_metrics()
    }

    /// Pace while the restart policy asks (`RestartPolicy::pacing_interval`), from the ACK
    /// that starts it to the one after which it no longer does.
    #[cold]
    pub(super) fn follow_phase_pacing(&mut self, now: Time) {
        match (self.sender.restart_pacing(), self.pacer.in_restart()) {
            (Some(interval), false) => self.pacer.start_restart(now, interval),
            (None, true) => self.end_paced_restart(),
            _ => {}
        }
    }
}
