"""The paper's numbers (Tables I-VII, as printed; ``data/ssthreshless.toml``) and its labels for our schemes."""

from __future__ import annotations

from ..framework import paper_data

DATA = paper_data("ssthreshless")
#: Our scheme -> the paper's label.
PAPER_LABEL: dict[str, str] = DATA["labels"]
#: Table II's three values "from small to large" (lost in extraction; ours).
TABLE2_GAMMAS: dict[int, str] = {int(g): label for g, label in DATA["table2_gammas"].items()}
FIELDS = ("util_pct", "highest_seq", "ratio_pct", "mbps")
#: (table, the paper's label) -> its row.
PAPER = {(r["table"], r["label"]): r for r in DATA["row"]}


def paper(table: str, scheme: str, field: int) -> float | None:
    """The paper's number for `scheme` (Table II: the γ value as a string) in `table`: field 0
    utilization %, 1 highest sequence number, 2 throughput ratio %, 3 Mb/s; None if it has none."""
    label = TABLE2_GAMMAS.get(int(scheme)) if table == "II" and str(scheme).isdigit() else PAPER_LABEL.get(scheme)
    row = PAPER.get((table, label)) if label else None
    return None if row is None else row.get(FIELDS[field])
