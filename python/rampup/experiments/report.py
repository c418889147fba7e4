"""A reproduction report: text, tables, figures and a verdict per claim, written both as
Markdown (`report.md`, beside its figures) and HTML (`report.html`, its figures embedded, so
that the one file can be shared) from one structure."""

from __future__ import annotations

import base64
import html
import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd
from matplotlib.figure import Figure

from .checks import VERDICTS

__all__ = ["VERDICTS", "Claim", "Report"]



@dataclass
class Claim:
    """One claim of a paper, our measurement beside it, and the verdict."""

    id: str
    text: str
    paper: str
    ours: str
    verdict: str
    reason: str
    checks: str = ""  # "held/tested sub-claims", shown beside the verdict

    def __post_init__(self) -> None:
        if self.verdict not in VERDICTS:
            raise ValueError(f"verdict {self.verdict!r} is not one of {VERDICTS}")


@dataclass(frozen=True)
class Heading:
    text: str


@dataclass(frozen=True)
class Paragraph:
    text: str


@dataclass(frozen=True)
class Table:
    df: pd.DataFrame
    caption: str


@dataclass(frozen=True)
class Image:
    """A PNG in the report folder (or below it), by its name there."""

    name: str
    caption: str


@dataclass(frozen=True)
class Links:
    items: list[tuple[str, str]]  # (text, relative address)


#: What a report shows after its claims, in order.
Block = Heading | Paragraph | Table | Image | Links


@dataclass
class Report:
    title: str
    folder: Path
    blocks: list[Block] = field(default_factory=list)
    claims: list[Claim] = field(default_factory=list)
    #: Paragraphs under the title, before the claims: what was reproduced, by what, how.
    intro: list[str] = field(default_factory=list)
    #: The pages' file name, without .md / .html.
    stem: str = "report"

    def heading(self, text: str) -> None:
        self.blocks.append(Heading(text))

    def text(self, text: str) -> None:
        self.blocks.append(Paragraph(text))

    def table(self, df: pd.DataFrame, caption: str = "") -> None:
        self.blocks.append(Table(df, caption))

    def figure(self, fig: Figure, name: str, caption: str) -> None:
        """Save `fig` as `<name>.png` in the report folder and show it here."""
        self.folder.mkdir(parents=True, exist_ok=True)
        path = self.folder / f"{name}.png"
        tmp = path.with_suffix(".png.tmp")
        fig.savefig(tmp, format="png", dpi=110, bbox_inches="tight", metadata={"Software": None})
        os.replace(tmp, path)
        self.blocks.append(Image(path.name, caption))

    def image(self, name: str, caption: str) -> None:
        """Show ``name``, a PNG already in the report folder (or below it)."""
        self.blocks.append(Image(name, caption))

    def claim(self, claim: Claim) -> None:
        self.claims.append(claim)

    def links(self, items: list[tuple[str, str]]) -> None:
        """A list of (text, relative address) links."""
        self.blocks.append(Links(items))

    # ------------------------------------------------------------------ output

    def write(self) -> tuple[Path, Path]:
        self.folder.mkdir(parents=True, exist_ok=True)
        md, page = self._markdown(), self._html()
        return _atomic(self.folder / f"{self.stem}.md", md), _atomic(self.folder / f"{self.stem}.html", page)

    def _claims_frame(self) -> pd.DataFrame:
        return pd.DataFrame(
            [(c.id, c.text, c.paper, c.ours, c.verdict, c.checks, c.reason) for c in self.claims],
            columns=["claim", "statement", "paper", "rampup", "verdict", "sub-claims", "why"],
        )

    def _markdown(self) -> str:
        out = [f"# {self.title}", ""]
        for p in self.intro:
            out += [p, ""]
        if self.claims:
            out += ["## Claims", "", _md_table(self._claims_frame()), ""]
        for block in self.blocks:
            match block:
                case Heading(text):
                    out += [f"## {text}", ""]
                case Paragraph(text):
                    out += [text, ""]
                case Table(df, caption):
                    out += ([f"*{caption}*", ""] if caption else []) + [_md_table(df), ""]
                case Image(name, caption):
                    out += [f"![{name}]({name})", "", f"*{caption}*", ""]
                case Links(items):
                    out += [f"- [{text}]({href})" for text, href in items] + [""]
        return "\n".join(out)

    def _html(self) -> str:
        e = html.escape
        out = [
            "<!doctype html><html><head><meta charset='utf-8'>",
            f"<title>{e(self.title)}</title>",
            "<style>body{font-family:sans-serif;max-width:70em;margin:2em auto;line-height:1.4}"
            # A table wider than the page (rbp's 16 columns) scrolls within itself, not the page.
            "table{border-collapse:collapse;margin:1em 0;display:block;max-width:100%;overflow-x:auto}"
            "td,th{border:1px solid #bbb;padding:.25em .5em;"
            "text-align:left;vertical-align:top}th{background:#eee}img{max-width:100%}"
            ".holds{background:#dfd}.partly{background:#ffd}.does.not.hold{background:#fdd}.not.testable{background:#eee}</style>",
            f"</head><body><h1>{e(self.title)}</h1>",
            *(f"<p>{e(p)}</p>" for p in self.intro),
        ]
        if self.claims:
            out.append("<h2>Claims</h2>")
            out.append(_html_table(self._claims_frame(), verdict_col="verdict"))
        for block in self.blocks:
            match block:
                case Heading(text):
                    out.append(f"<h2>{e(text)}</h2>")
                case Paragraph(text):
                    out.append(f"<p>{e(text)}</p>")
                case Table(df, caption):
                    if caption:
                        out.append(f"<p><em>{e(caption)}</em></p>")
                    out.append(_html_table(df))
                case Image(name, caption):
                    data = base64.b64encode((self.folder / name).read_bytes()).decode("ascii")
                    out.append(f"<figure><img src='data:image/png;base64,{data}' alt='{e(name)}'><figcaption>{e(caption)}</figcaption></figure>")
                case Links(items):
                    out.append("<ul>" + "".join(f"<li><a href='{e(href)}'>{e(text)}</a></li>" for text, href in items) + "</ul>")
        out.append("</body></html>")
        return "\n".join(out)


