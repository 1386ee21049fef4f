"""The M2 core: the compiled kernel equals the step-by-step reference, and the chosen edit sequence matches as
many gold edits as any path of the lattice (brute force over all paths on small random sentences)."""
from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from ranking.core.m2 import EditCounts, build_lattice, corpus_m2, sentence_counts

WORDS = ["a", "b", "c", "the", "cat"]


def all_paths(lattice):
    """Every path from (0, 0) to the last vertex as its list of non-noop edits."""
    successors: dict = {}
    for tail, head in set(lattice.edges):
        successors.setdefault(tail, []).append(head)
    last = lattice.vertices[-1]

    def walk(vertex):
        if vertex == last:
            yield []
            return
        for head in successors.get(vertex, []):
            edit = lattice.edits[(vertex, head)]
            for rest in walk(head):
                yield ([] if edit[0] == "noop" else [(edit[1], edit[2], edit[3], edit[4])]) + rest

    return list(walk((0, 0)))


def matches(path, gold):
    """Gold edits (distinct spans here) that some edit of the path matches; each counts once."""
    return sum(any(e[:3] == g[:3] and e[3] in g[3] for e in path) for g in gold)


@st.composite
def sentence_with_gold(draw, insertions=True):
    """A source and hypothesis of up to 5 words and gold edits on distinct spans in file order, most of them arcs
    of the lattice (so that they can match); without ``insertions`` no gold edit inserts."""
    source = draw(st.lists(st.sampled_from(WORDS), min_size=0, max_size=5))
    hypothesis = draw(st.lists(st.sampled_from(WORDS), min_size=0, max_size=5))
    lattice = build_lattice(source, hypothesis)
    arcs = sorted({edit[1:5] for edit in lattice.edits.values() if edit[0] != "noop"})
    spans = {}
    for start, end, original, correction in draw(st.lists(st.sampled_from(arcs), max_size=3)) if arcs else []:
        spans.setdefault((start, end, original), []).append(correction)
    noise = draw(st.lists(st.tuples(st.integers(0, len(source)), st.sampled_from(WORDS)), max_size=2))
    for position, word in noise:
        spans.setdefault((position, position, ""), []).append(word)
    if not insertions:
        spans = {span: corrections for span, corrections in spans.items() if span[0] < span[1]}
    gold = [(start, end, original, tuple(corrections)) for (start, end, original), corrections in sorted(spans.items())]
    return source, hypothesis, gold


@settings(max_examples=150, deadline=None)
@given(sentence_with_gold(insertions=False))
def test_edit_sequence_matches_as_many_gold_edits_as_the_best_path(case):
    """The M2 property for gold deletions and substitutions. A gold insertion gives only one of the parallel
    insertion arcs of its span the matching weight in the official scorer (its ``set_weights``), so with gold
    insertions the official count can stay below the best path (next test); the kernel follows the official."""
    source, hypothesis, gold = case
    lattice = build_lattice(source, hypothesis)
    best = max(matches(path, gold) for path in all_paths(lattice))
    (counts,) = sentence_counts(source, hypothesis, [gold], kernel=False)
    assert counts.correct == best
    assert counts.gold == len(gold)


@settings(max_examples=150, deadline=None)
@given(sentence_with_gold(), sentence_with_gold())
def test_kernel_equals_the_reference(first, second):
    source, hypothesis, gold = first
    other_gold = [(s, e, " ".join(source[s:e]), fixes) for s, e, _, fixes in second[2] if e <= len(source)]
    annotators = [gold, other_gold]
    kernel = sentence_counts(source, hypothesis, annotators)
    assert kernel == sentence_counts(source, hypothesis, annotators, kernel=False)


def test_gold_insertions_as_the_official_scorer_counts_them():
    """Source 'a', hypothesis 'a a a', gold inserts 'a' at 0 and at 1: a path with both insertions exists, but the
    official scorer (run on this case) proposes 'a' -> 'a a' for the second and counts 1 correct of 2 proposed."""
    gold = [(0, 0, "", ("a",)), (1, 1, "", ("a",))]
    expected = (EditCounts(1, 2, 2),)
    assert sentence_counts(["a"], ["a", "a", "a"], [gold], kernel=False) == expected
    assert sentence_counts(["a"], ["a", "a", "a"], [gold]) == expected


def test_example_of_the_m2_paper():
    """Dahlmeier and Ng (2012), section 2: the lattice lets the system edit 'in the' -> 'on' match the gold edits."""
    source = "There is no need for a bill".split()
    hypothesis = "There is no need for bills".split()
    gold = [(5, 7, "a bill", ("bills",))]
    assert sentence_counts(source, hypothesis, [gold]) == (EditCounts(1, 1, 1),)


def test_best_annotator_and_corpus_scores():
    sources = [["he", "go", "home"], ["she", "like", "it"]]
    hypotheses = [["he", "goes", "home"], ["she", "likes", "them"]]
    gold = [
        {0: [(1, 2, "go", ("goes",))], 1: [(1, 2, "go", ("went",))]},
        {0: [(1, 2, "like", ("likes",))], 1: []},
    ]
    result = corpus_m2(sources, hypotheses, gold)
    assert result.annotators == (0, 0)
    assert (result.correct, result.proposed, result.gold) == (2, 3, 2)
    assert round(result.precision, 4) == 0.6667 and result.recall == 1.0
    assert round(result.f_beta, 4) == round(1.25 * (2 / 3) / (0.25 * (2 / 3) + 1), 4)
