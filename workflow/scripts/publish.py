"""The staged results put where users read them, once the whole run succeeded: rule publish."""

from papertopics.adapter import run_rule
from papertopics.publish import publish

run_rule(snakemake, publish)
