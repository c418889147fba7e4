"""A startup written from scratch (docs/python-parts.md): slow start doubles the window each
round until the round's least RTT has grown by `growth_pct` percent over the least RTT seen
before, the sign that a queue is building; then it ends slow start at the window it has
(ssthresh = cwnd), and the controller goes on in congestion avoidance. A loss before that
ends it too (the controller's loss response then sets ssthresh).

    startup = { kind = "python", class = "examples.rtt_growth:RttGrowthExit", growth_pct = 25 }
"""

from __future__ import annotations

from rampup.parts import AckContext, CongestionContext, Set, Startup


class RttGrowthExit(Startup):
    name = "rtt-growth"

    def __init__(self, growth_pct: float = 25.0) -> None:
        if growth_pct <= 0:
            raise ValueError(f"growth_pct must be above 0 (got {growth_pct})")
        self.growth_pct = growth_pct
        self.base_rtt_ns: int | None = None  # the least RTT before this round
        self.round_min_ns: int | None = None  # the least RTT of this round
        self.exited = False

    def on_ack(self, ctx: AckContext) -> Set | None:
        if self.exited:
            return None
        if ctx.round_start and self.round_min_ns is not None:
            # A round ended: its least RTT becomes the base if it is lower.
            if self.base_rtt_ns is None or self.round_min_ns < self.base_rtt_ns:
                self.base_rtt_ns = self.round_min_ns
            self.round_min_ns = None
        if ctx.rtt_sample_ns is not None:
            self.round_min_ns = ctx.rtt_sample_ns if self.round_min_ns is None else min(self.round_min_ns, ctx.rtt_sample_ns)
        grown = (self.base_rtt_ns is not None and self.round_min_ns is not None
                 and self.round_min_ns * 100 >= self.base_rtt_ns * (100 + self.growth_pct))
        if grown and ctx.cwnd_bytes < ctx.ssthresh_bytes:
            self.exited = True
            return Set(ssthresh_bytes=max(ctx.cwnd_bytes, 2 * ctx.mss_bytes))
        return None  # the controller's slow start: one segment per ACK, a doubling per round

    def on_congestion_event(self, ctx: CongestionContext) -> None:
        # A loss first: it ends slow start itself, and this startup's part is over.
        self.exited = True
