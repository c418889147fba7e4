"""The pcap files read back: by a minimal parser here, and by tshark when installed."""

from __future__ import annotations

import json
import shutil
import socket
import struct
import subprocess
import tomllib
from pathlib import Path

import pytest

import rampup


def _records(data: bytes) -> list[tuple[int, int, bytes]]:
    """(captured length, original length, captured bytes) of each record of a little-endian
    pcap."""
    magic = data[:4]
    assert magic in (b"\xd4\xc3\xb2\xa1", b"\x4d\x3c\xb2\xa1"), magic.hex()  # usec or nsec, little-endian
    out, offset = [], 24
    while offset < len(data):
        _sec, _frac, incl, orig = struct.unpack_from("<IIII", data, offset)
        assert incl <= orig
        out.append((incl, orig, data[offset + 16 : offset + 16 + incl]))
        offset += 16 + incl
    assert offset == len(data), "truncated last record"
    return out


def _tcp_flags(frame: bytes, ethernet: bool) -> int:
    return frame[(14 if ethernet else 0) + 20 + 13]


def _syn_options(pkt: bytes) -> dict[int, bytes]:
    """The TCP options of a raw IPv4 frame, by kind (NOPs left out)."""
    header_len = (pkt[20 + 12] >> 4) * 4
    options, i, out = pkt[40 : 20 + header_len], 0, {}
    while i < len(options):
        kind = options[i]
        if kind == 1:
            i += 1
            continue
        out[kind] = options[i + 2 : i + options[i + 1]]
        i += options[i + 1]
    return out


@pytest.mark.parametrize(("tcp", "mss", "sack", "shift", "window"),
                         [({}, 1000, False, 14, 65535), ({"mss": 1460, "recovery": "sack", "rcv_window": 100000}, 1460, True, 1, 50000)])
def test_syns_carry_the_options_of_their_end_and_windows_are_scaled(tmp_path: Path, tcp: dict, mss: int, sack: bool,
                                                                    shift: int, window: int) -> None:
    # RFC 7323 §2.3: the shift is the smallest that brings the receive window within 16 bits
    # (14 at most; the default 1 GiB window then reads 65535 << 14); §2.2: a SYN's window is
    # not scaled.
    doc = {"duration": "1s", "topology": {"kind": "dumbbell", "access_rate": "100Mbps", "access_delay": "1ms",
                                          "bottleneck_rate": "10Mbps", "bottleneck_delay": "10ms"},
           "flow": [{"from": "s0", "to": "r0", "app": {"kind": "bulk", "bytes": 20000}, "tcp": tcp}],
           "trace": {"pcap": ["left-right"]}}
    result = rampup.run(doc, out=tmp_path / "run")
    syns = []
    for name, data in result.pcaps.items():
        for _, _, pkt in _records(data):
            flags, field = pkt[33], struct.unpack_from(">H", pkt, 34)[0]
            if flags & 0x02:
                syns.append((name, flags & 0x10 != 0))
                opts = _syn_options(pkt)
                assert struct.unpack(">H", opts[2])[0] == mss, name
                assert (4 in opts) == sack, name
                assert opts[3] == bytes([shift]), name
                assert field == min(tcp.get("rcv_window", 1 << 30), 65535), name
            else:
                assert field == window, name
    assert sorted(syns) == [("left_to_right", False), ("right_to_left", True)], "one SYN each way, the second a SYN-ACK"


@pytest.fixture(scope="module")
def demo_out(tmp_path_factory: pytest.TempPathFactory, demo_path: Path) -> tuple[rampup.Result, Path]:
    out = tmp_path_factory.mktemp("pcap") / "demo"
    return rampup.run(demo_path, out=out), out


def test_pcaps_parse(demo_out: tuple[rampup.Result, Path]) -> None:
    result, _ = demo_out
    assert result.pcaps
    for link, data in result.pcaps.items():
        records = _records(data)
        assert records, link
        assert all(incl >= 40 for incl, _, _ in records), link  # at least the IP and TCP headers


def test_each_direction_of_a_connection_has_its_own_host_addresses(demo_out: tuple[rampup.Result, Path]) -> None:
    # The data sender's port is 10000 + flow, the receiver's 20000 + flow; the engine works
    # out a packet's source host from the connection end that sent it.
    result, _ = demo_out
    hosts: dict[tuple[int, int], set[tuple[bytes, bytes]]] = {}
    for data in result.pcaps.values():
        for _, _, pkt in _records(data):
            src, dst = pkt[12:16], pkt[16:20]
            sport, dport = struct.unpack_from(">HH", pkt, 20)
            assert src != dst
            hosts.setdefault((sport, dport), set()).add((src, dst))
    assert len(hosts) >= 2
    for (sport, dport), pairs in hosts.items():
        assert len(pairs) == 1, (sport, pairs)
        (src, dst), reverse = next(iter(pairs)), hosts.get((dport, sport))
        if reverse is not None:
            assert reverse == {(dst, src)}


def test_the_manifest_and_the_connections_table_name_what_a_capture_shows(demo_out: tuple[rampup.Result, Path]) -> None:
    # Every address and port pair in the captures maps back to nodes (manifest) and to a
    # connection (its client and server ports) of the flow whose ends those nodes are.
    result, out = demo_out
    manifest = json.loads((out / "manifest.json").read_text())
    node_of = {socket.inet_aton(a): n for n, a in manifest["capture"]["addresses"].items()}
    assert "10000 + slot" in manifest["capture"]["ports"]
    conns = result.connections
    for data in result.pcaps.values():
        for _, _, pkt in _records(data):
            src, dst = node_of[pkt[12:16]], node_of[pkt[16:20]]
            sport, dport = struct.unpack_from(">HH", pkt, 20)
            up = conns[(conns.client_port == sport) & (conns.server_port == dport)]
            down = conns[(conns.client_port == dport) & (conns.server_port == sport)]
            row = (up if len(up) else down).iloc[0]
            assert (src, dst) == ((row["from"], row["to"]) if len(up) else (row["to"], row["from"]))


