"""How a person reads a p-value of rater quality control: the Rater QC page, the verdicts' "why", the HTML report
(``annotation`` and ``ranking`` alike: no Django here). The dashboard writes them the same way (``pValue`` in
static/js/dashboard.js): one rater's p-value read 0.4525 on the Rater QC page and 0.452 on the dashboard."""
from __future__ import annotations

SMALLEST = 0.0001
"""The smallest p-value written as a number; a smaller one is "< 0.0001" (it would read "0.0000")."""


def shown_p_value(p_value: float) -> str:
    """``p_value`` with four decimals, or "< 0.0001" below what four decimals show.

    >>> shown_p_value(0.45253), shown_p_value(0.5), shown_p_value(0.00004)
    ('0.4525', '0.5000', '< 0.0001')
    """
    return f"< {SMALLEST}" if p_value < SMALLEST / 2 else f"{p_value:.4f}"
