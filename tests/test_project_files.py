"""The project's own files agree with each other: pins, environment.yml, config and schema."""

import re

import yaml
from snakemake.utils import validate

from conftest import REPO, default_config

# conda-forge names that differ from the PyPI ones.
CONDA_NAMES = {"torch": "pytorch"}


def pip_pins(path):
    pins = {}
    for line in (REPO / path).read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            name, version = line.split("==")
            pins[name.lower()] = version
    return pins


def test_environment_yml_lists_the_same_pinned_packages_as_requirements():
    environment = yaml.safe_load((REPO / "environment.yml").read_text())
    conda = {}
    pip = {}
    for entry in environment["dependencies"]:
        if isinstance(entry, dict):
            pip.update(dict(item.split("==") for item in entry["pip"]))
        else:
            match = re.fullmatch(r"([\w.-]+)=([\w.]+)", entry)
            if match and match.group(1) != "python":
                conda[match.group(1)] = match.group(2)
    requirements = pip_pins("requirements.txt")
    expected_conda = {CONDA_NAMES.get(name, name): version for name, version in requirements.items() if name not in pip}
    assert conda == expected_conda
    assert pip == {name: requirements[name] for name in pip}


def test_constraints_pin_every_requirement_at_the_same_version():
    constraints = pip_pins("constraints.txt")
    for path in ("requirements.txt", "requirements-test.txt"):
        for name, version in pip_pins(path).items():
            assert constraints.get(name) == version, (path, name)


def test_config_yaml_is_valid_and_equals_the_schema_defaults():
    schema = str(REPO / "workflow" / "schemas" / "config.schema.yaml")
    filled = {}
    validate(filled, schema)  # fills in every default
    config = default_config()
    validate(config, schema)
    assert config == filled


def test_every_schema_key_has_a_description_and_a_default():
    schema = yaml.safe_load((REPO / "workflow" / "schemas" / "config.schema.yaml").read_text())
    for section, spec in schema["properties"].items():
        assert spec.get("description") and "default" in spec, section
        for key, value in spec.get("properties", {}).items():
            assert value.get("description") and "default" in value, f"{section}.{key}"
