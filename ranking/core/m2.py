"""The MaxMatch (M2) scorer (Dahlmeier and Ng 2012; Ng et al. 2013, section 4), as the official scorer computes it.

For each sentence the scorer builds the edit lattice between the tokenized source and the hypothesis (the optimal
Levenshtein alignments under two cost schemes, joined by transitive arcs that span at most ``max_unchanged_words``
unchanged tokens), gives the arcs that match a gold edit a large negative weight, and takes the shortest path: the
system's edit sequence that maximally matches the gold edits, fewest edits on ties. With several annotators, the
annotator chosen for a sentence is the one that gives the highest F-beta of the counts so far (then more correct,
then fewer proposed plus beta^2 gold), exactly as ``batch_multi_pre_rec_f1`` of github nusnlp/m2scorer does.

No library computes M2 exactly and fast (the official scorer is Python 2 and runs every Bellman-Ford round and
copies its graphs), so this module reproduces its computations step by step, with the same tie-breaks, the same
floating-point sums and its quirks (parallel arcs counted twice when weighting, an edit matching repeated gold
edits), while skipping the work that cannot change the result: Bellman-Ford stops after a round without change,
and identical (source, hypothesis) pairs are scored once.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from ranking.core import m2_kernel

GoldEdit = tuple[int, int, str, tuple[str, ...]]
"""A gold edit: start and end token offsets, the original tokens joined by spaces (the source's tokens
``start:end``, as the official scorer derives them), the accepted corrections."""

_EPSILON = 0.001
_UNSCORABLE = "the official scorer stops with an error on this sentence (a removed lattice arc is listed twice)"
_INF = float("inf")
_SUB, _DEL, _INS = 1, 2, 4


@dataclass(frozen=True)
class EditCounts:
    """Edit counts of one sentence against one annotator: matched (correct), proposed and gold edits."""

    correct: int
    proposed: int
    gold: int


@dataclass(frozen=True)
class M2Result:
    """Corpus-level M2 of one hypothesis file.

    ``precision``, ``recall`` and ``f_beta`` are the official scorer's values (1.0 for a precision or recall with
    nothing to divide, 0.0 for an F with both zero). ``annotators`` holds the annotator chosen per sentence,
    ``sentence_counts`` the chosen counts, ``sentence_f`` the sentence-level F-beta (each sentence on its own,
    best annotator for that sentence alone).
    """

    precision: float
    recall: float
    f_beta: float
    beta: float
    correct: int
    proposed: int
    gold: int
    annotators: tuple[int, ...]
    sentence_counts: tuple[EditCounts, ...]
    sentence_f: tuple[float, ...]


def _alignment_moves(source: Sequence[str], hypothesis: Sequence[str], cost_sub: int) -> list[list[int]]:
    """Per cell of the Levenshtein matrix, the optimal moves into it (bit mask of substitution/match, deletion,
    insertion), with insertion and deletion cost 1 and substitution cost ``cost_sub``."""
    n, m = len(source), len(hypothesis)
    moves = [[0] * (m + 1) for _ in range(n + 1)]
    for i in range(1, n + 1):
        moves[i][0] = _DEL
    for j in range(1, m + 1):
        moves[0][j] = _INS
    previous = list(range(m + 1))
    for i in range(1, n + 1):
        row = [i] + [0] * m
        token = source[i - 1]
        cells = moves[i]
        for j in range(1, m + 1):
            deletion = previous[j] + 1
            insertion = row[j - 1] + 1
            substitution = previous[j - 1] if token == hypothesis[j - 1] else previous[j - 1] + cost_sub
            best = min(substitution, deletion, insertion)
            mask = 0
            if substitution == best:
                mask |= _SUB
            if deletion == best:
                mask |= _DEL
            if insertion == best:
                mask |= _INS
            cells[j] = mask
            row[j] = best
        previous = row
    return moves


def _edit_graph(source, hypothesis, moves, edges: set, edits: dict) -> None:
    """Adds the arcs on the optimal alignment paths that reach the last cell, and their edits, to ``edges`` and
    ``edits``. An edit is ``(kind, start, end, original, correction, unchanged_words)``."""
    start = (len(source), len(hypothesis))
    seen = {start}
    stack = [start]
    while stack:
        i, j = stack.pop()
        mask = moves[i][j]
        targets = []
        if mask & _SUB:
            if source[i - 1] != hypothesis[j - 1]:
                targets.append(((i - 1, j - 1), ("sub", i - 1, i, source[i - 1], hypothesis[j - 1], 0)))
            else:
                targets.append(((i - 1, j - 1), ("noop", i - 1, i, source[i - 1], hypothesis[j - 1], 1)))
        if mask & _DEL:
            targets.append(((i - 1, j), ("del", i - 1, i, source[i - 1], "", 0)))
        if mask & _INS:
            targets.append(((i, j - 1), ("ins", i, i, "", hypothesis[j - 1], 0)))
        for previous, edit in targets:
            edges.add((previous, (i, j)))
            edits[(previous, (i, j))] = edit
            if previous not in seen:
                seen.add(previous)
                stack.append(previous)


def _merge_edits(first: tuple, second: tuple) -> tuple:
    """The edit spanning two consecutive arcs (the official ``merge_edits``)."""
    kind1, start, _, orig1, corr1, unchanged1 = first
    kind2, _, end, orig2, corr2, unchanged2 = second
    unchanged = unchanged1 + unchanged2
    if kind1 == "ins":
        if kind2 == "ins":
            return ("ins", start, end, "", corr1 + " " + corr2, unchanged)
        if kind2 == "del":
            return ("sub", start, end, orig2, corr1, unchanged)
        return ("sub", start, end, orig2, corr1 + " " + corr2, unchanged)
    if kind1 == "del":
        if kind2 == "ins":
            return ("sub", start, end, orig1, corr2, unchanged)
        if kind2 == "del":
            return ("del", start, end, orig1 + " " + orig2, "", unchanged)
        return ("sub", start, end, orig1 + " " + orig2, corr2, unchanged)
    if kind2 == "ins":
        return ("sub", start, end, orig1, corr1 + " " + corr2, unchanged)
    if kind2 == "del":
        return ("sub", start, end, orig1 + " " + orig2, corr1, unchanged)
    kind = "noop" if kind1 == "noop" and kind2 == "noop" else "sub"
    return (kind, start, end, orig1 + " " + orig2, corr1 + " " + corr2, unchanged)


@dataclass
class _Lattice:
    vertices: list
    edges: list
    dist: dict
    edits: dict


def build_lattice(source: Sequence[str], hypothesis: Sequence[str], max_unchanged_words: int = 2) -> _Lattice:
    """The official scorer's edit lattice between two token sequences.

    The union of the optimal alignment paths under substitution cost 1 and 2 (arcs on both paths are listed
    twice, as the official ``merge_graph`` does), then transitive arcs added in its Floyd-Warshall order when
    the merged edit keeps at most ``max_unchanged_words`` unchanged tokens, then transitive all-unchanged arcs
    removed with the same list iteration.
    """
    edges1: set = set()
    edges2: set = set()
    edits: dict = {}
    _edit_graph(source, hypothesis, _alignment_moves(source, hypothesis, 1), edges1, edits)
    _edit_graph(source, hypothesis, _alignment_moves(source, hypothesis, 2), edges2, edits)
    vertices = sorted({vertex for edge in edges1 | edges2 for vertex in edge} | {(0, 0)})
    edges = sorted(list(edges1) + list(edges2))
    dist = dict.fromkeys(edits, 1)
    order = {vertex: index for index, vertex in enumerate(vertices)}
    predecessors: dict = {vertex: set() for vertex in vertices}
    successors: dict = {vertex: set() for vertex in vertices}
    for tail, head in edits:
        predecessors[head].add(tail)
        successors[tail].add(head)
    for middle in vertices:
        into = sorted(predecessors[middle], key=order.__getitem__)
        out = sorted(successors[middle], key=order.__getitem__)
        for tail in into:
            first = edits[(tail, middle)]
            first_dist = dist[(tail, middle)]
            for head in out:
                total = first_dist + dist[(middle, head)]
                if total < dist.get((tail, head), _INF):
                    merged = _merge_edits(first, edits[(middle, head)])
                    if merged[5] <= max_unchanged_words:
                        edges.append((tail, head))
                        dist[(tail, head)] = total
                        edits[(tail, head)] = merged
                        predecessors[head].add(tail)
                        successors[tail].add(head)
    index = 0
    while index < len(edges):
        edge = edges[index]
        if edits[edge][0] == "noop" and dist[edge] > 1:
            edges.remove(edge)
            dist[edge] = _INF
            del edits[edge]
        index += 1
    return _Lattice(vertices, edges, dist, edits)


def _weigh_insertion_span(arcs: list, golds: list, edits: dict, weights: dict, matched_weight: float) -> None:
    """Weights of the arcs of one insertion span, by the kernel's ``weigh_insertions`` (the official two-ended walk)."""
    vertex_ids: dict = {}
    slot_of: dict = {}
    for edge in arcs:
        slot_of.setdefault(edge, len(slot_of))
    slot_weights = np.array([weights[edge] for edge in slot_of], dtype=np.float64)
    m2_kernel.weigh_insertions(
        np.array([vertex_ids.setdefault(tail, len(vertex_ids)) for tail, _ in arcs], dtype=np.int64),
        np.array([vertex_ids.setdefault(head, len(vertex_ids)) for _, head in arcs], dtype=np.int64),
        np.array([slot_of[edge] for edge in arcs], dtype=np.int64),
        np.array([edits[edge][0] == "noop" for edge in arcs], dtype=np.bool_),
        np.array(
            [[edits[edge][3] == g[2] and edits[edge][4] in g[3] for g in golds] for edge in arcs], dtype=np.bool_
        ).reshape(len(arcs), len(golds)),
        slot_weights,
        float(matched_weight),
    )
    for edge, slot in slot_of.items():
        weights[edge] = float(slot_weights[slot])


