"""The M2 lattice and shortest path compiled with numba: the same steps as the reference code in ``m2.py``.

Tokens come as integer ids (only equality matters), arcs as pairs of vertex indices (vertices are the lattice's
cells in the official sorted order, row by row), and an arc's edit is fully described by its two cells, its kind
and its number of unchanged tokens: its original text is the source tokens between the rows, its correction the
hypothesis tokens between the columns (as the official ``merge_edits`` joins them). Arc attributes live in dense
vertex-by-vertex matrices, so the caller uses this kernel only below ``MAX_KERNEL_VERTICES`` vertices.
"""
from __future__ import annotations

import os

import numpy as np
from numba import njit

MAX_KERNEL_VERTICES = 2500
"""Largest lattice (in vertices) handled here; bigger ones go to the reference code (memory grows with its square)."""

NOOP, SUB, DEL, INS = 0, 1, 2, 3
_ABSENT = np.iinfo(np.int32).max
_EPSILON = 0.001


@njit(cache=True)
def _moves(source, hypothesis, cost_sub):
    """Bit masks (1 match/substitution, 2 deletion, 4 insertion) of the optimal moves into each cell."""
    n, m = source.size, hypothesis.size
    moves = np.zeros((n + 1, m + 1), dtype=np.int8)
    previous = np.arange(m + 1)
    row = np.zeros(m + 1, dtype=np.int64)
    for i in range(1, n + 1):
        moves[i, 0] = 2
    for j in range(1, m + 1):
        moves[0, j] = 4
    for i in range(1, n + 1):
        row[0] = i
        for j in range(1, m + 1):
            deletion = previous[j] + 1
            insertion = row[j - 1] + 1
            substitution = previous[j - 1]
            if source[i - 1] != hypothesis[j - 1]:
                substitution += cost_sub
            best = min(substitution, deletion, insertion)
            mask = 0
            if substitution == best:
                mask |= 1
            if deletion == best:
                mask |= 2
            if insertion == best:
                mask |= 4
            moves[i, j] = mask
            row[j] = best
        previous[:] = row
    return moves


@njit(cache=True)
def _reachable(moves):
    """Cells on an optimal path to the last cell."""
    n, m = moves.shape[0] - 1, moves.shape[1] - 1
    seen = np.zeros((n + 1, m + 1), dtype=np.bool_)
    seen[n, m] = True
    for i in range(n, -1, -1):
        for j in range(m, -1, -1):
            if not seen[i, j]:
                continue
            mask = moves[i, j]
            if mask & 1:
                seen[i - 1, j - 1] = True
            if mask & 2:
                seen[i - 1, j] = True
            if mask & 4:
                seen[i, j - 1] = True
    return seen


@njit(cache=True)
def lattice_size(source, hypothesis):
    """Number of vertices of the lattice between two token id arrays."""
    seen = _reachable(_moves(source, hypothesis, 1)) | _reachable(_moves(source, hypothesis, 2))
    seen[0, 0] = True
    return int(seen.sum())


@njit(cache=True)
def _append(edges, count, key):
    if count == edges.size:
        grown = np.empty(edges.size * 2, dtype=np.int64)
        grown[:count] = edges[:count]
        edges = grown
    edges[count] = key
    return edges, count + 1


