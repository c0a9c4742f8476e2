"""Each topic's trajectory over many periods: rising, falling, peaked, returned, or steady.

A straight-line trend test (Cochran–Armitage, ``trends.py``) asks one question of a long series:
does the share go up or down on the whole? Over decades a field often rises and fades (peaked)
or fades and comes back (returned), and a straight line calls the first "rising" or "falling"
and the second "flat". Here each topic's share per period is fitted with continuous
piecewise-linear curves of 0 to 3 segments (constant, a line, one bend, two bends; a bend at a
period's score, every segment spanning at least ``min_segment`` periods), by least squares
weighted by each period's papers (the binomial weights of the shares). The number of segments
is chosen by a quasi-likelihood BIC: the weighted residual sum over the topic's pooled binomial
variance, divided by an overdispersion factor (that of the richest fit, at least 1) so that the
year-to-year wobble real topics show beyond binomial noise does not buy extra bends, plus
log(periods) per parameter (a bend's place counts as one).

Whether the topic's share has any shape at all is a permutation test of the periods' order: the
statistic is the BIC gain of the chosen curve over the constant; the periods (each with its
count and papers) are shuffled, which keeps every period's size and every year's own wobble and
breaks only time, and the p-value is the share of shuffles that gain as much. Benjamini–Hochberg
runs across topics. The permutations are shared by all topics (and by all simulated runs), and
every fit is a closed-form weighted least squares on a design fixed by the bends, so the test is
a few array products (``shape_statistic``).

A significant topic's shape is read from its fitted curve and checked on its papers: the peak
(or trough) is the periods where the curve is above (below) half-way between its top (bottom)
and the nearer of its two ends (the full width at half maximum). Its shares before (up to three
first periods), in and after (up to three last periods) are pooled, and it is *peaked* when both
legs (rise into the peak, fall after it) move at least ``min_effect`` points with a Newcombe
interval that leaves out 0 and the smaller leg is at least a quarter of the larger; *returned*
likewise for a trough. Otherwise the first and last three periods decide *rising* or *falling*
under the same conditions, and a topic that fails them is *steady*.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from papertopics.changes.trends import cochran_armitage
from papertopics.stats import benjamini_hochberg

RISING = "rising"
FALLING = "falling"
PEAKED = "peaked"
RETURNED = "returned"
STEADY = "steady"
SHAPES = (RISING, FALLING, PEAKED, RETURNED, STEADY)
# A peak needs its smaller leg to be this share of the larger: 0 → 10 → 8 is a rise that eased.
SMALLER_LEG = 0.25
# Places a curve with two bends may bend at: a peak's edges within about an eighth of the span.
BEND_GRID = 8
FIRST_SHUFFLES = 199
_CHUNK = 64  # permutations per array product (memory: chunk × designs × rows × 4 floats)


@dataclass(frozen=True)
class Designs:
    """The candidate curves: per number of segments, the stacked designs (designs × periods ×
    coefficients) and the bends of each (period indices).
    """

    segments: list[int]
    matrices: list[np.ndarray]
    bends: list[list[tuple[int, ...]]]
    parameters: list[int] = field(default_factory=list)


def designs(scores, min_segment: int = 3, max_segments: int = 3) -> Designs:
    """Continuous piecewise-linear designs on the periods' ``scores`` (hinge basis)."""
    x = np.asarray(scores, dtype=np.float64)
    x = (x - x[0]) / max(x[-1] - x[0], 1e-12)
    periods = len(x)
    ones = np.ones(periods)
    segments, matrices, bends, parameters = [0, 1], [ones[None, :, None]], [[()]], [1, 2]
    matrices.append(np.stack([ones, x], axis=-1)[None])
    bends.append([()])
    inner = list(range(min_segment - 1, periods - min_segment + 1))
    single = [(i,) for i in inner]
    # Two bends on a grid of at most ``BEND_GRID`` places (every period in short series).
    grid = sorted({inner[round(k)] for k in np.linspace(0, len(inner) - 1, min(len(inner), BEND_GRID))})
    double = [(i, j) for i in grid for j in grid if j - i >= min_segment - 1]
    for count, chosen in ((2, single), (3, double)):
        if count > max_segments or not chosen:
            continue
        stacked = [
            np.column_stack([ones, x] + [np.maximum(x - x[b], 0.0) for b in knots]) for knots in chosen
        ]
        segments.append(count)
        matrices.append(np.stack(stacked))
        bends.append(chosen)
        parameters.append(2 * count)  # count + 1 coefficients and count - 1 bends
    return Designs(segments, matrices, bends, parameters)


