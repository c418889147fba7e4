"""Startups, congestion controllers and restart policies written in Python, run inside the engine
(docs/python-parts.md).

A scenario names a part by its class and gives its constructor's arguments beside it::

    [tcp]
    startup = { kind = "python", class = "mypkg.mystart:MyStart", growth_pct = 25 }
    cc = { kind = "python", class = "examples.newreno:NewReno" }

(or by a name given to `register_part`, for a class defined in a notebook). Each endpoint gets
its own object, made from the class with those arguments. The engine calls its hooks with
read-only contexts (`AckContext`, `CongestionContext`: units in the field names) and applies
what they return, after checking it: a window below one segment, or a cwnd that leaps above
the receive window (by more than the 2 segments one ACK may add), stops the run with a
`PartError` (a `ScenarioError`) naming the part, the hook and the value; an exception in a hook stops it with a `PartException` whose ``__cause__`` is the
exception. A run with a Python part runs on one thread.

Startup (`Startup`): on each ACK outside recovery, ``on_ack`` returns None (the controller's
own rule grows the window) or ``Set(cwnd_bytes=...)`` (the startup grew it; the controller
leaves this ACK alone), optionally with ``ssthresh_bytes`` (a startup may end slow start
by setting ssthresh, as Hoe's does, and leave the growth to the controller with
``Set(ssthresh_bytes=...)`` alone).

Controller (`Controller`): ``on_ack`` returns None (no change) or a `Set`;
``on_congestion_event`` returns the new ssthresh in bytes, or None for RFC 5681 eq. (4)
(max(FlightSize / 2, 2 * SMSS)); the engine then sets cwnd as the event's rule says
(fast retransmit: ssthresh plus the inflation; timeout: one segment, at ``on_rto``).
A controller that defines ``pacing_rate_bps`` sets the rate its data segments are spaced at
(as Linux's BBR writes ``sk_pacing_rate``); its connections are paced from the 11th data
segment, as Linux paces, unless the scenario's ``pacing`` says otherwise.
"""

from __future__ import annotations

import hashlib
import importlib
import inspect
import json
import marshal
import sys
import tomllib
from collections.abc import Iterator
from typing import Any, ClassVar, cast

from ._engine import AckContext, CongestionContext, IdleContext, PaceContext, PartError, PartException, SentContext

__all__ = ["HOLD", "AckContext", "Controller", "CongestionContext", "IdleContext", "Pace", "PaceContext", "PartError", "PartException", "RestartPolicy",
           "SentContext", "Set", "Startup", "differs_here", "register_part", "sources_key"]

class Set:
    """A hook's decision: the new cwnd and/or ssthresh in bytes (None: leave it)."""

    __slots__ = ("cwnd_bytes", "ssthresh_bytes")

    def __init__(self, *, cwnd_bytes: int | None = None, ssthresh_bytes: int | None = None) -> None:
        self.cwnd_bytes = cwnd_bytes
        self.ssthresh_bytes = ssthresh_bytes

    def __repr__(self) -> str:
        return f"Set(cwnd_bytes={self.cwnd_bytes}, ssthresh_bytes={self.ssthresh_bytes})"


class Startup:
    """A startup: how the window grows before the first loss, composed with the scenario's
    controller (`cc`, NewReno by default). Define ``on_ack``; the other hooks are optional
    (a hook the class does not define costs no call into Python)."""

    #: The name results show (the flows table's ``cc``); the class's name if not given.
    name: ClassVar[str | None] = None

    def on_ack(self, ctx: AckContext) -> Set | None:  # pragma: no cover - the hook to define
        """New data was acknowledged outside loss recovery."""
        raise NotImplementedError

    def on_congestion_event(self, ctx: CongestionContext) -> None:
        """A loss (or an ECN mark) before the controller sets ssthresh; the return is ignored."""

    def in_slow_start(self, cwnd_bytes: int, ssthresh_bytes: int) -> bool:
        """Whether the window is still in the first slow start (asked after each ACK until
        False; the flows table's slow-start exit). Default: cwnd < ssthresh (RFC 5681 §3.1)."""
        return cwnd_bytes < ssthresh_bytes


