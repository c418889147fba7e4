"""Render a page in headless Chromium and say what a reader would see: whether each image
loaded, the console's errors, and a full-page screenshot. A small Chrome DevTools Protocol
client over ``--remote-debugging-pipe`` (standard library only), for the tests.

    python3 python/tests/browser.py PAGE.html OUT.png
"""

from __future__ import annotations

import base64
import fcntl
import json
import os
import select
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["Rendered", "chromium", "render"]

# Each <img>: its src as the page wrote it (a data: address cut short, as it holds the whole
# figure) and whether it loaded, i.e. was decoded into a picture.
_IMAGES = """JSON.stringify(Array.from(document.images, i => {
  const src = i.getAttribute('src') || '';
  return [src.startsWith('data:') ? src.slice(0, 40) + '…' : src, i.complete && i.naturalWidth > 0];
}))"""


@dataclass
class Rendered:
    images: list[tuple[str, bool]] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


def chromium() -> str | None:
    """The Chromium (or Chrome) on PATH, or None."""
    return next(filter(None, map(shutil.which, ("chromium", "chromium-browser", "google-chrome"))), None)


class _Pipe:
    """The browser's end of the protocol: NUL-terminated JSON, commands written to its fd 3,
    replies and events read from its fd 4."""

    def __init__(self, write: int, read: int, timeout: float) -> None:
        self.write, self.read, self.timeout = write, read, timeout
        self.buffer, self.next_id, self.events = b"", 0, []  # events: (method, params), in order

    def _until(self, done) -> dict:  # type: ignore[no-untyped-def]
        """Read messages, keeping the events, until one is `done` (returned) or the timeout."""
        deadline = time.monotonic() + self.timeout
        while True:
            while b"\0" not in self.buffer:
                if not select.select([self.read], [], [], max(0.0, deadline - time.monotonic()))[0]:
                    raise TimeoutError(f"Chromium did not answer within {self.timeout:g} s")
                chunk = os.read(self.read, 1 << 20)
                if not chunk:
                    raise RuntimeError("Chromium closed its DevTools pipe (did it crash?)")
                self.buffer += chunk
            line, self.buffer = self.buffer.split(b"\0", 1)
            m = json.loads(line)
            if "method" in m:
                self.events.append((m["method"], m.get("params", {})))
            if done(m):
                return m

    def call(self, method: str, session: str | None = None, **params: object) -> dict:
        """Send a command and wait for its reply."""
        self.next_id += 1
        message = {"id": self.next_id, "method": method, "params": params, **({"sessionId": session} if session else {})}
        os.write(self.write, json.dumps(message).encode() + b"\0")
        m = self._until(lambda m: m.get("id") == self.next_id)
        if "error" in m:
            raise RuntimeError(f"{method}: {m['error']}")
        return m["result"]

    def wait_for(self, event: str) -> None:
        if not any(name == event for name, _ in self.events):
            self._until(lambda m: m.get("method") == event)


def _errors(events: list[tuple[str, dict]]) -> list[str]:
    """The console's errors: console.error(), uncaught exceptions, and the browser's own log
    (where a resource that failed to load, such as a missing image, is reported)."""
    out = []
    for name, p in events:
        if name == "Runtime.consoleAPICalled" and p["type"] == "error":
            out.append("console.error: " + " ".join(str(a.get("value", a.get("description", ""))) for a in p["args"]))
        elif name == "Runtime.exceptionThrown":
            d = p["exceptionDetails"]
            out.append("exception: " + d.get("exception", {}).get("description", d["text"]))
        elif name == "Log.entryAdded" and p["entry"]["level"] == "error":
            out.append(f"{p['entry']['text']} ({p['entry'].get('url', '')})")
    return out


