"""Markdown-aware chunking for memory files and docs.

A file is cut into blocks first (headings, fenced code, paragraphs, front matter), then the
blocks are packed into chunks of about ``target_words`` words:

- a chunk ends before a heading once it holds ``min_section_words`` new words, so sections
  start their own chunk when they are big enough to stand alone (small sections are packed
  together rather than stored as tiny chunks);
- a fenced code block is never split unless it alone is longer than a chunk; then it is cut at
  line boundaries and every piece is re-fenced so that each chunk is valid markdown;
- a paragraph longer than a chunk is cut at lines, then sentences, then words;
- a heading is glued to the block that follows it, so no chunk ends with an orphan heading;
- when a chunk ends because it is full (not at a heading), the next one starts with the last
  ``overlap_words`` words of it (whole blocks or sentences where possible), so a passage cut in
  two is still found whole; after a section break no overlap is carried, the heading path says
  where the chunk stands instead.

Every chunk carries its heading path (``["Project", "Decisions", "Auth"]``) and its line range.
L2: stdlib only.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

__all__ = [
    "CHUNKER_VERSION",
    "DEFAULT_MIN_SECTION_WORDS",
    "DEFAULT_OVERLAP_WORDS",
    "DEFAULT_TARGET_WORDS",
    "Block",
    "Chunk",
    "chunk_markdown",
    "parse_blocks",
    "word_count",
]

# DESIGN.md: memory-file chunks of 400 words with 80 words overlap.
DEFAULT_TARGET_WORDS = 400
DEFAULT_OVERLAP_WORDS = 80
# A quarter of a chunk: a section at least this long ends the chunk before the next heading.
DEFAULT_MIN_SECTION_WORDS = 100
# Bumped whenever chunk boundaries change, so that indexed files are re-chunked.
CHUNKER_VERSION = 1

_FENCE_OPEN = re.compile(r"^ {0,3}(`{3,}|~{3,})(.*)$")
_ATX = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")
_SETEXT = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")
_SENTENCE = re.compile(r".*?(?:[.!?][)\"'\]]*(?=\s)|$)\s*", re.DOTALL)
_WORD = re.compile(r"\S+\s*")
_LINE = re.compile(r"[^\n]*\n|[^\n]+$")


def word_count(text: str) -> int:
    return len(text.split())


@dataclass(frozen=True, slots=True)
class Block:
    """A unit that is not split unless it alone is longer than a chunk."""

    kind: str  # "heading" | "code" | "text" | "frontmatter"
    text: str
    start_line: int  # 1-based, inclusive
    end_line: int
    headings: tuple[str, ...]  # the heading path in effect at this block
    fence: str = ""  # the opening fence line of a code block ("```python")
    words: int = field(init=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "words", word_count(self.text))


@dataclass(frozen=True, slots=True)
class Chunk:
    index: int
    text: str
    headings: tuple[str, ...]  # heading path where the chunk's own (non-overlap) text starts
    start_line: int
    end_line: int
    words: int
    overlap_words: int  # words at the start repeated from the previous chunk


def parse_blocks(text: str) -> list[Block]:
    """Split markdown into blocks: headings, fenced code, paragraphs, front matter."""
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    blocks: list[Block] = []
    stack: list[tuple[int, str]] = []
    path: tuple[str, ...] = ()
    para: list[str] = []
    para_start = 0

    def flush() -> None:
        nonlocal para
        if para:  # only non-blank lines are ever added
            body = "\n".join(para)
            blocks.append(Block("text", body, para_start, para_start + len(para) - 1, path))
            para = []

    def heading(level: int, title: str, raw: str, start: int, end: int) -> None:
        nonlocal path
        while stack and stack[-1][0] >= level:
            stack.pop()
        stack.append((level, title))
        path = tuple(t for _, t in stack)
        blocks.append(Block("heading", raw, start, end, path))

    i = 0
    if lines and lines[0].strip() == "---":
        for j in range(1, min(len(lines), 200)):
            if lines[j].strip() in ("---", "..."):
                front = "\n".join(lines[: j + 1])
                blocks.append(Block("frontmatter", front, 1, j + 1, ()))
                i = j + 1
                break
    while i < len(lines):
        line = lines[i]
        number = i + 1
        stripped = line.lstrip(" ")
        if not stripped.strip():
            flush()
            i += 1
            continue
        lead = stripped[0] if len(line) - len(stripped) <= 3 else ""
        fence = _FENCE_OPEN.match(line) if lead in ("`", "~") else None
        if fence and not (fence.group(1)[0] == "`" and "`" in fence.group(2)):
            flush()
            marker = fence.group(1)
            close = re.compile(rf"^ {{0,3}}{re.escape(marker[0])}{{{len(marker)},}}[ \t]*$")
            j = i + 1
            while j < len(lines) and not close.match(lines[j]):
                j += 1
            end = min(j, len(lines) - 1)
            body = "\n".join(lines[i : end + 1])
            blocks.append(Block("code", body, number, end + 1, path, fence=line.strip()))
            i = end + 1
            continue
        atx = _ATX.match(line) if lead == "#" else None
        if atx:
            flush()
            heading(len(atx.group(1)), (atx.group(2) or "").strip(), line.strip(), number, number)
            i += 1
            continue
        setext = _SETEXT.match(line) if lead in ("=", "-") and len(para) == 1 else None
        if setext:
            title = para[0].strip()
            para = []
            level = 1 if setext.group(1)[0] == "=" else 2
            heading(level, title, f"{title}\n{line.strip()}", number - 1, number)
            i += 1
            continue
        if not para:
            para_start = number
        para.append(line)
        i += 1
    flush()
    return blocks


def _segments(text: str, limit: int, *, words: bool = True) -> list[str]:
    """Exact substrings of ``text`` (lines, else sentences, else words), each <= limit words.

    With ``words=False`` a sentence longer than ``limit`` stays whole.
    """
    out: list[str] = []
    for line in _LINE.findall(text):
        if word_count(line) <= limit:
            out.append(line)
            continue
        for sentence in _SENTENCE.findall(line):
            if not sentence:
                continue
            if word_count(sentence) <= limit or not words:
                out.append(sentence)
            else:
                out.extend(_WORD.findall(sentence))
    return out


def _pack(segments: list[str], limit: int) -> list[str]:
    pieces: list[str] = []
    current: list[str] = []
    count = 0
    for seg in segments:
        size = word_count(seg)
        if current and count + size > limit:
            pieces.append("".join(current))
            current, count = [], 0
        current.append(seg)
        count += size
    if "".join(current).strip():
        pieces.append("".join(current))
    return pieces


def _split_block(block: Block, limit: int, piece_words: int) -> list[Block]:
    """Cut a block longer than ``limit`` words into pieces of at most ``piece_words`` words.

    Code is cut at lines and each piece is re-fenced.
    """
    if block.words <= limit:
        return [block]
    limit = piece_words
    if block.kind == "code":
        lines = block.text.split("\n")
        closing = lines[-1] if len(lines) > 1 and _is_close(lines[-1], block.fence) else ""
        body = lines[1:-1] if closing else lines[1:]
        fence_words = word_count(block.fence) + word_count(closing or block.fence)
        pieces = _pack([line + "\n" for line in body], max(1, limit - fence_words))
        close = closing.strip() or _closing_for(block.fence)
        out: list[Block] = []
        line_no = block.start_line + 1
        for piece in pieces:
            n = piece.count("\n")
            text = f"{block.fence}\n{piece.rstrip(chr(10))}\n{close}"
            out.append(Block("code", text, line_no, line_no + n - 1, block.headings, block.fence))
            line_no += n
        return out
    pieces = _pack(_segments(block.text, limit), limit)
    out = []
    line_no = block.start_line
    for index, piece in enumerate(pieces):
        n = piece.count("\n")
        kind = block.kind if index == 0 else "text"
        end = line_no + max(n - (1 if piece.endswith("\n") else 0), 0)
        out.append(Block(kind, piece.strip(), line_no, end, block.headings))
        line_no += n
    return out


def _is_close(line: str, fence: str) -> bool:
    marker = _FENCE_OPEN.match(fence)
    if not marker:
        return False
    char, size = marker.group(1)[0], len(marker.group(1))
    stripped = line.strip()
    return len(stripped) >= size and set(stripped) == {char}


def _closing_for(fence: str) -> str:
    marker = _FENCE_OPEN.match(fence)
    return marker.group(1) if marker else "```"


def _tail(blocks: list[Block], budget: int) -> list[Block]:
    """The last ``budget`` words of ``blocks``: whole blocks, else trailing sentences or lines."""
    if budget <= 0:
        return []
    taken: list[Block] = []
    used = 0
    for block in reversed(blocks):
        if used + block.words <= budget:
            taken.insert(0, block)
            used += block.words
            continue
        room = budget - used
        if room > 0:
            # Beside whole blocks, only whole sentences: no overlap starts mid-sentence.
            partial = _partial_tail(block, room, words=not taken)
            if partial is not None:
                taken.insert(0, partial)
        break
    return taken


def _partial_tail(block: Block, room: int, *, words: bool = True) -> Block | None:
    if block.kind == "code":
        lines = block.text.split("\n")
        body = lines[1:-1] if len(lines) > 2 else []
        close = lines[-1] if len(lines) > 1 else _closing_for(block.fence)
        room -= word_count(block.fence) + word_count(close)
        kept: list[str] = []
        used = 0
        for line in reversed(body):
            used += word_count(line)
            if used > room:
                break
            kept.insert(0, line)
        if not any(line.strip() for line in kept):
            return None
        text = "\n".join([block.fence, *kept, close])
        return Block(
            "code", text, block.end_line - len(kept), block.end_line, block.headings, block.fence
        )
    segments = _segments(block.text, room, words=words)
    kept_parts: list[str] = []
    used = 0
    for seg in reversed(segments):
        used += word_count(seg)
        if used > room:
            break
        kept_parts.insert(0, seg)
    kept_text = "".join(kept_parts).strip()
    if not kept_text:
        return None
    start = block.end_line - kept_text.count("\n")
    return Block("text", kept_text, start, block.end_line, block.headings)


def chunk_markdown(
    text: str,
    *,
    target_words: int = DEFAULT_TARGET_WORDS,
    overlap_words: int = DEFAULT_OVERLAP_WORDS,
    min_section_words: int = DEFAULT_MIN_SECTION_WORDS,
) -> list[Chunk]:
    """Cut markdown into chunks of about ``target_words`` words (see the module docstring)."""
    if target_words < 1:
        raise ValueError("target_words must be at least 1")
    if not 0 <= overlap_words < target_words:
        raise ValueError("overlap_words must be between 0 and target_words - 1")
    # Pieces of an over-long block leave room for the overlap that precedes them.
    piece_words = max(1, target_words - overlap_words)
    units: list[Block] = []
    for block in parse_blocks(text):
        units.extend(_split_block(block, target_words, piece_words))
    # A heading travels with the block after it (a run of headings with the first block that
    # is not one), so that no chunk ends with an orphan heading.
    groups: list[list[Block]] = []
    pending: list[Block] = []
    for unit in units:
        pending.append(unit)
        if unit.kind != "heading":
            groups.append(pending)
            pending = []
    if pending:
        groups.append(pending)

    chunks: list[Chunk] = []
    carried: list[Block] = []  # overlap from the previous chunk
    own: list[Block] = []  # this chunk's new blocks

    def emit() -> None:
        parts = [*carried, *own]
        body = "\n\n".join(b.text for b in parts)
        chunks.append(
            Chunk(
                index=len(chunks),
                text=body,
                headings=next((b for b in own if b.kind != "heading"), own[-1]).headings,
                start_line=parts[0].start_line,
                end_line=own[-1].end_line,
                words=word_count(body),
                overlap_words=sum(b.words for b in carried),
            )
        )

    own_words = carried_words = 0
    for group in groups:
        size = sum(b.words for b in group)
        if own:
            section_break = group[0].kind == "heading" and own_words >= min_section_words
            full = carried_words + own_words + size > target_words
            if section_break or full:
                emit()
                carried = [] if section_break else _tail([*carried, *own], overlap_words)
                own, own_words = [], 0
                # Shrink the overlap so that overlap + the next group still fits in one chunk.
                if sum(b.words for b in carried) + size > target_words:
                    carried = _tail(carried, target_words - size)
                carried_words = sum(b.words for b in carried)
        elif carried and carried_words + size > target_words:
            carried = _tail(carried, target_words - size)
            carried_words = sum(b.words for b in carried)
        own.extend(group)
        own_words += size
    if own:
        emit()
    return chunks
