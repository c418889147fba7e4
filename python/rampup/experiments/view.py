"""A `View`: the summarised points of one reading, as a claim's check and the then-and-now
table read them."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

__all__ = ["View"]


@dataclass(frozen=True)
class View:
    """The summarised points of one reading: ``where`` fixes tags (e.g. the variant), and
    ``roles`` maps a role a claim speaks of (e.g. "RBP") to the scheme that plays it."""

    points: pd.DataFrame
    where: Mapping[str, Any]
    roles: Mapping[str, str] = field(default_factory=dict)

    def name(self, scheme: str) -> str:
        """The scheme playing ``scheme`` if it is a role, else ``scheme``."""
        return self.roles.get(scheme, scheme)

    def of(self, scheme: str, **tags: Any) -> pd.DataFrame:
        """One scheme's points (a role is replaced by its scheme), indexed by x."""
        p = self.points
        mask = p["scheme"] == self.name(scheme)
        for k, v in {**self.where, **tags}.items():
            mask &= p[k] == v
        return p[mask].set_index("x").sort_index()
