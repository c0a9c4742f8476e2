"""Property: any paragraphs written as a .txt dump parse back to the same count and text."""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st
from papertopics.ingest.parse import parse_dump
from papertopics.text import clean_for_keywords, cut_boilerplate, is_placeholder, normalise_for_identity

# Words of letters, digits, punctuation and symbols from any script; spaces, line breaks and
# invisible characters are the separators the parser normalises, so they are not in words.
WORD = st.text(st.characters(categories=["L", "N", "P", "S"]), min_size=1, max_size=12)
LINE = st.lists(WORD, min_size=1, max_size=12).map(" ".join)
PARAGRAPH = st.lists(LINE, min_size=1, max_size=4)  # lines of one paragraph, joined by the parser
SEPARATOR = st.sampled_from(["\n\n", "\n\n\n", "\n  \n", "\n\t\n\n"])


@settings(max_examples=150, deadline=None)
@given(
    title=LINE,
    paragraphs=st.lists(
        PARAGRAPH, min_size=1, max_size=12, unique_by=lambda lines: normalise_for_identity(" ".join(lines))
    ),
    separator=SEPARATOR,
    newline=st.sampled_from(["\n", "\r\n", "\r"]),
)
def test_txt_dump_round_trip(title, paragraphs, separator, newline):
    body = separator.join("\n".join(lines) for lines in paragraphs)
    content = (title + separator + body + "\n").replace("\n", newline)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "dump.txt"
        path.write_text(content, encoding="utf-8", newline="")
        parsed = parse_dump(path, min_abstract_chars=1)
    # A paragraph ending in what reads as a copyright line ("... © 2019 X") loses it (text.cut_boilerplate).
    texts = [cut_boilerplate(" ".join(lines))[0] for lines in paragraphs]
    assert parsed.title == title
    assert parsed.records_read == len(paragraphs)
    # A paragraph that is only markup or a URL ("$$", "www.x.org") has no words left, and one that is
    # an export's placeholder ("N/A") is none: both rejected as empty.
    kept = [
        text for text in texts if clean_for_keywords(text) and not is_placeholder(clean_for_keywords(text))
    ]
    assert [p["abstract"] for p in parsed.papers] == kept
    assert all(rejection["reason"] == "empty" for rejection in parsed.rejected)
