"""The staged results put where users read them, once the whole run succeeded: rule publish."""

from papertopics.runtime.adapter import run_rule
from papertopics.runtime.publish import publish

run_rule(snakemake, publish)
