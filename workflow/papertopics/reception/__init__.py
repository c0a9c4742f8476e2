"""How each topic was received: each paper's decision, ratings and citations read as numbers
(``values``), the permutation tests and intervals behind them (``permutation``), every topic against
the rest in one table graded by Benjamini–Hochberg, a family per kind (``table``), each topic's
acceptance year by year and its change across the years (``years``), an outcome said in words
(``outcome_words``), and the reception stage, file to file (``stages``).
"""
