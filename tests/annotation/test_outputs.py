"""What the streamed exports read their rows through (annotation/services/outputs.py): batches of a stream."""
from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from annotation.services.outputs import batched


@given(st.lists(st.integers()), st.integers(1, 10))
def test_batches_hold_the_items_in_order_each_full_but_the_last(items, size):
    batches = list(batched(items, size))
    assert [item for batch in batches for item in batch] == items
    assert all(len(batch) == size for batch in batches[:-1]) and all(0 < len(batch) <= size for batch in batches)


def test_a_batch_is_read_only_when_it_is_asked_for():
    read = []

    def rows():
        for row in range(5):
            read.append(row)
            yield row

    batches = batched(rows(), 2)
    assert read == []
    assert next(batches) == [0, 1] and read == [0, 1]
    assert list(batches) == [[2, 3], [4]]


def test_a_batch_of_no_items_is_refused():
    with pytest.raises(ValueError, match="at least one item, not 0"):
        next(batched([1, 2], 0))
