"""How close a bootstrap's rank ranges must come to the ones G15 printed (Tables 3b and 3c).

A range end is a 2.5% or 97.5% quantile of a system's bootstrap ranks. Where G15's printed end sits right on that
tail, another draw of the 1,000 resamples moves it by one; everywhere else a seed sweep gives the published end
every time. So each table names its ends on a tail (found by a sweep of seeds, stated beside the table): those may
be one off, and every other end must be exactly the published one. A seed or a code change that moves any other
end, or one of these by more than one, fails.
"""
from __future__ import annotations

from collections.abc import Collection, Sequence

LOWEST, HIGHEST = 0, 1  #: which end of a (lowest, highest) rank range


def assert_ranges_match_published(
    systems: Sequence[str],
    got: Sequence[Sequence[int]],
    published: Sequence[Sequence[int]],
    ends_on_a_tail: Collection[tuple[str, int]],
) -> None:
    """``got[i]`` and ``published[i]`` are ``systems[i]``'s (lowest, highest) rank. Fails unless every end equals
    the published one, except the ends in ``ends_on_a_tail`` ((system, LOWEST or HIGHEST)), which may be one off."""
    assert len(systems) == len(got) == len(published), (len(systems), len(got), len(published))
    unknown = {system for system, _ in ends_on_a_tail} - set(systems)
    assert not unknown, f"ends_on_a_tail names systems not in the table: {unknown}"
    wrong = []
    for system, ours, theirs in zip(systems, got, published):
        for end in (LOWEST, HIGHEST):
            allowed = 1 if (system, end) in ends_on_a_tail else 0
            if abs(ours[end] - theirs[end]) > allowed:
                wrong.append(f"{system} {tuple(ours)} (G15: {tuple(theirs)})")
                break
    assert not wrong, f"rank ranges off the published ones beyond the ends on a tail: {wrong}"
