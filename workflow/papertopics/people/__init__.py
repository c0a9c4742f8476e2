"""Who works on each topic: its authors, institutions and countries counted and its experts
(``authorship``), who is rising in it and who holds more of it than elsewhere (``trends``), and the
people stage, file to file (``stages``).
"""