@pytest.mark.skipif(shutil.which("tshark") is None, reason="tshark is not installed")
def test_tshark_reads_every_packet_as_tcp(demo_out: tuple[rampup.Result, Path]) -> None:
    result, out = demo_out
    payload_bytes = 0
    for link, data in result.pcaps.items():
        proc = subprocess.run(
            ["tshark", "-n", "-r", str(out / f"{link}.pcap"), "-T", "fields", "-e", "ip.proto", "-e", "tcp.len"],
            capture_output=True,
            text=True,
            check=False,
            timeout=120,
        )
        assert proc.returncode == 0, proc.stderr
        assert "damaged" not in proc.stderr and "corrupt" not in proc.stderr, proc.stderr
        rows = [line.split("\t") for line in proc.stdout.splitlines()]
        assert len(rows) == len(_records(data)), link
        assert all(proto == "6" for proto, _ in rows), link  # every packet is TCP
        payload_bytes += sum(int(length) for _, length in rows if length)
    assert payload_bytes > 0  # the data direction was captured (the other carries ACKs)


@pytest.mark.parametrize(("header_bytes", "ack_bytes"), [(40, 40), (66, 40), (66, 66)])
def test_frames_are_the_wire_sizes_of_the_links_table(demo_path: Path, tmp_path: Path, header_bytes: int, ack_bytes: int) -> None:
    # Raw IPv4 with 40 bytes of headers; 66 = Ethernet 14 + IPv4 20 + TCP 20 + timestamps 12
    # (Ethernet framing only when every packet has room for it, i.e. ack_bytes too).
    doc = tomllib.loads(demo_path.read_text())
    doc.update(duration="3s", header_bytes=header_bytes, ack_bytes=ack_bytes)
    out = tmp_path / "run"
    result = rampup.run(doc, out=out)
    links = result.links.set_index("link")
    ethernet = min(header_bytes, ack_bytes) >= 54
    for name, data in result.pcaps.items():
        records = _records(data)
        assert struct.unpack_from("<I", data, 20)[0] == (1 if ethernet else 101), "link type"
        row = links.loc[name.replace("_to_", "->")]
        assert len(records) == row.tx_packets, name
        # A SYN's 12 bytes of options are not in the simulator's wire size (trace/pcap.rs).
        syns = sum(1 for _, _, pkt in records if _tcp_flags(pkt, ethernet) & 0x02)
        assert sum(orig for _, orig, _ in records) == row.tx_bytes + 12 * syns, name
    data_frames = [orig for _, orig, _ in _records(result.pcaps["left_to_right"])]
    assert max(data_frames) == 1000 + header_bytes
    if shutil.which("tshark"):
        proc = subprocess.run(["tshark", "-n", "-r", str(out / "left_to_right.pcap"), "-T", "fields", "-e", "tcp.len",
                               "-e", "tcp.options.timestamp.tsval", "-e", "_ws.expert"],
                              capture_output=True, text=True, check=True, timeout=120)
        rows = [line.split("\t") for line in proc.stdout.splitlines()]
        assert max(int(r[0]) for r in rows) == 1000, "tshark sees the true segment length"
        assert all(bool(r[1]) == (header_bytes - 40 - (14 if ethernet else 0) >= 12) for r in rows if int(r[0]) > 0)
        assert not any("alformed" in r[2] for r in rows)


def test_a_capture_is_the_same_without_the_queue_trace(demo_path: Path) -> None:
    # A capture counts among the traces that watch ports: without the queue trace the hops
    # still run the code that records it (`Traces::ports`).
    doc = tomllib.loads(demo_path.read_text())
    doc["duration"] = "3s"
    doc["trace"]["queues"] = True
    with_queues = rampup.run(doc).pcaps
    doc["trace"]["queues"] = False
    assert rampup.run(doc).pcaps == with_queues
    assert all(len(_records(data)) > 100 for data in with_queues.values())


def test_a_capture_per_link_holds_both_directions_in_time_order(demo_path: Path, tmp_path: Path) -> None:
    doc = tomllib.loads(demo_path.read_text())
    doc["duration"] = "3s"
    each = rampup.run(doc).pcaps
    doc["trace"]["pcap_per"] = "link"
    both = rampup.run(doc).pcaps
    assert list(both) == ["left-right"]
    merged = _records(both["left-right"])
    # The two directions' records, ordered by time (left to right first at equal times).
    def stamped(name: str) -> list[tuple[tuple[int, int], int, bytes]]:
        data, records, offset = each[name], [], 24
        for incl, _, pkt in _records(data):
            records.append((struct.unpack_from("<II", data, offset), 0 if name == "left_to_right" else 1, pkt))
            offset += 16 + incl
        return records
    expected = sorted(stamped("left_to_right") + stamped("right_to_left"), key=lambda r: (r[0], r[1]))
    assert [pkt for _, _, pkt in merged] == [pkt for _, _, pkt in expected]
    assert both["left-right"][:24] == each["left_to_right"][:24], "the same file header"