class Controller:
    """A congestion-avoidance controller. Define ``on_ack``; the other hooks are optional."""

    name: ClassVar[str | None] = None

    def on_ack(self, ctx: AckContext) -> Set | None:  # pragma: no cover - the hook to define
        """New data was acknowledged outside loss recovery (after the startup left it)."""
        raise NotImplementedError

    def on_congestion_event(self, ctx: CongestionContext) -> int | None:
        """A fast retransmit, the first timeout of the data, or an ECN mark: the new ssthresh
        in bytes, or None for RFC 5681 eq. (4)."""
        return None

    def on_recovery_end(self, now_ns: int) -> None:
        """Fast recovery ended; cwnd is back at ssthresh."""

    def on_rto(self, now_ns: int) -> None:
        """The retransmission timer expired; cwnd is one segment."""

    def on_idle_end(self, now_ns: int, idle_ns: int) -> None:
        """The application has data after an idle; the restart policy set the window."""

    def on_sent(self, now_ns: int, bytes_sent: int, quiet_ns: int | None) -> None:
        """A data segment went out; ``quiet_ns``: with nothing in flight, the time since the
        sender last sent. Called on every segment: define it only if needed."""

    def pacing_rate_bps(self, ctx: PaceContext) -> int | None:
        """The rate, in bits per second, that spaces the data segment now leaving (a whole
        number, at least 1), or None for the rule of the scenario's ``pacing`` (Linux's
        200 % / 120 % of cwnd/srtt by default). Called on every paced segment; a controller
        that defines it is paced all the time."""
        return None


#: A restart policy's ``on_ack``: the window stands still (the ACK is no evidence the path
#: carries it, RFC 7661 §4.3).
HOLD = "hold"


class Pace(Set):
    """``on_idle_end``'s paced restart (paper 000 §3, RBP): send ``segments`` segments
    ``interval_ns`` apart, until the first ACK ends the pacing and hands the window back (cwnd
    = the data outstanding, at least one segment); with the window of a `Set` (the paced
    segments are the window until that ACK, so RBP's cwnd is min(cwnd, segments × MSS))."""

    __slots__ = ("interval_ns", "segments")

    def __init__(self, *, segments: int, interval_ns: int, cwnd_bytes: int | None = None, ssthresh_bytes: int | None = None) -> None:
        super().__init__(cwnd_bytes=cwnd_bytes, ssthresh_bytes=ssthresh_bytes)
        self.segments = segments
        self.interval_ns = interval_ns

    def __repr__(self) -> str:
        return (f"Pace(segments={self.segments}, interval_ns={self.interval_ns}, cwnd_bytes={self.cwnd_bytes}, "
                f"ssthresh_bytes={self.ssthresh_bytes})")


class RestartPolicy:
    """A restart-after-idle and window-validation policy (`restart` in a scenario). Define
    ``on_idle_end``; the other hooks are optional (one the class does not define costs no
    call into Python). Its connections take the engine's general paths, which can pace."""

    name: ClassVar[str | None] = None

    def on_idle_end(self, ctx: IdleContext) -> Set | None:  # pragma: no cover - the hook to define
        """The application has data after an idle longer than the threshold, with nothing
        outstanding: the window to restart with (a `Set`, or a `Pace` to pace it), or None to
        keep the window (no restart)."""
        raise NotImplementedError

    def on_ack(self, ctx: AckContext) -> Set | str | None:
        """A new ACK: None (congestion control grows the window as usual), `HOLD` (the
        window stands still) or a `Set` (the window becomes it, with no growth from the ACK)."""
        return None

    def on_sent(self, ctx: SentContext) -> Set | None:
        """A data segment went out: a window to use instead (RFC 2861's decay of a window
        the sender does not fill), or None. Called on every segment: define it only if needed."""
        return None

    def on_congestion_event(self, ctx: CongestionContext) -> Set | None:
        """A fast retransmit, the first timeout of the data or an ECN mark, after congestion
        control set the window (``ctx``'s): a window to use instead (new-CWV's response in the
        non-validated phase, RFC 7661 §4.4.1), or None."""
        return None

    def on_recovery_end(self, cwnd_bytes: int, ssthresh_bytes: int, resent_bytes: int) -> Set | None:
        """Fast recovery ended with this window; ``resent_bytes`` were retransmitted in it
        (RFC 7661's R): a window to use instead, or None."""
        return None

    def on_rto(self) -> None:
        """The retransmission timer expired."""


