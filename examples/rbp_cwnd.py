"""RBP/cwnd (paper 000 §3.3) written against `rampup.parts` only: the Python twin of the
engine's `rbp-cwnd` policy (crates/tcp/src/restart/rbp.rs), a paced restart.

    restart = { kind = "python", class = "examples.rbp_cwnd:RbpCwnd", scale = 1.0 }
"""

from __future__ import annotations

from rampup.parts import IdleContext, Pace, RestartPolicy, Set

#: §3.1: "a lower bound of two segments guarantees an immediate ACK".
MIN_SEGMENTS = 2


class RbpCwnd(RestartPolicy):
    name = "rbp-cwnd-py"

    def __init__(self, scale: float = 1.0) -> None:
        if not scale > 0:
            raise ValueError(f"scale must be above 0 (got {scale})")
        self.scale = scale

    def on_idle_end(self, ctx: IdleContext) -> Set:
        if ctx.srtt_ns is None:
            # No RTT estimate to pace over (every data segment was retransmitted): RFC 5681's restart.
            return Set(cwnd_bytes=min(ctx.cwnd_bytes, ctx.initial_window_bytes))
        # `scale` of the segments NSSR would send at once, at least two, at most those,
        # spread evenly over one smoothed RTT.
        window_segments = max(ctx.usable_window_bytes // ctx.mss_bytes, 1)
        segments = max(min(max(int(window_segments * self.scale), MIN_SEGMENTS), window_segments), 1)
        # The paced segments are the window until the first ACK.
        return Pace(segments=segments, interval_ns=ctx.srtt_ns // segments,
                    cwnd_bytes=min(ctx.cwnd_bytes, segments * ctx.mss_bytes))
