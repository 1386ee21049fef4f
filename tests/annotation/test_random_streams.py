"""Named random streams of a campaign (annotation/random_streams.py, issue 11 finding 3)."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from annotation.models import Screen
from annotation.random_streams import STREAMS, campaign_rng, seeded_rng
from annotation.services.screens import create_screens

from .factories import small_campaign


def draws(rng: np.random.Generator) -> list[int]:
    return rng.integers(0, 2**62, size=8).tolist()


def test_same_seed_stream_and_keys_reproduce():
    assert draws(seeded_rng(5, "screens", 3, 4)) == draws(seeded_rng(5, "screens", 3, 4))


def test_every_pair_of_streams_differs_for_equal_seed_and_keys():
    sequences = {stream: tuple(draws(seeded_rng(5, stream, 7))) for stream in STREAMS}
    assert len(set(sequences.values())) == len(STREAMS)


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ((5, "repeats", 1), (5, "repeats", 2)),
        ((5, "repeats", 1), (6, "repeats", 1)),
        ((5, "repeats", 1), (5, "repeats", 1, 0)),  # SeedSequence alone pads with zeros: these would agree
        ((5, "repeats", 2**32), (5, "repeats", 0, 1)),  # and splits large numbers into 32-bit words
        ((5, "repeats"), (5, "repeats", 0)),
        ((-5, "repeats", 1), (5, "repeats", 1)),
        ((5, "repeats", -1), (5, "repeats", 1)),
    ],
)
def test_different_seeds_or_keys_differ(first, second):
    assert draws(seeded_rng(*first)) != draws(seeded_rng(*second))


def test_negative_and_extreme_seeds_are_valid():
    for seed in (-1, -(2**63), 2**63 - 1):
        assert len(draws(seeded_rng(seed, "screens", 1))) == 8


def test_out_of_range_seed_and_unknown_stream_are_refused_by_name():
    with pytest.raises(ValueError, match="64-bit"):
        seeded_rng(2**63, "screens")
    with pytest.raises(ValueError, match="unknown random stream 'screen'"):
        seeded_rng(1, "screen")


def test_campaign_rng_uses_the_campaign_seed():
    campaign = SimpleNamespace(seed=-42)
    assert draws(campaign_rng(campaign, "training", 3)) == draws(seeded_rng(-42, "training", 3))


@pytest.mark.django_db
def test_a_campaign_with_a_negative_seed_plans_screens_reproducibly():
    plans = []
    for name in ("negative-a", "negative-b"):
        campaign = small_campaign(name, seed=-7)
        create_screens(campaign, 4)
        screens = Screen.objects.filter(campaign=campaign).order_by("number")
        plans.append(list(screens.values_list("segment__line", flat=True)))
    assert len(plans[0]) == 4
    assert plans[0] == plans[1]
