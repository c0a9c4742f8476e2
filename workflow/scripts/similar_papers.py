"""Each paper's most similar papers, for the report: rule similar_papers."""

from papertopics.mapping import stages
from papertopics.runtime.adapter import run_rule

run_rule(snakemake, stages.similar_papers)
