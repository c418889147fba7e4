"""How the reports show points: "mean ± CI" cells, tables with one row per x, error-bar
figures, settings tables and the claims table of a docs page."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

__all__ = ["docs_table", "errorbars", "pm", "settings_table", "x_table"]


def pm(p: pd.DataFrame, x: float, col: str, fmt: str = "{:.2f}", scale: float = 1.0) -> str:
    """``mean ± ci`` of ``col`` at ``x`` (``p`` indexed by x); "" where there is none."""
    if x not in p.index or col not in p or pd.isna(p.at[x, col]):
        return ""
    ci = p.at[x, f"{col}_ci90"] if f"{col}_ci90" in p else 0.0
    return f"{fmt.format(p.at[x, col] * scale)} ± {fmt.format(ci * scale)}"


def x_table(series: Mapping[str, pd.DataFrame], xs: Sequence[float], cols: Sequence[tuple[str, str, float, str]]) -> pd.DataFrame:
    """One row per x; per (column, label, scale, format) of ``cols`` and per series, a
    column "<series> <label>" of ``mean ± ci``."""
    out = pd.DataFrame({"x": [f"{x:g}" for x in xs]})
    for col, label, scale, fmt in cols:
        for name, p in series.items():
            out[f"{name} {label}".strip()] = [pm(p, x, col, fmt, scale) for x in xs]
    return out


#: The line of each ``--with`` part in a figure, in the order given: colours none of the
#: papers' schemes use, so that the reader finds theirs.
YOURS_STYLES = (dict(color="magenta", marker="*"), dict(color="darkgreen", marker="*"), dict(color="darkblue", marker="*"))


def with_yours(styles: Mapping[str, dict[str, Any]], yours: Sequence[str]) -> dict[str, dict[str, Any]]:
    """``styles`` and a style for each ``--with`` part's scheme (`YOURS_STYLES`, in turn)."""
    return {**styles, **{k: dict(YOURS_STYLES[i % len(YOURS_STYLES)]) for i, k in enumerate(yours)}}


def errorbars(ax: Any, series: Mapping[str, pd.DataFrame], col: str, styles: Mapping[str, dict[str, Any]], scale: float = 1.0) -> None:
    """Each series' mean of ``col`` against x with its 90% CI as error bars."""
    for name, p in series.items():
        ax.errorbar(p.index, p[col] * scale, yerr=p[f"{col}_ci90"] * scale, label=name, capsize=3, linewidth=1.2,
                    markersize=4, **styles[name])


def settings_table(schemes: Mapping[str, Mapping[str, Any]], name: str = "scheme", labels: Mapping[str, str] | None = None) -> pd.DataFrame:
    """The schemes (column ``name``), the paper's label of each if ``labels`` are given
    ("(ours)" where the paper has none) and their [flow.tcp] keys."""
    return pd.DataFrame([{name: k, **({"paper label": labels.get(k, "(ours)")} if labels is not None else {}),
                          "rampup [flow.tcp]": ", ".join(f"{a} = {b!r}" for a, b in v.items())} for k, v in schemes.items()])


def docs_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """A Markdown table."""
    lines = ["| " + " | ".join(header) + " |", "| " + " | ".join("---" for _ in header) + " |"]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines)
