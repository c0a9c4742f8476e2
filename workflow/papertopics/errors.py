"""Errors that the pipeline reports to the user as plain messages (no traceback)."""


class PipelineInputError(Exception):
    """Bad input or configuration: the message names the file or key and what to fix."""
