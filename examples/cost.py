"""What a Python part costs (docs/python-parts.md): the bench dumbbell (`rampup.bench`) with
N = 1 and 100 NewReno flows, run with the engine's NewReno, with its Python twin
(`examples.newreno`, a call per ACK that returns a window) and with the engine's NewReno
under a Python startup that leaves every ACK to it (a call per ACK that returns None). Per
run: CPU milliseconds per simulated second, the hook calls made (counted in a separate run by
a counting subclass, so that the count does not add to the time) and the CPU time each call
adds over the engine's own part. Best of REPEAT, on one thread.

    RAMPUP_THREADS=1 PYTHONPATH=python:. python3 examples/cost.py
"""

from __future__ import annotations

import os
import time

from examples.newreno import NewReno

from rampup import _engine, parts
from rampup.bench import bench_scenario
from rampup.parts import AckContext, Set, Startup

REPEAT = 3
DURATION_S = {1: 20.0, 100: 5.0}
CALLS = {"on_ack": 0}


class CountedNewReno(NewReno):
    def on_ack(self, ctx: AckContext) -> Set:
        CALLS["on_ack"] += 1
        return super().on_ack(ctx)


class Idle(Startup):
    """Leaves every ACK to the controller: the cost of the call alone."""

    def on_ack(self, ctx: AckContext) -> None:
        return None


class CountedIdle(Idle):
    def on_ack(self, ctx: AckContext) -> None:
        CALLS["on_ack"] += 1


parts.register_part("cost-newreno", NewReno)
parts.register_part("cost-newreno-counted", CountedNewReno)
parts.register_part("cost-idle", Idle)
parts.register_part("cost-idle-counted", CountedIdle)

#: label -> (the scenario key, the class, its counting twin); None: the engine's own NewReno.
VARIANTS: dict[str, tuple[str, str, str] | None] = {
    "engine newreno": None,
    "python controller (newreno twin)": ("cc", "cost-newreno", "cost-newreno-counted"),
    "python startup returning None": ("startup", "cost-idle", "cost-idle-counted"),
}


def scenario(flows: int, part: tuple[str, str] | None) -> str:
    tcp = f'{part[0]} = {{ kind = "python", class = "{part[1]}" }}\n' if part else ""
    return bench_scenario(flows, DURATION_S[flows]).replace("[tcp]\n", "[tcp]\n" + tcp)


def best_cpu_s(text: str) -> float:
    """The least CPU time of REPEAT runs: on a shared machine, wall time counts the other
    processes' turns too."""
    times = []
    for _ in range(REPEAT):
        t0 = time.process_time()
        _engine.run(text)
        times.append(time.process_time() - t0)
    return min(times)


def main() -> None:
    print(f"RAMPUP_THREADS={os.environ.get('RAMPUP_THREADS', '(unset)')}, best of {REPEAT}")
    for flows in DURATION_S:
        base = best_cpu_s(scenario(flows, None))
        for label, variant in VARIANTS.items():
            cpu = base if variant is None else best_cpu_s(scenario(flows, variant[:2]))
            line = f"N={flows:<4} {label:34} {cpu / DURATION_S[flows] * 1e3:9.1f} ms CPU per simulated s"
            if variant is not None:
                CALLS["on_ack"] = 0
                _engine.run(scenario(flows, (variant[0], variant[2])))
                calls = CALLS["on_ack"]
                line += f"  {calls / DURATION_S[flows]:10,.0f} hook calls per simulated s  {(cpu - base) / calls * 1e6:5.2f} µs per call"
            print(line)

if __name__ == "__main__":
    main()
