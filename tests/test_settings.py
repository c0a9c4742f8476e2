"""Each stage's knobs come from the validated config in one place (papertopics.settings), and a
misspelt knob in any section stops the run at start, naming its key.
"""

from __future__ import annotations

import dataclasses
import re

import pytest
import yaml
from conftest import REPO, default_config
from papertopics import settings
from papertopics.runtime.startup import config_problems

from bench.quality_runs import topic_settings

SCHEMA = REPO / "workflow" / "schemas" / "config.schema.yaml"
STAGE_SETTINGS = [
    settings.ParseSettings,
    settings.EmbeddingSettings,
    settings.PeriodSettings,
    settings.NeighbourSettings,
    settings.MapSettings,
    settings.ClusterSpaceSettings,
    settings.ClusterSettings,
    settings.TopicStageSettings,
    settings.CompareSettings,
    settings.ChangeSettings,
    settings.EvaluateSettings,
    settings.ReportSettings,
    settings.SimilarSettings,
    settings.PeopleSettings,
    settings.ReceptionStageSettings,
]
RULES = REPO / "workflow" / "rules"


def _built(kind, config: dict):
    """``kind`` from ``config`` as its rule builds it (the groups rule gives the dumps' order)."""
    return kind.from_config(config, **({"dump_order": ["a", "b"]} if kind is settings.PeriodSettings else {}))


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
    built = _built(kind, default_config())
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
    stage = settings.TopicStageSettings.from_config(config)
    assert topic_settings(config) == dataclasses.replace(stage, n_representative_docs=1)
    assert (stage.min_overlap, stage.min_similarity, stage.guide_min_similarity) == (0.5, 0.7, 0.55)
    assert stage.mmr_diversity == 0.6


def _schema_entry(schema: dict, key: tuple[str, ...]) -> dict:
    entry = {"properties": schema["properties"]}
    for part in key:
        entry = entry["properties"][part]
    return entry


@pytest.mark.parametrize("kind", STAGE_SETTINGS, ids=lambda kind: kind.__name__)
def test_every_settings_field_has_its_default_in_the_schema_alone(kind):
    """The schema is the one place a default is written: no field has one of its own, and every
    knob a field reads is a schema entry with a default, which is what the stage gets when the
    config leaves the key out.
    """
    schema = yaml.safe_load(SCHEMA.read_text(encoding="utf-8"))
    for setting in dataclasses.fields(kind):
        assert setting.default is dataclasses.MISSING, f"{kind.__name__}.{setting.name} has a default"
        assert setting.default_factory is dataclasses.MISSING, f"{kind.__name__}.{setting.name}"
        key = settings.config_key(kind, setting)
        if key is None:
            assert setting.name == "dump_order"  # the only field given by its rule, not the config
            continue
        assert "default" in _schema_entry(schema, key), f"{kind.__name__}.{setting.name}: {key}"
    # Every field reads the key it names: a changed value there changes that field alone.
    base = default_config()
    for setting in dataclasses.fields(kind):
        key = settings.config_key(kind, setting)
        if key is None:
            continue
        changed = yaml.safe_load(yaml.safe_dump(base))
        holder = changed
        for part in key[:-1]:
            holder = holder[part]
        holder[key[-1]] = ["a changed value"]
        before, after = dataclasses.asdict(_built(kind, base)), dataclasses.asdict(_built(kind, changed))
        assert [name for name in before if before[name] != after[name]] == [setting.name]


def _rule_params(text: str) -> dict[str, list[str]]:
    """Each rule's ``params:`` lines (a rule without params: none)."""
    found = {}
    for rule in re.split(r"^(?:rule|checkpoint) ", text, flags=re.MULTILINE)[1:]:
        name = rule.split(":", 1)[0]
        block = re.search(r"^    params:\n((?:        .*\n|\s*#.*\n)+)", rule, flags=re.MULTILINE)
        found[name] = [] if block is None else [line.strip() for line in block.group(1).splitlines()]
    return found


def test_every_rule_passes_its_knobs_in_one_shape():
    """A stage's knobs reach it as one ``knobs`` param built from its settings class, never as
    raw config values or sections, so that each knob is read once, with the schema's default.
    """
    shapes = {}
    for path in sorted(RULES.glob("*.smk")):
        for rule, lines in _rule_params(path.read_text(encoding="utf-8")).items():
            code = [line for line in lines if line and not line.startswith("#")]
            shapes[rule] = code
            if code:
                assert len(code) == 1 and code[0].startswith("knobs="), f"{path.name}: rule {rule}: {code}"
                assert "config[" not in code[0], f"{path.name}: rule {rule} passes raw config"
    assert shapes["cluster"] == ["knobs=knobs(ClusterSettings.from_config(config)),"]
    assert shapes["consensus_run"] == ["knobs=consensus_run_knobs,"]
    assert shapes["parse"] == ["knobs=knobs(ParseSettings.from_config(config)),"]
    # Every rule has knobs but those that only move files (a dump's text part, the corpus merge,
    # the kept fit, publishing) and the topics' stability, whose only knob is which replicates it reads.
    assert {rule for rule, code in shapes.items() if not code} == {
        "text_part",
        "corpus",
        "keep_fit",
        "publish",
        "topic_stability",
    }
    assert shapes["replicate"] == ["knobs=replicate_knobs,"]
