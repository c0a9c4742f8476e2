import glob
import json
from dataclasses import replace
from pathlib import Path

from snakemake.logging import logger
from snakemake.utils import validate

from papertopics.mapping.consensus import consensus_seeds
from papertopics.topics.curation import load_curation
from papertopics.embed.encoders import device_problem
from papertopics.embed.models import model_problem
from papertopics.errors import PipelineInputError
from papertopics.ingest.formats import dump_format
from papertopics.periods.assign import read_compare_by
from papertopics.ingest.parse import dump_name
from papertopics.mapping.placement import FIT
from papertopics.topics.history import HISTORY, SHARES, TOPICS, start_history
from papertopics.runtime.publish import PUBLISHED, STAGED, published_entries
from papertopics.settings import (
    ChangeSettings,
    ClusterSettings,
    ClusterSpaceSettings,
    CompareSettings,
    EmbeddingSettings,
    EvaluateSettings,
    PeriodSettings,
    MapSettings,
    NeighbourSettings,
    ParseSettings,
    ReplicateSettings,
    ReportSettings,
    SimilarSettings,
    TopicStageSettings,
    knobs,
)
from papertopics.embed.sharding import RecordCounts, planned_shards
from papertopics.runtime.startup import (
    check_config,
    config_origin,
    exit_with,
    move_deprecated_keys,
    prepare_run,
    publish_again_if_missing,
)

ENVIRONMENT = "../../environment.yml"
SCHEMA = Path(workflow.basedir) / "workflow" / "schemas" / "config.schema.yaml"


def find_dumps(patterns, given):
    """Map each dump's name (file name without extensions) to its path; ``patterns`` is one glob
    or a list of them (``--config inputs=data/other/*.txt`` gives one), ``given`` where they were
    given ("in config.yaml")."""
    patterns = [patterns] if isinstance(patterns, str) else patterns
    dumps = {}
    for pattern in patterns:
        for path in sorted(glob.glob(pattern)):
            dump_format(path)  # an unknown file type stops the run now, not at its parse job
            name = dump_name(path)
            if name in dumps and dumps[name] != path:
                raise PipelineInputError(
                    f"two input files give the dump name {name!r}: {dumps[name]} and {path}; rename one."
                )
            dumps[name] = path
    if not dumps:
        raise PipelineInputError(
            f"no input files match 'inputs' {given} ({', '.join(patterns)}); "
            "put abstract dumps in data/raw/ or change 'inputs'."
        )
    return dumps


def check_config_consistency(config):
    shortest, longest = config["topics"]["ngram_range"]
    if shortest > longest:
        raise PipelineInputError(
            f"topics.ngram_range [{shortest}, {longest}]: the first value must not exceed the second."
        )
    read_compare_by(config["compare"]["by"])  # a field and a period choice at most
    embedding = config["embedding"]
    problem = model_problem(embedding["model"]) or device_problem(embedding["backend"], embedding["device"])
    if problem:
        raise PipelineInputError(problem)


# Where each config value was given: --config, a --configfile, or config.yaml.
CONFIG_ORIGIN = config_origin(workflow.config_settings.config, workflow.config_settings.configfiles)

try:
    for warning in move_deprecated_keys(config):
        if workflow.is_main_process:
            logger.warning(warning)
    check_config(config, SCHEMA, CONFIG_ORIGIN)
    validate(config, str(SCHEMA))  # fills in the defaults of keys left out
    check_config_consistency(config)
    # A malformed curation file stops the run before any job, so no result is touched.
    load_curation(config["topics"]["curation"])
    DUMPS = find_dumps(config["inputs"], CONFIG_ORIGIN(["inputs"]))
    # Only in the run's own process: a job that a cluster node runs reads this Snakefile too.
    if workflow.is_main_process:
        for note in prepare_run():
            logger.warning(note)
        # The published history is an input of the stages that read it: it must always exist.
        for note in start_history():
            logger.warning(note)
