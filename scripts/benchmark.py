"""Speed of the live model on this machine, printed as tables with ratios.

    python scripts/benchmark.py                 # everything below, 0.5B pack
    python scripts/benchmark.py --only decode   # one section: load, decode, cache, onednn, batch, grammar, server
    python scripts/benchmark.py --only decode --write docs/speed.md   # and record it in that page

Sections:
- load: first-ever load (assemble the pack, de-quantize, save the dense folder, into an empty
  cache folder) against a warm load from the cache; each in a fresh process. When the hub model
  is in the local Hugging Face cache, its warm load too (from local files only, no request),
  against the pack's; the section says so when it is not cached.
- families: each CPU family this machine can run as (its own; AVX2 too on an AVX-512 CPU, with
  `AVX2_ONLY`), its default setting against llama-server built for that family: decode tokens/s
  on a short prompt and on one with the five toy tools, time to first token, first-load and warm
  peak memory.
- decode: the same chat prompt and 128 greedy tokens per engine setting (float32, bfloat16, and
  the int8 fast mode): decode tokens/s, time to first token (pre-fill), peak memory, load time;
  each against llama.cpp on the same GGUF (when `llama-cpp-python` is installed) and against this
  machine's memory-bandwidth bound (measured here, over the weight bytes each token reads);
  median of 3 runs, fresh process each.
- cache: a harness turn after a tool result, with the KV cache of the previous turn reused
  (only the new tokens pre-filled), and from the kept system turn only, against a full re-prefill.
- onednn: float32 decoding with the linear layers on oneDNN (the default, `kitchen.model.engines.onednn`) against
  PyTorch's default BLAS (MKL), the same prompt and tokens, in one process.
- batch: the chapter 06 sweep's tools-off answers, one batch against one at a time.
- server: llama.cpp's server (the classroom source) writing the same reply without
  log-probabilities, with them as llama-cpp-python ranks them (the whole vocabulary sorted per
  token), and with them through `kitchen.model.server.logprob_fix` (only the top candidates kept); same replies?
- grammar: decode time per token with a grammar's mask (chapter 07) against the same decoding
  without it, for the widest mask (free text) and for a tool call; the compile time apart.

Every measurement runs in its own process (`--worker`), so load times and peak memory are clean.
Numbers are measured here, never typed in. With `--write docs/speed.md` each section's printed
output also replaces what stands between that section's markers in the page
(`<!-- benchmark:decode -->` ... `<!-- /benchmark:decode -->`), under a line naming the machine,
the date and the command (`scripts/speed_doc.py`); the page's prose is left as it is.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import speed_doc  # beside this script: the --write option's markers

ROOT = Path(__file__).resolve().parent.parent
PROMPT = [{"role": "user", "content": "Explain, step by step, how long multiplication works, with an example."}]
MATH = [{"role": "user", "content": "What is 987 × 654?"}]
NEW_TOKENS = 128
RUNS = 3
BATCH = 8
# int8: the fast mode (kitchen.model.engines.quantized), default with VNNI; bfloat16: default elsewhere; int8-decode: the tests' setting
DECODE_SETTINGS = ("float32", "bfloat16", "int8", "int8-decode")
TARGET_VS_LLAMACPP = 0.75  # the default setting's decode tokens/s against llama.cpp's
TARGET_WARM_LOAD_S = 2.0
TARGET_PEAK_MB = {"0.5b": 2_000, "1.5b": 4_000}  # the default setting's, so a laptop with 8 GB has room


def peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


# ---------------------------------------------------------------------------------------------
# Workers: run in a child process, print one JSON line


def worker_load(tier: str, dtype: str, source: str = "pack") -> dict:
    t0 = time.perf_counter()
    import torch  # noqa: F401
    import transformers.models.qwen2.modeling_qwen2  # noqa: F401

    from kitchen.model.load import load_model

    t1 = time.perf_counter()
    model = load_model(tier, source, dtype=dtype, announce=False, progress=False)
    t2 = time.perf_counter()
    return {"imports_s": t1 - t0, "load_s": t2 - t1, "peak_mb": peak_mb(), "origin": model.info.origin}


def worker_decode(tier: str, dtype: str) -> dict:
    from kitchen.model.load import load_model

    t0 = time.perf_counter()
    model = load_model(tier, "pack", dtype=dtype, announce=False, progress=False)
    load_s = time.perf_counter() - t0
    model.keep_system_turn = False  # every run pre-fills its whole prompt, as llama.cpp is asked to here
    model.generate(PROMPT, max_new_tokens=8, reuse_cache=False)  # warm-up
    runs = []
    for _ in range(RUNS):
        gen = model.generate(PROMPT, max_new_tokens=NEW_TOKENS, reuse_cache=False)
        runs.append({"tokens": gen.new_tokens, "prefill_s": gen.prefill_seconds,
                     "decode_tok_s": gen.tokens_per_second})
    tools = [model.generate(PROMPT, five_tools(), max_new_tokens=NEW_TOKENS, reuse_cache=False) for _ in range(RUNS)]
    return {"prompt_tokens": len(gen.prompt_ids), "new_tokens": statistics.median(r["tokens"] for r in runs),
            "prefill_s": statistics.median(r["prefill_s"] for r in runs),
            "decode_tok_s": statistics.median(r["decode_tok_s"] for r in runs),
            "tools_prompt_tokens": len(tools[0].prompt_ids),
            "tools_prefill_s": statistics.median(t.prefill_seconds for t in tools),
            "tools_decode_tok_s": statistics.median(t.tokens_per_second for t in tools),
            "load_s": load_s, "weight_bytes": bytes_read_per_token(model.hf_model),
            "model": model.describe(), "peak_mb": peak_mb()}


def five_tools() -> list:
    """The five toy tools, as chapter 07 sends them all (a prompt of about a thousand tokens)."""
    from kitchen.tools.toy import TOY_TOOLS as tools

    return list(tools)


def worker_onednn(tier: str, dtype: str) -> dict:
    from kitchen.model.load import load_model
    from kitchen.model.engines.onednn import OneDNNLinear

    model = load_model(tier, "pack", dtype="float32", announce=False, progress=False)
    out = {}
    for kernel in ("oneDNN", "MKL"):
        if kernel == "MKL":  # back to plain nn.Linear layers: PyTorch's default BLAS
            for parent in list(model.hf_model.modules()):
                for name, child in list(parent.named_children()):
                    if isinstance(child, OneDNNLinear):
                        setattr(parent, name, child.to_linear())
        model.generate(PROMPT, max_new_tokens=8, reuse_cache=False)  # warm-up
        gens = [model.generate(PROMPT, max_new_tokens=NEW_TOKENS, reuse_cache=False) for _ in range(RUNS)]
        out[kernel] = {"decode_tok_s": statistics.median(g.tokens_per_second for g in gens),
                       "prefill_s": statistics.median(g.prefill_seconds for g in gens), "ids": gens[0].token_ids}
    same = out["oneDNN"].pop("ids") == out["MKL"].pop("ids")
    return {**out, "same_tokens": same, "tokens": NEW_TOKENS}


def worker_grammar(tier: str, dtype: str) -> dict:
    """Decode time per token with and without a grammar's mask, and the grammar's compile time."""
    from kitchen.grammar.calls import call_grammar
    from kitchen.model.load import load_model
    from kitchen.tools import TOY_TOOLS

    model = load_model(tier, "pack", dtype=dtype, announce=False, progress=False)
    cases = {"free text under tool_choice='none' (the widest mask)": (PROMPT, None, "none"),
             "a calculator call under 'required'": (MATH, TOY_TOOLS, "required")}
    t0 = time.perf_counter()
    model.constraint(call_grammar(TOY_TOOLS, "auto"))  # builds llguidance's view of the tokenizer
    out = {"tokenizer_s": time.perf_counter() - t0, "cases": {}}
    for name, (messages, tools, choice) in cases.items():
        grammar = call_grammar(TOY_TOOLS, choice)
        compile_s = statistics.median(_timed(lambda: model.constraint(grammar)) for _ in range(RUNS))
        model.generate(messages, tools, max_new_tokens=8)  # warm-up
        free, held, same = [], [], True
        for _ in range(RUNS):  # interleaved, so drifts in the machine's speed hit both alike
            g = model.generate(messages, tools, grammar=grammar, max_new_tokens=NEW_TOKENS)
            f = model.generate(messages, tools, max_new_tokens=g.new_tokens)
            held.append(g.decode_seconds / g.new_tokens)
            free.append(f.decode_seconds / f.new_tokens)
            same = same and f.token_ids == g.token_ids
        out["cases"][name] = {"tokens": g.new_tokens, "compile_s": compile_s, "same_tokens": same,
                              "free_ms": 1000 * statistics.median(free), "held_ms": 1000 * statistics.median(held),
                              "mask_ms": 1000 * g.mask_seconds / g.new_tokens}
    out["model"] = model.describe()
    return out


def bytes_read_per_token(hf_model) -> int:
    """The weight bytes one decoded token must read: every linear layer (the output head too) and
    every norm. The embedding table is not counted (a token reads one row of it) unless it is
    also the output head (tied weights), which the head's own count covers."""
    import torch

    from kitchen.model.engines.quantized import Int8Linear
    from kitchen.model.engines.decode_copies import Int8DecodeLinear
    from kitchen.model.engines.onednn import OneDNNLinear

    total, seen = 0, set()
    # In int8-decode a decode step reads each layer's int8 copy, never the float32 layer under it.
    unread = {id(m.full) for m in hf_model.modules() if isinstance(m, Int8DecodeLinear)}
    for module in hf_model.modules():
        if isinstance(module, torch.nn.Embedding):
            continue
        if isinstance(module, Int8Linear):  # the fast mode's packed int8 weights: one byte each
            for weight, bias in module.chunks():
                total += weight.numel() * weight.element_size()
                total += 0 if bias is None else bias.numel() * bias.element_size()
            continue
        if isinstance(module, (Int8DecodeLinear, OneDNNLinear)):  # weights held in buffers
            total += 0 if id(module) in unread else module.weight_bytes()
            continue
        for param in module.parameters(recurse=False):
            if param.data_ptr() not in seen:
                seen.add(param.data_ptr())
                total += param.numel() * param.element_size()
    return total


