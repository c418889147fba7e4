"""Hoe's startup (J. C. Hoe, SIGCOMM 1996) written against `rampup.parts` only: the initial
ssthresh is the bandwidth-delay product, a packet-pair estimate of the bottleneck rate times
the least RTT; the controller's slow start grows the window up to it. The Python twin of
the engine's `hoe` startup (crates/tcp/src/cc/hoe.rs).

    startup = { kind = "python", class = "examples.hoe:Hoe" }
"""

from __future__ import annotations

from rampup.parts import AckContext, CongestionContext, Set, Startup


class Hoe(Startup):
    name = "hoe-py"

    def __init__(self) -> None:
        self.first_ack_at_ns: int | None = None  # the first ACK of the pair
        self.done = False  # the estimate was taken, or a loss came first

    def on_ack(self, ctx: AckContext) -> Set | None:
        if self.done:
            return None
        # Packet pair (Keshav 1991): two ACKs of back-to-back segments come one bottleneck
        # transmission apart; the rate is the second's bytes over the gap. Two at the same
        # instant tell nothing: the later one starts a new pair.
        rate_bps = None
        if self.first_ack_at_ns is not None and ctx.now_ns > self.first_ack_at_ns:
            rate_bps = ctx.acked_bytes * 8 * 10**9 // (ctx.now_ns - self.first_ack_at_ns)
        else:
            self.first_ack_at_ns = ctx.now_ns
        if rate_bps is None or ctx.min_rtt_ns is None:
            return None
        self.done = True
        # ssthresh = rate × BaseRTT, at least 2 segments (RFC 5681 eq. (4)'s floor); the
        # controller still grows the window on this ACK.
        return Set(ssthresh_bytes=max(rate_bps * ctx.min_rtt_ns // 8 // 10**9, 2 * ctx.mss_bytes))

    def on_congestion_event(self, ctx: CongestionContext) -> None:
        # A loss before the estimate: the loss response sets ssthresh instead.
        self.done = True
