"""Each stage's knobs, read from the validated config in this one place.

One small frozen dataclass per stage that has knobs, each built by ``from_config`` from the config
that ``workflow/rules/common.smk`` has checked against the schema (a misspelt key stops the run
there, naming it). The rules pass a stage its knobs as one dict (``params: knobs=...``, see
``knobs``): Snakemake records a rule's params as values without names, so two knobs of one stage
swapping values would go unnoticed as separate params; a dict is recorded with its keys. The stage
rebuilds the dataclass from that dict, and the benchmarks build it from their config as the rules do.

A stage reads its own section, and another's only where it says so here: the topics stage reads
the embedding model (for the guide and the labels' second phrases), ``lineage`` (how its topics
continue the previous run's) and ``report.coarse_topics`` (the topic groups, made with the topics).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from typing import ClassVar


def knobs(settings) -> dict:
    """A stage's settings as the rule's ``knobs`` param (a dict, keys in field order)."""
    return asdict(settings)


class _Section:
    """Settings that are one config section's keys (``section``), field for field."""

    section: ClassVar[str]

    @classmethod
    def from_config(cls, config: dict):
        """The knobs from the validated ``config``."""
        return cls(**{f.name: config[cls.section][f.name] for f in fields(cls)})


@dataclass(frozen=True)
class ParseSettings(_Section):
    """``parse``: which records are papers, and where a table keeps its abstracts."""

    section: ClassVar[str] = "parse"

    min_abstract_chars: int
    abstract_column: str | None


@dataclass(frozen=True)
class EmbeddingSettings(_Section):
    """``embedding``: the model and how it runs (``threads`` and ``shard_size`` are the rules' own:
    a job's threads and how a dump is split into jobs).
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
class ClusterSettings:
    """``hdbscan``, and how the clusters are made with ``update: place`` (``placement``)."""

    min_cluster_size: int | str
    min_samples: int | None
    cluster_selection_method: str
    max_cluster_share: float
    update_mode: str
    placement: dict

    @classmethod
    def from_config(cls, config: dict) -> ClusterSettings:
        """The knobs from the validated ``config``."""
        return cls(**config["hdbscan"], update_mode=config["update"], placement=config["placement"])

    def hdbscan(self) -> dict:
        """The HDBSCAN knobs (``papertopics.mapping.cluster.cluster_points``)."""
        return {f.name: getattr(self, f.name) for f in fields(self)[:4]}


@dataclass(frozen=True)
class TopicStageSettings:
    """``topics`` and ``lineage``, with the embedding model that the guide and the labels' second
    phrases are placed by, and ``report.coarse_topics``: the topic groups the report shows are made
    here, so that knob reruns this stage (and what follows). The field order is that of
    ``topic_details.json``'s settings.
    """

    embedding_model: str
    max_seq_length: int
    guide_names: list[str]
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
    coarse_topics: int | str
    min_overlap: float
    min_similarity: float

    @classmethod
    def from_config(cls, config: dict) -> TopicStageSettings:
        """The knobs from the validated ``config``."""
        topics, guide = config["topics"], config["topics"]["guide"]
        return cls(
            embedding_model=config["embedding"]["model"],
            max_seq_length=config["embedding"]["max_seq_length"],
            # A guide file is an input of the rule instead (editing it reruns the stage).
            guide_names=guide if isinstance(guide, list) else [],
            **{name: topics[name] for name in _TOPICS_KNOBS},
            coarse_topics=config["report"]["coarse_topics"],
            min_overlap=config["lineage"]["min_overlap"],
            min_similarity=config["lineage"]["min_similarity"],
        )

    def recorded(self) -> dict:
        """The knobs ``topic_details.json`` records (the model's name is recorded on its own)."""
        return {name: value for name, value in asdict(self).items() if name not in _NOT_RECORDED}


_NOT_RECORDED = {"embedding_model", "max_seq_length", "guide_names", "save_ctfidf"}
_TOPICS_KNOBS = (
    "save_ctfidf",
    "ngram_range",
    "stop_words",
    "top_n_words",
    "n_representative_docs",
    "reduce_outliers",
    "reduce_frequent_words",
    "representation",
    "mmr_diversity",
    "min_keyword_share",
    "guide_min_similarity",
)


@dataclass(frozen=True)
class ChangeSettings:
    """``compare`` (``papertopics.changes.compare.CompareSettings``), and ``topics.stop_words``:
    the bursting terms are counted as the topics' keywords are.
    """

    compare: dict
    stop_words: str | None

    @classmethod
    def from_config(cls, config: dict) -> ChangeSettings:
        """The knobs from the validated ``config``."""
        return cls(compare=config["compare"], stop_words=config["topics"]["stop_words"])


@dataclass(frozen=True)
class EvaluateSettings(_Section):
    """``evaluate``: how many keywords of each topic its coherence reads."""

    section: ClassVar[str] = "evaluate"

    top_n_words: int


@dataclass(frozen=True)
class ReportSettings(_Section):
    """``report``: the page's heading and how much of an abstract a map point shows."""

    section: ClassVar[str] = "report"

    title: str
    hover_chars: int


@dataclass(frozen=True)
class SimilarSettings(_Section):
    """``report.similar_papers`` and ``report.similar_exact_up_to``: each paper's similar papers,
    found by their own job.
    """

    section: ClassVar[str] = "report"

    similar_papers: int
    similar_exact_up_to: int


@dataclass(frozen=True)
class ReceptionStageSettings:
    """``reception``, and ``compare``'s interval level and grading: a reception finding is graded
    as a trend is.
    """

    reception: dict
    confidence: float
    false_discovery_rate: float
    suggestive_q: float

    @classmethod
    def from_config(cls, config: dict) -> ReceptionStageSettings:
        """The knobs from the validated ``config``."""
        compare = config["compare"]
        return cls(
            reception=config["reception"],
            confidence=compare["confidence"],
            false_discovery_rate=compare["false_discovery_rate"],
            suggestive_q=compare["suggestive_q"],
        )
