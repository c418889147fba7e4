"""Output folders: written atomically, and replaced only when provably rampup's own.

Every folder rampup writes (a run's results, a reproduction's report) is built in a
hidden temporary sibling with a unique name and renamed into place, so a reader sees
either the previous complete folder or the new complete one, and an interrupted or
failed write leaves the previous folder as it was and no temporary folder behind. A
process killed outright (SIGKILL, a power cut) cannot remove its temporary folder; its
name holds the host and process, and the next write of the same folder on that host
removes it once that process is gone.

Its ``manifest.json`` carries rampup's marker (``"written_by": "rampup"``) and the
SHA-256 of every file written (``"files"``). An existing folder is replaced only if it
is empty, or if its manifest carries the marker and the folder holds exactly the files
that manifest lists, each with its recorded hash: a user's file put there, or a file
of ours the user edited, is never deleted. Anything else stops with `OutputError`
unless the caller passes ``overwrite=True`` (``--overwrite`` on the command line).
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import glob
import hashlib
import json
import os
import re
import shutil
import socket
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any, BinaryIO

__all__ = ["MANIFEST", "MARKER", "OutputError", "check_ours", "check_target", "resolved", "staged_folder", "write_folder"]

MANIFEST = "manifest.json"
#: The key and value in a manifest that say rampup wrote the folder.
MARKER = ("written_by", "rampup")


class OutputError(ValueError):
    """The output folder cannot be written where asked (bad ``out``)."""


def check_target(target: Path, overwrite: bool = False) -> Path:
    """The folder to write, after checking that replacing it loses nothing of the user's, and
    that it is not inside a folder rampup wrote (whose manifest it would make wrong)."""
    target = resolved(target)
    if (outer := _inside_ours(target)) is not None:
        raise OutputError(f"{target}: inside {outer}, a folder rampup wrote, whose manifest lists every file in it; "
                          "give a folder outside it")
    if not target.exists():
        return target
    if not target.is_dir():
        raise OutputError(f"{target}: exists and is not a folder; not replacing it")
    if overwrite or not any(target.iterdir()):
        return target
    why = _not_ours(target)
    if why:
        raise OutputError(f"{target}: {why}; not replacing it (pass --overwrite to replace it anyway)")
    return target


def _inside_ours(target: Path) -> Path | None:
    """The folder above ``target`` whose manifest carries rampup's marker, if any."""
    key, value = MARKER
    for parent in target.parents:
        try:
            manifest = json.loads((parent / MANIFEST).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if isinstance(manifest, dict) and manifest.get(key) == value:
            return parent
    return None


def check_ours(folder: Path) -> None:
    """Raises `OutputError` unless ``folder`` is a folder as rampup wrote it: its manifest
    carries rampup's marker and lists every file, each with its SHA-256 unchanged."""
    if not folder.is_dir():
        raise OutputError(f"{folder}: not a folder")
    why = _not_ours(folder)
    if why:
        raise OutputError(f"{folder}: {why}")


def _not_ours(folder: Path) -> str | None:
    """Why ``folder`` is not provably a folder rampup wrote, or None if it is.

    The folder is read through one open descriptor, so that a rampup writer renaming a
    new folder over it meanwhile cannot make the manifest and the files disagree. If one
    did (the path names another folder now, and the one read may be half removed), the
    new one is read."""
    for _ in range(_READS):
        fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
        try:
            why = _not_ours_at(fd)
            read, now = os.fstat(fd), os.stat(folder)
        finally:
            os.close(fd)
        if why is None or (read.st_dev, read.st_ino) == (now.st_dev, now.st_ino):
            return why
    return why


#: The errors of a disk that is full (or of a quota that is): the environment's, not rampup's.
FULL_DISK = frozenset({errno.ENOSPC, errno.EDQUOT})
#: How often `_not_ours` reads a folder that other writers keep replacing before it answers.
_READS = 10


def _not_ours_at(folder_fd: int) -> str | None:
    try:
        with open(MANIFEST, "rb", opener=lambda name, flags: os.open(name, flags, dir_fd=folder_fd)) as f:
            manifest = json.loads(f.read().decode("utf-8"))
    except FileNotFoundError:
        return f"holds no {MANIFEST}, so it is not a rampup output folder"
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return f"its {MANIFEST} is not one rampup wrote"
    key, value = MARKER
    if not isinstance(manifest, dict) or manifest.get(key) != value:
        return f"its {MANIFEST} is not one rampup wrote"
    listed = manifest.get("files")
    if not isinstance(listed, dict):
        return f"its {MANIFEST} lists no files"
    for top, _, names, top_fd in os.fwalk(".", dir_fd=folder_fd):
        for name in sorted(names):
            rel = os.path.normpath(os.path.join(top, name)).replace(os.sep, "/")
            if rel == MANIFEST:
                continue
            if rel not in listed:
                return f"holds {rel!r}, which rampup did not write"
            if _sha256_at(name, top_fd) != listed[rel]:
                return f"{rel!r} was changed after rampup wrote it"
    return None


def _sha256_at(name: str, dir_fd: int) -> str | None:
    """The SHA-256 of the regular file ``name`` in ``dir_fd``; None for anything else."""
    try:
        fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW, dir_fd=dir_fd)
    except OSError:
        return None  # a symlink (rampup writes none) or unreadable
    with os.fdopen(fd, "rb") as f:
        return _sha256_file(f)


def _sha256_file(f: BinaryIO) -> str:
    h = hashlib.sha256()
    for chunk in iter(lambda: f.read(1 << 20), b""):
        h.update(chunk)
    return h.hexdigest()


