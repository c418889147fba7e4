"""Your part beside the paper's: `rampup reproduce PAPER --with KIND=module.path:Class`.

A Python part (`rampup.parts`: a startup, a controller or a restart policy) joins a
reproduction as one more scheme. An experiment says where a part of each family stands
(`Beside`): the paper's scheme whose role it plays in the claims (SSthreshless Start's,
for a startup in paper 001), the points it is copied from (that scheme's, and others' where
the paper compares the family without it, e.g. Table I's startups), and the claims about that
scheme, judged again with the part in its role. Each copied point is the source point's
scenario with the source's part swapped for the user's in every flow that runs it, so the
part runs on exactly the set-up, reading and seeds of the scheme it stands beside; its runs
are cached by the class's code (`rampup.parts.sources_key`, in `Job.key`), so an edited class
runs again.
"""

from __future__ import annotations

import copy
import tomllib
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .. import _toml
from ..parts import PartException, PartLoadError, load_part

__all__ = ["KINDS", "WORDS", "Beside", "Source", "UserPart", "WithError", "copies", "parse", "then_now_pairs"]

#: ``--with KIND=...``: the scenario key that names a part of the family, and the family's
#: name in `rampup.parts`.
KINDS: dict[str, str] = {"startup": "startup", "cc": "controller", "restart": "restart"}
#: Each family in words, as a report names it.
WORDS: dict[str, str] = {"startup": "startup", "cc": "congestion controller", "restart": "restart policy"}
#: What ``--with`` takes, as its errors say it.
SPELLING = "KIND=module.path:Class[,key=value...] with KIND one of startup, cc, restart"


class WithError(ValueError):
    """A ``--with`` that cannot be used: one line naming the flag and what is allowed."""


@dataclass(frozen=True)
class UserPart:
    """A part given by ``--with``: its family's key (`KINDS`), class, constructor keys and
    the name the reproduction's tables give its scheme (the class's ``name``)."""

    kind: str
    cls: str
    args: Mapping[str, Any]
    label: str
    given: str  # as ``--with`` gave it

    def table(self) -> dict[str, Any]:
        """The scenario's table for the part (``{kind = "python", class = ..., ...}``)."""
        return {"kind": "python", "class": self.cls, **self.args}


def _value(text: str) -> Any:
    """A constructor key's value: TOML (3, 0.5, true, "x"), or else the bare string."""
    try:
        return tomllib.loads(f"v = {text}")["v"]
    except tomllib.TOMLDecodeError:
        return text


def parse(text: str) -> UserPart:
    """``KIND=module.path:Class[,key=value...]``, its class imported and checked as a part of
    that family with those keys (`rampup.parts.load_part`); `WithError` if it is not."""
    kind, eq, rest = text.partition("=")
    kind = kind.strip()
    if not eq or kind not in KINDS or not rest:
        raise WithError(f"--with {text!r}: give {SPELLING}, e.g. startup=examples.rtt_growth:RttGrowthExit,growth_pct=10")
    cls, *pairs = rest.split(",")
    args: dict[str, Any] = {}
    for pair in pairs:
        key, eq, value = pair.partition("=")
        if not eq or not key.strip():
            raise WithError(f"--with {text!r}: {pair!r} is not key=value; give {SPELLING}")
        args[key.strip()] = _value(value.strip())
    try:
        _, name, _, _ = load_part(KINDS[kind], cls.strip(), _toml.dumps(args))
    except PartLoadError as e:
        why = str(e).replace("the scenario's keys", "the keys given")
        raise WithError(f"--with {text}: {cls.strip()}: {why}") from None
    except Exception as e:  # the user's module or constructor raised: their code's fault, with its traceback
        raise PartException(f"--with {text}: {cls.strip()}: {type(e).__name__}: {e}") from e
    return UserPart(kind, cls.strip(), args, name, text)


def _kind(part: Any) -> Any:
    """A part's kind as a scenario names it: the string, or the ``kind`` of its table."""
    return part.get("kind") if isinstance(part, dict) else part


@dataclass(frozen=True)
class Source:
    """Points a part is copied from: those of ``scheme`` whose tags ``where`` accepts; in each,
    every flow whose part of the family is of ``kind`` gets the user's part instead."""

    scheme: str
    kind: str
    where: Callable[[Mapping[str, Any]], bool] = lambda tags: True


@dataclass(frozen=True)
class Beside:
    """Where a part of one family stands in a paper: the scheme whose ``role`` it plays in the
    claims (`View.roles`), the claims about that scheme it is judged on, and the points it
    runs at (`Source`s, the first the scheme's own)."""

    scheme: str
    role: str
    claims: str
    sources: Sequence[Source]
    what: str = ""  # the scheme in words, for the report ("SSthreshless Start")
    not_judged: str = ""  # why the scheme's other claims are not judged with the part
    also: Sequence[str] = field(default_factory=tuple)  # more schemes the then-and-now compares it with


def _swapped(doc: dict[str, Any], key: str, kind: str, part: UserPart) -> tuple[dict[str, Any], int]:
    """``doc`` with ``part`` in place of ``key`` of ``kind`` in the scenario's ``[tcp]`` and
    in every flow's, and how many it replaced."""
    out = copy.deepcopy(doc)
    swapped = 0
    for tcp in (out.get("tcp", {}), *(flow.get("tcp", {}) for flow in out.get("flow", []))):
        if _kind(tcp.get(key)) == kind:
            tcp[key] = part.table()
            swapped += 1
    return out, swapped


def copies(points: Iterable[Any], beside: Beside, part: UserPart) -> list[Any]:
    """The points ``part`` runs at: a copy of each source point, tagged with its scheme."""
    out = []
    for src in beside.sources:
        for p in points:
            if p.tags.get("scheme") != src.scheme or not src.where(p.tags):
                continue
            doc, swapped = _swapped(p.scenario, part.kind, src.kind, part)
            if swapped:
                out.append(type(p)(tags={**p.tags, "scheme": part.label}, scenario=doc, keep=p.keep, info=p.info))
    return out


def then_now_pairs(pairs: Sequence[tuple[str, str]], beside: Mapping[str, Beside], parts: Sequence[UserPart]) -> list[tuple[str, str]]:
    """The then-and-now pairs with each part's own: the part against each scheme its mechanism
    is held against, then against that mechanism itself."""
    out = list(pairs)
    for part in parts:
        b = beside[part.kind]
        out += [(part.label, today) for mechanism, today in pairs if mechanism == b.scheme]
        out += [(part.label, other) for other in (b.scheme, *b.also)]
    return out
