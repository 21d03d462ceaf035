"""Putting the formats' hits together: which hit wins where two overlap, and the prose left over.

It owns the order in which formats are read (`PRIORITY`), the merge of each format's hits into
those accepted so far, and the prose: the text with every hit (and a fence or backticks holding
only calls) cut out, its whitespace tidied. It does not find hits: the format scanners do.
"""

from __future__ import annotations

from bisect import bisect_left

from kitchen.harness.parsing.results import Hit, ParseError, ToolCall
from kitchen.harness.parsing.scanning import Fence

# When two formats claim the same stretch of text, the one listed first here wins (tags over the
# bare JSON inside them), except that a call wins over a failed attempt and over anything that lies
# inside it (see `merge`).
PRIORITY = ("qwen", "tool_call_fence", "json", "call_tag", "python")


def non_overlapping(hits: list[Hit]) -> list[Hit]:
    """Sorted by start; of overlapping hits the earliest (then the first listed) is kept."""
    kept: list[Hit] = []
    last_end = -1
    for hit in sorted(hits, key=lambda h: h.start):
        if hit.start >= last_end and hit.end > hit.start:
            kept.append(hit)
            last_end = hit.end
    return kept


def merge(accepted: list[Hit], new: list[Hit]) -> list[Hit]:
    """Add the hits of a lower-priority format to those accepted so far (both sorted, free of
    overlaps).

    A new hit that overlaps accepted ones is dropped (priority), except that it replaces them

    - when it holds them whole and they are failed attempts: a "<tool_call>" inside the string
      value of a cut-off JSON call is part of that attempt's text;
    - when it is a call and they are only failed attempts, or it holds them whole.
    """
    out: list[Hit] = []
    i = 0
    for hit in new:
        while i < len(accepted) and accepted[i].end <= hit.start:
            out.append(accepted[i])
            i += 1
        k = i
        while k < len(accepted) and accepted[k].start < hit.end:
            k += 1
        if k == i:
            out.append(hit)
        else:
            only_errors = all(isinstance(h, ParseError) for h in accepted[i:k])
            holds_them = hit.start <= accepted[i].start and accepted[k - 1].end <= hit.end
            wins = ((holds_them or only_errors) if isinstance(hit, ToolCall)
                    else (holds_them and only_errors))
            if wins:
                out.append(hit)
                i = k
    out.extend(accepted[i:])
    return out


def _fence_spans(text: str, calls: list[tuple[int, int]], fences: list[Fence]
                 ) -> list[tuple[int, int]]:
    """The fences that hold nothing but calls (given as sorted spans), whole."""
    spans: list[tuple[int, int]] = []
    starts = [s for s, _ in calls]
    for fence in fences:
        first = bisect_left(starts, fence.body_start)
        inside, cursor, clean = [], fence.body_start, True
        for s, e in calls[first:]:
            if s >= fence.body_end:
                break
            if e > fence.body_end or text[cursor:s].strip():
                clean = False
                break
            inside.append((s, e))
            cursor = e
        alone = first == 0 or calls[first - 1][1] <= fence.start
        if inside and clean and not text[cursor:fence.body_end].strip() and alone:
            spans.append((fence.start, fence.end))
    return spans


def removed_spans(text: str, hits: list[Hit], fences: list[Fence]) -> list[tuple[int, int]]:
    """The spans to cut for the prose: each hit, with the backticks or the fence that held only
    calls."""
    spans: list[tuple[int, int]] = []
    for hit in hits:
        start, end = hit.start, hit.end
        if (start >= 1 and end < len(text) and text[start - 1] == "`" and text[end] == "`"
                and text[start - 2:start] != "``" and text[end:end + 2] != "``"):
            start, end = start - 1, end + 1
        spans.append((start, end))
    spans += _fence_spans(text, list(spans), fences)
    merged: list[tuple[int, int]] = []
    for s, e in sorted(spans):
        if merged and s <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], e))
        else:
            merged.append((s, e))
    return merged


def prose(text: str, spans: list[tuple[int, int]]) -> str:
    """The text outside `spans`. The whitespace around each cut becomes one space, one newline or
    one blank line, so removing a call leaves no hole.

    >>> prose("Sure.\\n\\nCALL\\n\\nDone.", [(7, 11)])
    'Sure.\\n\\nDone.'
    """
    pieces, pos = [], 0
    for start, end in spans:
        pieces.append(text[pos:start])
        pos = end
    pieces.append(text[pos:])
    out: list[str] = []
    # The runs of whitespace met since the last kept text, one per side of a cut.
    gaps: list[str] = []
    for piece in pieces:
        core = piece.strip()
        if not core:
            gaps.append(piece)
            continue
        if out:
            gaps.append(piece[: len(piece) - len(piece.lstrip())])
            # A blank line survives only if one was there already, not from two line ends around
            # a call.
            newlines = max(gap.count("\n") for gap in gaps)
            out.append("\n\n" if newlines >= 2 else "\n" if newlines else " " if any(gaps) else "")
        out.append(core)
        gaps = [piece[len(piece.rstrip()):]]
    return "".join(out)