def _set_weights(lattice: _Lattice, gold: Sequence[GoldEdit]) -> dict:
    """Arc weights for one annotator (the official ``set_weights``): arcs matching a gold edit get ``-len(E)``,
    other non-noop arcs ``+EPSILON`` per listing; insertions at one position are matched from both ends."""
    edges, edits = lattice.edges, lattice.edits
    weights = dict(lattice.dist)
    matched_weight = -len(edges)
    by_span: dict = {}
    for edge in edges:
        edit = edits[edge]
        by_span.setdefault((edit[1], edit[2]), []).append(edge)
    gold_by_span: dict = {}
    for edit in gold:
        gold_by_span.setdefault((edit[0], edit[1]), []).append(edit)
    for span in sorted(by_span):
        arcs = sorted(by_span[span])
        golds = gold_by_span.get(span, [])
        if span[0] != span[1]:
            for edge in arcs:
                edit = edits[edge]
                if any(edit[3] == g[2] and edit[4] in g[3] for g in golds):
                    weights[edge] = matched_weight
                elif edit[0] != "noop":
                    weights[edge] += _EPSILON
            continue
        _weigh_insertion_span(arcs, golds, edits, weights, matched_weight)
    return weights


def _best_edit_sequence(lattice: _Lattice, weights: dict) -> list[tuple[int, int, str, str]]:
    """The shortest path by Bellman-Ford in the official arc order; its non-noop edits, last edit first."""
    distance = dict.fromkeys(lattice.vertices, _INF)
    distance[(0, 0)] = 0
    path: dict = {}
    arcs = [(tail, head, weights[(tail, head)]) for tail, head in lattice.edges]
    for _ in range(len(lattice.vertices) - 1):
        changed = False
        for tail, head, weight in arcs:
            candidate = distance[tail] + weight
            if candidate < distance[head]:
                distance[head] = candidate
                path[head] = tail
                changed = True
        if not changed:
            break
    vertex = lattice.vertices[-1]
    sequence = []
    while vertex in path:
        tail = path[vertex]
        edit = lattice.edits[(tail, vertex)]
        if edit[0] != "noop":
            sequence.append((edit[1], edit[2], edit[3], edit[4]))
        vertex = tail
    return sequence


