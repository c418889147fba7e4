"""Paper 004 §5's striped transfer: one application on a client reads (the servers send) or
writes (the client sends) one block striped over n servers, one connection per server, all
opened at once; the request completes when its slowest transfer does. Its measure is the
application's bandwidth as a share of the most the network allows it (the paper's footnote 2):

    bw_max = min(bw_client, n_servers · bw_server / n_clients, bw_interswitch / n_clients)

Each client makes its own request to every server at once (Fig. 6's two clients). The LAN is
the paper's: 1 ms per link, 30-packet buffers per switch port, a little jitter against phase
effects; with ``interswitch_rate_bps`` the clients sit on a second switch behind the
inter-switch link.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pandas as pd

__all__ = ["Striped", "request_rows", "requests"]


@dataclass(frozen=True)
class Striped:
    """One striped request per client over every server (paper 004 §5)."""

    servers: int
    bytes_per_server: int
    client_rate_bps: int
    server_rate_bps: int
    #: True: the clients write (they send); False: they read (the servers send).
    write: bool = False
    clients: int = 1
    #: Two switches: clients on ``sw2``, servers on ``sw``, joined at this rate; None: one switch.
    interswitch_rate_bps: int | None = None
    delay: str = "1ms"
    #: Each switch port's queue (the paper's 30 buffers per output port).
    queue_packets: int = 30
    #: Each host's own interface queue; None: the switch ports' (the paper is silent).
    host_queue_packets: int | None = None
    jitter: str = "0s"
    #: Each connection opens at a time drawn in [0, start_jitter] from the run's seed.
    start_jitter: str = "0s"
    tcp: dict[str, Any] = field(default_factory=lambda: {"profile": "bsd44"})
    #: The vrate layer's ``[vrate]`` table (``{}`` for its defaults): every connection joins
    #: the group "app" on its hosts, so the client's connections share one. None: no vrate.
    vrate: dict[str, Any] | None = None
    #: Every connection shares one window with the others on its hosts (RFC 9040 ensemble
    #: sharing, ``share = "app"``).
    share: bool = False
    duration: str = "60s"

    def __post_init__(self) -> None:
        for key in ("servers", "clients", "bytes_per_server", "client_rate_bps", "server_rate_bps", "queue_packets"):
            value = getattr(self, key)
            if not isinstance(value, int) or value < 1:
                raise ValueError(f"striped: {key} must be a whole number of at least 1 (got {value!r})")
        if self.host_queue_packets is not None and self.host_queue_packets < 1:
            raise ValueError(f"striped: host_queue_packets must be at least 1 or None (got {self.host_queue_packets!r})")
        if self.interswitch_rate_bps is not None and self.interswitch_rate_bps < 1:
            raise ValueError(f"striped: interswitch_rate_bps must be at least 1 or None (got {self.interswitch_rate_bps!r})")

    @property
    def bw_max_bps(self) -> float:
        """Footnote 2: what the client's link, the servers' links shared among the clients,
        and the inter-switch link shared among them allow one client."""
        terms = [self.client_rate_bps, self.servers * self.server_rate_bps / self.clients]
        if self.interswitch_rate_bps is not None:
            terms.append(self.interswitch_rate_bps / self.clients)
        return float(min(terms))

    def flows(self) -> list[tuple[str, str]]:
        """(client, server) of each flow, in the scenario's order: client by client, each
        over every server."""
        return [(f"c{j}", f"s{i}") for j in range(1, self.clients + 1) for i in range(1, self.servers + 1)]

    def scenario(self) -> dict[str, Any]:
        """The LAN and one bulk flow of ``bytes_per_server`` per (client, server), from the
        servers for a read, to them for a write."""
        two = self.interswitch_rate_bps is not None
        hosts = [{"name": f"c{j}", "rate": f"{self.client_rate_bps}bps", **({"switch": 2} if two else {})}
                 for j in range(1, self.clients + 1)]
        hosts += [{"name": f"s{i}", "rate": f"{self.server_rate_bps}bps"} for i in range(1, self.servers + 1)]
        topology: dict[str, Any] = {"kind": "lan", "delay": self.delay, "queue": {"packets": self.queue_packets},
                                    "jitter": self.jitter, "hosts": hosts}
        if two:
            topology["interswitch_rate"] = f"{self.interswitch_rate_bps}bps"
        if self.host_queue_packets is not None:
            topology["host_queue"] = {"packets": self.host_queue_packets}
        group = ({} if self.vrate is None else {"group": "app"}) | ({"share": "app"} if self.share else {})
        scenario: dict[str, Any] = {
            "duration": self.duration,
            "topology": topology,
            "flow": [{"from": c if self.write else s, "to": s if self.write else c, "start": "0s", "start_jitter": self.start_jitter,
                      "tcp": self.tcp, "app": {"kind": "bulk", "bytes": self.bytes_per_server}, **group} for c, s in self.flows()],
            "trace": {"timeseries": False, "queues": False},
        }
        if self.vrate is not None:
            scenario["vrate"] = self.vrate
        return scenario


def requests(result: Any, st: Striped) -> pd.DataFrame:
    """One row per client's request from a run of ``st.scenario()``: when it began (its first
    connection's start) and finished (its slowest transfer's end), the spread of its
    transfers' ends, the application's bandwidth and its share of ``bw_max``, and the
    transfers' retransmissions and timeouts. A transfer that did not finish within the run is
    an error: give the scenario a longer ``duration``."""
    return request_rows(result.transfers, result.flows, st)


def request_rows(t: pd.DataFrame, flows: pd.DataFrame, st: Striped) -> pd.DataFrame:
    """`requests` from a run's transfers and flows tables."""
    rows = []
    for j in range(st.clients):
        mine = range(j * st.servers, (j + 1) * st.servers)
        done = t[t["flow"].isin(mine) & t["elapsed_s"].notna()]  # unfinished: no elapsed time
        if len(done) != st.servers:
            raise ValueError(f"striped: client c{j + 1}'s request did not finish within {st.duration} "
                             f"({len(done)} of {st.servers} transfers): give a longer duration")
        ends_s = done["start_ns"] / 1e9 + done["elapsed_s"]
        began_s = float(done["start_ns"].min() / 1e9)
        finished_s = float(ends_s.max())
        bw = st.servers * st.bytes_per_server * 8 / (finished_s - began_s)
        rows.append({"client": f"c{j + 1}", "servers": st.servers, "began_s": began_s, "finished_s": finished_s,
                     "ends_spread_s": float(ends_s.max() - ends_s.min()), "bandwidth_bps": bw,
                     "pct_of_bw_max": 100 * bw / st.bw_max_bps,
                     "retransmits": int(flows["retransmits"].iloc[list(mine)].sum()),
                     "timeouts": int(flows["timeouts"].iloc[list(mine)].sum())})
    return pd.DataFrame(rows)
