"""Each stage's knobs, read from the validated config in this one place.

One small frozen dataclass per stage that has knobs, built by ``from_config`` from the config that
``workflow/rules/common.smk`` has checked against the schema and filled in with the schema's
defaults (``snakemake.utils.validate``): the schema is the one place a default is written, so no
field here has one. Each field names the config key it reads (``_Settings``): its own section's
key of the same name unless ``knob`` says another; a field that is not a knob (the dumps' order)
is ``given`` by the rule. The rules pass a stage its knobs as one dict, always in the same shape
(``params: knobs=knobs(<Stage>Settings.from_config(config))``): Snakemake records a rule's params
as values without names, so two knobs of one stage swapping values would go unnoticed as separate
params; a dict is recorded with its keys. The stage rebuilds the dataclass from that dict
(``<Stage>Settings(**knobs)``) and passes it on as is; the benchmarks build it from their config
as the rules do.

A stage reads its own section, and another's only where its fields say so: the topics stage reads
the embedding model (for the guide and the labels' second phrases), ``lineage`` (how its topics
continue the previous run's) and ``report.coarse_topics`` (the topic groups, made with the topics).

Adding a knob to a stage: its schema entry (description, default), its field here, and the code
that reads it.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields
from typing import ClassVar


def knobs(settings) -> dict:
    """A stage's settings as the rule's ``knobs`` param: a dict, keys in field order (fixed by the
    dataclass), each value ``canonical``.
    """
    return {name: canonical(value) for name, value in asdict(settings).items()}


def canonical(value):
    """``value`` with every dict in it, at any depth, keyed in sorted order.

    Snakemake records a dict-valued param by its ``repr``, which follows the keys' order: a
    config.yaml rewritten with the same values in another key order (a YAML formatter,
    ``yaml.safe_dump``) would otherwise rerun every stage whose param holds a config section.
    """
    if isinstance(value, dict):
        return {key: canonical(value[key]) for key in sorted(value)}
    if isinstance(value, list | tuple):
        return type(value)(canonical(item) for item in value)
    return value


def knob(*key: str, read=None):
    """A field read from another config key than its section's key of its own name: ``key`` is
    the path (``"update"``, or a section and a key); ``read`` turns the config's value into the
    field's.
    """
    return field(metadata={"key": key, "read": read})


def given(why: str):
    """A field that is no config knob but given by the rule (``from_config``'s keyword arguments)."""
    return field(metadata={"given": why})


def config_key(settings_class, setting) -> tuple[str, ...] | None:
    """The config path a field of ``settings_class`` reads (None: given by the rule)."""
    if "given" in setting.metadata:
        return None
    return setting.metadata.get("key") or (settings_class.section, setting.name)


class _Settings:
    """Settings read from the validated config, field by field (see ``config_key``)."""

    section: ClassVar[str]

    @classmethod
    def from_config(cls, config: dict, **given_values):
        """The knobs from the validated ``config``, and the fields given by the rule."""
        values = {}
        for setting in fields(cls):
            key = config_key(cls, setting)
            if key is None:
                values[setting.name] = given_values[setting.name]
                continue
            value = config
            for part in key:
                value = value[part]
            read = setting.metadata.get("read")
            values[setting.name] = read(value) if read else value
        return cls(**values)


@dataclass(frozen=True)
class ParseSettings(_Settings):
    """``parse``: which records are papers, and where a table keeps its abstracts; and
    ``reception``'s fields, which parsing keeps out of the papers' text part (what the stages
    before reception read), so that editing a decision reruns no stage that does not read it.
    """

    section: ClassVar[str] = "parse"

    min_abstract_chars: int
    abstract_column: str | None
    decision_field: str = knob("reception", "decision_field")
    ratings_field: str = knob("reception", "ratings_field")
    citations_field: str = knob("reception", "citations_field")

    def reception_fields(self) -> tuple[str, ...]:
        """The fields that say how a paper was received, as the reception stage names them."""
        return (self.decision_field, self.ratings_field, self.citations_field)


@dataclass(frozen=True)
class EmbeddingSettings(_Settings):
    """``embedding``: the model and how it runs (``threads`` and ``shard_size`` are the rules' own:
    a job's threads and how a dump is split into jobs). The gathering of a sharded dump reads the
    model's name and window; it is remade with its shards anyway when any of these changes.
    """

    section: ClassVar[str] = "embedding"

    model: str
    backend: str
    device: str
    batch_size: int
    max_seq_length: int
    cache_dir: str
    model_cache_dir: str


@dataclass(frozen=True)
class PeriodSettings(_Settings):
    """``compare.by``: which period (dump or year) and which group each paper belongs to."""

    section: ClassVar[str] = "compare"

    compare_by: str | list = knob("compare", "by")
    dump_order: list[str] = given("the dumps in the order of inputs: their order when comparing dumps")


@dataclass(frozen=True)
class NeighbourSettings(_Settings):
    """The ``umap`` knobs the neighbour graph reads (not the layout's), and ``update``: under
    ``update: place`` the new papers are placed on the last fit instead.
    """

    section: ClassVar[str] = "umap"

    update_mode: str = knob("update")
    n_neighbors: int | str
    metric: str
    random_state: int
    word_weight: float
    word_dimensions: int
    fit_sample_size: int | None
    exact_neighbours_up_to: int

    def umap(self) -> dict:
        """The fields read from the ``umap`` section, by name, in field order (the knobs of
        ``papertopics.mapping.reduce.neighbour_graph`` or of a ``Projection``).
        """
        return {
            setting.name: getattr(self, setting.name)
            for setting in fields(self)
            if (config_key(type(self), setting) or ("",))[0] == "umap"
        }


@dataclass(frozen=True)
class MapSettings(NeighbourSettings):
    """The ``umap`` knobs the 2-d map reads: the neighbour graph's and the layout's."""

    min_dist: float
    n_epochs: int | str


@dataclass(frozen=True)
class ClusterSpaceSettings(MapSettings):
    """The ``umap`` knobs the cluster space reads (the reduce stage's, and a consensus run's with
    its own seed): the map's and the dimensions.
    """

    n_components: int


@dataclass(frozen=True)
class ClusterSettings(_Settings):
    """``hdbscan``, and how the clusters are made with ``update: place`` (``placement``)."""

    section: ClassVar[str] = "hdbscan"

    min_cluster_size: int | str
    min_samples: int | None
    cluster_selection_method: str
    max_cluster_share: float
    update_mode: str = knob("update")
    refit_margin: float = knob("placement", "refit_margin")
    new_topic_min_size: int = knob("placement", "new_topic_min_size")
    new_topic_max_similarity: float = knob("placement", "new_topic_max_similarity")


def _guide_names(guide) -> list[str]:
    # A guide file is an input of the rule instead (editing it reruns the stage).
    return guide if isinstance(guide, list) else []


@dataclass(frozen=True)
class TopicStageSettings(_Settings):
    """``topics`` and ``lineage``, with the embedding model that the guide and the labels' second
    phrases are placed by (and the cache folder their vectors are kept in), and ``report.coarse_topics``: the topic groups the report shows are made
    here, so that knob reruns this stage (and what follows). The field order is that of
    ``topic_details.json``'s settings. The keyword knobs (``ngram_range`` to ``min_keyword_share``)
    are BERTopic's (``papertopics.topics.fit.fit_topic_model``).
    """

    section: ClassVar[str] = "topics"

    embedding_model: str = knob("embedding", "model")
    max_seq_length: int = knob("embedding", "max_seq_length")
    embedding_cache_dir: str = knob("embedding", "cache_dir")
    guide_names: list[str] = knob("topics", "guide", read=_guide_names)
    save_ctfidf: bool
    ngram_range: list[int]
    stop_words: str | None
    top_n_words: int
    n_representative_docs: int
    reduce_outliers: bool
    reduce_frequent_words: bool
    representation: str
    mmr_diversity: float
    min_keyword_share: float
    guide_min_similarity: float
    label_keyword_min_papers: int
    further_topic_min_weight: float
    coarse_topics: int | str = knob("report", "coarse_topics")
    min_overlap: float = knob("lineage", "min_overlap")
    min_similarity: float = knob("lineage", "min_similarity")

    def recorded(self) -> dict:
        """The knobs ``topic_details.json`` records (the model's name is recorded on its own)."""
        return {name: value for name, value in asdict(self).items() if name not in _NOT_RECORDED}


_NOT_RECORDED = {"embedding_model", "max_seq_length", "embedding_cache_dir", "guide_names", "save_ctfidf"}


@dataclass(frozen=True)
class CompareSettings(_Settings):
    """``compare``: how periods, venues and topics are compared (see the config schema for each
    one's meaning and default); the venues stage's knobs.
    """

    section: ClassVar[str] = "compare"

    by: str | list
    baseline: str | int
    target: str | int
    confidence: float
    false_discovery_rate: float
    suggestive_q: float
    new_topic_share: float
    faded_topic_share: float
    min_papers: int
    min_period_papers: int
    min_wording_papers: int
    burst_scaling: float
    burst_transition_cost: float
    burst_min_papers: int
    burst_min_concentration: float
    min_effect_points: float
    recent_periods: int
    shape_min_periods: int
    shape_permutations: int
    burst_stop_share: float
    bursts_shown: int
    theme_min_papers: int
    theme_min_explained: float
    theme_permutations: int


@dataclass(frozen=True)
class ChangeSettings(CompareSettings):
    """The changes stage's knobs: ``compare``, and ``topics.stop_words``: the bursting terms are
    counted as the topics' keywords are.
    """

    stop_words: str | None = knob("topics", "stop_words")


@dataclass(frozen=True)
class EvaluateSettings(_Settings):
    """``evaluate``: how many keywords of each topic its coherence reads."""

    section: ClassVar[str] = "evaluate"

    top_n_words: int


@dataclass(frozen=True)
class ReportSettings(_Settings):
    """``report``: the page's heading and how much of an abstract a map point shows."""

    section: ClassVar[str] = "report"

    title: str
    hover_chars: int


@dataclass(frozen=True)
class SimilarSettings(_Settings):
    """``report.similar_papers`` and ``report.similar_exact_up_to``: each paper's similar papers,
    found by their own job.
    """

    section: ClassVar[str] = "report"

    similar_papers: int
    similar_exact_up_to: int


@dataclass(frozen=True)
class PeopleSettings(_Settings):
    """``people``: how many names each topic lists, its experts, the fewest papers a name needs
    to be tested, the columns that carry affiliations and countries, and whether the report shows
    people at all (``in_report: false`` for a copy meant to be shared); and the levels its tests
    are graded at, ``compare``'s (the rest of ``compare`` does not rerun the stage).
    """

    section: ClassVar[str] = "people"

    in_report: bool
    top: int
    experts: int
    min_papers: float
    affiliation_column: str | None
    country_column: str | None
    confidence: float = knob("compare", "confidence")
    false_discovery_rate: float = knob("compare", "false_discovery_rate")
    suggestive_q: float = knob("compare", "suggestive_q")


@dataclass(frozen=True)
class ReceptionStageSettings(_Settings):
    """``reception``: the columns that carry decisions, ratings and citations, which decisions
    count as accepted, the fewest papers a topic needs, whether decisions and ratings are shown;
    and ``compare``'s interval level and grading: a reception finding is graded as a trend is.
    """

    section: ClassVar[str] = "reception"

    decision_field: str
    ratings_field: str
    citations_field: str
    accepted: list[str]
    min_papers: int
    in_report: bool
    confidence: float = knob("compare", "confidence")
    false_discovery_rate: float = knob("compare", "false_discovery_rate")
    suggestive_q: float = knob("compare", "suggestive_q")


@dataclass(frozen=True)
class ReplicateSettings(ClusterSpaceSettings):
    """A replicate of the robustness stage: the cluster space's ``umap`` knobs and ``hdbscan``'s,
    as the main run projects and clusters, with ``robustness.sample_share`` and the replicate's
    number (its seed is drawn from it and ``umap.random_state``).
    """

    sample_share: float = knob("robustness", "sample_share")
    min_cluster_size: int | str = knob("hdbscan", "min_cluster_size")
    min_samples: int | None = knob("hdbscan", "min_samples")
    cluster_selection_method: str = knob("hdbscan", "cluster_selection_method")
    max_cluster_share: float = knob("hdbscan", "max_cluster_share")
    replicate: int = given("the replicate's number, 1 to robustness.replicates")

    def hdbscan(self) -> dict:
        """The knobs of ``papertopics.mapping.cluster.cluster_points``."""
        return {
            "min_cluster_size": self.min_cluster_size,
            "min_samples": self.min_samples,
            "cluster_selection_method": self.cluster_selection_method,
            "max_cluster_share": self.max_cluster_share,
        }


@dataclass(frozen=True)
class FindingSettings(CompareSettings):
    """The finding_robustness stage's knobs: the tests it reruns in each replicate are the
    changes and venues stages' (``compare``), the reception stage's (``reception``: its fields,
    which decisions count as accepted, the fewest papers a topic needs) and the people stage's
    (``people``: the fewest papers a name needs, the columns of affiliations and countries), and
    the stop words the bursts' terms are counted with (``topics.stop_words``).
    """

    decision_field: str = knob("reception", "decision_field")
    ratings_field: str = knob("reception", "ratings_field")
    citations_field: str = knob("reception", "citations_field")
    accepted: list[str] = knob("reception", "accepted")
    reception_min_papers: int = knob("reception", "min_papers")
    people_min_papers: float = knob("people", "min_papers")
    affiliation_column: str | None = knob("people", "affiliation_column")
    country_column: str | None = knob("people", "country_column")
    # The bursts' terms are counted as the changes stage counts them.
    stop_words: str | None = knob("topics", "stop_words")


def umap_knobs(settings_class: type[NeighbourSettings], umap: dict) -> dict:
    """The ``umap`` knobs of ``settings_class`` (``NeighbourSettings`` or a projection's) from a
    ``umap`` section alone: the warm-up and the benchmarks project without placing on a fit.
    """
    return settings_class.from_config({"umap": umap, "update": "refit"}).umap()
