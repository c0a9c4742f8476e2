"""Terms that burst: keyphrases whose share of the papers jumps in some periods, as CiteSpace finds them.

Each term's papers per period go through Kleinberg's two-state burst model for batched data
(Kleinberg 2003, "Bursty and hierarchical structure in streams", section 4): a base state emits
papers with the term at the term's overall rate, a burst state at ``scaling`` times it, and
entering the burst state costs ``transition_cost`` × ln(periods). The cheapest state sequence
(Viterbi) gives each burst's span; its *strength* is what the burst state saves over the base
state across the span, in nats, CiteSpace's "burst strength".

Kleinberg's model has no false-positive control: over thousands of terms, noise alone gives
bursts. So a burst is kept only when its span's rate beats the rest of the periods' by a
one-sided Fisher exact test (mid-p) whose p-value is multiplied by the number of spans the model could have chosen (Bonferroni: the span
was picked from the same data), then corrected across terms with Benjamini–Hochberg.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from papertopics.text import PHRASE_BREAK, singular

_MAX_RATE = 1 - 1e-9


@dataclass(frozen=True)
class BurstSpans:
    """Per term: whether it is in the burst state in each period, and each period's saving."""

    state: np.ndarray  # ... × periods, booleans: the burst state
    saving: np.ndarray  # ... × periods, nats the burst state saves (negative where it costs)


def kleinberg_states(counts, totals, scaling: float = 2.0, transition_cost: float = 1.0) -> BurstSpans:
    """Kleinberg's two-state burst model on each term's papers per period (the last axis).

    Args:
        counts: terms × periods (any leading shape), the papers holding the term in each period.
        totals: the periods' papers (broadcast against ``counts``).
        scaling: the burst state's rate over the base rate (Kleinberg's s).
        transition_cost: Kleinberg's γ: entering the burst state costs γ·ln(periods).
    """
    counts = np.asarray(counts, dtype=np.float64)
    totals = np.broadcast_to(np.asarray(totals, dtype=np.float64), counts.shape)
    periods = counts.shape[-1]
    base = np.clip(counts.sum(axis=-1, keepdims=True) / totals.sum(axis=-1, keepdims=True), 1e-12, _MAX_RATE)
    burst = np.minimum(scaling * base, _MAX_RATE)

    def cost(rate):
        # −ln P(counts | rate), without the binomial coefficient, which both states share.
        return -(counts * np.log(rate) + (totals - counts) * np.log1p(-rate))

    base_cost, burst_cost = cost(base), cost(burst)
    enter = transition_cost * math.log(periods) if periods > 1 else 0.0
    # Viterbi over two states; the sequence starts in the base state.
    best = np.stack([base_cost[..., 0], burst_cost[..., 0] + enter], axis=-1)
    came_from = np.zeros(counts.shape + (2,), dtype=np.int8)
    for t in range(1, periods):
        stay_base = best[..., 0]
        to_base_from_burst = best[..., 1]  # leaving a burst is free
        to_burst_from_base = best[..., 0] + enter
        stay_burst = best[..., 1]
        came_from[..., t, 0] = to_base_from_burst < stay_base
        came_from[..., t, 1] = stay_burst <= to_burst_from_base
        best = np.stack(
            [
                np.minimum(stay_base, to_base_from_burst) + base_cost[..., t],
                np.minimum(to_burst_from_base, stay_burst) + burst_cost[..., t],
            ],
            axis=-1,
        )
    state = np.zeros(counts.shape, dtype=bool)
    current = (best[..., 1] < best[..., 0]).astype(np.int8)
    for t in range(periods - 1, -1, -1):
        state[..., t] = current == 1
        current = np.take_along_axis(came_from[..., t, :], current[..., None].astype(np.intp), -1)[..., 0]
    return BurstSpans(state=state, saving=base_cost - burst_cost)


@dataclass(frozen=True)
class Burst:
    """One burst of one term: its span (first and last period index) and evidence."""

    term: int  # the term's row
    start: int
    end: int
    strength: float
    p_value: float


def _spans(state: np.ndarray) -> list[tuple[int, int]]:
    """The runs of True in one term's state sequence, as (start, end) inclusive."""
    spans, start = [], None
    for t, on in enumerate(state.tolist() + [False]):
        if on and start is None:
            start = t
        elif not on and start is not None:
            spans.append((start, t - 1))
            start = None
    return spans


