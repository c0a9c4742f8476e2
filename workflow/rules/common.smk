import glob
import os
import sys
from pathlib import Path

# Stage logic lives in workflow/papertopics; make it importable by the rules' scripts
# (also inside a --use-conda environment, which does not install this repository).
os.environ["PYTHONPATH"] = os.pathsep.join(
    filter(None, [str(Path(workflow.basedir) / "workflow"), os.environ.get("PYTHONPATH")])
)

sys.path.insert(0, str(Path(workflow.basedir) / "workflow"))
from papertopics.sharding import planned_shards

ENVIRONMENT = "../../environment.yml"


def find_dumps(patterns):
    """Map each dump's name (file name without extension) to its path."""
    dumps = {}
    for pattern in patterns:
        for path in sorted(glob.glob(pattern)):
            name = Path(path).name.split(".", 1)[0]
            if name in dumps and dumps[name] != path:
                raise WorkflowError(
                    f"two input files give the dump name {name!r}: {dumps[name]} and {path}; rename one."
                )
            dumps[name] = path
    if not dumps:
        raise WorkflowError(
            f"no input files match 'inputs' in the config ({', '.join(patterns)}); "
            "put abstract dumps in data/raw/ or change 'inputs'."
        )
    return dumps


def check_config_consistency(config):
    shortest, longest = config["topics"]["ngram_range"]
    if shortest > longest:
        raise WorkflowError(
            f"topics.ngram_range [{shortest}, {longest}]: the first value must not exceed the second."
        )


check_config_consistency(config)
DUMPS = find_dumps(config["inputs"])
# Embedding jobs per dump, planned from the raw files (see papertopics.sharding).
SHARDS = {dump: planned_shards(path, config["embedding"]["shard_size"]) for dump, path in DUMPS.items()}


wildcard_constraints:
    dump="|".join(map(re.escape, DUMPS)),
    shard=r"\d+",
    shards=r"\d+",


def embedding_params():
    settings = config["embedding"]
    return dict(
        model=settings["model"],
        backend=settings["backend"],
        batch_size=settings["batch_size"],
        max_seq_length=settings["max_seq_length"],
        cache_dir=settings["cache_dir"],
        model_cache_dir=settings["model_cache_dir"],
    )


def shard_files(wildcards):
    count = SHARDS[wildcards.dump]
    if count == 1:
        return []
    return [f"results/embeddings/shards/{wildcards.dump}/{index}-of-{count}.npz" for index in range(count)]