class PartLoadError(ValueError):
    """The class a scenario names cannot be used: one line, the cause."""


_BASES: dict[str, type] = {"startup": Startup, "controller": Controller, "restart": RestartPolicy}
#: The hook each family's class must define.
_REQUIRED = {"startup": "on_ack", "controller": "on_ack", "restart": "on_idle_end"}
#: The scenario key that names a part of each family.
_KEYS = {Startup: "startup", Controller: "cc", RestartPolicy: "restart"}
_HOOKS: dict[str, tuple[str, ...]] = {
    "startup": ("on_ack", "on_congestion_event", "in_slow_start"),
    "controller": ("on_ack", "on_congestion_event", "on_recovery_end", "on_rto", "on_idle_end", "on_sent", "pacing_rate_bps"),
    "restart": ("on_idle_end", "on_ack", "on_sent", "on_congestion_event", "on_recovery_end", "on_rto"),
}
_REGISTERED: dict[str, type] = {}


def register_part(name: str, cls: type) -> None:
    """Make ``cls`` (a `Startup`, `Controller` or `RestartPolicy` subclass, e.g. defined in a notebook) the
    class that ``class = "NAME"`` names in a scenario run in this process."""
    if not isinstance(cls, type) or not issubclass(cls, (Startup, Controller, RestartPolicy)):
        raise TypeError(f"register_part({name!r}, ...): a subclass of rampup.parts.Startup, Controller or RestartPolicy, not {cls!r}")
    if not name or ":" in name:
        raise ValueError(f"register_part({name!r}, ...): a name without ':' (that spells module:Class)")
    _REGISTERED[name] = cls


def _class(path: str) -> type:
    if path in _REGISTERED:
        return _REGISTERED[path]
    module_name, sep, qualname = path.partition(":")
    if not sep or not module_name or not qualname:
        known = f"; registered: {', '.join(sorted(_REGISTERED))}" if _REGISTERED else ""
        raise PartLoadError(f"is neither module.path:Class nor a name given to rampup.register_part{known}")
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as e:
        if e.name is not None and module_name.startswith(e.name):
            raise PartLoadError(f"no module named {e.name!r} (is it on PYTHONPATH?)") from None
        raise
    obj: Any = module
    for attr in qualname.split("."):
        obj = getattr(obj, attr, None)
        if obj is None:
            raise PartLoadError(f"module {module_name!r} has no {qualname!r}")
    if not isinstance(obj, type):
        raise PartLoadError(f"{qualname!r} is not a class")
    return obj


def load_part(family: str, path: str, args_toml: str) -> tuple[type, str, list[str], dict[str, Any]]:
    """The class ``path`` names, checked as a part of ``family`` ("startup", "controller", "restart")
    that takes ``args_toml``'s keys: (class, name in results, the hooks it defines, the
    constructor's arguments). `PartLoadError` for a class that cannot be so used; an exception
    that the user's module or constructor raises goes through as it is."""
    cls = _class(path)
    base = _BASES[family]
    if not issubclass(cls, base):
        other = next((b for b in _KEYS if issubclass(cls, b)), None)
        hint = f" (it is a rampup.parts.{other.__name__}: name it as {_KEYS[other]})" if other is not None else ""
        raise PartLoadError(f"is not a subclass of rampup.parts.{base.__name__}{hint}")
    part = cast("type[Startup] | type[Controller] | type[RestartPolicy]", cls)
    required = _REQUIRED[family]
    if getattr(part, required) is getattr(base, required):
        raise PartLoadError(f"defines no {required} method: a {base.__name__} defines {required}(self, ctx)")
    kwargs = tomllib.loads(args_toml)
    signature = inspect.signature(cls)
    takes = ", ".join(str(p.replace(annotation=inspect.Parameter.empty)) for p in signature.parameters.values())
    try:
        signature.bind(**kwargs)
    except TypeError as e:
        raise PartLoadError(f"the scenario's keys do not fit the constructor {cls.__name__}({takes}): {e}") from None
    try:
        cls(**kwargs)
    except (ValueError, TypeError) as e:  # the constructor refused its arguments: bad input
        raise PartLoadError(f"{cls.__name__}({takes}) refused the scenario's keys: {type(e).__name__}: {e}") from None
    # Any other exception is the user's code's, and goes through as it is.
    hooks = [h for h in _HOOKS[family] if getattr(cls, h) is not getattr(base, h)]
    name = part.name if isinstance(part.name, str) and part.name else cls.__name__
    return cls, name, hooks, kwargs