def span_p_value(inside: int, inside_total: int, outside: int, outside_total: int) -> float:
    """One-sided p-value that the rate inside a span exceeds the rate outside it: Fisher's exact
    test (hypergeometric), valid where a rare term has a handful of papers per period, as its
    mid-p (half the probability of the count seen), which is less conservative than the plain p.
    """
    # Scikit-learn and SciPy load only where a stage computes with them, not in light jobs.
    from scipy.stats import hypergeom

    if outside_total == 0 or inside_total == 0:
        return 1.0
    # The distribution's functions called directly: a frozen distribution builds its docstrings,
    # most of a call's time when thousands of spans are tested.
    shape = (inside_total + outside_total, inside + outside, inside_total)
    return float(hypergeom.sf(inside, *shape) + 0.5 * hypergeom.pmf(inside, *shape))


def detect_bursts(
    counts: np.ndarray,
    totals: np.ndarray,
    scaling: float,
    transition_cost: float,
    false_discovery_rate: float,
) -> list[tuple[Burst, float]]:
    """The bursts of every term (rows of ``counts``), each with its q-value, kept when q is
    below ``false_discovery_rate``; strongest first.
    """
    # Scikit-learn and SciPy load only where a stage computes with them, not in light jobs.
    from scipy.stats import false_discovery_control

    counts = np.asarray(counts, dtype=np.float64)
    totals = np.asarray(totals, dtype=np.float64)
    periods = counts.shape[1] if counts.ndim == 2 else 0
    if periods < 3 or not len(counts):
        return []
    spans = kleinberg_states(counts, totals, scaling, transition_cost)
    # Spans the model could pick: every run of consecutive periods but the whole span.
    choices = periods * (periods + 1) // 2 - 1
    found = []
    for term in np.flatnonzero(spans.state.any(axis=1)):
        for start, end in _spans(spans.state[term]):
            inside = slice(start, end + 1)
            p = span_p_value(
                int(counts[term, inside].sum()),
                int(totals[inside].sum()),
                int(counts[term].sum() - counts[term, inside].sum()),
                int(totals.sum() - totals[inside].sum()),
            )
            strength = float(spans.saving[term, inside].sum())
            found.append(Burst(int(term), start, end, strength, min(1.0, p * choices)))
    # Every term is tested once (a term with no burst state counts with p = 1).
    tested = len(counts)
    p_values = np.array([b.p_value for b in found] + [1.0] * (tested - len(found)))
    q_values = false_discovery_control(p_values, method="bh")[: len(found)]
    kept = [(b, float(q)) for b, q in zip(found, q_values, strict=True) if q < false_discovery_rate]
    return sorted(kept, key=lambda item: (-item[0].strength, item[0].term, item[0].start))


# Keyphrases of one to three words: "certified robustness", "large language models".
TERM_NGRAMS = (1, 3)


@dataclass(frozen=True)
class TermCounts:
    """Papers holding each term in each period, and the papers × terms matrix they came from."""

    terms: np.ndarray  # the terms, one per row of ``counts``
    counts: np.ndarray  # terms × periods
    totals: np.ndarray  # the periods' papers
    holds: object  # scipy.sparse papers × terms, 1 where the paper holds the term


def term_counts(
    texts: list[str], rows: np.ndarray, period: np.ndarray, names: list[str], stop_words, min_papers: int
) -> TermCounts:
    """Count the papers holding each keyphrase per period; ``rows`` and ``period`` pair each
    paper (its index in ``texts``) with a period (a paper in two dumps has two pairs). Terms in
    fewer than ``min_papers`` papers are left out: they cannot make a burst worth reporting.
    """
    # Scikit-learn and SciPy load only where a stage computes with them, not in light jobs.
    import scipy.sparse as sp
    from sklearn.feature_extraction.text import CountVectorizer

    totals = np.array([(period == name).sum() for name in names], dtype=np.int64)
    # A keyphrase never runs across punctuation: "large language models (LLMs)" holds "large
    # language models", not "language models llms", as the topics' keywords are read.
    within = CountVectorizer(ngram_range=TERM_NGRAMS, stop_words=stop_words).build_analyzer()

    def keyphrases(text: str) -> list[str]:
        return [term for stretch in PHRASE_BREAK.split(text) for term in within(stretch)]

    try:
        vectorizer = CountVectorizer(analyzer=keyphrases, binary=True, min_df=min_papers, dtype=np.int32)
        holds = vectorizer.fit_transform(texts).tocsr()
    except ValueError:  # no term in enough papers (a tiny corpus)
        return TermCounts(np.array([], dtype=object), np.zeros((0, len(names))), totals, None)
    column = {name: i for i, name in enumerate(names)}
    pairs = sp.csr_matrix(
        (np.ones(len(rows)), (np.array([column[p] for p in period]), rows)), shape=(len(names), len(texts))
    )
    counts = np.asarray((pairs @ holds).T.todense())
    return TermCounts(vectorizer.get_feature_names_out().astype(object), counts, totals, holds)