def render(page: Path, screenshot: Path, width: int = 1280, timeout: float = 60.0) -> Rendered:
    """Open `page` at `width` CSS pixels (scale 1), wait for it to load, and write the whole
    page's screenshot to `screenshot` (PNG)."""
    exe = chromium()
    if exe is None:
        raise FileNotFoundError("no chromium, chromium-browser or google-chrome on PATH")
    to_child, from_child = os.pipe(), os.pipe()  # (read, write) each

    def fds_3_and_4() -> None:
        # In the child, before exec: its fd 3 is the read end of our commands, fd 4 the write
        # end of its replies. Through fds >= 10 first, so that neither dup2 overwrites the other
        # end; dup2 makes the copies inheritable (Python's own fds are not).
        r, w = (fcntl.fcntl(fd, fcntl.F_DUPFD, 10) for fd in (to_child[0], from_child[1]))
        os.dup2(r, 3)
        os.dup2(w, 4)

    with tempfile.TemporaryDirectory(prefix="rampup-chromium-") as profile, tempfile.TemporaryFile() as log:
        args = [exe, "--headless=new", "--no-sandbox", "--disable-gpu", "--remote-debugging-pipe", f"--user-data-dir={profile}",
                f"--window-size={width},800", "--hide-scrollbars", "--mute-audio",
                # Quiet and offline: no first-run pages, no prompts, nothing fetched in the background.
                "--no-first-run", "--no-default-browser-check", "--disable-extensions", "--disable-sync",
                "--disable-background-networking", "--disable-component-update", "--disable-default-apps"]
        # close_fds=False: subprocess would otherwise close fds 3 and 4 after fds_3_and_4 runs.
        # Python opens its fds non-inheritable, so no others leak into the browser.
        proc = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=log, stderr=log, close_fds=False, preexec_fn=fds_3_and_4)
        os.close(to_child[0])
        os.close(from_child[1])
        cdp = _Pipe(to_child[1], from_child[0], timeout)
        try:
            target = cdp.call("Target.createTarget", url="about:blank")["targetId"]
            s = cdp.call("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]
            for domain in ("Runtime", "Log", "Page"):
                cdp.call(f"{domain}.enable", s)
            # The viewport exactly `width` wide at scale 1: the screenshot is as wide, unless the
            # page is wider than its window.
            cdp.call("Emulation.setDeviceMetricsOverride", s, width=width, height=800, deviceScaleFactor=1, mobile=False)
            nav = cdp.call("Page.navigate", s, url=page.resolve().as_uri())
            if nav.get("errorText"):
                raise RuntimeError(f"{page}: {nav['errorText']}")
            try:
                cdp.wait_for("Page.loadEventFired")
            except TimeoutError as e:
                raise TimeoutError(f"{page} did not finish loading within {timeout:g} s") from e
            images = [tuple(i) for i in json.loads(cdp.call("Runtime.evaluate", s, expression=_IMAGES, returnByValue=True)["result"]["value"])]
            size = cdp.call("Page.getLayoutMetrics", s)["cssContentSize"]
            clip = {"x": 0, "y": 0, "width": size["width"], "height": size["height"], "scale": 1}
            shot = cdp.call("Page.captureScreenshot", s, format="png", captureBeyondViewport=True, clip=clip)["data"]
            screenshot.write_bytes(base64.b64decode(shot))
            return Rendered(images=images, errors=_errors(cdp.events))
        except Exception as e:
            log.seek(0)  # its output, less the noise of a machine without D-Bus
            lines = [x for x in log.read().decode(errors="replace").splitlines() if "dbus" not in x]
            e.add_note("chromium's output, last lines:\n" + "\n".join(lines[-15:]))
            raise
        finally:
            cdp.timeout = 5.0
            try:
                cdp.call("Browser.close")
            except Exception:
                pass  # gone already, or not answering: killed below
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
            os.close(to_child[1])
            os.close(from_child[0])


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(f"usage: {sys.argv[0]} PAGE.html OUT.png")
    r = render(Path(sys.argv[1]), Path(sys.argv[2]))
    for src, ok in r.images:
        print(f"{'loaded' if ok else 'NOT LOADED'}  {src}")
    print(f"{len(r.images)} images, {sum(not ok for _, ok in r.images)} not loaded; {len(r.errors)} console errors")
    for e in r.errors:
        print(f"error: {e}")
    sys.exit(1 if r.errors or not all(ok for _, ok in r.images) else 0)