def _named_classes(doc: Any) -> Iterator[str]:
    if isinstance(doc, dict):
        if doc.get("kind") == "python" and isinstance(doc.get("class"), str):
            yield doc["class"]
        for v in doc.values():
            yield from _named_classes(v)
    elif isinstance(doc, list):
        for v in doc:
            yield from _named_classes(v)


def _code(namespace: dict[str, Any]) -> Iterator[bytes]:
    """The compiled code of the functions in ``namespace`` and the repr of its plain values."""
    for key, value in sorted(namespace.items(), key=lambda kv: kv[0]):
        value = getattr(value, "__func__", value)  # a staticmethod's or classmethod's function
        if inspect.isfunction(value):
            yield key.encode() + marshal.dumps(value.__code__) + repr(value.__defaults__).encode()
        elif isinstance(value, (int, float, str, bytes, bool, tuple, type(None))):
            yield key.encode() + repr(value).encode()


def _parse(scenario_text: str) -> Any:
    """The scenario as data, or None where it is not one (the engine says why)."""
    try:
        return json.loads(scenario_text) if scenario_text.lstrip().startswith("{") else tomllib.loads(scenario_text)
    except ValueError:
        return None


def sources_key(scenario_text: str) -> str:
    """A hash of the code of every Python part that ``scenario_text`` names, as loaded in this
    process (the functions and plain values of each class and its bases, and of their modules),
    for the run cache's key (`rampup.cache.Job.key`): an edited and reloaded class, or a cell
    run again, runs again. "" for a scenario with no Python part."""
    if "python" not in scenario_text:
        return ""
    doc = _parse(scenario_text)
    if doc is None:
        return ""
    h = hashlib.sha256()
    for name in sorted(set(_named_classes(doc))):
        h.update(name.encode())
        try:
            cls = _class(name)
        except Exception:  # a class that does not load: the run says why, and nothing is cached
            continue
        for base in cls.__mro__:
            if base.__module__ in ("builtins", __name__):
                continue
            module = sys.modules.get(base.__module__)
            for namespace in (dict(vars(base)), dict(vars(module)) if module is not None else {}):
                for code in _code(namespace):
                    h.update(code)
    return h.hexdigest()[:32]


def differs_here(scenario_text: str, key: str) -> str | None:
    """Why the Python parts that ``scenario_text`` names, as this process (a Dask worker)
    loads them, are not those whose code hashes to ``key`` (`sources_key` in the process that
    keyed the run): a class this process cannot import, or another version of it; None when
    they are the same."""
    if sources_key(scenario_text) == key:
        return None
    names = sorted(set(_named_classes(_parse(scenario_text))))
    for name in names:
        try:
            _class(name)
        except (PartLoadError, ImportError) as e:
            return (f"a worker cannot import the Python part {name!r} ({e}): a worker imports a part by its module path, so "
                    "install its module there or put it on the worker's PYTHONPATH (a name given to register_part is known "
                    "only in the process that gave it)")
    return (f"a worker has other code for the Python part{'s' * (len(names) > 1)} {', '.join(map(repr, names))} than this "
            "process: give the workers the same version of the module")
