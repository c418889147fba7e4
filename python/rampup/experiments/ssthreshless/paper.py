"""The paper's numbers (Tables I-VII), as printed, and its labels for our schemes."""

from __future__ import annotations

from .runs import HC, LSS, SLS, SS_A, SS_L, SS_S, VEGAS

#: Our scheme -> the paper's label.
PAPER_LABEL = {SLS: "NR with SLS", HC: "NR with HC", LSS: "NR with LSS", SS_S: "NR with SS (S)",
               SS_A: "NR with SS (A)", SS_L: "NR with SS (L)", VEGAS: "Vegas"}
#: Table II's three values "from small to large" (lost in extraction; ours).
TABLE2_GAMMAS = {1: "SLS gamma small", 3: "SLS gamma medium", 10: "SLS gamma large"}

#: The paper's Tables I-VII: (table, the paper's label) -> (utilization %, highest sequence number sent,
#: throughput ratio %, Mb/s); None where the table has no such column.
PAPER: dict[tuple[str, str], tuple[float | None, int | None, float | None, float | None]] = {
    ("I", "NR with SS (L)"): (11.13, 5636, None, None),
    ("I", "NR with SS (A)"): (87.50, 44249, None, None),
    ("I", "NR with SS (S)"): (6.08, 3010, None, None),
    ("II", "SLS gamma small"): (82.15, 41075, None, None),
    ("II", "SLS gamma medium"): (83.95, 41973, None, None),
    ("II", "SLS gamma large"): (85.39, 42699, None, None),
    ("III", "NR with SLS"): (80.30, 40025, None, None),
    ("III", "NR with SS (A)"): (28.20, 14100, None, None),
    ("III", "Vegas"): (22.35, 11173, None, None),
    ("IV", "NR with SLS"): (74.08, None, 100.00, None),
    ("IV", "NR with HC"): (9.05, None, 820.77, None),
    ("IV", "NR with LSS"): (5.33, None, 1391.08, None),
    ("IV", "NR with SS (S)"): (24.25, None, 305.46, None),
    ("IV", "NR with SS (A)"): (19.02, None, 305.46, None),
    ("IV", "NR with SS (L)"): (4.55, None, 849.00, None),
    ("IV", "Vegas"): (10.11, None, 271.34, None),
    ("V", "NR with SLS"): (83.35, None, 100.00, None),
    ("V", "NR with HC"): (86.40, None, 96.70, None),
    ("V", "NR with LSS"): (29.80, None, 280.40, None),
    ("V", "NR with SS (S)"): (6.55, None, 459.07, None),
    ("V", "NR with SS (L)"): (4.55, None, 1836.26, None),
    ("V", "Vegas"): (10.11, None, 623.95, None),
    ("VI", "NR with SLS"): (82.84, None, 100.00, None),
    ("VI", "NR with HC"): (90.58, None, 91.45, None),
    ("VI", "NR with LSS"): (51.54, None, 160.71, None),
    ("VI", "NR with SS (S)"): (6.55, None, 1265.38, None),
    ("VI", "NR with SS (L)"): (2.37, None, 3500.28, None),
    ("VI", "Vegas"): (10.11, None, 819.66, None),
    ("VII", "NR with SLS"): (None, 34663, None, 27.73),
    ("VII", "NR with SS (S)"): (None, 13126, None, 10.50),
    ("VII", "Vegas"): (None, 11080, None, 8.86),
}


def paper(table: str, scheme: str, field: int) -> float | None:
    """The paper's number for `scheme` (Table II: the γ value as a string) in `table`: field 0
    utilization %, 1 highest sequence number, 2 throughput ratio %, 3 Mb/s; None if it has none."""
    label = TABLE2_GAMMAS.get(int(scheme)) if table == "II" and str(scheme).isdigit() else PAPER_LABEL.get(scheme)
    v = PAPER.get((table, label)) if label else None
    return None if v is None else v[field]
