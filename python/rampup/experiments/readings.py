"""Readings: the assumptions a verdict rests on, each as a named alternative.

Where a paper is silent (the ACK policy, the queue's unit, the restart window) or where our
model departs from the authors' simulator (ns-2's loss response, its RTO timing, a switch's
buffers), a `Reading` names the alternative, says why it is one, and says how a run's
scenario changes under it. An experiment declares its readings; `expand` reruns under each
only the points its claims need (the tags it names), tagged with the reading,
and `matrix` sets out claim × reading → verdict, so that "does not hold" comes with the
readings under which it holds, or with none.
"""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd

from .checks import HOLDS, UNTESTED

__all__ = ["MAIN", "NONE", "Reading", "expand", "fq_codel_ecn", "holds_under", "matrix", "todays_bottleneck"]

#: The primary reading's tag: the reproduction as its report's set-up states it.
MAIN = "main"
#: What "holds under" says when no reading gives "holds".
NONE = "none of the readings we could state"


@dataclass(frozen=True)
class Reading:
    """One alternative assumption: ``name`` (the tag of its points), ``label`` (what it
    assumes, as the matrix heads its column), ``why`` (where the paper is silent or our
    model departs), ``apply`` (a run's scenario under it, changed in place), ``where`` (the
    points it reruns: those whose tags take one of the listed values, e.g. ``{"sweep":
    ("idle",)}``) and ``claims`` (the claims judged under it)."""

    name: str
    label: str
    why: str
    apply: Callable[[dict[str, Any]], None]
    where: Mapping[str, tuple[Any, ...]]
    claims: str

    def reruns(self, tags: Mapping[str, Any]) -> bool:
        return all(tags.get(k) in values for k, values in self.where.items())


#: The queue key of a paper's bottleneck, by topology: the dumbbell's bottleneck link, a
#: LAN's switch ports.
_BOTTLENECK_QUEUE = {"dumbbell": "bottleneck_queue", "lan": "queue"}

def fq_codel_ecn(queue: dict[str, Any], tcp: dict[str, Any]) -> None:
    """A drop-tail queue's table made FQ-CoDel with ECN marks at the same limit, and ECN
    (RFC 3168) asked for by the TCP table of both ends."""
    queue.update(kind="fq-codel", ecn=True)
    tcp["ecn"] = True


def _bottleneck_fq_codel_ecn(doc: dict[str, Any]) -> None:
    topology = doc["topology"]
    fq_codel_ecn(topology.setdefault(_BOTTLENECK_QUEUE[topology["kind"]], {}), doc.setdefault("tcp", {}))


def todays_bottleneck(where: Mapping[str, tuple[Any, ...]], claims: str) -> Reading:
    """The paper's key experiment behind today's bottleneck: its buffer managed by FQ-CoDel
    (RFC 8290 at Linux's defaults: 5 ms target, 100 ms interval, 1,514-byte quantum), which
    marks ECN-capable packets instead of dropping them, with ECN negotiated at both ends;
    rerun on ``where``, judging ``claims``."""
    return Reading("fq-codel+ecn", "today's bottleneck: FQ-CoDel with ECN",
                   "the paper's bottleneck is a drop-tail queue; today's home routers and many other bottlenecks run "
                   "FQ-CoDel (RFC 8290), which keeps the queue near its 5 ms target and marks ECN-capable packets "
                   "(RFC 3168) instead of dropping them. The paper's buffer stays the limit (docs/queues.md).",
                   _bottleneck_fq_codel_ecn, where, claims)


def expand(points: Sequence[Any], readings: Sequence[Reading]) -> list[Any]:
    """``points`` tagged with the main reading, and after them each reading's copies of the
    points it reruns, their scenarios changed by it."""
    out = [dataclasses.replace(p, tags={**p.tags, "reading": MAIN}) for p in points]
    for r in readings:
        for p in points:
            if r.reruns(p.tags):
                doc = copy.deepcopy(p.scenario)
                r.apply(doc)
                out.append(dataclasses.replace(p, tags={**p.tags, "reading": r.name}, scenario=doc))
    return out


def holds_under(main: str, alternates: Sequence[tuple[str, str]]) -> str:
    """The readings (``main`` first) under which a claim holds, given its verdict under each
    (label, verdict); `NONE` if it holds under none, and not testable if no reading tests it."""
    names = (["main"] if main == HOLDS else []) + [label for label, v in alternates if v == HOLDS]
    if not names and all(v == UNTESTED for v in [main, *(v for _, v in alternates)]):
        return UNTESTED
    return "; ".join(names) if names else NONE


def matrix(rows: Sequence[tuple[str, str, Sequence[tuple[str, str]]]], labels: Sequence[str] = ()) -> pd.DataFrame:
    """Claim × reading → verdict: one row per (claim, main verdict cell, [(label, verdict
    cell)]), a column per reading (``labels`` first, in order; blank where a reading does not
    judge the claim) and the readings it holds under."""
    labels = list(labels)
    for _, _, alts in rows:
        labels += [label for label, _ in alts if label not in labels]
    out = []
    for claim, main, alts in rows:
        cells = dict(alts)
        verdicts = [(label, cell.split(" (")[0]) for label, cell in alts]
        out.append({"claim": claim, "main": main, **{label: cells.get(label, "") for label in labels},
                    "holds under": holds_under(main.split(" (")[0], verdicts)})
    return pd.DataFrame(out)
