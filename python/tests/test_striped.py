"""Paper 004 §5's striped transfer (rampup.experiments.vrate.striped): the bound it is measured
against (footnote 2), the scenario it builds, and the request's finish as its slowest transfer's."""

from __future__ import annotations

import pytest

import rampup
from rampup.experiments.vrate import Striped, requests

OC12, FAST_ETHERNET = 622_000_000, 100_000_000


def test_bw_max_is_footnote_2s_least_term() -> None:
    # §5: "the maximum bandwidth possible per session will be 200 Mbps when accessing two
    # servers, and 622 Mbps when accessing more than six servers".
    read = {n: Striped(n, 1000, OC12, FAST_ETHERNET).bw_max_bps for n in (1, 2, 6, 7, 8)}
    assert read == {1: 100e6, 2: 200e6, 6: 600e6, 7: 622e6, 8: 622e6}
    # Fig. 6: all 100baseT, two clients share each server's link; an inter-switch link is shared too.
    assert Striped(1, 1000, FAST_ETHERNET, FAST_ETHERNET, write=True, clients=2).bw_max_bps == 50e6
    assert Striped(4, 1000, FAST_ETHERNET, FAST_ETHERNET, write=True, clients=2).bw_max_bps == 100e6
    assert Striped(8, 1000, OC12, FAST_ETHERNET, clients=2, interswitch_rate_bps=OC12).bw_max_bps == 311e6


def test_a_read_runs_from_the_servers_and_a_write_to_them_across_the_inter_switch_link() -> None:
    st = Striped(2, 1000, OC12, FAST_ETHERNET, interswitch_rate_bps=OC12)
    flows = st.scenario()["flow"]
    assert [(f["from"], f["to"]) for f in flows] == [("s1", "c1"), ("s2", "c1")]
    assert list(rampup.inspect(st.scenario())["hops"]) == [3, 3]  # s -> sw -> sw2 -> c
    assert "host_queue" not in st.scenario()["topology"]
    assert Striped(2, 1000, OC12, FAST_ETHERNET, host_queue_packets=50).scenario()["topology"]["host_queue"] == {"packets": 50}
    write = Striped(2, 1000, OC12, FAST_ETHERNET, write=True, clients=2).scenario()["flow"]
    assert [(f["from"], f["to"]) for f in write] == [("c1", "s1"), ("c1", "s2"), ("c2", "s1"), ("c2", "s2")]


def test_the_request_finishes_with_its_slowest_transfer() -> None:
    st = Striped(3, 200_000, OC12, FAST_ETHERNET, clients=2, jitter="20us", start_jitter="2ms")
    res = rampup.run(st.scenario(), seed=4)
    q = requests(res, st)
    t = res.transfers
    for j, row in q.iterrows():
        mine = t[t["flow"].between(3 * j, 3 * j + 2)]
        ends = mine["start_ns"] / 1e9 + mine["elapsed_s"]
        assert row["finished_s"] == pytest.approx(ends.max()) and row["began_s"] == pytest.approx(mine["start_ns"].min() / 1e9)
        assert row["ends_spread_s"] == pytest.approx(ends.max() - ends.min())
        # No request moves its 600 KB faster than its links allow.
        assert row["bandwidth_bps"] == pytest.approx(3 * 200_000 * 8 / (ends.max() - mine["start_ns"].min() / 1e9))
        assert 0 < row["pct_of_bw_max"] <= 100


def test_an_unfinished_request_and_a_bad_size_are_refused_with_the_key() -> None:
    st = Striped(2, 5_000_000, OC12, FAST_ETHERNET, duration="10ms")
    with pytest.raises(ValueError, match="did not finish within 10ms"):
        requests(rampup.run(st.scenario()), st)
    with pytest.raises(ValueError, match="striped: servers must be a whole number of at least 1"):
        Striped(0, 1000, OC12, FAST_ETHERNET)


def test_vrate_puts_every_connection_in_the_group_and_keeps_the_writers_queue_short() -> None:
    # §4: the layer holds what the group may not send yet, so the client's own interface
    # queue, which takes its two connections' slow-start trains without it, stays short.
    peaks = {}
    for vrate in (None, {"period": "10us"}):
        st = Striped(2, 2_000_000, OC12, FAST_ETHERNET, write=True, host_queue_packets=1000, vrate=vrate,
                     tcp={"profile": "bsd44", "rcv_window": "256KB"})
        sc = st.scenario()
        assert all(("group" in f) == (vrate is not None) for f in sc["flow"])
        assert sc.get("vrate") == vrate
        assert "share" not in sc["flow"][0]
        sc["trace"] = {"timeseries": False, "queues": True}
        res = rampup.run(sc, seed=1)
        assert len(requests(res, st)) == 1  # the request finished
        peaks[vrate is not None] = int(res.queues.groupby("queue")["packets"].max()["c1->sw"])
    assert peaks[False] > 20 and peaks[True] <= 2, peaks
    shared = Striped(2, 1000, OC12, FAST_ETHERNET, share=True).scenario()["flow"]
    assert [f["share"] for f in shared] == ["app", "app"] and "group" not in shared[0]