@njit(cache=True)
def _build(source, hypothesis, max_unchanged):
    """The lattice: vertex cells, arc list (keys ``tail * V + head`` in the official order, repeats kept) and
    the per-arc matrices of distance, kind and unchanged tokens, after transitive arcs and noop removal.

    Returns ``status`` 1 where the official scorer would fail (a removed arc listed again)."""
    n, m = source.size, hypothesis.size
    moves1 = _moves(source, hypothesis, 1)
    moves2 = _moves(source, hypothesis, 2)
    seen1 = _reachable(moves1)
    seen2 = _reachable(moves2)
    index = -np.ones((n + 1, m + 1), dtype=np.int64)
    count = 0
    for i in range(n + 1):
        for j in range(m + 1):
            if seen1[i, j] or seen2[i, j] or (i == 0 and j == 0):
                index[i, j] = count
                count += 1
    cells = np.empty((count, 2), dtype=np.int64)
    for i in range(n + 1):
        for j in range(m + 1):
            if index[i, j] >= 0:
                cells[index[i, j], 0] = i
                cells[index[i, j], 1] = j
    size = count
    dist = np.full((size, size), _ABSENT, dtype=np.int32)
    kind = np.zeros((size, size), dtype=np.int8)
    unchanged = np.zeros((size, size), dtype=np.int16)
    edges = np.empty(max(16, 4 * size), dtype=np.int64)
    total = 0
    for graph in range(2):
        moves = moves1 if graph == 0 else moves2
        seen = seen1 if graph == 0 else seen2
        for i in range(n + 1):
            for j in range(m + 1):
                if not seen[i, j]:
                    continue
                head = index[i, j]
                mask = moves[i, j]
                for move in range(3):
                    if move == 0 and mask & 1:
                        tail = index[i - 1, j - 1]
                        arc_kind = NOOP if source[i - 1] == hypothesis[j - 1] else SUB
                    elif move == 1 and mask & 2:
                        tail = index[i - 1, j]
                        arc_kind = DEL
                    elif move == 2 and mask & 4:
                        tail = index[i, j - 1]
                        arc_kind = INS
                    else:
                        continue
                    edges, total = _append(edges, total, tail * size + head)
                    dist[tail, head] = 1
                    kind[tail, head] = arc_kind
                    unchanged[tail, head] = 1 if arc_kind == NOOP else 0
    edges = np.sort(edges[:total])
    into = np.empty(size, dtype=np.int64)
    out = np.empty(size, dtype=np.int64)
    for middle in range(size):
        n_into = 0
        for tail in range(middle):
            if dist[tail, middle] != _ABSENT:
                into[n_into] = tail
                n_into += 1
        n_out = 0
        for head in range(middle + 1, size):
            if dist[middle, head] != _ABSENT:
                out[n_out] = head
                n_out += 1
        for a in range(n_into):
            tail = into[a]
            first = dist[tail, middle]
            kind1 = kind[tail, middle]
            unchanged1 = unchanged[tail, middle]
            for b in range(n_out):
                head = out[b]
                combined = first + dist[middle, head]
                if combined < dist[tail, head]:
                    merged_unchanged = unchanged1 + unchanged[middle, head]
                    if merged_unchanged <= max_unchanged:
                        kind2 = kind[middle, head]
                        edges, total = _append(edges, total, tail * size + head)
                        dist[tail, head] = combined
                        kind[tail, head] = kind1 if kind1 == kind2 else SUB
                        unchanged[tail, head] = merged_unchanged
    kept = np.empty(total, dtype=np.int64)
    n_kept = 0
    removed = np.zeros((size, size), dtype=np.bool_)
    position = 0
    status = 0
    while position < total:
        key = edges[position]
        tail, head = key // size, key % size
        if removed[tail, head]:
            status = 1
            break
        if kind[tail, head] == NOOP and dist[tail, head] > 1:
            removed[tail, head] = True
            dist[tail, head] = _ABSENT
            if position + 1 < total:
                kept[n_kept] = edges[position + 1]
                n_kept += 1
            position += 2
        else:
            kept[n_kept] = key
            n_kept += 1
            position += 1
    for position in range(n_kept):
        if removed[kept[position] // size, kept[position] % size]:
            status = 1
    return status, cells, kept[:n_kept], dist, kind


@njit(cache=True)
def _accepts(accepted, gold, tail_cell, head_cell):
    return accepted[gold, tail_cell[1], head_cell[1]]


@njit(cache=True)
def weigh_insertions(tails, heads, slots, noop, match, weights, matched_weight):
    """The official ``set_weights`` for the arcs of one insertion span (start == end), in sorted arc order.

    Arc ``a`` runs from vertex ``tails[a]`` to ``heads[a]`` and has its weight at ``weights[slots[a]]`` (parallel
    arcs share a slot); ``match[a, g]``: arc ``a`` matches the span's gold edit ``g``. The arcs are walked from both
    ends, each end matching the gold edits from its own end: a matched arc gets ``matched_weight`` and the arcs it
    skips to reach the next connected arc ``+EPSILON``; an unmatched non-noop arc gets ``+EPSILON``. Shared by the
    kernel and the reference code in ``m2.py``.
    """
    left, right = 0, tails.size - 1
    current = left
    gold_left, gold_right = 0, match.shape[1] - 1
    while left <= right:
        matched = False
        if current == left:
            s = gold_left
            step = 1
        else:
            s = gold_right
            step = -1
        while gold_left <= s and s <= gold_right:
            if match[current, s]:
                matched = True
                weights[slots[current]] = matched_weight
                if current == left:
                    gold_left = s + 1
                else:
                    gold_right = s - 1
                break
            s += step
        if not matched and not noop[current]:
            weights[slots[current]] += _EPSILON
        if matched:
            if current == left:
                left += 1
                while left < tails.size and tails[left] != heads[current]:
                    weights[slots[left]] += _EPSILON
                    left += 1
                current = left
            else:
                right -= 1
                while right >= 0 and heads[right] != tails[current]:
                    weights[slots[right]] += _EPSILON
                    right -= 1
                current = right
        elif current == left:
            left += 1
            current = right
        else:
            right -= 1
            current = left


@njit(cache=True)
def _weights(cells, edges, dist, kind, gold_start, gold_end, accepted):
    """Arc weights for one annotator, as the official ``set_weights`` sets them."""
    size = cells.shape[0]
    weights = dist.astype(np.float64)
    matched_weight = -float(edges.size)
    n_arcs = edges.size
    tails = edges // size
    heads = edges % size
    span_keys = np.empty(n_arcs, dtype=np.int64)
    width = cells[size - 1, 0] + 1
    for a in range(n_arcs):
        span_keys[a] = (cells[tails[a], 0] * width + cells[heads[a], 0]) * size * size + edges[a]
    order = np.argsort(span_keys, kind="mergesort")
    n_gold = gold_start.size
    golds = np.empty(n_gold, dtype=np.int64)
    group = 0
    while group < n_arcs:
        first_arc = order[group]
        start = cells[tails[first_arc], 0]
        end = cells[heads[first_arc], 0]
        stop = group
        while stop < n_arcs and span_keys[order[stop]] // (size * size) == span_keys[first_arc] // (size * size):
            stop += 1
        n_span_gold = 0
        for g in range(n_gold):
            if gold_start[g] == start and gold_end[g] == end:
                golds[n_span_gold] = g
                n_span_gold += 1
        if start != end:
            for position in range(group, stop):
                arc = order[position]
                tail, head = tails[arc], heads[arc]
                matched = False
                for s in range(n_span_gold):
                    if _accepts(accepted, golds[s], cells[tail], cells[head]):
                        matched = True
                        break
                if matched:
                    weights[tail, head] = matched_weight
                elif kind[tail, head] != NOOP:
                    weights[tail, head] += _EPSILON
        else:
            arcs = order[group:stop]
            match = np.zeros((arcs.size, n_span_gold), dtype=np.bool_)
            noop = np.zeros(arcs.size, dtype=np.bool_)
            for position in range(arcs.size):
                tail, head = tails[arcs[position]], heads[arcs[position]]
                noop[position] = kind[tail, head] == NOOP
                for s in range(n_span_gold):
                    match[position, s] = _accepts(accepted, golds[s], cells[tail], cells[head])
            weigh_insertions(tails[arcs], heads[arcs], edges[arcs], noop, match, weights.reshape(-1), matched_weight)
        group = stop
    return weights


@njit(cache=True)
def _shortest_path(size, edges, weights):
    """Bellman-Ford in list order (stopping after a round without change); the arcs of the path, last first."""
    tails = edges // size
    heads = edges % size
    arc_weights = np.empty(edges.size, dtype=np.float64)
    for a in range(edges.size):
        arc_weights[a] = weights[tails[a], heads[a]]
    distance = np.full(size, np.inf)
    distance[0] = 0.0
    path = -np.ones(size, dtype=np.int64)
    for _ in range(size - 1):
        changed = False
        for a in range(edges.size):
            candidate = distance[tails[a]] + arc_weights[a]
            if candidate < distance[heads[a]]:
                distance[heads[a]] = candidate
                path[heads[a]] = tails[a]
                changed = True
        if not changed:
            break
    sequence = np.empty((size, 2), dtype=np.int64)
    length = 0
    vertex = size - 1
    while path[vertex] >= 0:
        sequence[length, 0] = path[vertex]
        sequence[length, 1] = vertex
        length += 1
        vertex = path[vertex]
    return sequence[:length]


@njit(cache=True)
def annotator_counts(source, hypothesis, max_unchanged, gold_start, gold_end, gold_annotator, accepted, n_annotators):
    """``(status, counts)``: per annotator (rows) the matched, proposed and gold edit counts of one sentence.

    ``gold_start``/``gold_end``/``gold_annotator`` describe all gold edits (each annotator's in file order);
    ``accepted[g, j1, j2]`` says whether hypothesis tokens ``j1:j2`` joined are one of gold edit g's corrections.
    ``status`` is 1 where the official scorer would stop with an error.
    """
    counts = np.zeros((n_annotators, 3), dtype=np.int64)
    status, cells, edges, dist, kind = _build(source, hypothesis, max_unchanged)
    if status:
        return status, counts
    size = cells.shape[0]
    for annotator in range(n_annotators):
        mine = np.nonzero(gold_annotator == annotator)[0]
        starts = gold_start[mine]
        ends = gold_end[mine]
        accepted_mine = accepted[mine]
        weights = _weights(cells, edges, dist, kind, starts, ends, accepted_mine)
        path = _shortest_path(size, edges, weights)
        proposed = 0
        matches = 0
        last = 0
        for position in range(path.shape[0] - 1, -1, -1):
            tail, head = path[position, 0], path[position, 1]
            if kind[tail, head] == NOOP:
                continue
            proposed += 1
            start, end = cells[tail, 0], cells[head, 0]
            for g in range(last, mine.size):
                if starts[g] == start and ends[g] == end and accepted_mine[g, cells[tail, 1], cells[head, 1]]:
                    matches += 1
                    last = g + 1
        counts[annotator, 0] = matches
        counts[annotator, 1] = proposed
        counts[annotator, 2] = mine.size
    return status, counts


def compiled_on_disk() -> bool:
    """Whether numba's on-disk cache (``ranking/core/__pycache__``, or ``NUMBA_CACHE_DIR``) holds the kernels that
    ``m2.py`` calls, so that a new process loads them in well under a second instead of compiling them (about 25 s
    of CPU, once per checkout or deployment): their cache index files exist. It reads numba's cache objects, which
    are not numba's public interface: where a numba version lays them out otherwise, it says True (the answer only
    names a progress stage)."""
    try:
        return all(os.path.exists(kernel._cache._cache_file._index_path)
                   for kernel in (lattice_size, annotator_counts, weigh_insertions))
    except AttributeError:
        return True
