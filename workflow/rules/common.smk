import glob
import sys
from pathlib import Path

from snakemake.logging import logger
from snakemake.utils import validate

# Stage logic lives in workflow/papertopics. Snakemake hands its own sys.path to every
# script it runs (inside a --use-conda environment too), so this makes the package importable.
sys.path.insert(0, str(Path(workflow.basedir) / "workflow"))

from papertopics.consensus import consensus_seeds
from papertopics.curation import load_curation
from papertopics.embed import device_problem
from papertopics.models import model_problem
from papertopics.errors import PipelineInputError
from papertopics.formats import dump_format
from papertopics.parse import dump_name
from papertopics.sharding import RecordCounts, planned_shards
from papertopics.startup import check_config, release_stale_locks

ENVIRONMENT = "../../environment.yml"
SCHEMA = Path(workflow.basedir) / "workflow" / "schemas" / "config.schema.yaml"


def find_dumps(patterns):
    """Map each dump's name (file name without extensions) to its path; ``patterns`` is one glob
    or a list of them (``--config inputs=data/other/*.txt`` gives one)."""
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
            f"no input files match 'inputs' in config.yaml ({', '.join(patterns)}); "
            "put abstract dumps in data/raw/ or change 'inputs'."
        )
    return dumps


def check_config_consistency(config):
    shortest, longest = config["topics"]["ngram_range"]
    if shortest > longest:
        raise PipelineInputError(
            f"topics.ngram_range [{shortest}, {longest}]: the first value must not exceed the second."
        )
    embedding = config["embedding"]
    problem = model_problem(embedding["model"]) or device_problem(embedding["backend"], embedding["device"])
    if problem:
        raise PipelineInputError(problem)


try:
    check_config(config, SCHEMA)
    validate(config, str(SCHEMA))  # fills in the defaults of keys left out
    check_config_consistency(config)
    # A malformed curation file stops the run before any job, so no result is touched.
    load_curation(config["topics"]["curation"])
    DUMPS = find_dumps(config["inputs"])
except PipelineInputError as error:
    raise WorkflowError(f"error: {error}") from None

if release_stale_locks():
    logger.warning("Removed the locks of an earlier run that was killed; resuming its work.")

# Embedding jobs per dump, planned from the raw files' record counts, which are remembered
# while a file is unchanged (see papertopics.sharding): building the job graph reads no dump twice.
_record_counts = RecordCounts()
SHARDS = {
    dump: planned_shards(path, config["embedding"]["shard_size"], _record_counts)
    for dump, path in DUMPS.items()
}
_record_counts.save()


wildcard_constraints:
    dump="|".join(map(re.escape, DUMPS)),
    shard=r"\d+",
    shards=r"\d+",
    run=r"[1-9]\d*",


def embedding_params():
    settings = config["embedding"]
    return dict(
        model=settings["model"],
        backend=settings["backend"],
        device=settings["device"],
        batch_size=settings["batch_size"],
        max_seq_length=settings["max_seq_length"],
        cache_dir=settings["cache_dir"],
        model_cache_dir=settings["model_cache_dir"],
    )


def guide_file():
    """topics.guide given as a file: an input of the topics rule, so that editing it reruns topics."""
    guide = config["topics"]["guide"]
    return [guide] if isinstance(guide, str) else []


def curation_file():
    """topics.curation: an input of the topics rule, so that editing it reruns topics and what follows."""
    curation = config["topics"]["curation"]
    return [curation] if curation else []


def guide_names():
    """topics.guide given inline, as a list of category names."""
    guide = config["topics"]["guide"]
    return guide if isinstance(guide, list) else []


def embedding_resources():
    """A GPU for each embedding job when embedding.device asks for one (SLURM: --gpus=1)."""
    return {"gpu": 1} if config["embedding"]["device"] != "cpu" else {}


def umap_params(*, cluster_space, random_state=None):
    """The umap knobs a projection reads; the 2-d map does not read n_components. ``random_state``:
    another seed (a consensus run's, a function of the job's wildcards) than umap.random_state.
    """
    knobs = [
        "n_neighbors",
        "min_dist",
        "n_epochs",
        "metric",
        "random_state",
        "word_weight",
        "word_dimensions",
        "fit_sample_size",
        "exact_neighbours_up_to",
    ]
    if cluster_space:
        knobs.append("n_components")
    params = {knob: config["umap"][knob] for knob in knobs}
    if random_state is not None:
        params["random_state"] = random_state
    return params


def neighbour_params():
    """The umap knobs the neighbour graph reads (not the layout's: min_dist, n_epochs, n_components)."""
    knobs = [
        "n_neighbors",
        "metric",
        "random_state",
        "word_weight",
        "word_dimensions",
        "fit_sample_size",
        "exact_neighbours_up_to",
    ]
    return {knob: config["umap"][knob] for knob in knobs}


def consensus_seed(wildcards):
    """The UMAP seed of consensus run ``wildcards.run`` (1, 2, ...; run 0 is the reduce stage's).
    A run's seed does not depend on how many runs there are, so adding one reruns none of the others.
    """
    run = int(wildcards.run)
    return consensus_seeds(config["umap"]["random_state"], run + 1)[run]


def cluster_spaces():
    """The reduce stage's cluster space, then the consensus runs' (hdbscan.consensus_runs in all)."""
    runs = range(1, config["hdbscan"]["consensus_runs"])
    return ["results/reduced/coordinates.npz"] + [f"results/reduced/runs/{run}.npz" for run in runs]


def shard_files(wildcards):
    count = SHARDS[wildcards.dump]
    if count == 1:
        return []
    return [f"results/embeddings/shards/{wildcards.dump}/{index}-of-{count}.npz" for index in range(count)]


onerror:
    # With the slurm executor: name the jobs SLURM killed for memory or time, with SLURM's reason.
    from papertopics.slurm_failures import advice, killed_jobs

    # `log`: Snakemake's log files of this run (a list in Snakemake 9).
    run_logs = "".join(
        Path(path).read_text(errors="replace")
        for path in ([log] if isinstance(log, str) else log)
        if Path(path).exists()
    )
    killed = advice(killed_jobs(run_logs))
    if killed:
        logger.error(killed)