def topic_concentration(holds, topics: np.ndarray) -> np.ndarray:
    """How unevenly each term's papers spread over the topics, beyond chance: Gries' deviation of
    proportions (DP: half the summed differences between the share of the term's papers in each
    topic and the topic's share of all papers; 0 spread as the corpus is, near 1 in one topic)
    less its expectation for as many papers drawn at random, which is larger for few papers.

    A word of the period's style ("enhancing", "pivotal") spreads over the topics as the corpus
    does; a research term ("federated learning", "large language models") gathers in some.

    Args:
        holds: scipy.sparse papers × terms, nonzero where the paper holds the term.
        topics: each paper's topic (the outliers are one more group).
    """
    # Scikit-learn and SciPy load only where a stage computes with them, not in light jobs.
    import scipy.sparse as sp
    from scipy.stats import binom

    groups, group_of = np.unique(np.asarray(topics), return_inverse=True)
    papers = len(group_of)
    membership = sp.csr_matrix((np.ones(papers), (group_of, np.arange(papers))), shape=(len(groups), papers))
    per_group = (membership @ (holds > 0).astype(np.float64)).tocoo()
    group_share = np.bincount(group_of, minlength=len(groups)) / papers
    term_papers = np.bincount(per_group.col, weights=per_group.data, minlength=holds.shape[1])
    # Σ over all groups of |v - s| = 1 + Σ over the groups holding the term of (|v - s| - s).
    held = np.abs(per_group.data / term_papers[per_group.col] - group_share[per_group.row])
    held -= group_share[per_group.row]
    deviation = 0.5 * (1 + np.bincount(per_group.col, weights=held, minlength=holds.shape[1]))
    # Expected DP for n papers: each group's mean absolute deviation of Binomial(n, s), by de Moivre's
    # formula 2·m·(1−s)·P(X = m) with m = ⌊ns⌋ + 1, over n.
    sizes, size_of = np.unique(term_papers, return_inverse=True)
    n = np.maximum(sizes, 1)[:, None]
    first_above = np.floor(n * group_share) + 1
    mean_deviation = 2 * first_above * (1 - group_share) * binom.pmf(first_above, n, group_share)
    expected = 0.5 * (mean_deviation / n).sum(axis=1)
    return deviation - expected[size_of]


# A phrase's burst explains a shorter phrase's inside it when at least this strong relative to it.
_EXPLAINS = 0.8


def without_nested(bursts: list[tuple[Burst, float]], terms: np.ndarray) -> list[tuple[Burst, float]]:
    """One entry per family of nested phrases bursting at overlapping times: a phrase inside a
    longer one ("certified" in "certified robustness"), or its initials ("llms" of "large language
    models"), that bursts nearly as strongly gives way to it; of what is left, the strongest of a
    family ("language models" against "large language models" when it is much stronger) is
    listed. Strongest first.
    """

    def initials(term: str) -> str:
        words = term.split()
        return "".join(word[0] for word in words) if len(words) > 1 else ""

    # Each bursting term's forms read once: the pairs of bursts are many (11 million at 100,000
    # papers in a hundred dumps), and most are told apart by their times alone, checked first.
    bursting = {burst.term for burst, _ in bursts}
    padded = {term: f" {terms[term]} " for term in bursting}
    singular_of = {term: singular(str(terms[term])) for term in bursting}
    initials_of = {term: initials(str(terms[term])) for term in bursting}

    def inside(short: Burst, long: Burst) -> bool:
        return (
            short.start <= long.end
            and long.start <= short.end
            and short.term != long.term
            and (padded[short.term] in padded[long.term] or singular_of[short.term] == initials_of[long.term])
        )

    explained = {
        id(burst)
        for burst, _ in bursts
        if any(inside(burst, other) and other.strength >= _EXPLAINS * burst.strength for other, _ in bursts)
    }
    kept: list[tuple[Burst, float]] = []
    for burst, q in bursts:
        if id(burst) not in explained and not any(
            inside(burst, other) or inside(other, burst) for other, _ in kept
        ):
            kept.append((burst, q))
    return kept
