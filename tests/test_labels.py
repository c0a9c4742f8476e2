"""Topic labels (papertopics.topics.phrases, phrase_table, label_choice): names a researcher would use, chosen from the papers' phrases."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from conftest import SEEDS
from papertopics.ingest.parse import parse_dump
from papertopics.mapping.cluster import topic_centroids
from papertopics.report.document_map import label_lines
from papertopics.topics.keyphraseness import Keyphraseness
from papertopics.topics.label_choice import (
    MIN_CO_LIFT,
    SECOND_PHRASE_SCORE,
    PhrasePlacement,
    choose_label,
    topic_labels,
)
from papertopics.topics.label_display import GROUP_LABEL_LINES
from papertopics.topics.label_groups import group_labels
from papertopics.topics.labeller import carry_labels, label_still_fits
from papertopics.topics.phrase_relations import repeats
from papertopics.topics.phrase_table import PhraseTable
from papertopics.topics.phrases import label_phrases, paper_phrases, phrase_key
from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

STOP = frozenset(ENGLISH_STOP_WORDS)

# Every paper of every topic says one of these: words no label may use.
GENERIC = [
    "Our model uses data from many tasks.",
    "The proposed model learns from data on several tasks.",
    "We train the model with data from different tasks.",
]
# Each topic's field (its papers' opening) and its aspects (two more per paper), each phrase put
# in a sentence of its own.
TOPICS = {
    "rl": (
        "reinforcement learning",
        ["policy optimization", "reward shaping", "exploration", "value functions"],
    ),
    "marl": (
        "multi-agent reinforcement learning",
        ["cooperative tasks", "centralised training", "team rewards", "reinforcement learning"],
    ),
    "gnn": (
        "graph neural networks",
        ["node classification", "message passing", "over-smoothing", "graph neural networks"],
    ),
    "forecast": (
        "time series forecasting",
        [
            "multivariate time series forecasting",
            "seasonality",
            "forecasting horizons",
            "time series forecasting",
        ],
    ),
    "qa": (
        "question answering",
        ["reading comprehension", "answer spans", "open-domain question answering", "passages"],
    ),
}
# A topic of two themes: half its papers about one, half about the other.
TWO_THEMES = [
    ("hashing", ["hash codes", "binary codes"]),
    ("hyperbolic space", ["negative curvature", "hierarchies"]),
]
FRAMES = [
    "We study {}.",
    "This paper is about {}.",
    "Recent work on {} is limited.",
    "{} is a hard problem.",
    "Methods for {} are compared.",
    "We revisit {} in this work.",
]
# Closing sentences: the data sets come last, as in an abstract.
CLOSINGS = {
    "qa": "Experiments on the Stanford Question Answering Dataset and ImageNet show gains.",
    "gnn": "Experiments on ImageNet show gains.",
}
PAPERS_PER_TOPIC = 30


def _paper(rng, field: str, aspects: list[str], closing: str) -> str:
    phrases = [field, *rng.choice(aspects, size=2, replace=False)]
    sentences = [str(rng.choice(FRAMES)).format(phrase) for phrase in phrases]
    return " ".join([*sentences, str(rng.choice(GENERIC)), closing])


def _corpus(seed: int = 0) -> tuple[list[str], np.ndarray, list[str]]:
    rng = np.random.default_rng(seed)
    texts, topics = [], []
    names = [*TOPICS, "two themes"]
    for number, name in enumerate(names):
        for i in range(PAPERS_PER_TOPIC):
            field, aspects = TWO_THEMES[i % 2] if name == "two themes" else TOPICS[name]
            texts.append(_paper(rng, field, aspects, CLOSINGS.get(name, "Experiments show gains.")))
            topics.append(number)
    return texts, np.array(topics), names


@pytest.fixture(scope="module")
def labelled():
    texts, topics, names = _corpus()
    table = PhraseTable(texts, topics, STOP)
    siblings = {names.index("rl"): [names.index("marl")], names.index("marl"): [names.index("rl")]}
    neighbours = {t: siblings.get(t, []) for t in range(len(names))}
    labels = topic_labels(table, neighbours)
    return table, {names[t]: label for t, label in labels.items()}, names


def test_candidates_are_noun_phrases_within_punctuation_without_numbers_or_stop_words_at_the_ends():
    found = paper_phrases(
        "We propose graph neural networks (GNNs) on 3d data; sets of arguments in 2020.", STOP
    )
    keys = set(found.forms)
    assert phrase_key("graph neural networks") in keys and ("3d",) in keys
    assert ("set", "of", "argument") in keys  # "X of Y" is a phrase
    assert not any(k[0] in STOP or k[-1] in STOP for k in keys)
    assert ("network", "gnn") not in keys  # never across a punctuation mark
    assert not any("2020" in k for k in keys)
    assert ("propose",) not in keys and ("data", "set") not in keys


def test_a_hyphenated_compound_with_a_stop_word_is_one_word_shown_with_its_hyphens():
    found = paper_phrases(
        "Few-shot learning for person re-identification under out-of-distribution shift; "
        "multi-agent systems.",
        STOP,
    )
    assert found.forms[phrase_key("few-shot learning")] == "few-shot learning"
    assert found.forms[phrase_key("person re-identification")] == "person re-identification"
    assert phrase_key("out-of-distribution shift") in found.forms
    # Without a stop word a compound reads as the vectorizer reads it, word by word.
    assert phrase_key("multi-agent systems") == ("multi", "agent", "system") in found.forms
    assert ("shot", "learning") not in found.forms and ("identification",) not in found.forms


def test_the_table_counts_each_phrase_as_reading_each_paper_alone_would():
    """The table reads each paper once for both of its passes; its counts must be those of
    ``paper_phrases`` applied to each paper on its own (the definition), here on real abstracts.
    """
    texts = [paper["text"] for seed in SEEDS for paper in parse_dump(seed, min_abstract_chars=20).papers]
    topics = np.arange(len(texts)) % 3
    longer = "learning with very many noisy labels"
    table = PhraseTable(texts, topics, STOP, extra_phrases=[longer])
    for topic, unit in table.units.items():
        counts, nominal, late, forms = Counter(), Counter(), Counter(), {}
        for row in np.flatnonzero(topics == topic):
            found = paper_phrases(texts[row], STOP, longest=len(phrase_key(longer)))
            counts.update(found.forms.keys())
            nominal.update(found.nominal)
            late.update(found.late)
            for key, form in found.forms.items():
                forms.setdefault(key, Counter())[form] += 1
        assert unit.candidates and unit.candidates <= counts.keys()
        for key in unit.counts:
            assert (unit.counts[key], unit.nominal[key], unit.late[key]) == (
                counts[key],
                nominal[key],
                late[key],
            )
            assert unit.forms[key] == forms[key]
        # Every phrase some topic counts as its own is counted in every topic that uses it.
        counted = set().union(*(u.candidates for u in table.units.values()))
        assert {key for key in counts if key in counted} <= unit.counts.keys()


def test_generic_words_never_label_a_topic(labelled):
    _, labels, _ = labelled
    phrases = [phrase_key(p) for label in labels.values() for p in label_phrases(label)]
    assert not [p for p in phrases if set(p) <= {"data", "model", "task", "proposed", "train"}]


def test_a_fragment_gives_way_to_the_phrase_that_completes_it(labelled):
    _, labels, _ = labelled
    assert "graph neural networks" in label_phrases(labels["gnn"])
    assert "time series forecasting" in label_phrases(labels["forecast"])
    phrases = [p for label in labels.values() for p in label_phrases(label)]
    assert "graph neural" not in phrases and "series forecasting" not in phrases


def test_a_data_set_never_stands_for_a_field(labelled):
    _, labels, _ = labelled
    assert "question answering" in label_phrases(labels["qa"])
    everything = " ".join(labels.values())
    assert "stanford" not in everything and "imagenet" not in everything and "dataset" not in everything


def test_no_phrase_repeats_another_and_siblings_are_told_apart(labelled):
    _, labels, _ = labelled
    for label in labels.values():
        phrases = [phrase_key(p) for p in label_phrases(label)]
        assert 1 <= len(phrases) <= 2
        assert len(phrases) == 1 or not repeats(*phrases), label
    rl, marl = (set(map(phrase_key, label_phrases(labels[t]))) for t in ("rl", "marl"))
    assert rl and marl and not rl & marl
    field, aspects = TOPICS["rl"]
    assert rl <= set(map(phrase_key, [field, *aspects]))
    assert phrase_key("multi-agent reinforcement learning") in marl


def test_two_themes_a_topic_holds_side_by_side_are_not_joined_in_its_label(labelled):
    _, labels, _ = labelled
    phrases = set(map(phrase_key, label_phrases(labels["two themes"])))
    themes = [set(map(phrase_key, [field, *aspects])) for field, aspects in TWO_THEMES]
    assert phrases <= themes[0] or phrases <= themes[1], labels["two themes"]


def test_repeats_finds_shared_words_word_forms_and_acronyms():
    assert repeats(("reinforcement",), ("reinforcement", "learning"))
    assert repeats(("vertex",), ("vertice",)) and repeats(("planning",), ("plan",))
    assert repeats(("answer", "set", "programming"), ("asp",))
    # A compound's parts count as words: "few-shot learning, shot" and "few-shot learning, fsl" repeat.
    assert repeats(phrase_key("few-shot learning"), ("shot",))
    assert repeats(phrase_key("few-shot learning"), ("fsl",))
    assert not repeats(("graph", "neural", "network"), ("node", "classification"))


def test_group_labels_say_what_the_group_shares_and_fit_the_map_whole(labelled):
    table, labels, names = labelled
    groups = [[names.index("rl"), names.index("marl")], [names.index("gnn"), names.index("qa")]]
    topic_label = {names.index(n): label for n, label in labels.items()}
    found = group_labels(table, groups, topic_label)
    assert phrase_key("reinforcement learning") in map(phrase_key, label_phrases(found[0]))
    assert found[0] != found[1]
    for label in found:
        assert len(label_lines(label)) <= GROUP_LABEL_LINES and all(
            len(p.split()) <= 4 for p in label_phrases(label)
        )


@pytest.mark.parametrize(
    ("earlier", "kept"),
    [
        ("multi agent reinforcement learning", True),  # four words
        ("multi agent reinforcement learning, cooperative tasks", True),
        ("centralised training, cooperative tasks", True),
        ("reinforcement learning, policy optimization", False),  # the sibling's phrases
        ("graph neural networks", False),  # another topic's three words
    ],
)
def test_an_earlier_label_is_kept_while_each_of_its_phrases_still_names_the_topic(earlier, kept):
    texts, topics, names = _corpus()
    table = PhraseTable(texts, topics, STOP, extra_phrases=label_phrases(earlier))
    marl = names.index("marl")
    assert label_still_fits(earlier, lambda phrase, main: table.fits(marl, phrase, main)) is kept
    fresh = {marl: "fresh label"}
    labels, relabelled = carry_labels(fresh, table.fits, {marl: earlier})
    assert (labels[marl] == earlier) is kept and bool(relabelled) is not kept


def test_labels_do_not_depend_on_the_order_of_the_papers():
    texts, topics, _ = _corpus()
    order = np.random.default_rng(3).permutation(len(texts))
    one = topic_labels(PhraseTable(texts, topics, STOP), {t: [] for t in set(topics.tolist())})
    other = topic_labels(
        PhraseTable([texts[i] for i in order], topics[order], STOP), {t: [] for t in set(topics.tolist())}
    )
    assert one == other


# Topics whose papers each say their field word and, in the given shares of them, further phrases:
# in "nlp", "database schemas" is more common than "natural language processing" (it scores higher),
# but its meaning is not the topic's as surely.
PLACED_TOPICS = {
    "nlp": ("sentences", [("database schemas", 0.7), ("natural language processing", 0.4)]),
    "databases": ("query optimization", [("indexes", 0.6), ("transactions", 0.5), ("tables", 0.1)]),
    "vision": ("pixels", [("images", 0.6), ("computer vision", 0.5)]),
}


@pytest.fixture(scope="module")
def placed(seed_encoder):
    rng = np.random.default_rng(0)
    texts, topics = [], []
    for number, (field, aspects) in enumerate(PLACED_TOPICS.values()):
        for i in range(PAPERS_PER_TOPIC):
            phrases = [field, *(p for p, share in aspects if i < round(share * PAPERS_PER_TOPIC))]
            sentences = [str(rng.choice(FRAMES)).format(phrases[j]) for j in rng.permutation(len(phrases))]
            texts.append(" ".join([*sentences, str(rng.choice(GENERIC))]))
            topics.append(number)
    topics = np.array(topics)
    encoder = seed_encoder.model
    vectors = np.asarray(encoder.encode(texts, normalize_embeddings=True))
    real = list(range(len(PLACED_TOPICS)))
    placement = PhrasePlacement(encoder, dict(zip(real, topic_centroids(vectors, topics, real), strict=True)))
    return PhraseTable(texts, topics, STOP), placement, list(PLACED_TOPICS)


def test_a_phrase_is_placed_in_the_topic_its_meaning_is_nearest(placed):
    _, placement, names = placed
    phrases = ["computer vision", "natural language processing", "transactions"]
    shares = np.vstack([placement.shares(t, phrases) for t in range(len(names))])
    assert np.allclose(shares.sum(axis=0), 1) and (shares > 0).all()
    assert list(shares.argmax(axis=0)) == [names.index(n) for n in ("vision", "nlp", "databases")]


def test_the_second_phrase_is_the_one_whose_meaning_is_most_the_topics(placed):
    table, placement, names = placed
    neighbours = {t: [n for n in range(len(names)) if n != t] for t in range(len(names))}
    by_score = topic_labels(table, neighbours)
    by_meaning = topic_labels(table, neighbours, placement)
    nlp = names.index("nlp")
    assert by_score[nlp] == "sentences, database schemas"
    assert by_meaning[nlp] == "sentences, natural language processing"
    # The first phrase is the best scoring one either way.
    assert all(label_phrases(by_meaning[t])[0] == label_phrases(by_score[t])[0] for t in by_score)


def test_placement_chooses_only_among_the_phrases_that_may_be_second(labelled):
    table, _, names = labelled
    # A placement that prefers the lowest scoring phrases: the rules still bound its choice.
    last_first = lambda forms: np.linspace(0.1, 1, len(forms))  # noqa: E731
    changed = 0
    for topic in range(len(names)):
        unit = table.units[topic]
        ranked = table.ranked(unit)
        placed = choose_label(table, unit, ranked, placement=last_first)
        changed += placed != choose_label(table, unit, ranked)
        phrases = label_phrases(placed)
        if len(phrases) == 2:
            first, second = ranked[0], phrase_key(phrases[1])
            assert table.score(unit, second) >= SECOND_PHRASE_SCORE * table.score(unit, first)
            assert not repeats(first, second) and table.co_lift(unit, first, second) >= MIN_CO_LIFT
    assert changed


# A small topic in a larger field: every "fsl" paper says "classes", as do many of the field's
# other papers; "unseen classes" and "prototypes" are the topic's (and its neighbour's) own, said
# first (a phrase most papers say only late is a finding, not a field).
FIELD_TOPICS = [
    "graph mining",
    "speech recognition",
    "program synthesis",
    "image retrieval",
    "theorem proving",
    "crowdsourcing",
    "auctions",
    "robot navigation",
]


def test_a_one_word_second_phrase_is_the_topics_not_the_whole_fields():
    rng = np.random.default_rng(0)
    texts, topics = [], []

    def paper(topic: int, phrases: list[str]) -> None:
        sentences = [str(rng.choice(FRAMES)).format(phrase) for phrase in phrases]
        texts.append(" ".join([*sentences, str(rng.choice(GENERIC))]))
        topics.append(topic)

    for i in range(PAPERS_PER_TOPIC):
        shared = ["unseen classes"] * (i < 10) + ["prototypes"] * (i < 6)
        paper(0, [*shared, "few-shot learning", "classes"])
        paper(1, [*shared, "meta learning", "few-shot learning"])
    for number, field in enumerate(FIELD_TOPICS, start=2):
        for i in range(50):
            paper(number, [field, *["classes"] * (number * 50 + i < 270)])
    # A field whose authors list "prototypes" alone as a keyword (1 paper in 2 writing it).
    listed = Keyphraseness(Counter({("prototype",): 5}), Counter({("prototype",): 10}))
    table = PhraseTable(texts, np.array(topics), STOP, prior=listed)
    unit = table.units[0]
    ranked = table.ranked(unit)
    classes = phrase_key("classes")
    assert ranked[0] == phrase_key("few-shot learning") and classes in ranked
    assert table.score(unit, classes) >= SECOND_PHRASE_SCORE * table.score(unit, ranked[0])
    # A placement that prefers one word to several: a single word comes second only where it is
    # one of the topic's keywords, and the field's word never does.
    one_word_first = lambda forms: np.array([1.0 if len(f.split()) == 1 else 0.1 for f in forms])  # noqa: E731
    assert choose_label(table, unit, ranked, placement=one_word_first) == "few-shot learning, unseen classes"
    keywords = [phrase_key("prototypes"), classes]
    placed = choose_label(table, unit, ranked, placement=one_word_first, keywords=keywords)
    assert placed == "few-shot learning, prototypes"
    assert choose_label(table, unit, ranked) == "few-shot learning, unseen classes"
    # Where the field does not list the word alone (the shipped table), it is no second phrase.
    shipped = PhraseTable(texts, np.array(topics), STOP)
    placed = choose_label(shipped, shipped.units[0], ranked, placement=one_word_first, keywords=keywords)
    assert placed == "few-shot learning, unseen classes"


def test_a_second_phrase_whose_meaning_lies_elsewhere_is_left_out(placed):
    table, placement, names = placed
    nlp = names.index("nlp")
    unit = table.units[nlp]
    ranked = table.ranked(unit)
    shares = lambda forms: placement.shares(nlp, forms)  # noqa: E731
    both = choose_label(table, unit, ranked, placement=shares)
    assert both == "sentences, natural language processing"
    share = float(shares(["natural language processing"])[0])
    # "natural language processing" is mostly the nlp topic's, but not wholly.
    assert 1 / len(names) < share < 1
    assert choose_label(table, unit, ranked, placement=shares, least_share=share) == both
    # Without a second of its theme, a word the field lists alone is the whole label; one it does
    # not (the shipped table: "sentences") keeps the name of another part beside it.
    assert choose_label(table, unit, ranked, placement=shares, least_share=share + 1e-6) == both
    shipped = table.prior
    table.prior = Keyphraseness(Counter({("sentence",): 5}), Counter({("sentence",): 10}))
    try:
        assert choose_label(table, unit, ranked, placement=shares, least_share=share + 1e-6) == "sentences"
    finally:
        table.prior = shipped


def test_a_titles_longer_form_leaves_the_phrase_its_text_uses_a_name():
    # Six papers on super-resolution, four of them titled by a longer form; beside them, papers of
    # another field so that the phrases are the topic's own.
    texts = [f"We study super-resolution of images. Super-resolution helps case {i}." for i in range(6)]
    texts += [f"We study graph neural networks. Message passing on graphs, case {i}." for i in range(6)]
    titles = ["Single image super-resolution with priors"] * 4 + ["Super-resolution"] * 2 + [""] * 6
    topics = np.array([0] * 6 + [1] * 6)
    whole, longer = phrase_key("super resolution"), phrase_key("image super resolution")
    titled = PhraseTable(texts, topics, STOP, titles=titles)
    unit = titled.units[0]
    assert unit.counts[longer] == 4 and unit.title_only[longer] == 4
    assert whole in titled.ranked(unit)
    # Said so in the abstracts themselves, the longer form completes the shorter, which gives way.
    said = [
        f"Single image super-resolution with priors. {text}" if i < 4 else text
        for i, text in enumerate(texts)
    ]
    abstracts = PhraseTable(said, topics, STOP)
    assert whole not in abstracts.ranked(abstracts.units[0])


def test_a_group_is_named_by_a_shared_phrase_of_two_or_more_words_not_one_word():
    # Two graph topics: every paper's title says "graph", a third of them "graph algorithms".
    subjects = {
        0: ("Coloring a graph", "coloring of sparse inputs with local search and tabu moves"),
        1: ("Matching on a graph", "matching of shapes by spectral embeddings and retrieval"),
        2: ("Protein folding", "protein folding prediction from sequences with attention"),
        3: ("Speech recognition", "speech recognition from raw audio with acoustic features"),
    }
    texts, titles, topics = [], [], []
    for topic, (name, body) in subjects.items():
        for paper in range(12):
            method = ", with graph algorithms" if topic < 2 and paper < 4 else ""
            titles.append(f"{name}{method} in setting {chr(97 + paper)}")
            texts.append(f"{titles[-1]}. We study {body}." + (" Each graph is large." if topic < 2 else ""))
            topics.append(topic)
    table = PhraseTable(texts, np.array(topics), STOP, titles=titles)
    topic_label = {0: "coloring", 1: "matching", 2: "protein folding", 3: "speech recognition"}
    assert group_labels(table, [[0, 1], [2, 3]], topic_label)[0] == "graph algorithms"
