import glob
import sys
from pathlib import Path

from snakemake.logging import logger
from snakemake.utils import validate

# Stage logic lives in workflow/papertopics. Snakemake hands its own sys.path to every
# script it runs (inside a --use-conda environment too), so this makes the package importable.
sys.path.insert(0, str(Path(workflow.basedir) / "workflow"))

from papertopics.embed import model_problem
from papertopics.errors import PipelineInputError
from papertopics.formats import dump_format
from papertopics.startup import check_config, release_stale_locks

ENVIRONMENT = "../../environment.yml"
SCHEMA = Path(workflow.basedir) / "workflow" / "schemas" / "config.schema.yaml"


def find_dumps(patterns):
    """Map each dump's name (file name without extensions) to its path."""
    dumps = {}
    for pattern in patterns:
        for path in sorted(glob.glob(pattern)):
            dump_format(path)  # an unknown file type stops the run now, not at its parse job
            name = Path(path).name.split(".", 1)[0]
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
    problem = model_problem(config["embedding"]["model"])
    if problem:
        raise PipelineInputError(problem)


try:
    check_config(config, SCHEMA)
    validate(config, str(SCHEMA))  # fills in the defaults of keys left out
    check_config_consistency(config)
    DUMPS = find_dumps(config["inputs"])
except PipelineInputError as error:
    raise WorkflowError(f"error: {error}") from None

if release_stale_locks():
    logger.warning("Removed the locks of an earlier run that was killed; resuming its work.")


wildcard_constraints:
    dump="|".join(map(re.escape, DUMPS)),