def worker_bandwidth(tier: str, dtype: str) -> dict:
    """Memory read bandwidth: sum a 1 GiB float32 tensor (far larger than any cache), best of 5."""
    import torch

    data = torch.ones(256 * 1024 * 1024, dtype=torch.float32)
    data.sum()
    best = min(_timed(data.sum) for _ in range(5))
    return {"read_gb_s": data.numel() * 4 / best / 1e9}


def _timed(fn) -> float:
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def worker_llamacpp(tier: str, dtype: str) -> dict:
    """llama.cpp on the same GGUF file, same prompt (its own chat template), same threads."""
    from llama_cpp import Llama

    from kitchen.model import packs
    from kitchen.model.selection import TIERS

    gguf = packs.assemble(TIERS[tier].pack, progress=False)
    t0 = time.perf_counter()
    llm = Llama(model_path=str(gguf), n_ctx=1024, n_threads=os.cpu_count(), verbose=False)
    load_s = time.perf_counter() - t0
    runs = []
    for _ in range(RUNS):
        llm.reset()
        t0 = time.perf_counter()
        first = None
        count = 0
        for chunk in llm.create_chat_completion(PROMPT, max_tokens=NEW_TOKENS, temperature=0.0, stream=True):
            if not chunk["choices"][0]["delta"].get("content"):
                continue  # the opening (role) and closing (finish reason) chunks carry no token
            count += 1
            if first is None:
                first = time.perf_counter()
        end = time.perf_counter()
        runs.append({"prefill_s": first - t0, "decode_tok_s": (count - 1) / (end - first), "tokens": count})
    return {"prefill_s": statistics.median(r["prefill_s"] for r in runs),
            "decode_tok_s": statistics.median(r["decode_tok_s"] for r in runs),
            "new_tokens": statistics.median(r["tokens"] for r in runs), "load_s": load_s,
            "weight_bytes": gguf.stat().st_size, "peak_mb": peak_mb(), "build": llamacpp_build()}


