"""What one testbed path owns on the machine, and the removal of what a dead one left
(docs/testbed.md, "Safety").

An `Owner` makes namespaces and starts processes for one path (or for `testbed.check`), and
writes down what it made in a record of its own, ``/run/rampup/<id>.json``: the owner's pid
and start time (so that a reused pid is not taken for it) and each namespace's name and
inode (so that a namespace made later under the same name is not taken for it). The record is
written before each namespace is added, so that a kill at any moment leaves nothing made that
no record names. Every process it starts dies with the thread that started it
(PR_SET_PDEATHSIG, SIGKILL) and carries the owner's id in its environment (`ENV`), which its
own children inherit.

`remove_leftovers` reads the records of owners that are gone and removes only what they name:
it kills the processes that carry their id or live in their namespaces, by pid, then deletes
those namespaces whose inode is still the recorded one, then the record. A namespace that no
record names (``ip netns add rampup-lab``) is never touched.
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import os
import secrets
import signal
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path as FsPath
from typing import Any

__all__ = ["ENV", "RECORDS", "Owner", "leftovers", "processes_of", "remove_leftovers", "run_short"]

#: The owners' records: on tmpfs, gone at a reboot, as network namespaces are.
RECORDS = FsPath("/run/rampup")
#: The environment variable that carries an owner's id into every process it starts.
ENV = "RAMPUP_RUN"
NETNS = FsPath("/run/netns")
PR_SET_PDEATHSIG = 1
#: How long a killed process may take to be gone before its namespace is deleted anyway.
KILL_WAIT_S = 5.0
_LIBC = ctypes.CDLL(None, use_errno=True)


def _start_ticks(pid: int) -> int | None:
    """When ``pid`` started, in clock ticks since boot (/proc/PID/stat, field 22); None if it is gone."""
    try:
        stat = FsPath(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return int(stat.rsplit(")", 1)[1].split()[19])  # the fields after the command's name start at field 3


def _netns_inode(name: str) -> int | None:
    """The inode of the named namespace (its bind mount in /run/netns), None if there is none."""
    try:
        return (NETNS / name).stat().st_ino
    except OSError:
        return None


def _dies_with_parent(parent: int) -> Callable[[], None]:
    """A preexec_fn: the child gets SIGKILL when the thread that started it ends, however it
    ends; and it ends at once if its parent is already gone (it died before the prctl)."""
    def preexec() -> None:
        _LIBC.prctl(PR_SET_PDEATHSIG, ctypes.c_ulong(signal.SIGKILL))
        if os.getppid() != parent:
            os._exit(1)
    return preexec


def run_short(*argv: str) -> tuple[bool, str]:
    """Runs a short command; (whether it succeeded, its first line of error or output)."""
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=20)
    except (OSError, subprocess.TimeoutExpired) as e:
        return False, str(e)
    text = (done.stderr or done.stdout).strip().splitlines()
    return done.returncode == 0, text[0] if text else ""


class Owner:
    """The namespaces and processes of one path, and the record that names them."""

    def __init__(self) -> None:
        self.id = secrets.token_hex(6)
        self.record = RECORDS / f"{self.id}.json"
        #: Each namespace made, with its inode (None while it is being added).
        self.namespaces: dict[str, int | None] = {}
        self._children: list[subprocess.Popen[Any]] = []

    def _write(self) -> None:
        RECORDS.mkdir(mode=0o755, parents=True, exist_ok=True)
        tmp = self.record.with_suffix(".tmp")
        tmp.write_text(json.dumps({"pid": os.getpid(), "start": _start_ticks(os.getpid()), "namespaces": self.namespaces}), encoding="utf-8")
        os.replace(tmp, self.record)  # whole or not at all, whenever the kill comes

    def add_namespace(self, name: str) -> tuple[bool, str]:
        """``ip netns add name``, written down first; (whether it was made, why not)."""
        self.namespaces[name] = None
        try:
            self._write()
        except OSError as e:  # no record, no namespace: nothing could remove it after a kill
            del self.namespaces[name]
            return False, f"cannot write {self.record}: {e.strerror}"
        ok, why = run_short("ip", "netns", "add", name)
        if not ok:  # not made, perhaps someone else's: not ours to remove
            del self.namespaces[name]
            self._write()
            return False, why
        self.namespaces[name] = _netns_inode(name)
        self._write()
        return True, ""

    def _spawn_args(self, kw: dict[str, Any]) -> dict[str, Any]:
        return {**kw, "env": {**(kw.get("env") or os.environ), ENV: self.id}, "preexec_fn": _dies_with_parent(os.getpid())}

    def popen(self, argv: list[str], **kw: Any) -> subprocess.Popen[Any]:
        """Starts ``argv``: it dies with this thread, and `remove` kills it if it still runs."""
        child = subprocess.Popen(argv, **self._spawn_args(kw))
        self._children.append(child)
        return child

    def run(self, argv: list[str], **kw: Any) -> subprocess.CompletedProcess[Any]:
        """Runs ``argv`` to its end, as `popen` starts it."""
        return subprocess.run(argv, **self._spawn_args(kw))

    def remove(self) -> None:
        """Kills what still runs of what this owner started, and whatever lives in its
        namespaces; deletes the namespaces, then the record."""
        for child in self._children:
            if child.poll() is None:
                child.kill()
                with contextlib.suppress(subprocess.TimeoutExpired):
                    child.wait(timeout=KILL_WAIT_S)
            for pipe in (child.stdin, child.stdout, child.stderr):
                if pipe is not None:
                    pipe.close()
        self._children.clear()
        _kill(self.id, {i for i in self.namespaces.values() if i is not None})
        for name in reversed(list(self.namespaces)):
            run_short("ip", "netns", "del", name)
        self.namespaces.clear()
        self.record.unlink(missing_ok=True)


def processes_of(owner_id: str, inodes: set[int]) -> list[int]:
    """The processes (not this one) that carry ``owner_id`` in their environment or whose
    network namespace is one of ``inodes``."""
    mark = f"{ENV}={owner_id}".encode()
    found = []
    for proc in FsPath("/proc").iterdir():
        if not proc.name.isdigit() or int(proc.name) == os.getpid():
            continue
        try:
            mine = mark in (proc / "environ").read_bytes().split(b"\0")
            mine = mine or (proc / "ns" / "net").stat().st_ino in inodes
        except OSError:  # gone meanwhile, or a zombie: it holds no namespace
            continue
        if mine:
            found.append(int(proc.name))
    return found


def _kill(owner_id: str, inodes: set[int]) -> None:
    """SIGKILL to each of `processes_of`, by pid, and a wait until they are gone."""
    deadline = time.monotonic() + KILL_WAIT_S
    while (left := processes_of(owner_id, inodes)) and time.monotonic() < deadline:
        for pid in left:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        time.sleep(0.05)


@dataclass(frozen=True)
class _Record:
    file: FsPath
    owner_id: str
    pid: int
    start: int | None
    namespaces: dict[str, int | None]

    def owner_alive(self) -> bool:
        now = _start_ticks(self.pid)
        return now is not None and (self.start is None or now == self.start)

    def left(self) -> list[str]:
        """The namespaces of this record that are still there as it made them: the same inode,
        or, for one it was adding when it died, the name (an add that failed is not recorded)."""
        return [name for name, inode in self.namespaces.items() if (now := _netns_inode(name)) is not None and inode in (None, now)]


def _records() -> list[_Record]:
    """The owners' records; one that cannot be read is left as it is."""
    found = []
    for file in sorted(RECORDS.glob("*.json")) if RECORDS.is_dir() else []:
        try:
            r = json.loads(file.read_text(encoding="utf-8"))
            found.append(_Record(file, file.stem, int(r["pid"]), r.get("start"), {str(k): v for k, v in r["namespaces"].items()}))
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            continue
    return found


def leftovers() -> list[str]:
    """The namespaces that owners now gone (runs killed before they could remove them) left."""
    return [name for r in _records() if not r.owner_alive() for name in r.left()]


def remove_leftovers() -> list[str]:
    """Removes what owners now gone left: their processes, then their namespaces, then their
    records; returns the namespaces' names. Touches nothing a record does not name."""
    gone = []
    for r in _records():
        if r.owner_alive():
            continue
        names = r.left()
        _kill(r.owner_id, {i for n in names if (i := _netns_inode(n)) is not None})
        for name in names:
            run_short("ip", "netns", "del", name)
            gone.append(name)
        r.file.unlink(missing_ok=True)
    return gone
