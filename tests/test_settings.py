"""Each stage's knobs come from the validated config in one place (papertopics.settings), and a
misspelt knob in any section stops the run at start, naming its key.
"""

from __future__ import annotations

import dataclasses

import pytest
import yaml
from conftest import REPO, default_config
from papertopics import settings
from papertopics.runtime.startup import config_problems
from papertopics.topics.stages import run_settings

from bench.quality_runs import topic_settings

SCHEMA = REPO / "workflow" / "schemas" / "config.schema.yaml"
STAGE_SETTINGS = [
    settings.ParseSettings,
    settings.EmbeddingSettings,
    settings.ClusterSettings,
    settings.TopicStageSettings,
    settings.ChangeSettings,
    settings.EvaluateSettings,
    settings.ReportSettings,
    settings.SimilarSettings,
    settings.ReceptionStageSettings,
]


def _sections() -> list[str]:
    schema = yaml.safe_load(SCHEMA.read_text(encoding="utf-8"))
    return [name for name, section in schema["properties"].items() if section.get("type") == "object"]


@pytest.mark.parametrize("section", _sections())
def test_a_misspelt_knob_in_any_section_is_named_with_the_allowed_keys(section):
    config = default_config()
    config.setdefault(section, {})["no_such_knob"] = 1
    problems = config_problems(config, SCHEMA)
    assert len(problems) == 1
    assert problems[0].startswith(
        f"{section}: Additional properties are not allowed ('no_such_knob' was unexpected)"
    )
    assert "the allowed keys are" in problems[0]


@pytest.mark.parametrize("kind", STAGE_SETTINGS, ids=lambda kind: kind.__name__)
def test_every_stage_settings_round_trip_through_the_rule_param(kind):
    built = kind.from_config(default_config())
    assert kind(**settings.knobs(built)) == built
    # The param a rule records is a dict: its keys are recorded with the values.
    assert list(settings.knobs(built)) == [f.name for f in dataclasses.fields(kind)]


def test_every_topics_knob_changes_the_stage_settings():
    """No knob of the topics, lineage sections is left out (bench once dropped three)."""
    base = default_config()
    built = settings.TopicStageSettings.from_config(base)
    for section, key, value in [
        *[("topics", key, object()) for key in base["topics"] if key not in {"guide", "curation"}],
        *[("lineage", key, object()) for key in base["lineage"]],
        ("report", "coarse_topics", object()),
        ("topics", "guide", ["a name"]),
    ]:
        changed = {**base, section: {**base[section], key: value}}
        assert settings.TopicStageSettings.from_config(changed) != built, f"{section}.{key}"


def test_the_benchmarks_run_the_topics_stage_with_its_own_settings():
    config = default_config()
    config["lineage"] = {"min_overlap": 0.5, "min_similarity": 0.7}
    config["topics"] = {**config["topics"], "guide_min_similarity": 0.55, "mmr_diversity": 0.6}
    stage = run_settings(settings.TopicStageSettings.from_config(config))
    assert topic_settings(config) == dataclasses.replace(stage, n_representative_docs=1)
    assert (stage.min_overlap, stage.min_similarity, stage.guide_min_similarity) == (0.5, 0.7, 0.55)
    assert stage.keywords["mmr_diversity"] == 0.6
