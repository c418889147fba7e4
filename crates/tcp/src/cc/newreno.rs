//! Slow start and congestion avoidance of RFC 5681 §3.1 (the window growth that Reno,
//! NewReno and SACK senders share).

use super::{AckCtx, Window};

#[derive(Clone, Debug, Default)]
pub struct NewReno {
    /// Appropriate Byte Counting (RFC 3465) with L = 2; off by default as in RFC 5681.
    pub byte_counting: bool,
    /// Bytes acknowledged in congestion avoidance not yet turned into window (ABC only).
    ca_acked: u64,
}

impl NewReno {
    pub fn new(byte_counting: bool) -> Self {
        NewReno { byte_counting, ca_acked: 0 }
    }

    /// RFC 5681 §3.1: slow start while cwnd < ssthresh, congestion avoidance above.
    pub fn phase_name(w: &Window) -> &'static str {
        if w.cwnd < w.ssthresh {
            "slow_start"
        } else {
            "congestion_avoidance"
        }
    }

    pub fn on_ack(&mut self, w: &mut Window, ctx: &AckCtx) {
        let mss = ctx.mss;
        if w.cwnd < w.ssthresh {
            // RFC 5681 eq. (2): cwnd += min(N, SMSS); RFC 3465 allows up to L * SMSS.
            let limit = if self.byte_counting { 2 * mss } else { mss };
            w.cwnd += ctx.acked_bytes.min(limit);
        } else if self.byte_counting {
            // RFC 3465 §2.1: one SMSS per cwnd of bytes acknowledged.
            self.ca_acked += ctx.acked_bytes;
            if self.ca_acked >= w.cwnd {
                self.ca_acked -= w.cwnd;
                w.cwnd += mss;
            }
        } else {
            // RFC 5681 eq. (3): cwnd += SMSS * SMSS / cwnd, at least one byte.
            w.cwnd += (mss * mss / w.cwnd).max(1);
        }
    }
}
