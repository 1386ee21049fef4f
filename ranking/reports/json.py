"""The JSON report: the analysis JSON itself, pretty-printed in the contract's order (``ranking.contract``).

A result read back from PostgreSQL's jsonb has its keys re-sorted; :func:`ranking.contract.contract_order` restores
the order of the contract's schema, so the file reads campaign, parameters, snapshot, pairs, ... and a freshly
computed result comes out unchanged. Serialisation is strict: NaN or an infinity raises instead of writing ``NaN``.
"""
from __future__ import annotations

from collections.abc import Mapping

from ..contract import render


def render_json(analysis: Mapping) -> str:
    """The analysis as indented UTF-8 JSON in contract order, ending with a newline."""
    return render(analysis)