def _count_matches(sequence: Sequence[tuple], gold: Sequence[GoldEdit]) -> int:
    """Matched edits as the official ``matchSeq`` counts them (one edit counts once per equal gold edit after the
    previous match)."""
    matches = 0
    last = 0
    for start, end, original, correction in reversed(sequence):
        for index in range(last, len(gold)):
            g = gold[index]
            if start == g[0] and end == g[1] and original == g[2] and correction in g[3]:
                matches += 1
                last = index + 1
    return matches


def _stepwise_counts(
    source: Sequence[str],
    hypothesis: Sequence[str],
    gold_by_annotator: Sequence[Sequence[GoldEdit]],
    max_unchanged_words: int,
) -> tuple[EditCounts, ...]:
    """``sentence_counts`` computed step by step as the official scorer does (``ValueError`` where it stops)."""
    try:
        lattice = build_lattice(source, hypothesis, max_unchanged_words)
        counts = []
        for gold in gold_by_annotator:
            sequence = _best_edit_sequence(lattice, _set_weights(lattice, gold))
            counts.append(EditCounts(_count_matches(sequence, gold), len(sequence), len(gold)))
    except KeyError:
        raise ValueError(_UNSCORABLE) from None
    return tuple(counts)


def _accepted_spans(hypothesis: Sequence[str], edits: Sequence[GoldEdit]) -> np.ndarray:
    """``accepted[g, j1, j2]``: hypothesis tokens ``j1:j2`` joined by spaces equal one of edit g's corrections."""
    m = len(hypothesis)
    accepted = np.zeros((len(edits), m + 1, m + 1), dtype=np.bool_)
    for g, edit in enumerate(edits):
        for correction in edit[3]:
            if correction == "":
                accepted[g, np.arange(m + 1), np.arange(m + 1)] = True
                continue
            tokens = correction.split(" ")
            length = len(tokens)
            for j in range(m - length + 1):
                if list(hypothesis[j : j + length]) == tokens:
                    accepted[g, j, j + length] = True
    return accepted