def _residuals(shares: np.ndarray, weights: np.ndarray, design: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Weighted residual sums of every design for every row, and the best design's index.

    shares: perms × rows × periods; weights: perms × periods; design: designs × periods × p.
    Returns perms × rows (the smallest sum) and perms × rows (its design).
    """
    count, periods, width = design.shape
    outer = np.einsum("dtp,dtq->tdpq", design, design).reshape(periods, -1)
    gram = (weights @ outer).reshape(len(weights), count, width, width)
    inverse = np.linalg.inv(gram + 1e-10 * np.eye(width)).astype(np.float32)
    flat = design.transpose(1, 2, 0).reshape(periods, width * count).astype(np.float32)
    weighted = (weights[:, None, :] * shares).astype(np.float32).reshape(-1, periods)
    moments = (weighted @ flat).reshape(*shares.shape[:2], width, count)  # perms × rows × p × designs
    explained = np.zeros((shares.shape[0], shares.shape[1], count), dtype=np.float32)
    for p in range(width):  # the quadratic form, a pair of coefficients at a time
        explained += inverse[:, None, :, p, p] * moments[:, :, p] ** 2
        for q in range(p + 1, width):
            explained += 2 * inverse[:, None, :, p, q] * moments[:, :, p] * moments[:, :, q]
    total = np.einsum("bt,brt->br", weights, shares**2)
    residual = np.maximum(total[:, :, None] - explained, 0.0)
    best = residual.argmin(axis=-1)
    return np.take_along_axis(residual, best[..., None], axis=-1)[..., 0], best


def _deviances(shares, weights, scale, found: Designs):
    """Each model's smallest deviance (perms × rows × models) and its design."""
    sums, chosen = zip(*(_residuals(shares, weights, m) for m in found.matrices), strict=True)
    return np.stack(sums, axis=-1) * scale[None, :, None], np.stack(chosen, axis=-1)


def criteria(deviance: np.ndarray, found: Designs) -> np.ndarray:
    """Quasi-BIC of each model (the last axis of ``deviance``): the deviance over the richest
    model's dispersion (at least 1), plus log(periods) per parameter.
    """
    periods = found.matrices[0].shape[1]
    richest = len(found.parameters) - 1
    spare = max(periods - found.parameters[richest], 1)
    dispersion = np.maximum(deviance[..., richest] / spare, 1.0)
    penalty = np.array(found.parameters) * np.log(periods)
    return deviance / dispersion[..., None] + penalty


def deviances(counts, totals, found: Designs, orders=None):
    """Each model's smallest deviance for each row, for the data in each order of the periods.

    counts: rows × periods; totals: periods; orders: perms × periods (indices) or None (as is).
    Returns perms × rows × models, and (as is only) each row's best design within each model.
    """
    counts = np.asarray(counts, dtype=np.float64)
    totals = np.asarray(totals, dtype=np.float64)
    pooled = counts.sum(axis=-1) / totals.sum()
    # Centred on the pooled share (every curve has a constant, so the fits are the same), which
    # keeps the single-precision products exact enough.
    shares = counts / totals - pooled[:, None]
    with np.errstate(divide="ignore"):
        scale = np.where((pooled > 0) & (pooled < 1), 1 / (pooled * (1 - pooled)), 0.0)
    if orders is None:
        orders = np.arange(counts.shape[-1])[None]
    found_deviances, chosen = [], None
    for start in range(0, len(orders), _CHUNK):
        order = orders[start : start + _CHUNK]
        deviance, chosen = _deviances(np.moveaxis(shares[:, order], 1, 0), totals[order], scale, found)
        found_deviances.append(deviance)
    return np.concatenate(found_deviances), chosen[0]


def _minimum_p(observed: np.ndarray, null: np.ndarray) -> np.ndarray:
    """Westfall and Young's min-p across the curves, calibrated on the shuffles (see below)."""
    permutations = len(null)
    shaped = slice(1, None)  # the line and the bends; the constant fits every order alike
    seen, shuffled = observed[..., shaped], null[..., shaped]
    tolerance = 1e-6 * (1 + np.abs(seen))
    observed_p = (1 + (shuffled <= seen + tolerance).sum(axis=0)) / (1 + permutations)
    # Each shuffle's own p-value per curve: its rank among the shuffles and the observed order.
    ranks = np.argsort(np.argsort(shuffled, axis=0, kind="stable"), axis=0, kind="stable")
    null_p = (1 + ranks + (seen <= shuffled).astype(int)) / (1 + permutations)
    observed_min, null_min = observed_p.min(axis=-1), null_p.min(axis=-1)
    return (1 + (null_min <= observed_min[None, :] + 1e-12).sum(axis=0)) / (1 + permutations)


def permutation_pvalues(
    counts, totals, found: Designs, permutations: int, seed: int = 0, keep_going: float = 0.1
):
    """Per row: the permutation p-value of any shape, the chosen model and its design.

    Each curve (a line, one bend, two bends) is tested by how well it fits the periods in their
    order against shuffled orders (its smallest deviance; the constant's is the same in every
    order); the three are joined by the smallest of their p-values, itself calibrated on the
    shuffles (Westfall and Young's min-p), so that a straight rise loses little power to the
    curves that could also have fitted it. The first ``FIRST_SHUFFLES`` shuffles test every row;
    only the rows whose p-value is then at most ``keep_going`` go on to all ``permutations``
    (a row that far from significance cannot become so).
    """
    rng = np.random.default_rng(seed)
    counts = np.asarray(counts, dtype=np.float64)
    periods = counts.shape[-1]
    observed, design = deviances(counts, totals, found)
    orders = np.argsort(rng.random((permutations, periods)), axis=1)
    first = min(permutations, FIRST_SHUFFLES)
    null, _ = deviances(counts, totals, found, orders[:first])
    pvalues = _minimum_p(observed, null)
    going = np.flatnonzero(pvalues <= keep_going)
    if first < permutations and len(going):
        more, _ = deviances(counts[going], totals, found, orders[first:])
        pvalues[going] = _minimum_p(observed[:, going], np.concatenate([null[:, going], more]))
    scored = criteria(observed, found)[0]
    model = scored.argmin(axis=-1)
    return pvalues, np.where(model > 0, model, 1 + scored[:, 1:].argmin(axis=-1)), design


def fitted_curve(shares, totals, matrix: np.ndarray) -> np.ndarray:
    """The weighted least-squares fit of one row's shares on one design (periods × p)."""
    weights = np.asarray(totals, dtype=np.float64)
    gram = matrix.T @ (weights[:, None] * matrix) + 1e-10 * np.eye(matrix.shape[1])
    return matrix @ np.linalg.solve(gram, matrix.T @ (weights * np.asarray(shares, dtype=np.float64)))


def turn_span(fit: np.ndarray, peak: bool) -> tuple[int, int] | None:
    """The periods of the fitted curve's interior top (``peak``) or bottom at half its height
    over the nearer end; None where the extreme is at an end.
    """
    curve = fit if peak else -fit
    top = int(np.argmax(curve))
    if top in (0, len(curve) - 1):
        return None
    ends = max(curve[0], curve[-1])
    if curve[top] - ends <= 1e-12:
        return None
    half = curve[top] - (curve[top] - ends) / 2 - 1e-12
    first = last = top
    while first > 0 and curve[first - 1] >= half:
        first -= 1
    while last < len(curve) - 1 and curve[last + 1] >= half:
        last += 1
    return first, last


@dataclass(frozen=True)
class Leg:
    """A stretch of periods (first and last index) and its move in points: the fitted curve's
    (the Cochran–Armitage slope times the span where there is no curve), with an interval of the
    half-width of the stretch's Cochran–Armitage interval around it; ``evidence`` is that
    straight-line interval itself, which decides whether the leg is clear of 0.
    """

    start: int
    end: int
    change_pp: float
    low_pp: float
    high_pp: float
    evidence: tuple[float, float] = (0.0, 0.0)

    def clear(self, min_effect: float, sign: int) -> bool:
        """Moves ``sign``-wards by at least ``min_effect`` points, its interval clear of 0."""
        low, high = self.evidence
        if sign > 0:
            return self.change_pp >= min_effect and low > 0
        return self.change_pp <= -min_effect and high < 0


def leg(counts, totals, scores, start: int, end: int, confidence: float, fit=None) -> Leg:
    """The move over periods ``start`` to ``end`` (indices, both included)."""
    window = slice(start, end + 1)
    test = cochran_armitage(counts[window], totals[window], scores[window], confidence)
    span = 100 * (scores[end] - scores[start])
    low, high = float(test.slope_low * span), float(test.slope_high * span)
    change = float(test.slope * span) if fit is None else 100 * float(fit[end] - fit[start])
    half = (high - low) / 2
    return Leg(start, end, change, change - half, change + half, (low, high))


@dataclass(frozen=True)
class Trajectory:
    """One topic's shape: its name, the peak's or trough's periods (indices), its legs."""

    shape: str
    turn: tuple[int, int] | None
    legs: tuple[Leg, ...]
    segments: int

    @property
    def move_pp(self) -> float:
        """The largest leg, in signed points (0 for steady)."""
        return max((lg.change_pp for lg in self.legs), key=abs) if self.legs else 0.0


def classify(counts, totals, scores, fit, segments: int, min_effect: float, confidence: float) -> Trajectory:
    """The shape of one topic whose permutation test rejected (see the module's account)."""
    counts = np.asarray(counts, dtype=np.float64)
    totals = np.asarray(totals, dtype=np.float64)
    scores = np.asarray(scores, dtype=np.float64)
    last = len(counts) - 1
    if segments == 0:
        return Trajectory(STEADY, None, (), segments)
    for peak, name in ((True, PEAKED), (False, RETURNED)):
        span = turn_span(fit, peak) if segments >= 2 else None
        if span is None or span[0] == 0 or span[1] == last:
            continue
        top = span[0] + int(np.argmax(fit[span[0] : span[1] + 1] * (1 if peak else -1)))
        into = leg(counts, totals, scores, 0, top, confidence, fit)
        out = leg(counts, totals, scores, top, last, confidence, fit)
        sign = 1 if peak else -1
        smaller, larger = sorted((abs(into.change_pp), abs(out.change_pp)))
        if into.clear(min_effect, sign) and out.clear(min_effect, -sign) and smaller >= SMALLER_LEG * larger:
            return Trajectory(name, span, (into, out), segments)
    whole = leg(counts, totals, scores, 0, last, confidence, fit)
    for sign, name in ((1, RISING), (-1, FALLING)):
        if whole.clear(min_effect, sign):
            return Trajectory(name, None, (whole,), segments)
    return Trajectory(STEADY, None, (), segments)


@dataclass(frozen=True)
class ShapeTest:
    """Per row of ``counts``: the trajectory, the permutation p-value and its BH q-value."""

    trajectories: list[Trajectory]
    p_value: np.ndarray
    q_value: np.ndarray
    fits: np.ndarray  # rows × periods, the chosen curve


def find_shapes(
    counts,
    totals,
    scores,
    *,
    false_discovery_rate: float,
    min_effect: float,
    confidence: float,
    permutations: int,
    min_segment: int = 3,
    seed: int = 0,
    groups: int = 1,
) -> ShapeTest:
    """Test and name each row's trajectory.

    ``groups`` > 1 splits the rows into that many runs of equal size (simulations), each
    corrected on its own.
    """
    counts = np.asarray(counts, dtype=np.float64)
    totals = np.asarray(totals, dtype=np.float64)
    found = designs(scores, min_segment)
    keep_going = max(0.1, 2 * false_discovery_rate)
    pvalues, model, design = permutation_pvalues(counts, totals, found, permutations, seed, keep_going)
    qvalues = benjamini_hochberg(pvalues.reshape(groups, -1), axis=-1).reshape(-1)
    trajectories, fits = [], np.zeros_like(counts)
    for row in range(len(counts)):
        m = int(model[row])
        fits[row] = fitted_curve(counts[row] / totals, totals, found.matrices[m][int(design[row, m])])
        if qvalues[row] < false_discovery_rate:
            trajectories.append(
                classify(counts[row], totals, scores, fits[row], found.segments[m], min_effect, confidence)
            )
        else:
            trajectories.append(Trajectory(STEADY, None, (), found.segments[m]))
    return ShapeTest(trajectories, pvalues, qvalues, fits)


SHAPE_TEST = (
    "continuous piecewise-linear fits of 0-3 segments on the shares (binomial weights), segments chosen "
    "by a quasi-likelihood BIC; permutation test of the periods' order (min-p over the curves), "
    "Benjamini-Hochberg across topics"
)
SHORT_SHAPE_TEST = "too few periods for bends: the shape is the Cochran-Armitage trend's direction"


def _leg_record(found: Leg, periods: list[str]) -> dict:
    return {
        "start": periods[found.start],
        "end": periods[found.end],
        "change_pp": found.change_pp,
        "low_pp": found.low_pp,
        "high_pp": found.high_pp,
    }


def topic_shapes(clustered, totals, scores, periods: list[str], trend, q_values, settings) -> dict:
    """The trajectory columns of ``changes.json``'s ``trends.topics``, one list per column.

    ``trend`` and ``q_values``: the Cochran-Armitage test over the whole span and its q-values,
    which decide the shape (rising, falling or steady) where there are fewer than
    ``settings.shape_min_periods`` periods, as before there were shapes.
    """
    clustered = np.asarray(clustered, dtype=np.float64)
    totals = np.asarray(totals, dtype=np.float64)
    scores = np.asarray(scores, dtype=np.float64)
    span = 100 * (scores[-1] - scores[0])
    rows = len(clustered)
    if len(periods) >= settings.shape_min_periods:
        found = find_shapes(
            clustered,
            totals,
            scores,
            false_discovery_rate=settings.false_discovery_rate,
            min_effect=settings.min_effect_points,
            confidence=settings.confidence,
            permutations=settings.shape_permutations,
        )
        trajectories, p_values, shape_q, fits = found.trajectories, found.p_value, found.q_value, found.fits
        test = SHAPE_TEST
    else:
        p_values, shape_q, fits, trajectories = trend.p_value, np.asarray(q_values), clustered / totals, []
        for row in range(rows):
            low, high = float(trend.slope_low[row] * span), float(trend.slope_high[row] * span)
            whole = Leg(0, len(periods) - 1, float(trend.slope[row] * span), low, high, (low, high))
            shape = STEADY
            if shape_q[row] < settings.false_discovery_rate:
                shape = next(
                    (
                        n
                        for s, n in ((1, RISING), (-1, FALLING))
                        if whole.clear(settings.min_effect_points, s)
                    ),
                    STEADY,
                )
            trajectories.append(Trajectory(shape, None, (whole,) if shape != STEADY else (), 1))
        test = SHORT_SHAPE_TEST
    largest = [max(t.legs, key=lambda lg: abs(lg.change_pp)) if t.legs else None for t in trajectories]
    return {
        "test": test,
        "columns": {
            "shape": [t.shape for t in trajectories],
            "shape_p": list(p_values),
            "shape_q": list(shape_q),
            "turn": [[periods[t.turn[0]], periods[t.turn[1]]] if t.turn else None for t in trajectories],
            "shape_move_pp": [lg.change_pp if lg else 0.0 for lg in largest],
            "shape_move_low_pp": [lg.low_pp if lg else np.nan for lg in largest],
            "shape_move_high_pp": [lg.high_pp if lg else np.nan for lg in largest],
            "shape_legs": [[_leg_record(lg, periods) for lg in t.legs] for t in trajectories],
            "fitted_share": [np.round(np.clip(fit, 0.0, 1.0), 6).tolist() for fit in fits],
        },
    }


def planted_shares(shape: str, periods: int, low: float, high: float) -> np.ndarray:
    """A simulated topic's share per period (in order) for one shape: a straight rise or fall
    from ``low`` to ``high``; a peak rising over the first third of the periods, level over the
    middle third and falling back over the last (a trough likewise); or level at ``low``
    (steady). Used by the simulations in tests and bench.
    """
    place = np.linspace(0, 1, periods)
    hump = np.clip(np.minimum(place, 1 - place) * 3, 0, 1)
    return {
        RISING: low + (high - low) * place,
        FALLING: high - (high - low) * place,
        PEAKED: low + (high - low) * hump,
        RETURNED: high - (high - low) * hump,
        STEADY: np.full(periods, low),
    }[shape]
