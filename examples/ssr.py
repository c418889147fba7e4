"""RFC 5681 §4.1's slow-start restart written against `rampup.parts` only: the Python twin
of the engine's `ssr` policy (crates/tcp/src/restart/ssr.rs).

    restart = { kind = "python", class = "examples.ssr:Ssr" }
"""

from __future__ import annotations

from rampup.parts import IdleContext, RestartPolicy, Set


class Ssr(RestartPolicy):
    name = "ssr-py"

    def on_idle_end(self, ctx: IdleContext) -> Set:
        # "a TCP SHOULD set cwnd to no more than RW before beginning transmission if the TCP
        # has not sent data in an interval exceeding the retransmission timeout", with the
        # restart window RW = min(IW, cwnd); ssthresh is kept.
        return Set(cwnd_bytes=min(ctx.cwnd_bytes, ctx.initial_window_bytes))
