"""Reading the dumps: every input and export format, one dump parsed, the corpus merged."""
