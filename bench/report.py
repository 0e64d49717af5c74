#!/usr/bin/python3
"""Turns lazyview_bench's JSON output into docs/benchmarks.md and docs/benchmarks.png.

Every number is the median over the benchmark repetitions. GB/s counts bytes read + bytes written, both
counting only the elements moved: twice the destination's bytes (a strided gather reads a part of its
source), or for a strided scatter twice the source's bytes (it writes a part of its destination).
"ratio" is an implementation's GB/s over the best of memcpy and the streaming copy of the same bytes
on the same number of threads (1.00 = as fast as copying the bytes contiguously).

usage: report.py --json RESULTS.json --out docs/benchmarks.md [--png docs/benchmarks.png]
                 [--compile-times FILE.md] [--compiler TEXT] [--command TEXT] [--revision TEXT]
"""
import argparse
import json
import math
import os
import re
import statistics
import sys
from collections import OrderedDict, defaultdict

# Column order of the tables and the chart; implementations not in the results are left out.
IMPLS = [
    "memcpy", "stream_copy",
    "loop", "loop_srcorder", "loop_flux_literal2",
    "lazyview_contiguous", "lazyview_copy", "lazyview_copy_static",
    "torch_reshape", "torch_copy",
    "eigen", "eigen_shuffle",
    "xtensor", "xtensor_transpose",
]
BOUNDS = ("memcpy", "stream_copy")
# Dtypes (a name's second part) in section order, with the storage note of their headings; a dtype
# not listed here still gets a section, after these.
DTYPES = OrderedDict([
    ("fp32", ""),
    ("bf16", "uint16_t storage; LibTorch uses kBFloat16"),
    ("u8", "uint8_t storage; LibTorch uses kByte"),
    ("fp64", "double storage; LibTorch uses kDouble; the scatters family only"),
])
LOOPS = ("loop", "loop_srcorder", "loop_flux_literal2")

IMPL_NOTES = OrderedDict([
    ("memcpy", "`std::memcpy` of the bytes moved, the destination's (a strided scatter's: the source's) (2 threads: two halves on a persistent pool whose workers wait "
               "between calls as lazyview's do, a 100 us spin before sleeping; below 1 MiB one thread, as lazyview does)"),
    ("stream_copy", "non-temporal stores of the same bytes (AVX-512/AVX/SSE2 `stream` intrinsics), same split"),
    ("loop", "plain nested loop, run-time sizes, destination order (gather); 2 threads split the first dim with >= 2 iterations on the same pool (below 1 MiB one thread); strided gathers: a 2-D loop `d[r][j] = s[r*row + j*K]` with the step K a compile-time constant, rows split the same way; strided scatters: the mirror `d[r*row + o + j*K] = s[r][j]`, and rows of 3 into cells of 4 (`x[:, :3] = ...`) as three assignments a cell"),
    ("loop_srcorder", "the same loop in source order (scatter; not for strided gathers and scatters, which have one order)"),
    ("loop_flux_literal2", "FLUX only: the hand-written 6-deep loop of examples/flux_demo.cpp (literal 2s, source order)"),
    ("lazyview_contiguous", "`x.view(..).permute(..).reshape(..).contiguous()` (strided gathers: `x.select(..).contiguous()`, `x.slice(..).contiguous()`; none for strided scatters, which write an existing tensor): a new tensor per call (`contiguous(threads{t})` at t2)"),
    ("lazyview_copy", "`lazyview::copy(chain, from_blob(out, {...}), threads{t})` into the preallocated buffer, dynamic extents; chain built in the timed call (strided gathers: `from_blob(x, {...}).select(d,i)` or `.slice(d,a,b,k)`; strided scatters: `copy(from_blob(x, {...}), from_blob(out, {...}).select(d,i) or .slice(d,a,b,k), threads{t})`)"),
    ("lazyview_copy_static", "the same with static extents (`from_blob<B,C,H,W>(p).view<...>().permute<...>().reshape<...>()`)"),
    ("torch_reshape", "LibTorch 1.13 `x.view(..).permute(..).reshape(..)` (a new tensor per call; plain permutations: `permute(..).contiguous()`; strided gathers: `x.select(..).contiguous()`, `x.slice(..).contiguous()`; none for strided scatters), `at::set_num_threads(t)`"),
    ("torch_copy", "LibTorch `out.view(..).copy_(x.view(..).permute(..))` into the preallocated buffer (strided gathers: `out.copy_(x.select(..))`, `out.copy_(x.slice(..))`; strided scatters: `out.select(..).copy_(x)`, `out.slice(..).copy_(x)`)"),
    ("eigen", "Eigen 3.4 Tensor, RowMajor: `out = in.reshape(V).shuffle(P).reshape(O)` into a TensorMap (plain permutations: `in.shuffle(P)`; strided gathers: `in.chip<d>(i)`, `in.stride(S)` or `in.slice(offsets, extents).stride(S)`; strided scatters: the same of `out` as lvalues, `out.chip<d>(i) = in`, `out.stride(S) = in`, `out.slice(offsets, extents) = in` at step 1); 2 threads: `ThreadPoolDevice`"),
    ("eigen_shuffle", "Eigen: `shuffle(P)` of a K-D TensorMap into a K-D TensorMap (no lazy reshape: how Eigen users write it for speed)"),
    ("xtensor", "xtensor 0.24: `noalias(out) = reshape_view(transpose(reshape_view(in, V), P), O)` (strided gathers: `xt::view(in, xt::all(), .., i)` or `xt::view(in, xt::all(), xt::range(a, b, k))`; strided scatters: `noalias(xt::view(out, ..)) = in`) (single-threaded: t1 only)"),
    ("xtensor_transpose", "xtensor: `transpose(P)` of a K-D adaptor into a K-D adaptor (no lazy reshape)"),
])


