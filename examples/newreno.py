"""RFC 5681 slow start and AIMD congestion avoidance written against `rampup.parts` only:
the Python twin of the engine's `newreno` controller (crates/tcp/src/cc/newreno.rs).

    cc = { kind = "python", class = "examples.newreno:NewReno" }
    cc = { kind = "python", class = "examples.newreno:NewReno", byte_counting = true }
"""

from __future__ import annotations

from rampup.parts import AckContext, Controller, Set


class NewReno(Controller):
    name = "newreno-py"

    def __init__(self, byte_counting: bool = False) -> None:
        # RFC 3465 Appropriate Byte Counting with L = 2 SMSS; off as in RFC 5681.
        self.byte_counting = byte_counting
        self.ca_acked = 0  # ABC: bytes acknowledged in congestion avoidance not yet window
        self.ca_credit = 0  # eq. (3): the remainder of SMSS * SMSS / cwnd carried over

    def on_ack(self, ctx: AckContext) -> Set:
        cwnd, mss = ctx.cwnd_bytes, ctx.mss_bytes
        if cwnd < ctx.ssthresh_bytes:
            # RFC 5681 eq. (2): cwnd += min(N, SMSS); RFC 3465 allows up to L = 2 SMSS.
            return Set(cwnd_bytes=cwnd + min(ctx.acked_bytes, 2 * mss if self.byte_counting else mss))
        if self.byte_counting:
            # RFC 3465 §2.1: one SMSS per cwnd of bytes acknowledged.
            self.ca_acked += ctx.acked_bytes
            if self.ca_acked >= cwnd:
                self.ca_acked -= cwnd
                cwnd += mss
            return Set(cwnd_bytes=cwnd)
        # RFC 5681 eq. (3): cwnd += SMSS * SMSS / cwnd, the remainder carried to the next ACK.
        self.ca_credit += mss * mss
        cwnd += self.ca_credit // cwnd
        self.ca_credit %= cwnd
        return Set(cwnd_bytes=cwnd)

    # The loss response is the base class's: None, RFC 5681 eq. (4).
