//! RFC 5681 §3.1 slow start: the controller's own rule, nothing added.

use super::{AckCtx, RegisteredStartup, Startup, Window};
use crate::registry::{Family, PartInfo, Refusal, Settings};

#[derive(Clone, Debug, Default)]
pub struct SlowStart;

impl Startup for SlowStart {
    #[inline]
    fn on_ack(&mut self, _w: &mut Window, _ctx: &AckCtx) -> bool {
        false
    }
}

impl RegisteredStartup for SlowStart {
    const INFO: PartInfo = PartInfo { family: Family::Startup, name: "slow-start", doc: "RFC 5681 slow start up to ssthresh", keys: &[], per_segment: false };
    type Config = ();
    fn config(_: &Settings) -> Result<(), Refusal> {
        Ok(())
    }
    fn new(_: &()) -> Self {
        SlowStart
    }
}