def parse_args():
    ap = argparse.ArgumentParser()
    ap.add_argument("--json", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--png")
    ap.add_argument("--compile-times")
    ap.add_argument("--compiler", default="")
    ap.add_argument("--command", default="bench/run")
    ap.add_argument("--revision", default="")
    return ap.parse_args()


def strip_name(name):
    """Drops the suffixes Google Benchmark appends (/min_time:0.050, /repeats:3, /real_time)."""
    return re.sub(r"(/(min_time|repeats|iterations):[0-9.]+|/real_time|/manual_time)+$", "", name)


def load(path):
    """Returns (context, results) with results[name] = dict(gbps=..., ns=..., error=...)."""
    with open(path) as f:
        data = json.load(f)
    per_rep = defaultdict(list)
    medians = {}
    errors = {}
    seen = OrderedDict()  # run order
    for b in data.get("benchmarks", []):
        name = strip_name(b.get("run_name", b["name"]))
        seen[name] = True
        if b.get("error_occurred"):
            errors[name] = b.get("error_message", "error")
            continue
        if b.get("run_type") == "aggregate":
            if b.get("aggregate_name") == "median":
                medians[name] = b
        else:
            per_rep[name].append(b)
    unit_ns = {"ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}
    res = OrderedDict()
    for name in seen:
        if name in errors:
            res[name] = {"error": errors[name]}
            continue
        if name in medians:
            b = medians[name]
            gbps = b.get("bytes_per_second")
            ns = b["real_time"] * unit_ns[b.get("time_unit", "ns")]
        else:  # a single repetition: its own numbers (or the median of the raw repetitions)
            reps = per_rep[name]
            gbps = statistics.median([r["bytes_per_second"] for r in reps]) if "bytes_per_second" in reps[0] else None
            ns = statistics.median([r["real_time"] * unit_ns[r.get("time_unit", "ns")] for r in reps])
        res[name] = {"gbps": gbps / 1e9 if gbps else None, "ns": ns}
    return data.get("context", {}), res


def split_name(name):
    """family/dtype/shape/tN/impl -> (case, threads, impl) or None (fold benchmarks)."""
    parts = name.split("/")
    if len(parts) != 5 or not parts[3].startswith("t"):
        return None
    return "/".join(parts[:3]), int(parts[3][1:]), parts[4]


def organise(res):
    """cases[(case, t)][impl] = result, in the order of the run."""
    cases = OrderedDict()
    for name, r in res.items():
        s = split_name(name)
        if s:
            cases.setdefault((s[0], s[1]), {})[s[2]] = r
    return cases


def bound(row):
    vals = [row[b]["gbps"] for b in BOUNDS if b in row and row[b].get("gbps")]
    return max(vals) if vals else None


def ratio(row, impl):
    b = bound(row)
    r = row.get(impl)
    if not b or not r or not r.get("gbps"):
        return None
    return r["gbps"] / b


def fmt_cell(row, impl):
    r = row.get(impl)
    if r is None:
        return "—"
    if "error" in r:
        return "error"
    q = ratio(row, impl)
    return f"{r['gbps']:.1f} ({q:.2f})" if q is not None else f"{r['gbps']:.1f}"


def section_table(cases, keys, impls):
    impls = [i for i in impls if any(i in cases[k] for k in keys)]
    head = "| case | threads | best copy GB/s | " + " | ".join(f"`{i}`" for i in impls) + " |"
    sep = "|---|---:|---:|" + "---:|" * len(impls)
    lines = [head, sep]
    for k in keys:
        row = cases[k]
        b = bound(row)
        lines.append(f"| {k[0]} | {k[1]} | {b:.1f} | " if b else f"| {k[0]} | {k[1]} | — | ")
        lines[-1] += " | ".join(fmt_cell(row, i) for i in impls) + " |"
    return "\n".join(lines), impls


def geomean(xs):
    xs = [x for x in xs if x]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else None


def machine_line(ctx, compiler):
    # The model name alone ("AMD EPYC") does not tell a Zen 3 from a Zen 4, nor whether the
    # AVX-512 kernels ran: family, model and the widest vector extension say it.
    model, info = "unknown CPU", {}
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                key, _, value = line.partition(":")
                key = key.strip()
                if key in ("model name", "cpu family", "model", "flags") and key not in info:
                    info[key] = value.strip()
                if not line.strip() and info:
                    break
    except OSError:
        pass
    if "model name" in info:
        flags = set(info.get("flags", "").split())
        isa = "AVX-512" if "avx512f" in flags else "AVX2" if "avx2" in flags else "SSE2" if "sse2" in flags else None
        extra = [f"family {info['cpu family']}, model {info['model']}"] if "cpu family" in info and "model" in info else []
        extra += [isa] if isa else []
        model = info["model name"] + (f" ({'; '.join(extra)})" if extra else "")
    cores = ctx.get("num_cpus") or os.cpu_count()
    caches = ", ".join(
        f"L{c['level']}{'d' if c['type'] == 'Data' else 'i' if c['type'] == 'Instruction' else ''} "
        f"{c['size'] // 1024} KiB" + (f" shared by {c['num_sharing']}" if c.get("num_sharing", 0) > 1 else "")
        for c in ctx.get("caches", []))
    load = ctx.get("load_avg")
    load_s = f"; load average at start {', '.join(f'{x:.2f}' for x in load)}" if load else ""
    debug = ("; Google Benchmark library reports a debug build (Debian's package; it affects only the "
             "harness's own bookkeeping, not the timed code)" if ctx.get("library_build_type") == "debug" else "")
    date = f"; run {ctx['date']}" if "date" in ctx else ""
    caches = caches or "cache sizes not reported by the system"
    return (f"{model}, {cores} cores ({caches}){load_s}; compiler: {compiler or 'unknown'}, "
            f"`-O3 -march=native`{debug}{date}")


def chart(cases, keys_by_family, path):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        import numpy as np
    except ImportError:
        print("report.py: matplotlib is missing (apt-get install python3-matplotlib); no chart", file=sys.stderr)
        return False
    impls = [i for i in IMPLS if i not in BOUNDS and any(i in r for r in cases.values())]
    fig, axes = plt.subplots(1, 2, figsize=(19, 12), gridspec_kw={"width_ratios": [1, 1]})
    cmap = plt.get_cmap("RdYlGn")
    for ax, t in zip(axes, (1, 2)):
        rows, labels = [], []
        for fam, keys in keys_by_family.items():
            keys_t = [k for k in keys if k[1] == t]
            if fam == "perm":  # one row: geometric mean over the random permutations
                if keys_t:
                    rows.append([geomean([ratio(cases[k], i) for k in keys_t]) for i in impls])
                    labels.append(f"perm: geomean of {len(keys_t)}")
                continue
            for k in keys_t:
                rows.append([ratio(cases[k], i) for i in impls])
                labels.append(k[0])
        if not rows:  # (a filtered run without this thread count)
            ax.axis("off")
            continue
        m = np.array([[v if v is not None else np.nan for v in r] for r in rows], dtype=float)
        ax.imshow(np.log10(np.clip(m, 1e-3, None)), cmap=cmap, vmin=-2, vmax=0, aspect="auto")
        for y in range(m.shape[0]):
            for x in range(m.shape[1]):
                v = m[y, x]
                ax.text(x, y, "" if np.isnan(v) else (f"{v:.2f}" if v >= 0.01 else f"{v:.3f}"),
                        ha="center", va="center", fontsize=7)
        ax.set_xticks(range(len(impls)))
        ax.set_xticklabels(impls, rotation=45, ha="right", fontsize=8)
        ax.set_yticks(range(len(labels)))
        ax.set_yticklabels(labels, fontsize=8)
        ax.set_title(f"{t} thread{'s' if t > 1 else ''}: GB/s ÷ best of memcpy/streaming copy (same bytes, same threads)",
                     fontsize=9)
    fig.suptitle("lazyview benchmarks: ratio to memcpy of the same bytes (1.00 = copy bandwidth; "
                 "medians; blank = not run; colour on a log scale)", fontsize=11)
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    return True


def main():
    a = parse_args()
    ctx, res = load(a.json)
    cases = organise(res)
    fam_keys = OrderedDict()
    for k in cases:
        fam_keys.setdefault(k[0].split("/")[0], []).append(k)

    out = []
    w = out.append
    w("# Benchmarks")
    w("")
    w("Generated by `bench/run` (`bench/report.py` over Google Benchmark's JSON); do not edit by hand.")
    w("")
    w(f"**Machine:** {machine_line(ctx, a.compiler)}.")
    w("")
    w("**Read with care:** this is a shared 2-core VM on which other jobs (compilers) were running; "
      "numbers are noisy, the 2-thread ones most of all (a busy second core halves them). Every value is "
      "the **median** of the repetitions, and the tables give **ratios** to the best of memcpy and a "
      "streaming copy of the same bytes on the same thread count, measured side by side in the same run, "
      "rather than lone times (with random interleaving, every case's repetitions are spread over the "
      "whole run, among its baselines'). GB/s counts bytes read + bytes written, both counting only the elements "
      "moved: twice the destination's bytes (a strided gather reads a part of its source), or for a strided scatter "
      "twice the source's bytes (it writes a part of its destination); `memcpy` and `stream_copy` copy those bytes.")
    w("")
    w(f"Command: `{a.command}`" + (f"; lazyview headers at {a.revision}." if a.revision else ""))
    w("")
    w("Each cell: `GB/s (ratio)`; ratio = GB/s ÷ best of `memcpy`/`stream_copy` of that row. "
      "Every implementation's output is checked once against the reference loop (`error` = mismatch or "
      "exception).")
    w("")
    if a.png:
        w(f"![ratio to memcpy per workload and implementation]({os.path.basename(a.png)})")
        w("")
    w("## Implementations")
    w("")
    for k, v in IMPL_NOTES.items():
        if any(k in r for r in cases.values()):
            w(f"- `{k}`: {v}")
    w("")

    titles = OrderedDict([
        ("flux_pack", "FLUX `_pack_latents`: `x.view(B,C,H/2,2,W/2,2).permute(0,2,4,1,3,5).reshape(B,(H/2)*(W/2),C*4)`"),
        ("flux_unpack", "FLUX `_unpack_latents`: `p.view(B,H/2,W/2,C,2,2).permute(0,3,1,4,2,5).reshape(B,C,H,W)`"),
        ("agents", "Agents: `a.reshape(G,T/G,N,6).permute(0,2,1,3).reshape(G,N,-1)` for (T,N,6) = (42,50,6), G = 6 and (4200,500,6), G = 600"),
        ("transpose", "2-D transpose: `x.permute(1,0)` (contiguous result): 4096x4096 fp32, 3000x5000 fp32 (60 MB, past the last-level cache; destination rows of 12000 bytes, at 0 and 32 bytes into a line in turn), and 1- and 2-byte elements (image planes, int8 and fp16/bf16 weights; u8 = uint8_t storage, LibTorch kByte): 4096x4096 and 4160x4032 u8 and 4096x2048 bf16 (16 MiB), 512x512 u8 (256 KiB, in cache)"),
        ("perm", "Random permutations (HPTT style): `x.permute(P)`, fp32, about 2^22 elements (16 MiB) each, fixed seed; name = sizes_pPERM"),
        ("small", "Small and odd shapes, in cache: FLUX pack and unpack of (1,C,H,W) fp32, `x.permute(1,0,2)` of small images (RGB, RGBA) and of 32-byte rows, and small strided gathers and scatters (RoPE's `x[..., ::2]` of bf16 (32,128), one decode step of 32 heads, and its write-back; one channel of a u8 (64,64,3) image, read and written; GB/s and `memcpy` as in the strided families below), 1 thread. The target here is the plain loops (`loop`, `loop_srcorder`, `loop_flux_literal2`), not memcpy: a call's fixed costs (folding, planning) dominate; `lazyview_copy_static` runs small static plans as a loop nest of constants"),
        ("layout", "Interleaved <-> planar layouts: `x.permute(P)`, about 16 MiB each: HWC -> CHW and back (C = 3, fp32 and bf16), RGBA -> planes, (re, im) pairs -> two planes and back, 8 planes -> interleaved, fp32 (narrow transposes, `eval/narrow.hpp`); and transposes that keep runs of 4, 8 and 16 fp32 whole, an RGBA fp32 image's 16-byte pixels, 32-byte rows (`eval/wide_micro.hpp`) and 64-byte rows, a head dim of 16 (`kernels::strided_lines_nt`)"),
        ("vector", "Into a `std::vector`: FLUX pack and unpack (4,16,256,256) and the 4096x4096 fp32 transpose into a destination 16 bytes past a cache line, where glibc puts a large allocation, so that every destination row starts 16 bytes into a line (`stream_copy`, the limit, still writes from a line start)"),
        ("runs", "Long runs in either loop order: `x.permute(P)` keeping a run contiguous on both sides (68 bytes to 2.6 KiB; fp32 but one bf16), about 16 MiB each, in source order (scattered writes) or destination order (`order_runs` in `eval/make_engine_plan.hpp`), as the comments in `bench/main.cpp` (`run_orders`) say"),
        ("slices", "Strided gathers: `x.slice(d,o,n,K)` and `x.select(2,c)` into a contiguous tensor: a channel of an HWC image (u8 (1024,1024,3) and (1024,1024,4)), RoPE's `x[..., ::2]` and `x[..., 1::2]` (bf16 (4096,128): 512 KiB written, one thread at t2 too), fp32 (2048,2047) at stride 2 (rows that do not coalesce) and (1024,3072) at stride 3, and the first three of every four elements (`x[:, :3]` of u8 (1048576,4), RGBA to RGB, and fp32 (262144,4), xyzw to xyz); name = sizes_select_D_I or sizes_slice_D_START_END_STEP. GB/s counts the destination's bytes twice (the elements read and written), and `memcpy`/`stream_copy` copy the destination's bytes; the fair peer is `loop`, the plain loop with the step a compile-time constant"),
        ("scatters", "Strided scatters, the mirror of the slices: a contiguous tensor copied into `out.select(d,i)` or `out.slice(d,o,n,K)` of a larger contiguous destination (name = the destination's sizes_select_D_I or sizes_slice_D_START_END_STEP), whose elements outside the view must keep their values (checked for every implementation against a pattern written before the check): one channel of an HWC image (u8 (1024,1024) into (1024,1024,3)), RoPE's write-back to `x[..., ::2]` and `x[..., 1::2]` (bf16 (4096,64) into (4096,128): 512 KiB read, one thread at t2 too), fp32 (1024,1024) into (1024,3072) at stride 3, and three of every four elements (`x[:, :3] = ...` of u8 (1048576,4), RGB into RGBA with alpha untouched, and of fp32 and fp64 (262144,4), xyz into xyzw). GB/s counts the source's bytes twice (the elements read and written), and `memcpy`/`stream_copy` copy the source's bytes; `lazyview_contiguous` and `torch_reshape` do not apply (—); the fair peer is `loop`, the plain loop with the step a compile-time constant (three assignments a cell for the rows of 3)"),
    ])
    for fam, title in titles.items():
        keys = fam_keys.get(fam)
        if not keys:
            continue
        w(f"## {title}")
        w("")
        if fam.startswith("flux"):
            run = {k[0].split("/")[1] for k in keys}
            for dt in [d for d in DTYPES if d in run] + sorted(run - set(DTYPES)):
                ks = [k for k in keys if k[0].split("/")[1] == dt]
                if ks:
                    w(f"### {dt}" + (f" ({DTYPES[dt]})" if DTYPES.get(dt) else ""))
                    w("")
                    w(section_table(cases, ks, IMPLS)[0])
                    w("")
        else:
            tbl, impls = section_table(cases, keys, IMPLS)
            w(tbl)
            w("")
            if fam == "perm":
                w("Geometric mean of the ratios over the permutations:")
                w("")
                gm_impls = [i for i in impls if i not in BOUNDS]
                w("| threads | " + " | ".join(f"`{i}`" for i in gm_impls) + " |")
                w("|---:|" + "---:|" * len(gm_impls))
                for t in (1, 2):
                    kt = [k for k in keys if k[1] == t]
                    if not kt:
                        continue
                    gms = [geomean([ratio(cases[k], i) for k in kt]) for i in gm_impls]
                    w(f"| {t} | " + " | ".join(f"{g:.3f}" if g else "—" for g in gms) + " |")
                w("")

    # Where lazyview loses to a plain loop (input for the engine work).
    slow = []
    for k, row in cases.items():
        lv = row.get("lazyview_copy")
        if not lv or not lv.get("gbps"):
            continue
        best_loop = max(((row[l]["gbps"], l) for l in LOOPS if l in row and row[l].get("gbps")), default=None)
        if best_loop and lv["gbps"] < best_loop[0]:
            slow.append((k, lv["gbps"], best_loop))
    w("## Where `lazyview_copy` is slower than a plain loop")
    w("")
    if slow:
        w("| case | threads | lazyview_copy GB/s | best loop GB/s | loop | lazyview ÷ loop |")
        w("|---|---:|---:|---:|---|---:|")
        for k, g, (lg, ln) in slow:
            w(f"| {k[0]} | {k[1]} | {g:.1f} | {lg:.1f} | `{ln}` | {g / lg:.2f} |")
    else:
        w("Nowhere in this run.")
    w("")

    # Fold cost.
    fold = [(n, r) for n, r in res.items() if n.startswith("fold/") and "ns" in r]
    if fold:
        w("## Fold cost of chains that stay views (no data moves)")
        w("")
        w("`fold` = `lazyview::fold(e)` of a chain built once; `build_fold` = building the chain "
          "(each dynamic op checks its arguments eagerly: its rule applied to its child's kept sizes and strides) and folding it, every iteration. "
          "Chains over a (2,16,128,128) tensor: 3 ops `view(B,C,H*W).transpose(1,2).narrow(1,0,1024)`; "
          "4 ops `view(B,C,H/2,2,W/2,2).permute(0,2,4,1,3,5).select(0,0).slice(0,0,32,2)`; "
          "5 ops: the 4-op chain then `unsqueeze(1)`. Static chains use `from_blob<2,16,128,128>` and `c<N>`.")
        w("")
        w("| benchmark | median ns |")
        w("|---|---:|")
        for n, r in sorted(fold, key=lambda x: list(res).index(x[0])):
            w(f"| `{n}` | {r['ns']:.1f} |")
        w("")

    if a.compile_times and os.path.exists(a.compile_times):
        w("## Compile time (`bench/compile_time/measure.sh`)")
        w("")
        with open(a.compile_times) as f:
            w(f.read().strip())
        w("")

    errs = [(n, r["error"]) for n, r in res.items() if "error" in r]
    if errs:
        w("## Errors")
        w("")
        for n, e in errs:
            w(f"- `{n}`: {e}")
        w("")

    with open(a.out, "w") as f:
        f.write("\n".join(out))
    if a.png:
        chart(cases, fam_keys, a.png)
    print(f"report.py: wrote {a.out}" + (f" and {a.png}" if a.png else ""))


if __name__ == "__main__":
    main()
