"""Running the workflow: the start-up checks, the script adapter, jobs, SLURM's failures, publishing, the warm step."""
