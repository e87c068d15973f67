"""Markdown chunking: sizes, overlap, heading boundaries, fenced code kept whole."""

from __future__ import annotations

import itertools
import re

import pytest

from memlode.sources.markdown import chunk_markdown, parse_blocks, word_count


def prose(tag: str, n: int) -> str:
    """``n`` distinct words tagged with ``tag`` (so every word says where it came from)."""
    return " ".join(f"{tag}w{i}" for i in range(n)) + "."


def fences_balanced(text: str) -> bool:
    return len(re.findall(r"^```", text, flags=re.MULTILINE)) % 2 == 0


def test_small_file_is_one_chunk_with_its_heading_path() -> None:
    chunks = chunk_markdown("# Top\n\n## Sub\n\nShort note about auth.\n")
    assert len(chunks) == 1
    assert chunks[0].headings == ("Top", "Sub")
    assert chunks[0].overlap_words == 0
    assert chunks[0].text.startswith("# Top")
    assert (chunks[0].start_line, chunks[0].end_line) == (1, 5)


def test_empty_and_blank_files_have_no_chunks() -> None:
    assert chunk_markdown("") == []
    assert chunk_markdown("\n\n   \n") == []


def test_long_prose_is_cut_near_400_words_with_80_words_overlap() -> None:
    paragraphs = [prose(f"p{i}x", 50) for i in range(20)]  # 1000 words in 50-word paragraphs
    chunks = chunk_markdown("\n\n".join(paragraphs))
    assert len(chunks) >= 3
    for chunk in chunks:
        assert chunk.words <= 400
    for before, after in itertools.pairwise(chunks):
        assert 0 < after.overlap_words <= 80
        head = after.text.split()[: after.overlap_words]
        assert before.text.split()[-after.overlap_words :] == head
    # Paragraph boundaries are preferred: the overlap is whole paragraphs here.
    for chunk in chunks[1:]:
        assert chunk.overlap_words % 50 == 0
    # Nothing is lost: every paragraph appears in some chunk.
    joined = "\n\n".join(c.text for c in chunks)
    for paragraph in paragraphs:
        assert paragraph in joined


def test_sections_start_new_chunks_at_headings_without_overlap() -> None:
    text = "\n\n".join(
        [
            "# Guide",
            "## Install",
            prose("inst", 150),
            "## Configure",
            prose("conf", 150),
            "### Advanced",
            prose("adv", 150),
        ]
    )
    chunks = chunk_markdown(text)
    assert [c.headings for c in chunks] == [
        ("Guide", "Install"),
        ("Guide", "Configure"),
        ("Guide", "Configure", "Advanced"),
    ]
    assert chunks[1].text.startswith("## Configure")
    assert chunks[2].text.startswith("### Advanced")
    assert all(c.overlap_words == 0 for c in chunks)


def test_small_sections_are_packed_together() -> None:
    # Sections shorter than a quarter chunk (100 words) share a chunk until it holds 100 words.
    text = "\n\n".join(f"## S{i}\n\n{prose(f's{i}', 20)}" for i in range(7))
    chunks = chunk_markdown(text)
    assert len(chunks) == 2
    assert [c.headings for c in chunks] == [("S0",), ("S5",)]


def test_a_heading_never_ends_a_chunk() -> None:
    text = prose("a", 390) + "\n\n## Next\n\n" + prose("b", 100)
    chunks = chunk_markdown(text)
    for chunk in chunks:
        last_line = chunk.text.rstrip().splitlines()[-1]
        assert not last_line.startswith("#")
    assert chunks[-1].headings == ("Next",)


def test_fenced_code_is_not_split_when_it_fits() -> None:
    code = "```python\n" + "\n".join(f"value_{i} = compute({i})" for i in range(60)) + "\n```"
    text = prose("lead", 300) + "\n\n" + code + "\n\n" + prose("tail", 50)
    chunks = chunk_markdown(text)
    holders = [c for c in chunks if "value_0 =" in c.text]
    assert holders, "the code block is somewhere"
    assert any("value_0 =" in c.text and "value_59 =" in c.text for c in chunks)
    for chunk in chunks:
        assert fences_balanced(chunk.text), chunk.text


def test_code_longer_than_a_chunk_is_cut_at_lines_and_re_fenced() -> None:
    lines = [f"step_{i} = run({i}, mode='fast')" for i in range(400)]
    text = "Intro.\n\n~~~~python\n" + "\n".join(lines) + "\n~~~~\n\nOutro."
    chunks = chunk_markdown(text)
    assert len(chunks) > 2
    seen: set[str] = set()
    for chunk in chunks:
        assert chunk.words <= 400
        body = chunk.text
        assert body.count("~~~~python") == body.count("\n~~~~\n") + body.endswith("\n~~~~")
        seen.update(line for line in body.splitlines() if line.startswith("step_"))
    assert seen == set(lines)


def test_one_giant_paragraph_is_cut_at_sentences() -> None:
    sentences = [f"Sentence {i} says {' '.join(['word'] * 20)}." for i in range(60)]
    chunks = chunk_markdown(" ".join(sentences))
    assert len(chunks) >= 4
    for chunk in chunks:
        assert chunk.words <= 400
        assert chunk.text.rstrip().endswith(".")


def test_front_matter_setext_headings_and_nested_fences() -> None:
    text = (
        "---\ntitle: x\n---\n\nTitle\n=====\n\nSection\n-------\n\n"
        "````md\n```python\nnot a fence end\n```\n````\n\nAfter.\n"
    )
    blocks = parse_blocks(text)
    kinds = [b.kind for b in blocks]
    assert kinds == ["frontmatter", "heading", "heading", "code", "text"]
    assert blocks[3].text.count("```python") == 1
    assert blocks[-1].headings == ("Title", "Section")


def test_an_unclosed_fence_runs_to_the_end() -> None:
    blocks = parse_blocks("Before.\n\n```\ncode\n# not a heading\n")
    assert [b.kind for b in blocks] == ["text", "code"]


@pytest.mark.parametrize(("target", "overlap"), [(0, 0), (100, 100), (100, -1)])
def test_bad_sizes_are_refused(target: int, overlap: int) -> None:
    with pytest.raises(ValueError):
        chunk_markdown("text", target_words=target, overlap_words=overlap)


def test_word_count_matches_split() -> None:
    assert word_count("a  b\nc\t d") == 4
