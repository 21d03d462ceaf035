"""Running BFCL cases through a model in batches, one JSON line per case, resumable.

`run_cases` renders each case's request (`kitchen.bfcl.modes`), generates greedy replies in
batches of similar length (`LiveModel.generate_prompts`: each prompt pre-filled on its own after
the start they share, then decoded together, finished rows leaving the batch), reads the calls with the project's parser, grades them
with BFCL's checker and appends one line per case to a JSONL file as each batch finishes. Cases
already in the file are skipped, so a run that was stopped resumes where it stopped. A progress
bar shows cases/s and the time left.

One line holds: id, category, mode, the raw reply, the calls found, parse errors, BFCL's verdict
and error type, the stop reason, token counts, the run's setting (model, source, dtype, batch
size, date) and the case's share of its batch's generation time (`seconds`).
"""

from __future__ import annotations

import datetime
import json
import time
from pathlib import Path
from typing import Any, Iterator, Sequence

from kitchen.model.engines.quantized import activation_bits
from kitchen.bfcl.data import CATEGORIES, Case
from kitchen.bfcl.grading import grade
from kitchen.bfcl.modes import Mode, find_calls, request

MAX_NEW_TOKENS = 192  # a parallel_multiple answer of four calls fits in about 160 tokens


def read_results(path: Path | str) -> list[dict]:
    """The lines of a results file (none if it does not exist); a torn last line is ignored."""
    path = Path(path)
    if not path.exists():
        return []
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            out.append(json.loads(line))
        except json.JSONDecodeError:
            continue  # a line cut off when a run was killed: that case runs again
    return out


def batches(model: Any, cases: Sequence[Case], mode: Mode, batch_size: int) -> Iterator[list[tuple[Case, Any, str]]]:
    """(case, request, prompt) in batches, in a fixed order: by category (replies of a category
    are of similar length, and a batch decodes as long as its longest reply), then by prompt
    length (less padding), then BFCL's order. The same cases always form the same batches."""
    rank = {category: i for i, category in enumerate(CATEGORIES)}
    items = []
    for order, case in enumerate(cases):
        req = request(case, mode)
        prompt = model.render(req.messages, req.tools)
        items.append((rank[case.category], len(model.encode(prompt)), order, case, req, prompt))
    items.sort(key=lambda item: item[:3])
    for start in range(0, len(items), batch_size):
        yield [(case, req, prompt) for *_, case, req, prompt in items[start:start + batch_size]]


def case_line(case: Case, mode: Mode, req: Any, generation: Any, setting: dict) -> dict:
    """One case's result line."""
    parsed = find_calls(case, mode, generation.text)
    verdict = grade(case, parsed.calls)
    return {
        "id": case.id, "category": case.category, "mode": mode, "reply": generation.text,
        "calls": [{"name": c.name, "arguments": c.arguments} for c in parsed.calls],
        "parse_errors": [e.kind for e in parsed.errors],
        "valid": verdict.valid, "error_type": verdict.error_type, "errors": [str(e)[:300] for e in verdict.errors[:2]],
        "stop_reason": generation.stop_reason, "prompt_tokens": len(generation.prompt_ids),
        "reply_tokens": len(generation.token_ids), "grammar_error": req.grammar_error[:300], **setting,
    }


def run_setting(model: Any, batch_size: int) -> dict:
    """The setting every line of a run records."""
    info = model.info
    setting = {"model": info.model_name, "source": info.source, "dtype": info.dtype, "batch_size": batch_size,
               "date": datetime.date.today().isoformat()}
    if info.dtype == "int8":  # int8 replies depend on the CPU: 7-bit activations without VNNI
        setting["activation_bits"] = activation_bits()
    return setting


def run_cases(model: Any, cases: Sequence[Case], mode: Mode, out: Path | str | None = None, *,
              batch_size: int = 8, max_new_tokens: int = MAX_NEW_TOKENS, progress: bool = True) -> list[dict]:
    """Run `cases` in `mode`, appending one line per case to `out` (if given) as batches finish;
    cases already in `out` are not run again. Returns every line for `cases`, in their order."""
    done = {r["id"]: r for r in read_results(out)} if out else {}
    if out and Path(out).exists() and not Path(out).read_text(encoding="utf-8").endswith("\n"):
        Path(out).write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in done.values()),
                             encoding="utf-8")  # drop the torn line before appending
    setting = run_setting(model, batch_size)
    bar = _bar(len(cases), sum(c.id in done for c in cases), progress, mode)
    # Batches are formed from every case, done or not, so a resumed run batches as a fresh one.
    for batch in batches(model, cases, mode, batch_size):
        if all(case.id in done for case, _, _ in batch):
            continue
        (gens, seconds) = timed(model.generate_prompts, [p for _, _, p in batch], max_new_tokens=max_new_tokens,
                                grammars=[r.grammar for _, r, _ in batch])
        share = {"seconds": round(seconds / len(batch), 3)}  # the batch's time, shared by its cases
        lines = [case_line(case, mode, req, gen, {**setting, **share}) for (case, req, _), gen in zip(batch, gens)
                 if case.id not in done]
        if out:
            with open(out, "a", encoding="utf-8") as f:
                f.writelines(json.dumps(line, ensure_ascii=False) + "\n" for line in lines)
        done.update((line["id"], line) for line in lines)
        bar.update(len(lines))
    bar.close()
    return [done[c.id] for c in cases]


def rerun_first_batch(model: Any, committed: Sequence[dict], by_id: dict[str, Case], mode: Mode,
                      batch_size: int = 16) -> list[tuple[dict, dict]]:
    """The first batch of a committed run, run again live as the run formed it (from all its
    cases, in batches of `batch_size`): (committed line, new line) pairs.

    >>> pairs = rerun_first_batch(model, read_results(path), by_id, "native")  # doctest: +SKIP
    >>> sum(old["reply"] == new["reply"] for old, new in pairs)  # doctest: +SKIP
    16
    """
    lines = {line["id"]: line for line in committed}
    first = [case for case, _, _ in next(batches(model, [by_id[i] for i in lines], mode, batch_size))]
    again = run_cases(model, first, mode, None, batch_size=batch_size, progress=False)
    return [(lines[line["id"]], line) for line in again]


def _bar(total: int, already: int, show: bool, mode: str):
    from tqdm.auto import tqdm

    return tqdm(total=total, initial=already, disable=not show, unit="case", desc=mode, smoothing=0.1)


def timed(fn, *args, **kwargs) -> tuple[Any, float]:
    """`fn(*args, **kwargs)` and the seconds it took."""
    t0 = time.perf_counter()
    out = fn(*args, **kwargs)
    return out, time.perf_counter() - t0