def sentence_counts(
    source: Sequence[str],
    hypothesis: Sequence[str],
    gold_by_annotator: Sequence[Sequence[GoldEdit]],
    max_unchanged_words: int = 2,
    *,
    kernel: bool = True,
) -> tuple[EditCounts, ...]:
    """Edit counts of one hypothesis sentence against each annotator's gold edits, in the given order.

    Computed by the numba kernel, or step by step as the official scorer does where the lattice is larger than
    ``MAX_KERNEL_VERTICES`` or ``kernel`` is false (the kernel's reference in tests and benchmarks); both give the
    same counts. A hypothesis equal to the source proposes nothing (its lattice is the diagonal). Raises
    ``ValueError`` where the official scorer stops with an error (an arc it removed is listed again).
    """
    if not kernel:
        return _stepwise_counts(source, hypothesis, gold_by_annotator, max_unchanged_words)
    if list(source) == list(hypothesis):
        return tuple(EditCounts(0, 0, len(gold)) for gold in gold_by_annotator)
    ids: dict[str, int] = {}
    source_ids = np.array([ids.setdefault(token, len(ids)) for token in source], dtype=np.int64)
    hypothesis_ids = np.array([ids.setdefault(token, len(ids)) for token in hypothesis], dtype=np.int64)
    if m2_kernel.lattice_size(source_ids, hypothesis_ids) > m2_kernel.MAX_KERNEL_VERTICES:
        return _stepwise_counts(source, hypothesis, gold_by_annotator, max_unchanged_words)
    edits = [edit for gold in gold_by_annotator for edit in gold]
    owners = np.array([a for a, gold in enumerate(gold_by_annotator) for _ in gold], dtype=np.int64)
    status, counts = m2_kernel.annotator_counts(
        source_ids,
        hypothesis_ids,
        max_unchanged_words,
        np.array([edit[0] for edit in edits], dtype=np.int64),
        np.array([edit[1] for edit in edits], dtype=np.int64),
        owners,
        _accepted_spans(hypothesis, edits),
        len(gold_by_annotator),
    )
    if status:
        raise ValueError(_UNSCORABLE)
    return tuple(EditCounts(int(row[0]), int(row[1]), int(row[2])) for row in counts)