except PipelineInputError as error:
    exit_with(error)

# Embedding jobs per dump, planned from the raw files' record counts, which are remembered
# while a file is unchanged (see papertopics.embed.sharding): building the job graph reads no dump twice.
_record_counts = RecordCounts()
SHARDS = {
    dump: planned_shards(path, config["embedding"]["shard_size"], _record_counts)
    for dump, path in DUMPS.items()
}
_record_counts.save()
# Dumps of at most embedding.shard_size records are embedded together by one embed job (one model
# load); each larger dump by its embed_shard jobs, gathered by its embed_gather job.
WHOLE_DUMPS = sorted(dump for dump, count in SHARDS.items() if count == 1)
SHARDED_DUMPS = sorted(dump for dump, count in SHARDS.items() if count > 1)


def one_of(names):
    """A wildcard pattern matching exactly ``names`` (none when empty)."""
    return "|".join(map(re.escape, names)) or "(?!)"


wildcard_constraints:
    dump=one_of(DUMPS),
    shard=r"\d+",
    shards=r"\d+",
    run=r"[1-9]\d*",


def guide_file():
    """topics.guide given as a file: an input of the topics rule, so that editing it reruns topics."""
    guide = config["topics"]["guide"]
    return [guide] if isinstance(guide, str) else []


def curation_file():
    """topics.curation: an input of the topics rule, so that editing it reruns topics and what follows."""
    curation = config["topics"]["curation"]
    return [curation] if curation else []


def embedding_resources():
    """A GPU for each embedding job when embedding.device asks for one (SLURM: --gpus=1)."""
    return {"gpu": 1} if config["embedding"]["device"] != "cpu" else {}


# Each stage's knobs (papertopics.settings) reach it as one param of one shape,
# knobs=knobs(<Stage>Settings.from_config(config)): a dict, which Snakemake records with its keys.
def consensus_run_knobs(wildcards):
    """The knobs of consensus run ``wildcards.run``: the reduce stage's, with the run's own seed."""
    return knobs(replace(ClusterSpaceSettings.from_config(config), random_state=consensus_seed(wildcards)))


def consensus_seed(wildcards):
    """The UMAP seed of consensus run ``wildcards.run`` (1, 2, ...; run 0 is the reduce stage's).
    A run's seed does not depend on how many runs there are, so adding one reruns none of the others.
    """
    run = int(wildcards.run)
    return consensus_seeds(config["umap"]["random_state"], run + 1)[run]


def replicate_knobs(wildcards):
    """The knobs of replicate ``wildcards.replicate``: the cluster space's and hdbscan's, and its number."""
    return knobs(ReplicateSettings.from_config(config, replicate=int(wildcards.replicate)))


def replicate_files():
    """Every replicate's topics, robustness.replicates in all (none: no stability is measured)."""
    count = config["robustness"]["replicates"]
    return [f"results/robustness/replicates/{number}.npz" for number in range(1, count + 1)]


def cluster_spaces():
    """The reduce stage's cluster space, then the consensus runs' (umap.consensus_runs in all)."""
    runs = range(1, config["umap"]["consensus_runs"])
    return ["results/reduced/coordinates.npz"] + [f"results/reduced/runs/{run}.npz" for run in runs]


def last_fit(name):
    """An input function: the last good fit's file ``name`` (results/fit/, published with the last
    good run) under ``update: place``, where one is kept; none otherwise (a refit, the first run).
    An input, so that a refit (a new fit published) reruns the placements that read it.
    """

    def fitted(wildcards):
        path = Path(FIT, name.format(**dict(wildcards.items())))
        return [str(path)] if config["update"] == "place" and path.is_file() else []

    return fitted