def _cell(v: object) -> str:
    if isinstance(v, float):
        return f"{v:.4g}"
    return str(v)


def _md_table(df: pd.DataFrame) -> str:
    cols = [str(c) for c in df.columns]
    rows = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    for r in df.itertuples(index=False):
        rows.append("| " + " | ".join(_cell(v).replace("|", "\\|").replace("\n", " ") for v in r) + " |")
    return "\n".join(rows)


def _html_table(df: pd.DataFrame, verdict_col: str | None = None) -> str:
    """The table's cells as `_md_table` writes them, and a class on each verdict cell, which
    its colour comes from. Not pandas' `to_html` or Styler: they write thead/tbody, a border,
    indentation and (Styler) ids, in place of the markup every report has."""
    e = html.escape
    out = ["<table><tr>" + "".join(f"<th>{e(str(c))}</th>" for c in df.columns) + "</tr>"]
    for r in df.itertuples(index=False):
        cells = []
        for c, v in zip(df.columns, r, strict=True):
            cls = f" class='{e(str(v))}'" if c == verdict_col else ""
            cells.append(f"<td{cls}>{e(_cell(v))}</td>")
        out.append("<tr>" + "".join(cells) + "</tr>")
    out.append("</table>")
    return "\n".join(out)


def _atomic(path: Path, text: str) -> Path:
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(text)
    # mkstemp makes the file private (0600); a report is for reading: 0666 less the umask.
    umask = os.umask(0)
    os.umask(umask)
    os.chmod(tmp, 0o666 & ~umask)
    os.replace(tmp, path)
    return path