def worker_llamaserver(tier: str, dtype: str) -> dict:
    """llama.cpp's llama-server built for this process's CPU family (AVX2's switches under AVX2_ONLY;
    built first if it is not), on the same GGUF file and the very prompts the live model reads
    (rendered by its chat template): its own timings of pre-fill and decode, median of RUNS."""
    import httpx

    from kitchen.model.server import build
    from kitchen.model.server.llama_server import llama_cpp_server
    from kitchen.model.tokenizer import offline_tokenizer
    from kitchen.tools.schemas import tool_schema

    build.build()
    tok = offline_tokenizer(tier)
    prompts = {"": tok.apply_chat_template(PROMPT, tokenize=False, add_generation_prompt=True),
               "tools_": tok.apply_chat_template(PROMPT, tools=[tool_schema(t) for t in five_tools()],
                                                 tokenize=False, add_generation_prompt=True)}
    out = {"build": build.label(build.this_cpu()), "weight_bytes": gguf_size(tier)}
    with llama_cpp_server(tier, parallel=1) as url:
        for key, prompt in prompts.items():
            body = {"prompt": prompt, "n_predict": NEW_TOKENS, "temperature": 0.0, "cache_prompt": False}
            httpx.post(f"{url}/completion", json={**body, "n_predict": 8}, timeout=600)  # warm-up
            timings = [httpx.post(f"{url}/completion", json=body, timeout=600).json()["timings"] for _ in range(RUNS)]
            out[f"{key}prefill_s"] = statistics.median(t["prompt_ms"] for t in timings) / 1000
            out[f"{key}decode_tok_s"] = statistics.median(t["predicted_per_second"] for t in timings)
            out[f"{key}prompt_tokens"] = timings[0]["prompt_n"]
    return out