def precision_recall_f(correct: float, proposed: float, gold: float, beta: float) -> tuple[float, float, float]:
    """The official final P, R and F (from P and R; 1.0 for P or R over zero, 0.0 for F over zero)."""
    precision = correct / proposed if proposed else 1.0
    recall = correct / gold if gold else 1.0
    denominator = beta * beta * precision + recall
    f_beta = (1.0 + beta * beta) * precision * recall / denominator if denominator else 0.0
    return precision, recall, f_beta


def _local_f(correct: float, proposed: float, gold: float, beta: float) -> float:
    """The official ``comp_f1`` used to choose annotators (1.0 when nothing is proposed, expected or correct)."""
    denominator = beta * beta * gold + proposed
    if denominator:
        return (1 + beta * beta) * correct / denominator
    return 1.0 if correct == 0.0 else 0.0


def _choose(counts: Sequence[EditCounts], base: tuple[float, float, float], beta: float) -> int:
    """Index of the annotator the official scorer picks given the cumulative counts ``base`` so far."""
    sqbeta = beta * beta
    chosen = 0
    f_max = -1.0
    max_correct = -1.0
    min_proposed = _INF
    min_gold = _INF
    for index, count in enumerate(counts):
        correct = base[0] + count.correct
        proposed = base[1] + count.proposed
        gold = base[2] + count.gold
        f_local = _local_f(correct, proposed, gold, beta)
        if (
            f_max < f_local
            or (f_max == f_local and max_correct < correct)
            or (
                f_max == f_local
                and max_correct == correct
                and min_proposed + sqbeta * min_gold > proposed + sqbeta * gold
            )
        ):
            chosen, f_max, max_correct, min_proposed, min_gold = index, f_local, correct, proposed, gold
    return chosen


def corpus_m2(
    sources: Sequence[Sequence[str]],
    hypotheses: Sequence[Sequence[str]],
    gold: Sequence[Mapping[int, Sequence[GoldEdit]]],
    beta: float = 0.5,
    max_unchanged_words: int = 2,
    cache: dict | None = None,
) -> M2Result:
    """M2 precision, recall and F-beta of tokenized ``hypotheses`` against ``gold`` (per sentence, annotator id to
    that annotator's edits in file order; an annotator with no edits maps to an empty list).

    ``cache`` (optional, shared between calls) keeps the counts of (source, hypothesis) pairs already scored.
    Raises ``ValueError`` when the three sequences differ in length or a sentence has no annotator.
    """
    if not len(sources) == len(hypotheses) == len(gold):
        raise ValueError(
            f"{len(hypotheses)} hypotheses, {len(sources)} sources and {len(gold)} gold sentences differ in number"
        )
    cache = {} if cache is None else cache
    totals = [0.0, 0.0, 0.0]
    chosen_annotators = []
    chosen_counts = []
    sentence_f = []
    for number, (source, hypothesis, by_annotator) in enumerate(zip(sources, hypotheses, gold), start=1):
        if not by_annotator:
            raise ValueError(f"sentence {number} has no annotator")
        annotators = sorted(by_annotator)
        key = (tuple(source), tuple(hypothesis), tuple(tuple(by_annotator[a]) for a in annotators))
        counts = cache.get(key)
        if counts is None:
            counts = sentence_counts(source, hypothesis, [by_annotator[a] for a in annotators], max_unchanged_words)
            cache[key] = counts
        index = _choose(counts, (totals[0], totals[1], totals[2]), beta)
        chosen = counts[index]
        totals[0] += chosen.correct
        totals[1] += chosen.proposed
        totals[2] += chosen.gold
        chosen_annotators.append(annotators[index])
        chosen_counts.append(chosen)
        alone = counts[_choose(counts, (0.0, 0.0, 0.0), beta)]
        sentence_f.append(_local_f(alone.correct, alone.proposed, alone.gold, beta))
    precision, recall, f_beta = precision_recall_f(totals[0], totals[1], totals[2], beta)
    return M2Result(
        precision=precision,
        recall=recall,
        f_beta=f_beta,
        beta=beta,
        correct=int(totals[0]),
        proposed=int(totals[1]),
        gold=int(totals[2]),
        annotators=tuple(chosen_annotators),
        sentence_counts=tuple(chosen_counts),
        sentence_f=tuple(sentence_f),
    )
