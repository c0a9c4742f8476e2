import pytest
from papertopics.mapping.sizing import resolve_min_cluster_size, resolve_n_neighbors


@pytest.mark.parametrize(
    "n, expected", [(2, 1), (3, 2), (38, 4), (80, 8), (150, 15), (3281, 15), (10_000, 15)]
)
def test_auto_n_neighbors_follows_corpus_size_and_stays_below_it(n, expected):
    assert resolve_n_neighbors("auto", n) == expected


def test_explicit_n_neighbors_is_kept_below_the_corpus_size():
    assert resolve_n_neighbors(15, 1000) == 15
    assert resolve_n_neighbors(15, 6) == 5


@pytest.mark.parametrize("n, expected", [(5, 2), (38, 3), (100, 8), (120, 10), (3281, 13), (10_000, 40)])
def test_auto_min_cluster_size(n, expected):
    assert resolve_min_cluster_size("auto", n) == expected
    assert resolve_min_cluster_size(7, n) == 7


def test_the_largest_topic_limit_applies_only_where_two_smallest_topics_fit():
    from papertopics.mapping.sizing import resolve_max_cluster_size

    assert resolve_max_cluster_size(0.1, 10000, 40) == 1000
    assert resolve_max_cluster_size(0.1, 3281, 13) == 328
    assert resolve_max_cluster_size(0.1, 38, 4) == 0  # 3 papers could not hold two topics of 4
    assert resolve_max_cluster_size(0.0, 10000, 40) == 0
    assert resolve_max_cluster_size(1.0, 10000, 40) == 0