def gguf_size(tier: str) -> int:
    from kitchen.model import packs

    return packs.assemble(packs.PACKS[tier], progress=False).stat().st_size


def llamacpp_build() -> str:
    """The instruction sets this llama.cpp was built with, as it reports them itself
    (`llama_print_system_info`: "AVX2 = 1 | AVX512 = 0 | ..."), e.g. 'AVX AVX2 FMA F16C'."""
    import llama_cpp

    info = llama_cpp.llama_print_system_info().decode(errors="replace")
    names = [name for name, on in re.findall(r"([A-Z][A-Z0-9_]*) = (\d)", info) if on == "1"]
    return " ".join(dict.fromkeys(n for n in names if n not in ("REPACK", "LLAMAFILE", "OPENMP"))) or "generic"


def worker_cache(tier: str, dtype: str) -> dict:
    from kitchen.harness.loop import run_harness
    from kitchen.model.load import load_model
    from kitchen.tools import calculator

    model = load_model(tier, "pack", dtype=dtype, announce=False, progress=False)
    question = [{"role": "user", "content": "What is 1234 × 5678?"}]
    trace = run_harness(model, question, [calculator], max_steps=2)  # the real two turns
    second_messages = trace.messages[:-1] if trace.stop_reason == "answer" else trace.messages
    from kitchen.tools.schemas import as_schema

    tools = [as_schema(calculator)]
    out = {"reuse": [], "system": [], "fresh": []}
    for _ in range(RUNS):
        for mode in out:
            model.keep_system_turn = mode != "fresh"  # "fresh": the whole prompt in one pass
            model.generate(question, tools, stop=["</tool_call>"])  # turn 1 fills the cache
            gen = model.generate(second_messages, tools, stop=["</tool_call>"], reuse_cache=(mode == "reuse"))
            out[mode].append({"ttft_s": gen.prefill_seconds, "total_s": gen.seconds,
                              "prefilled": gen.prefilled_tokens, "prompt": len(gen.prompt_ids),
                              "new": gen.new_tokens})
    return {mode: {k: statistics.median(r[k] for r in runs) for k in runs[0]} for mode, runs in out.items()}


def worker_batch(tier: str, dtype: str) -> dict:
    from kitchen.model.load import load_model
    from kitchen.chapters.sweep import make_problems, question

    model = load_model(tier, "pack", dtype=dtype, announce=False, progress=False)
    conversations = [[{"role": "user", "content": question(a, b)}] for a, b in make_problems(3, BATCH, seed=7)]
    model.generate(conversations[0], max_new_tokens=8, reuse_cache=False)  # warm-up
    t0 = time.perf_counter()
    singles = [model.generate(c, max_new_tokens=96, reuse_cache=False) for c in conversations]
    t1 = time.perf_counter()
    batch = model.generate_batch(conversations, max_new_tokens=96)
    t2 = time.perf_counter()
    same = sum(a.token_ids == b.token_ids for a, b in zip(singles, batch))
    return {"n": len(conversations), "one_at_a_time_s": t1 - t0, "batched_s": t2 - t1,
            "tokens_single": sum(g.new_tokens for g in singles), "tokens_batch": sum(g.new_tokens for g in batch),
            "identical_replies": same}


def worker_server(tier: str, dtype: str) -> dict:
    """ms per token of one reply (top 5 candidates per token), median of RUNS, on each server."""
    from kitchen.model.server.llama_python import llama_python_server
    from kitchen.model.server.client import ServerModel

    ms, replies = {}, {}
    for way, full in (("fast", False), ("full", True)):
        with llama_python_server(tier, ranked_in_full=full) as url:
            scored, bare = ServerModel(url, tier), ServerModel(url, tier, scores=False)
            scored.generate(PROMPT, max_new_tokens=8)  # warm-up: the first request loads the model
            for name, model in ((way, scored), (f"{way}_bare", bare)):
                runs = [model.generate(PROMPT, max_new_tokens=NEW_TOKENS, top_k=5) for _ in range(RUNS)]
                ms[name] = statistics.median(1000 * r.decode_seconds / len(r.tokens) for r in runs)
                replies[name] = [(t.text, t.prob, [(c.text, c.prob) for c in t.top]) for t in runs[0].tokens]
    return {"ms": ms, "tokens": len(replies["fast"]), "same": replies["fast"] == replies["full"]}


