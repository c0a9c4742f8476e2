import glob
import sys
from pathlib import Path

# Stage logic lives in workflow/papertopics. Snakemake hands its own sys.path to every
# script it runs (inside a --use-conda environment too), so this makes the package importable.
sys.path.insert(0, str(Path(workflow.basedir) / "workflow"))

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


wildcard_constraints:
    dump="|".join(map(re.escape, DUMPS)),