def published_history(name):
    """An input function: the published history's file ``name`` (papertopics.topics.history),
    written only by the publish rule. Ancient: the history a run publishes is newer than the
    outputs made from the one before, and must not rerun them; a reset history (make
    reset-topic-ids) reruns topics by --forcerun.
    """

    def published(wildcards):
        path = Path(HISTORY, name)
        return [ancient(str(path))] if path.is_file() else []

    return published


def after_parsing(wildcards):
    """An input function with no file, first among the inputs of each rule between parse and
    reception: it ties the rule's jobs to the parse checkpoint, so that where a dump must be
    parsed again, Snakemake decides whether they run only once it is, from what changed. Without
    it, a job planned before parsing keeps the reason it was given then (an input to be updated)
    and runs even where the dump's text part came out the same.
    """
    for dump in DUMPS:
        checkpoints.parse.get(dump=dump)
    return []


def text_parts(dumps=None, part="papers"):
    """An input function: the text part of each of ``dumps`` (the job's own dump where None), as
    written by text_part under the digest that parsing recorded; ``part`` is "papers" or "summary".
    Through the parse checkpoint: after a dump is parsed again, the digest is read anew.
    """
    suffix = {"papers": ".jsonl", "summary": ".summary.json"}[part]

    def parts(wildcards):
        named = [wildcards.dump] if dumps is None else dumps
        files = []
        for dump in named:
            summary = checkpoints.parse.get(dump=dump).output.summary
            digest = json.loads(Path(summary).read_text(encoding="utf-8"))["text_digest"]
            files.append(f"results/parsed/text/{dump}/{digest}{suffix}")
        return files[0] if dumps is None else files

    return parts


def shard_files(wildcards):
    count = SHARDS[wildcards.dump]
    if count == 1:
        return []
    return [f"results/embeddings/shards/{wildcards.dump}/{index}-of-{count}.npz" for index in range(count)]


def staged_outputs(wildcards=None):
    """Every output the rules declare under results/staged/ (but the publish record)."""
    staged = sorted(
        str(path)
        for declared in workflow.rules
        if declared.name != "publish"
        for path in declared.output
        if str(path).startswith(f"{STAGED}/")
    )
    with_wildcards = [path for path in staged if "{" in path]
    if with_wildcards:
        raise WorkflowError(
            f"{with_wildcards[0]}: a staged output is published, so it cannot have wildcards."
        )
    return staged


def check_published_paths(entries):
    """Stop when a job writes or reads the published ``entries`` of results/ (a job's outputs
    are deleted when it fails), naming the path under results/staged/ to use instead."""
    for declared in workflow.rules:
        for kind, paths in (("writes", declared.output), ("reads", declared.input)):
            for path in paths:
                parts = Path(str(path)).parts if isinstance(path, str) else ()
                if parts[:1] == (PUBLISHED,) and parts[1:2] and parts[1] in entries:
                    raise WorkflowError(
                        f"rule {declared.name} {kind} {path}, where published results go; use "
                        f"{STAGED}/{Path(*parts[1:])}: the publish rule puts it in {path} when the "
                        "whole run succeeds."
                    )


onerror:
    # With the slurm executor: name the jobs SLURM killed for memory or time, with SLURM's reason.
    from papertopics.runtime.slurm_failures import advice, killed_jobs

    # `log`: Snakemake's log files of this run (a list in Snakemake 9).
    run_logs = "".join(
        Path(path).read_text(errors="replace")
        for path in ([log] if isinstance(log, str) else log)
        if Path(path).exists()
    )
    killed = advice(killed_jobs(run_logs))
    if killed:
        logger.error(killed)
    kept = [Path(PUBLISHED, entry) for entry in PUBLISHED_ENTRIES if Path(PUBLISHED, entry).exists()]
    if kept:
        named = [f"{path}/" if path.is_dir() else str(path) for path in kept]
        logger.error(
            f"Nothing was published: {', '.join(named[:-1])}{' and ' if len(named) > 1 else ''}{named[-1]} "
            f"still hold the last good run's results (this run's are under {STAGED}/)."
        )