WORKERS = {"load": worker_load, "decode": worker_decode, "llamaserver": worker_llamaserver, "cache": worker_cache, "onednn": worker_onednn,
           "batch": worker_batch,
           "bandwidth": worker_bandwidth, "llamacpp": worker_llamacpp, "grammar": worker_grammar,
           "server": worker_server}


def run_worker(name: str, tier: str, dtype: str, env: dict | None = None, source: str = "pack") -> dict:
    cmd = [sys.executable, __file__, "--worker", name, "--tier", tier, "--dtype", dtype, "--source", source]
    proc = subprocess.run(cmd, capture_output=True, text=True, env={**os.environ, **(env or {})}, cwd=ROOT)
    if proc.returncode != 0:
        raise RuntimeError(f"worker {name} failed:\n{proc.stderr[-3000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


# ---------------------------------------------------------------------------------------------
# Sections: run workers, print tables


def table(header: list[str], rows: list[list]) -> str:
    cells = [[str(c) for c in r] for r in rows]
    widths = [max(len(h), *(len(r[i]) for r in cells)) for i, h in enumerate(header)]
    lines = ["  ".join(h.ljust(w) for h, w in zip(header, widths)), "  ".join("-" * w for w in widths)]
    lines += ["  ".join(c.ljust(w) for c, w in zip(r, widths)) for r in cells]
    return "\n".join(lines)


def section_load(tier: str, dtype: str) -> None:
    with tempfile.TemporaryDirectory() as empty:
        cold = run_worker("load", tier, dtype, {"KITCHEN_CACHE": empty})
    warm = [run_worker("load", tier, dtype) for _ in range(RUNS)]
    warm_s = statistics.median(w["load_s"] for w in warm)
    imports = statistics.median(w["imports_s"] for w in warm)
    print(f"\n## Load ({tier}, {dtype}); libraries imported first ({imports:.1f} s, once per session)\n")
    print(table(["load", "seconds", "peak memory", "vs warm"], [
        ["first ever (assemble, verify, de-quantize, convert, save, load)", f"{cold['load_s']:.1f}",
         f"{cold['peak_mb']:,.0f} MB", f"{cold['load_s'] / warm_s:.0f}x"],
        [f"warm (from the cached folder), median of 3; target under {TARGET_WARM_LOAD_S:.0f} s", f"{warm_s:.2f}",
         f"{statistics.median(w['peak_mb'] for w in warm):,.0f} MB", "1x"],
    ]))
    from kitchen.model.selection import TIERS, hub_is_cached
    from kitchen.settings import current

    hub_id = TIERS[tier].hub_id
    if not hub_is_cached(tier):
        print(f"\nNo hub model cached here ({hub_id} is not in {current().hub_cache}): no hub rows.")
        return
    first = run_worker("load", tier, dtype, source="hub")  # fills the int8 cache when it is empty
    hub = [run_worker("load", tier, dtype, source="hub") for _ in range(RUNS)]
    hub_s = statistics.median(w["load_s"] for w in hub)
    print(f"\nHub source: {hub_id}, {first['origin']} (HF_HUB_OFFLINE: {'on' if current().hub_offline else 'off'})\n")
    print(table(["load", "seconds", "peak memory", "vs the pack's warm load"], [
        ["hub, first in this run", f"{first['load_s']:.2f}", f"{first['peak_mb']:,.0f} MB", f"{first['load_s'] / warm_s:.1f}x"],
        ["hub, warm, median of 3", f"{hub_s:.2f}", f"{statistics.median(w['peak_mb'] for w in hub):,.0f} MB",
         f"{hub_s / warm_s:.1f}x"],
    ]))


def section_decode(tier: str, dtype: str) -> dict:
    for setting in DECODE_SETTINGS:  # a first load converts and caches: its peak is the load section's
        run_worker("load", tier, setting)
    results = {setting: run_worker("decode", tier, setting) for setting in DECODE_SETTINGS}
    try:
        import llama_cpp  # noqa: F401  (a reference only: never a dependency of the notebooks)

        results["llama.cpp"] = run_worker("llamacpp", tier, "gguf")
        # `make venv-all` builds it with this CPU's instruction sets (kitchen.model.server.build), as llama-server
        note = (f"llama.cpp: llama-cpp-python {llama_cpp.__version__}, same GGUF file, {os.cpu_count()} threads, "
                f"built for: {results['llama.cpp']['build']} (this CPU's best: {cpu_best()})")
    except ImportError:
        note = ("llama.cpp: not measured, llama-cpp-python is not installed here (it is a reference, "
                "never a dependency; `pip install llama-cpp-python` builds it from source)")
    bandwidth = run_worker("bandwidth", tier, dtype)["read_gb_s"]
    reference = results.get("llama.cpp", {}).get("decode_tok_s")
    rows = []
    for setting, r in results.items():
        bound = bandwidth * 1e9 / r["weight_bytes"]  # tokens/s if reading the weights were all it took
        name = f"llama.cpp ({r['build']})" if setting == "llama.cpp" else setting  # the build's instruction sets
        rows.append([name, f"{r['decode_tok_s']:.1f}", f"{r['prefill_s'] * 1000:.0f} ms",
                     f"{r['peak_mb']:,.0f} MB", f"{r['load_s']:.1f} s", f"{r['weight_bytes'] / 1e9:.2f} GB",
                     f"{r['decode_tok_s'] / reference:.2f}" if reference else "n/a",
                     f"{r['decode_tok_s'] / bound:.2f} of {bound:.0f}"])
    print(f"\n## Decode ({tier}; the same {results['float32']['prompt_tokens']}-token chat prompt, "
          f"{NEW_TOKENS} greedy tokens, median of {RUNS}, {os.cpu_count()} threads)\n")
    print(table(["engine setting", "decode tokens/s", "time to first token", "peak memory", "load",
                 "weights read per token", "vs llama.cpp", "vs bandwidth bound (tokens/s)"], rows))
    print(f"\nmemory read bandwidth measured here: {bandwidth:.1f} GB/s; a setting's bound is that bandwidth "
          f"over its weight bytes per token.\n{note}")
    print(memory_verdict(tier, results))
    if reference:
        ratio = results[dtype]["decode_tok_s"] / reference
        print(f"default setting here ({dtype}): {ratio:.2f} of llama.cpp's decode tokens/s "
              f"(target: at least {TARGET_VS_LLAMACPP}; {'met' if ratio >= TARGET_VS_LLAMACPP else 'NOT met'})")
    return results


def families() -> dict[str, dict[str, str]]:
    """The CPU families this machine can run, each with the environment that makes a process run
    as it: this CPU's own, and an AVX2-only laptop's on an AVX-512 CPU (`AVX2_ONLY`)."""
    from kitchen.model.engines.cpu import AVX2_ONLY, family

    here = family()
    return {here: {}, **({"avx2": dict(AVX2_ONLY)} if here == "avx512" else {})}


def family_default(env: dict[str, str]) -> str:
    """The default setting a process with `env` chooses (its CPU read as it reads it)."""
    from kitchen.model.engines.cpu import CpuDescription, best_dtype, limit_to_avx2, this_cpu

    cpu = this_cpu()
    if env:
        cpu = CpuDescription(cpu.system, cpu.machine, limit_to_avx2(cpu.flags), cpu.int8_engine)
    return best_dtype(cpu)


def section_families(tier: str, dtype: str) -> dict:
    """Each family's default setting against llama-server built for the same family: decode on the
    short prompt and on the five-tool prompt, time to first token of the latter, and memory at a
    first load (an empty cache folder) and a warm one."""
    rows, verdicts = [], []
    for name, env in families().items():
        setting = family_default(env)
        with tempfile.TemporaryDirectory() as empty:
            first = run_worker("load", tier, setting, {**env, "KITCHEN_CACHE": empty})
        ours = run_worker("decode", tier, setting, env)
        ref = run_worker("llamaserver", tier, "gguf", env)
        ratios = (ours["decode_tok_s"] / ref["decode_tok_s"], ours["tools_decode_tok_s"] / ref["tools_decode_tok_s"],
                  ours["tools_prefill_s"] / ref["tools_prefill_s"])
        rows.append([name, setting, f"{ours['decode_tok_s']:.1f} / {ref['decode_tok_s']:.1f} = {ratios[0]:.2f}",
                     f"{ours['tools_decode_tok_s']:.1f} / {ref['tools_decode_tok_s']:.1f} = {ratios[1]:.2f}",
                     f"{ours['tools_prefill_s'] * 1000:,.0f} / {ref['tools_prefill_s'] * 1000:,.0f} ms = {ratios[2]:.2f}",
                     f"{first['peak_mb']:,.0f} MB", f"{ours['peak_mb']:,.0f} MB", ref["build"]])
        verdicts.append(f"{name}: decode {ratios[0]:.2f} and {ratios[1]:.2f} of llama-server's (target 1.0); "
                        f"time to first token on the tools prompt {ratios[2]:.2f} of its (target at most 0.5)")
        tokens = (ours["prompt_tokens"], ours["tools_prompt_tokens"])
    print(f"\n## Each CPU family ({tier}; its default setting against llama-server built for the same family; "
          f"prompts of {tokens[0]} and {tokens[1]} tokens, the second with the five toy tools; {NEW_TOKENS} greedy "
          f"tokens, median of {RUNS})\n")
    print(table(["family", "setting", "decode tok/s: ours / llama-server", "with five tools",
                 "first token, five tools", "first load peak", "warm peak", "llama-server built for"], rows))
    print("\n".join(verdicts))
    missing = [f for f in ("avx2", "avx512") if f not in families()]
    if missing:
        print(f"not run here: the {', '.join(missing)} family (this CPU cannot run as it)")
    return {}


def cpu_best() -> str:
    """The instruction sets a build for this CPU gets (`python -m kitchen.model.server.build --flags`)."""
    from kitchen.model.server import build

    return build.label(build.this_cpu())


def memory_verdict(tier: str, results: dict) -> str:
    """The default setting's peak memory, here and on an AVX2-only laptop, against a laptop's budget."""
    from kitchen.model.engines.cpu import CpuDescription, best_dtype

    laptop = best_dtype(CpuDescription("Linux", "x86_64", frozenset({"avx", "avx2", "fma"}), int8_engine=True))
    target = TARGET_PEAK_MB[tier]
    lines = []
    for where, setting in (("here", best_dtype()), ("on an AVX2-only CPU", laptop)):
        peak = results[setting]["peak_mb"]
        lines.append(f"default setting {where} ({setting}): peak memory {peak:,.0f} MB (target: at most "
                     f"{target:,} MB for the {tier} pack; {'met' if peak <= target else 'NOT met'})")
    if "llama.cpp" in results:
        lines.append(f"llama.cpp on the same GGUF file: {results['llama.cpp']['peak_mb']:,.0f} MB")
    return "\n".join(lines)


def section_cache(tier: str, dtype: str) -> None:
    r = run_worker("cache", tier, dtype)
    reuse, system, fresh = r["reuse"], r["system"], r["fresh"]
    print(f"\n## KV-cache reuse in a harness turn ({tier}, {dtype}; the call after a tool result, "
          f"median of {RUNS})\n")
    rows = [("reusing the first call's cache", reuse), ("from the kept system turn", system),
            ("full re-prefill", fresh)]
    print(table(["second call", "prompt tokens", "pre-filled", "time to first token", "total", "new tokens"], [
        [label, m["prompt"], m["prefilled"], f"{m['ttft_s'] * 1000:.0f} ms", f"{m['total_s']:.2f} s", m["new"]]
        for label, m in rows]))
    print(f"\nratio (re-prefill / reuse): time to first token {fresh['ttft_s'] / reuse['ttft_s']:.1f}x, "
          f"total {fresh['total_s'] / reuse['total_s']:.2f}x; (re-prefill / kept system turn): time to first "
          f"token {fresh['ttft_s'] / system['ttft_s']:.1f}x, total {fresh['total_s'] / system['total_s']:.2f}x")


def section_onednn(tier: str, dtype: str) -> None:
    r = run_worker("onednn", tier, "float32")
    print(f"\n## float32 linear layers: oneDNN against MKL ({tier}; the decode section's prompt, "
          f"{r['tokens']} greedy tokens, median of {RUNS}, one process)\n")
    print(table(["kernel", "decode tokens/s", "time to first token"], [
        [k, f"{r[k]['decode_tok_s']:.1f}", f"{r[k]['prefill_s'] * 1000:.0f} ms"] for k in ("oneDNN", "MKL")]))
    print(f"\nratio (oneDNN / MKL): decode {r['oneDNN']['decode_tok_s'] / r['MKL']['decode_tok_s']:.2f}x, "
          f"time to first token {r['MKL']['prefill_s'] / r['oneDNN']['prefill_s']:.2f}x; the same "
          f"{r['tokens']} tokens: {'yes' if r['same_tokens'] else 'no'}")


def section_batch(tier: str, dtype: str) -> None:
    r = run_worker("batch", tier, dtype)
    print(f"\n## Batched generation ({tier}, {dtype}; {r['n']} three-digit multiplications, tools off, "
          f"as in the chapter 06 sweep)\n")
    print(table(["way", "seconds", "tokens written", "tokens/s"], [
        ["one at a time", f"{r['one_at_a_time_s']:.1f}", r["tokens_single"],
         f"{r['tokens_single'] / r['one_at_a_time_s']:.1f}"],
        [f"one batch of {r['n']} (left padding)", f"{r['batched_s']:.1f}", r["tokens_batch"],
         f"{r['tokens_batch'] / r['batched_s']:.1f}"],
    ]))
    print(f"\nratio (one at a time / batched): {r['one_at_a_time_s'] / r['batched_s']:.1f}x; "
          f"{r['identical_replies']} of {r['n']} replies identical token for token")


def section_grammar(tier: str, dtype: str) -> None:
    r = run_worker("grammar", tier, dtype)
    print(f"\n## Grammar-constrained decoding ({tier}, {dtype}; decode time per token, median of {RUNS} "
          f"interleaved pairs; compile time apart)\n")
    rows = [[name, c["tokens"], f"{c['free_ms']:.1f} ms", f"{c['held_ms']:.1f} ms", f"{c['mask_ms']:.2f} ms",
             f"{c['held_ms'] / c['free_ms']:.3f}x", f"{c['compile_s'] * 1000:.1f} ms",
             "same" if c["same_tokens"] else "differ"] for name, c in r["cases"].items()]
    print(table(["reply", "tokens", "free", "with the mask", "of which the mask", "ratio", "compile",
                 "tokens vs free"], rows))
    print(f"\nllguidance's view of the tokenizer, built once per session: {r['tokenizer_s']:.2f} s. "
          f"Target: at most 1.15x per token after compile.")


def section_server(tier: str, dtype: str) -> None:
    r = run_worker("server", tier, dtype)
    ms = r["ms"]
    print(f"\n## llama.cpp's server, the same reply with and without log-probabilities ({tier} GGUF; "
          f"{r['tokens']} tokens, top 5 candidates each, median of {RUNS})\n")
    print(table(["server", "no log-probabilities", "with them", "with / without"], [
        ["llama_cpp.server (whole vocabulary sorted per token)", f"{ms['full_bare']:.0f} ms/token",
         f"{ms['full']:.0f} ms/token", f"{ms['full'] / ms['full_bare']:.1f}x"],
        ["kitchen.model.server.logprob_fix (top candidates kept)", f"{ms['fast_bare']:.0f} ms/token",
         f"{ms['fast']:.0f} ms/token", f"{ms['fast'] / ms['fast_bare']:.1f}x"],
    ]))
    print(f"\nratio (llama_cpp.server / kitchen.model.server.logprob_fix, with log-probabilities): "
          f"{ms['full'] / ms['fast']:.1f}x; same text, probabilities and candidates: {'yes' if r['same'] else 'no'}")


SECTIONS = {"load": section_load, "decode": section_decode, "families": section_families, "cache": section_cache, "onednn": section_onednn,
            "batch": section_batch,
            "grammar": section_grammar, "server": section_server}


PER_TIER = ("decode", "families")  # the sections docs/speed.md holds once per pack


def marker(section: str, tier: str) -> str:
    """The marker pair a section's tables go between in docs/speed.md: one per tier for decode.

    >>> marker("decode", "1.5b"), marker("cache", "0.5b")
    ('benchmark:decode:1.5b', 'benchmark:cache')
    """
    return f"benchmark:{section}:{tier}" if section in PER_TIER else f"benchmark:{section}"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", default=",".join(SECTIONS), help="comma-separated sections")
    parser.add_argument("--tier", default="0.5b")
    parser.add_argument("--dtype", default=None, help="dtype for load and cache (default: best for this CPU)")
    parser.add_argument("--write", metavar="FILE", type=Path,
                        help="also write each section's output between its markers in FILE (docs/speed.md)")
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    parser.add_argument("--source", default="pack", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    if args.worker:
        extra = {"source": args.source} if args.worker == "load" else {}
        print(json.dumps(WORKERS[args.worker](args.tier, args.dtype, **extra)))
        return
    names = [name.strip() for name in args.only.split(",")]
    unknown = [name for name in names if name not in SECTIONS]
    if unknown:
        parser.error(f"unknown section {', '.join(unknown)}; the sections: {', '.join(SECTIONS)}")
    if args.write and (why := speed_doc.check_markers(args.write, [marker(n, args.tier) for n in names])):
        parser.error(f"--write: {why}")  # before any measurement, not after an hour of them
    command = speed_doc.command_line(None if argv is None else [__file__, *argv])
    from kitchen.model.engines.cpu import best_dtype

    dtype = args.dtype or best_dtype()
    print(f"# Benchmark · {args.tier} offline pack · {time.strftime('%Y-%m-%d %H:%M')} · "
          f"{os.cpu_count()} CPUs · default dtype here: {best_dtype()}")
    for name in names:
        with speed_doc.tee() as printed:
            SECTIONS[name](args.tier, dtype)
        if args.write:
            speed_doc.write_section(args.write, marker(name, args.tier), printed.getvalue(), command)
            print(f"(written to {args.write}, between the {marker(name, args.tier)} markers)")


if __name__ == "__main__":
    main()
