"""`rampup testbed check` and `rampup testbed run`: the real path (docs/testbed.md)."""

from __future__ import annotations

from pathlib import Path

import click
import pandas as pd

from .. import testbed as tb
from ..testbed import agreement as ta
from ..testbed import experiments as te
from .app import EXIT_BAD_INPUT, fail


@click.group()
def testbed() -> None:
    """The real path: network namespaces, tc (docs/testbed.md): check, run."""


@testbed.command(name="check")
def testbed_check() -> None:
    """Say what this machine allows and what a run needs: root, namespaces, veth, each qdisc,
    rampup-delayline and rampup-udp, the experiments' files, a capture tool, congestion controls.

    Tries each in a namespace of its own (rampup-check-PID), removed again."""
    for f in tb.check():
        click.echo(f"{f.name:<20} {f.detail}")


@testbed.command(name="run")
@click.argument("experiment", type=click.Choice(["bulk", "restart", "exchange", "two-flows"]))
@click.option("--reps", type=click.IntRange(1, 100), default=3, show_default=True, help="Runs of each real stack.")
@click.option("--bytes", "nbytes", type=click.IntRange(1, 10**10), default=None,
              help="bulk: the bytes the client sends (default: the scenario file's, 20 MB).")
@click.option("--pcap", "pcap_dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Capture each real run at the client's link into this folder (tcpdump or dumpcap).")
@click.option("--delay", type=click.Choice(["auto", "netem", "delay-line"]), default="auto", show_default=True,
              help="The one-way delay by netem, by rampup's delay line, or netem where the kernel has it.")
@click.option("--cc", "ccs", type=click.Choice(sorted(te.CC_KEYS)), multiple=True,
              help="A congestion control to run (repeat for more): bulk and two-flows take cubic, reno and bbr (default cubic "
                   "and reno); restart and exchange take cubic and bbr (default cubic).")
def testbed_run(experiment: str, reps: int, nbytes: int | None, pcap_dir: Path | None, delay: str, ccs: tuple[str, ...]) -> None:
    """Run EXPERIMENT (scenarios/testbed/EXPERIMENT.toml) on a real path with each stack, and
    print its table (docs/testbed.md).

    bulk: one transfer over 40 Mb/s, 100 ms RTT, a 250-packet queue, with CUBIC and Reno.
    restart: 24 KB, about 5 s idle, 24 KB again, over 800 kb/s, 100 ms RTT, a 10 KB queue; IW 4
    and 2, SSR and NSSR. exchange: two requests answered by 24 KB after 5 s of thought, on
    restart's path; IW 4, SSR and NSSR. two-flows: 10 MB from each of two clients, 20 and 100
    ms RTT, over 20 Mb/s and a 100-packet queue, with CUBIC and Reno. Each by the kernel's TCP,
    rampup's over UDP, and the simulator. `--cc bbr` runs Linux's BBR (tcp_bbr.c) beside
    rampup's model of it (docs/bbr.md)."""
    # The experiments package draws figures: matplotlib is slow to import, so only here.
    from ..experiments.present import docs_table

    restarts = experiment in ("restart", "exchange")
    known = te.RESTART_KNOWN if restarts else tuple(te.CC_KEYS)
    for cc in ccs:
        if cc not in known:
            fail(f"--cc: {experiment} takes {' or '.join(known)} (got {cc})", EXIT_BAD_INPUT)
    ccs = tuple(dict.fromkeys(ccs)) or (te.RESTART_CCS if restarts else te.DEFAULT_CCS)
    try:
        have = tb.congestion_controls()
    except OSError as e:
        fail(f"--cc: the kernel does not say which congestion controls it has ({e})", EXIT_BAD_INPUT)
    for cc in ccs:
        if cc not in have:
            fail(f"--cc: this kernel has no {cc} (it has {' '.join(have)}; try `modprobe tcp_{cc}`)", EXIT_BAD_INPUT)
    for gone in tb.remove_leftovers():
        click.echo(f"removed {gone}, left by an earlier run", err=True)
    # Everything the run needs, before the first stack runs: a program missing after the
    # kernel's runs would lose them.
    for f in tb.unmet(tb.check(), delay, pcap_dir is not None)[:1]:
        fail(f"testbed run needs {f.name}: {f.detail} (rampup testbed check lists every need)", EXIT_BAD_INPUT)

    def progress(line: str) -> None:
        click.echo(line, err=True)

    try:
        if experiment == "bulk":
            rows = te.bulk(nbytes, reps, progress, pcap_dir, delay, ccs)
        else:
            rows = {"restart": te.restart, "exchange": te.exchange, "two-flows": te.two_flows}[experiment](reps, progress, pcap_dir, delay, ccs)
    except tb.TestbedError as e:
        fail(e, EXIT_BAD_INPUT)
    df = pd.DataFrame(rows)
    loss_cols = ["retransmits", "timeouts", "drops"]
    cols = ["ms", *sorted(c for c in df if c.startswith("transfer")), "goodput_mbps", *loss_cols]
    table = ta.means(df)
    means, counts = table[cols], table["runs"]
    flows = df["flow"].nunique() > 1
    head = ["case", "stack", *(["flow"] if flows else []), "runs", "connection ms", *(c.replace("_ms", " ms") for c in cols[1:-4]),
            "goodput Mb/s", *loss_cols]
    click.echo(docs_table(head, [[case, stack, *([str(flow)] if flows else []), str(counts[(case, stack, flow)]), *(f"{v:.0f}" for v in r[:-4]),
                                  f"{r[-4]:.3f}", *(f"{v:.1f}" for v in r[-3:])]
                                 for (case, stack, flow), r in zip(means.index, means.to_numpy().tolist(), strict=True)]))
    click.echo(f"\n{ta.HEADER}")
    for line in ta.agreement_lines(table):
        click.echo(f"- {line}")
