"""Every random choice of a campaign draws from a named stream of the campaign's seed (issue 11, finding 3).

A generator is seeded by ``numpy.random.SeedSequence`` with the 32-bit words of

    (campaign seed, SHA-256 of the stream name, number of keys, key 1, key 2, ...),

each signed number written as two words after the zigzag map ``z(n) = 2n`` for ``n >= 0`` and ``-2n - 1`` otherwise
(negative seeds, which the campaign form allows, are valid and differ from their absolute values). Fixed-width
words and the key count keep different tuples from running into the same entropy (``SeedSequence`` pads short
entropy with zeros and splits large integers into words, so ``[s, 1]`` and ``[s, 1, 0]`` would otherwise agree),
and the hashed name keeps two purposes with equal keys apart (the screen plan of batch 7 and the repeat of slot 7).
``STREAMS`` lists the streams and what each decides.
"""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from .models import Campaign

#: The streams and what draws from each.
STREAMS: dict[str, str] = {
    "screens": "the screens of a planned batch: sentences and the candidates each screen shows",
    "controls": "which screens of a batch become control screens, and where their candidates go",
    "corrupter": "the errors the corrupter puts into a control screen's source (by the sentence's line, so that the "
                 "same test set and seed give the same control texts in any database)",
    "repeats": "whether a submitted screen is shown to its judge again, and after how many screens",
    "attention": "which unserved screens get an attention check, and where the check goes",
    "training": "the order of the candidates on a training screen",
    "active": "the sentences sampled for an active-selection refill",
    "live": "the bootstrap samples of the live leaderboard",
    "demo": "the demo judges' simulated judgments",
}

_WORD = 2**32
_LIMIT = 2**63


def _zigzag(value: int) -> int:
    """``2n`` for ``n >= 0``, ``-2n - 1`` otherwise: signed 64-bit numbers onto distinct unsigned ones."""
    if not -_LIMIT <= value < _LIMIT:
        raise ValueError(f"{value} is outside the signed 64-bit range of seeds and keys")
    return 2 * value if value >= 0 else -2 * value - 1


def _words(value: int) -> list[int]:
    """The unsigned 64-bit ``value`` as two 32-bit words, low word first."""
    return [value % _WORD, value // _WORD]


def stream_number(stream: str) -> int:
    """The stream's 64-bit number: the first 8 bytes of the SHA-256 of its name (stable across processes, unlike
    ``hash``)."""
    if stream not in STREAMS:
        raise ValueError(f"unknown random stream {stream!r}; the streams are {', '.join(sorted(STREAMS))}")
    return int.from_bytes(hashlib.sha256(stream.encode()).digest()[:8], "little")


def seeded_rng(seed: int, stream: str, *keys: int) -> np.random.Generator:
    """The generator of ``stream`` for ``seed`` and ``keys`` (module docstring): the same arguments give the same
    draws, a different stream, seed or key gives independent ones."""
    entropy = [*_words(_zigzag(int(seed))), *_words(stream_number(stream)), len(keys)]
    for key in keys:
        entropy.extend(_words(_zigzag(int(key))))
    return np.random.default_rng(np.random.SeedSequence(entropy))


def campaign_rng(campaign: Campaign, stream: str, *keys: int) -> np.random.Generator:
    """The generator of ``stream`` for ``campaign.seed`` and ``keys`` (``seeded_rng``)."""
    return seeded_rng(campaign.seed, stream, *keys)
