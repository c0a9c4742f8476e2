from papertopics.text import clean_for_keywords, coined_name, display_name, first_sentence, paper_id


def test_latex_and_markdown_are_stripped_keeping_words():
    assert clean_for_keywords(r"We propose $\textbf{DAG}$ and **NeurIPS**.") == "We propose DAG and NeurIPS."
    assert (
        clean_for_keywords(r"uses \emph{searching} and \textit{\textbf{nested}} terms")
        == "uses searching and nested terms"
    )
    assert clean_for_keywords(r"only 20\% of data, $O(n \log n)$ time") == "only 20% of data, O(n n) time"


def test_urls_and_markdown_links_are_removed():
    cleaned = clean_for_keywords("Code at https://example.org/x?y=1 and [our site](http://a.b/c).")
    assert "http" not in cleaned and "example.org" not in cleaned
    assert "our site" in cleaned


def test_paper_id_ignores_case_whitespace_and_punctuation_but_not_words():
    assert paper_id("Deep  nets, learn!") == paper_id("deep nets learn")
    assert paper_id("deep nets learn") != paper_id("deep nets learn fast")
    assert paper_id("x").startswith("p") and len(paper_id("x")) == 13


def test_coined_names_from_introducing_sentences():
    assert coined_name("To this end, we introduce LakeQA, a benchmark for data lakes.") == "LakeQA"
    assert coined_name("We present CrispEdit, an editor.") == "CrispEdit"
    assert coined_name("We propose V2A to map video to audio.") == "V2A"
    assert coined_name("We introduce the Diffusion Value Function (DVF) for control.") == "DVF"
    assert coined_name("We propose Tool-Guard, a defense.") == "Tool-Guard"


def test_no_coined_name_falls_back_to_shortened_first_sentence():
    abstract = (
        "Graph neural networks are widely believed to excel at node classification on many graphs. More text."
    )
    assert coined_name(abstract) is None
    name = display_name(abstract)
    assert name.endswith("…") and len(name) <= 80 and abstract.startswith(name[:-1])
    assert first_sentence("Short one. Second.") == "Short one"
