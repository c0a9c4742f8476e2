"""How each topic was received: each paper's decision, ratings and citations read as numbers
(``values``), the permutation tests and intervals behind them (``permutation``), every topic against
the rest in one table graded by Benjamini–Hochberg (``table``), and the reception stage, file to file
(``stages``).
"""
