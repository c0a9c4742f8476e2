"""How the map shows a label: the lines it wraps into. The label choice keeps a group label to
them (``papertopics.topics.label_choice``) and the report's map wraps labels by them
(``papertopics.report.document_map``); kept apart from ``papertopics.topics.labels``, whose stop words
come from scikit-learn, so that the report job does not import scikit-learn for two numbers.
"""

# The map wraps its labels in lines of this many characters; a group label is kept to two of them.
GROUP_LABEL_LINE_CHARS = 24
GROUP_LABEL_LINES = 2