def _hash_and_sync(folder: Path) -> dict[str, str]:
    """The ``files`` entry of a manifest: the SHA-256 of every file under ``folder``, each
    also flushed to disk while it is open for hashing."""
    files = {}
    for path in sorted(folder.rglob("*")):
        if path.is_file():
            with open(path, "rb") as f:
                files[path.relative_to(folder).as_posix()] = _sha256_file(f)
                os.fsync(f.fileno())
    return files


@contextlib.contextmanager
def staged_folder(target: Path, manifest: dict[str, Any], overwrite: bool = False) -> Iterator[Path]:
    """Yields an empty temporary folder beside ``target`` to fill; on a clean exit writes
    its manifest (``manifest`` with the marker and every file's hash, which are also set in
    ``manifest["files"]``; the dict may be filled in while the folder is) and renames it
    over ``target``. On an exception nothing is replaced and the temporary folder is removed."""
    target = check_target(target, overwrite)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        _remove_abandoned(target)
        tmp = Path(tempfile.mkdtemp(prefix=f"{_staging_prefix(target)}{os.getpid()}-", dir=target.parent))
    except OSError as e:  # where to write is the caller's choice, unlike a disk that fills later
        raise OutputError(f"{target}: {e.strerror or e}; give a folder rampup may write in") from None
    try:
        yield tmp
        key, value = MARKER
        manifest["files"] = _hash_and_sync(tmp)  # the caller's manifest says what was written
        body = {key: value} | manifest
        _write_file(tmp / MANIFEST, (json.dumps(body, indent=2) + "\n").encode(), sync=True)
        os.chmod(tmp, 0o777 & ~_umask())  # mkdtemp makes it private
        # Checked again: the folder may have changed while the run went on.
        check_target(target, overwrite)
        _swap_in(tmp, target)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    _fsync_dir(target.parent)


def _staging_prefix(target: Path) -> str:
    """The start of the names of ``target``'s temporary folders on this host (then the pid)."""
    return f".{target.name}.tmp-{socket.gethostname()}-"


def _remove_abandoned(target: Path) -> None:
    """Removes ``target``'s temporary folders left on this host by processes that are gone
    (killed while writing); a live process's, or another host's, are left alone."""
    prefix = _staging_prefix(target)
    for p in target.parent.glob(f"{glob.escape(prefix)}*"):
        # The pid, then mkdtemp's eight characters: a host whose name only begins with this
        # host's (node-12 beside node) does not match.
        m = re.fullmatch(rf"{re.escape(prefix)}(\d+)-[a-z0-9_]{{8}}", p.name)
        if m and p.is_dir() and not p.is_symlink() and not _running(int(m.group(1))):
            shutil.rmtree(p, ignore_errors=True)


def _running(pid: int) -> bool:
    try:
        os.kill(pid, 0)  # signal 0: only asks whether it exists
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # someone else's
    return True


def write_folder(target: Path, files: dict[str, bytes], manifest: dict[str, Any], overwrite: bool = False) -> Path:
    """Writes ``files`` (relative name -> bytes) and a manifest as the folder ``target``."""
    with staged_folder(target, manifest, overwrite) as tmp:
        for name, data in files.items():
            _write_file(tmp / name, data)
    return resolved(target)


def resolved(target: Path) -> Path:
    """``target`` as an absolute path; a symlink to a folder stands for that folder."""
    target = Path(target)
    try:
        return (target.resolve(strict=True) if target.is_symlink() else target).absolute()
    except (OSError, RuntimeError) as e:  # a loop, or a link to nothing
        reason = e.strerror if isinstance(e, OSError) and e.strerror else "a symbolic link loop or a broken link"
        raise OutputError(f"{target}: {reason}; not writing there") from None


def _write_file(path: Path, data: bytes, sync: bool = False) -> None:
    with open(path, "wb") as f:
        f.write(data)
        if sync:
            f.flush()
            os.fsync(f.fileno())


def _swap_in(tmp: Path, target: Path) -> None:
    """Renames the folder ``tmp`` to ``target``; an existing ``target`` is replaced."""
    try:
        os.rename(tmp, target)  # atomic; fails if target is a non-empty folder
        return
    except OSError as e:
        if e.errno not in (errno.ENOTEMPTY, errno.EEXIST) or not target.is_dir():
            raise
    if _rename_exchange(tmp, target):
        shutil.rmtree(tmp)  # now holds the old folder
        return
    # No atomic exchange: move the old folder aside first (a short window without one).
    old = Path(tempfile.mkdtemp(prefix=f".{target.name}.old-", dir=target.parent))
    os.rename(target, old / "x")
    try:
        os.rename(tmp, target)
    except BaseException:
        os.rename(old / "x", target)
        raise
    finally:
        shutil.rmtree(old, ignore_errors=True)


def _rename_exchange(a: Path, b: Path) -> bool:
    """Atomically swaps two paths with Linux renameat2(RENAME_EXCHANGE); False if unavailable."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        renameat2 = ctypes.CDLL(None, use_errno=True).renameat2
    except (OSError, AttributeError):
        return False
    at_fdcwd, rename_exchange = -100, 2
    if renameat2(at_fdcwd, os.fsencode(a), at_fdcwd, os.fsencode(b), rename_exchange) == 0:
        return True
    err = ctypes.get_errno()
    if err in (errno.ENOSYS, errno.EINVAL, errno.ENOTSUP):  # old kernel or file system
        return False
    raise OSError(err, os.strerror(err), str(b))


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _fsync_dir(path: Path) -> None:
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
