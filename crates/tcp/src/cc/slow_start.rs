//! RFC 5681 §3.1 slow start: the controller's own rule, nothing added.

use super::{AckCtx, Startup, Window};

#[derive(Clone, Debug, Default)]
pub struct SlowStart;

impl Startup for SlowStart {
    #[inline]
    fn on_ack(&mut self, _w: &mut Window, _ctx: &AckCtx) -> bool {
        false
    }
}

registered_without_settings!(SlowStart, "slow-start", "RFC 5681 slow start up to ssthresh", SlowStart);
