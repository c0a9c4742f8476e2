"""The statistics the changes, reception and people stages share: Wilson score intervals of a
share, Newcombe's hybrid score interval of a change in share, a two-sided Fisher exact test per
topic, the Benjamini–Hochberg correction across topics, the grades a q-value is said in
(*significant*, *suggestive*, *no evidence*), and the permutation gate that keeps a family of
dependent tests from flagging more than its false discovery rate on shuffled data.
"""

from __future__ import annotations

import numpy as np

SIGNIFICANT = "significant"
SUGGESTIVE = "suggestive"
NO_EVIDENCE = "no evidence"
NOT_TESTED = "not tested"  # a period too small to take part in the tests


def wilson_interval(count, total, confidence: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
    """Wilson score interval of the proportion ``count / total`` (arrays allowed); (0, 1) where
    ``total`` is 0.
    """
    # Scikit-learn and SciPy load only where a stage computes with them, not in light jobs.
    from scipy.stats import norm

    count = np.asarray(count, dtype=np.float64)
    total = np.asarray(total, dtype=np.float64)
    z = norm.ppf(0.5 + confidence / 2)
    safe_total = np.where(total > 0, total, 1.0)
    share = count / safe_total
    centre = (share + z * z / (2 * safe_total)) / (1 + z * z / safe_total)
    half = (
        z / (1 + z * z / safe_total) * np.sqrt(share * (1 - share) / safe_total + z * z / (4 * safe_total**2))
    )
    low = np.where(total > 0, np.clip(centre - half, 0.0, 1.0), 0.0)
    high = np.where(total > 0, np.clip(centre + half, 0.0, 1.0), 1.0)
    return low, high


def share_difference_interval(
    count_before, total_before, count_after, total_after, confidence: float = 0.95
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Change in share (after − before) with Newcombe's hybrid score interval (his method 10)."""
    before = np.asarray(count_before, np.float64) / np.maximum(np.asarray(total_before, np.float64), 1)
    after = np.asarray(count_after, np.float64) / np.maximum(np.asarray(total_after, np.float64), 1)
    low_before, high_before = wilson_interval(count_before, total_before, confidence)
    low_after, high_after = wilson_interval(count_after, total_after, confidence)
    change = after - before
    low = change - np.sqrt((after - low_after) ** 2 + (high_before - before) ** 2)
    high = change + np.sqrt((high_after - after) ** 2 + (before - low_before) ** 2)
    return change, low, high


def share_change_pvalues(count_before, total_before, count_after, total_after) -> np.ndarray:
    """Two-sided Fisher exact test of each topic's share in two dumps, one p-value per topic."""
    # Scikit-learn and SciPy load only where a stage computes with them, not in light jobs.
    from scipy.stats import fisher_exact

    return np.array(
        [
            fisher_exact([[a, n_a - a], [b, n_b - b]]).pvalue
            for a, n_a, b, n_b in zip(count_after, total_after, count_before, total_before, strict=True)
        ],
        dtype=np.float64,
    )


def benjamini_hochberg(pvalues, axis: int = -1) -> np.ndarray:
    """Benjamini–Hochberg adjusted p-values (q-values), in the input's order, each slice along
    ``axis`` corrected on its own (one row per simulated run, say).
    """
    # Scikit-learn and SciPy load only where a stage computes with them, not in light jobs.
    from scipy.stats import false_discovery_control

    pvalues = np.asarray(pvalues, dtype=np.float64)
    return false_discovery_control(pvalues, axis=axis, method="bh") if pvalues.size else pvalues


def grade(q_values, false_discovery_rate: float, suggestive_q: float) -> np.ndarray:
    """Each q-value in words: significant, suggestive or no evidence."""
    q = np.asarray(q_values, dtype=np.float64)
    return np.where(
        q < false_discovery_rate, SIGNIFICANT, np.where(q < suggestive_q, SUGGESTIVE, NO_EVIDENCE)
    ).astype(object)


def smallest_p_gate(observed: np.ndarray, drawn: np.ndarray, p_value: np.ndarray) -> float:
    """The permutation p-value of the smallest of the topics' p-values: each draw's topics given
    p-values against the observed and the other draws as the observed's are (draws × topics of
    |t|), and the share of the observed and the draws whose smallest is at most the observed's.
    """
    draws = len(drawn)
    draw_p = np.empty_like(drawn)
    for column in range(drawn.shape[1]):
        ordered = np.sort(drawn[:, column])
        at_least = draws - np.searchsorted(ordered, drawn[:, column] * (1 - 1e-9), side="left")
        draw_p[:, column] = (at_least + (observed[column] >= drawn[:, column] * (1 - 1e-9))) / (1 + draws)
    return float((1 + (draw_p.min(axis=1) <= p_value.min()).sum()) / (1 + draws))
