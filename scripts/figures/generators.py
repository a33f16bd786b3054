"""The generators of the tables of README.md and docs/*.md: one function per `<!-- figures:NAME -->` block,
returning the table's Markdown. Each runs the project's own commands (or reads a file the code wrote and a test
keeps current) and rounds as the README does. `fast` ones take seconds (checked by ctest's cli:readme-figures-fast); the rest are sweeps,
checked by `make figures`."""
import csv
import json
import os
import re
import subprocess

from lynx import REPO, FigureError, median, select

GENERATORS = {}


class Generator:
    def __init__(self, name, fast, about, func):
        self.name, self.fast, self.about, self.func = name, fast, about, func

    def generate(self, ctx):
        return self.func(ctx)


def generator(name, fast, about):
    def register(func):
        GENERATORS[name] = Generator(name, fast, about, func)
        return func
    return register


def table(header, rows, empty="  "):
    """A Markdown table: header cells, then rows of cells (strings); an empty cell is written as `empty`."""
    def line(cells):
        return "|" + "|".join(f" {c} " if c else empty for c in cells) + "|"
    return "\n".join([line(header), "|" + "---|" * len(header)] + [line(r) for r in rows])


def fixed(x, digits):
    return f"{x:.{digits}f}"


def pct(x, digits):
    return f"{100 * x:.{digits}f}%"


def ms(x):
    """Milliseconds as whole numbers, as the README's latency tables print them."""
    return f"{x:.0f}"


def read_json(relative):
    with open(os.path.join(REPO, relative), encoding="utf-8") as f:
        return json.load(f)


# ---------------------------------------------------------------------------------------------------------------
# Functional decoder: models/accuracy/stories260k.json (written by `make accuracy`; test_decoder fails when it is
# stale, so the file is what the decoder computes).

ACCURACY_FILE = "models/accuracy/stories260k.json"


def mean_accepted(histogram, k):
    """Mean drafts accepted of k: row k-1 holds the prompts accepting m = 0..k drafts."""
    row = histogram[k - 1]
    return sum(m * n for m, n in enumerate(row)) / sum(row)


@generator("accuracy", True, f"perplexity, agreement and acceptance per KV format ({ACCURACY_FILE})")
def accuracy(ctx):
    acc = read_json(ACCURACY_FILE)
    formats = acc["formats"]
    # Anchor-only perplexity with 3 decimals; a format and its -rq twin that would print the same get a fourth.
    anchor_digits = {}
    for name, f in formats.items():
        if "anchor_only_perplexity" in f:
            twin = name[:-3] if name.endswith("-rq") else name + "-rq"
            same = twin in formats and fixed(formats[twin]["anchor_only_perplexity"], 3) == \
                fixed(f["anchor_only_perplexity"], 3)
            anchor_digits[name] = 4 if same else 3
    rows = [["fp32", fixed(acc["reference"]["perplexity"], 4)] + [""] * 8]
    for name, f in formats.items():
        row = [f"`{name}`", fixed(f["perplexity"], 4), f"{f['perplexity_delta_vs_fp32']:+.4f}",
               pct(f["top1_agreement_vs_fp32"], 2), fixed(f["greedy_agreement_mean_tokens"], 2)]
        if "speculation" in f:
            s = f["speculation"]
            if s["k_max"] != 64:
                raise FigureError(f"{ACCURACY_FILE}: {name}: k_max {s['k_max']}, the table shows k=64")
            row += [fixed(f["anchor_only_perplexity"], anchor_digits[name]),
                    pct(f["anchor_only_top1_agreement_vs_fp32"], 2), fixed(s["per_token_acceptance_rate"], 4),
                    fixed(mean_accepted(s["accepted_histogram"], 8), 2), fixed(s["mean_accepted_at_k_max"], 2)]
        else:
            row += [""] * 5
        rows.append(row)
    return table(["format", "perplexity", "Δ vs fp32", "top-1 vs fp32", "greedy agreement (of 64)",
                  "anchor-only perplexity", "anchor-only top-1", "per-token acceptance", "accepted of k=8",
                  "accepted of k=64"], rows, empty=" ")


@generator("accuracy-by-length", True, f"lynx-a4r4-g64 acceptance by prompt length ({ACCURACY_FILE})")
def accuracy_by_length(ctx):
    formats = read_json(ACCURACY_FILE)["formats"]
    rq = {e["prompt_tokens"]: e for e in formats["lynx-a4r4-g64-rq"]["speculation_by_prompt_length"]}
    rows = []
    for e in formats["lynx-a4r4-g64"]["speculation_by_prompt_length"]:
        h, n = e["accepted_histogram"], e["prompts"]
        rows.append([str(e["prompt_tokens"]), str(n), fixed(e["per_token_acceptance_rate"], 4), pct(h[0][0] / n, 1),
                     fixed(mean_accepted(h, 8), 2), fixed(mean_accepted(h, 64), 2),
                     fixed(rq[e["prompt_tokens"]]["per_token_acceptance_rate"], 4)])
    return table(["prompt tokens", "prompts", "per-token acceptance", "first draft rejected", "accepted of k=8",
                  "accepted of k=64", "`-rq` per-token"], rows)


# ---------------------------------------------------------------------------------------------------------------
# Kernels: kernels/costs/cpu.json (written by `lynxsim bench-kernels --device cpu`, a measurement committed once;
# the table shows the committed file, which the simulator reads).

@generator("cpu-kernels", True, "CPU kernel speeds of the committed kernels/costs/cpu.json")
def cpu_kernels(ctx):
    costs = read_json("kernels/costs/cpu.json")
    kernels = ["encode", "decode_full", "decode_anchor", "attention_full", "attention_anchor"]
    by_format = {}
    for k in costs["kernels"]:
        by_format.setdefault(k["format"], {})[k["kernel"]] = k
    rows = []
    for name, entries in by_format.items():
        row = [f"`{name}`"]
        for kernel in kernels:
            e = entries.get(kernel)
            row.append(f"{e['ratio_to_copy']:.2f} ({e['elements_per_s'] / 1e9:.2f})" if e else "")
        rows.append(row)
    return table(["format"] + kernels, rows)


# ---------------------------------------------------------------------------------------------------------------
# Traces: lynxsim trace-stats --json of the data folder's two traces.

TRACES = [("Mooncake conversation (Apache-2.0)", "@data/traces/mooncake/conversation_trace.jsonl"),
          ("Azure 2023 code (CC-BY-4.0)", "@data/traces/azure-llm-2023/AzureLLMInferenceTrace_code.csv")]


def share(x):
    """A share of requests as the traces table writes it: one decimal, and a plain 0% for none."""
    return "0%" if x == 0 else pct(x, 1)


@generator("traces", True, "lynxsim trace-stats --json of the Mooncake and Azure 2023 code traces")
def traces(ctx):
    rows = []
    for label, path in TRACES:
        s = json.loads(ctx.lynx("trace-stats", path, "--json"))
        t = s["input_tokens"]
        rows.append([label, f"{s['rows']:,}", f"{s['span_s']:,.1f} s", f"{s['rate_per_s']:.2f}/s",
                     " / ".join(f"{t[k]:,.0f}" for k in ("mean", "p50", "p99", "max")),
                     f"{share(t['share_over_8k'])} / {share(t['share_over_32k'])}",
                     pct(s["prefix_hit_ratio"], 1) if "prefix_hit_ratio" in s else "n/a"])
    return table(["trace", "rows", "span", "rate", "input mean / p50 / p99 / max", "over 8K / 32K", "prefix hit"],
                 rows)


# ---------------------------------------------------------------------------------------------------------------
# Calibrated compute: lynxsim validate (the MAPE per group and the diagnostic breakdown). The MAPEs are recomputed
# from validation.csv (4 decimals per row) so that rounding to the README's one decimal is not a rounding of the
# printed two; they are checked against the printed figures.

def validation_report(ctx):
    def compute():
        out = ctx.folder("validate")
        printed = ctx.lynx("validate", "--out", out, "--no-plot")
        groups, breakdown, section = {}, {}, None
        derivation = []
        for line in printed.split("\n"):
            if line.startswith("group ") and line.split()[-1] == "MAPE_%":
                section = groups
            elif line.startswith("GPU derivation"):
                section = derivation
            elif section is derivation:
                m = re.match(r"^(.+?)\s{2,}(\S+ -> \S+)\s+(\d+)\s+([\d.]+)\s+([\d.]+)\s+([+-][\d.]+)\s+([\d.]+)\s+"
                             r"([\d.]+)$", line)
                if m:
                    derivation.append(dict(zip(["family", "pair", "points", "median", "p90", "bias", "old_median",
                                                "old_p90"], [m.group(1).strip()] + list(m.groups()[1:]))))
                elif not line.strip():
                    section = None
            elif line.startswith("breakdown"):
                section = breakdown
            elif line.startswith("serving"):  # the serving group's tables (serving_validation below)
                section = None
            elif section is not None and line.strip() and not line.startswith("wrote"):
                parts = line.rsplit(None, 2)
                section[parts[0].strip()] = (int(parts[1]), float("nan") if parts[2] == "-" else float(parts[2]))
        with open(os.path.join(out, "validation.csv"), encoding="utf-8", newline="") as f:
            rows = [r for r in csv.DictReader(f) if r["included"] == "1"]
        groups["gpu derivation"] = derivation
        return groups, breakdown, rows
    return ctx.once("validate", compute)


def mape(rows, name, printed):
    """MAPE in % of rows, checked against the figure validate printed for the group (rows, MAPE_%)."""
    if name not in printed:
        raise FigureError(f"lynxsim validate printed no group {name!r} (printed: {', '.join(printed)})")
    value = 100 * sum(abs(float(r["predicted_ms"]) / float(r["measured_ms"]) - 1) for r in rows) / len(rows)
    n, shown = printed[name]
    if n != len(rows) or abs(value - shown) > 0.006:
        raise FigureError(f"{name}: validation.csv gives {len(rows)} rows, MAPE {value:.3f}%; validate printed "
                          f"{n} rows, {shown}%")
    return value, n


VALIDATION_GROUPS = [  # README label (rows appended), group as validate names it
    # splitwise-sim's rows were measured on an engine its authors do not name (2023, vLLM-like; DESIGN.md)
    ("H100 decode, Llama-2-70B TP 2/4/8 (splitwise-sim, unnamed 2023 engine, {n})", "H100 decode (splitwise-sim)"),
    ("H100 prefill, Llama-2-70B TP 2/4/8 (splitwise-sim, unnamed 2023 engine, {n})", "H100 prefill (splitwise-sim)"),
    ("A100 decode (splitwise-sim, unnamed 2023 engine, {n})", "A100 decode (splitwise-sim)"),
    ("A100 prefill (splitwise-sim, unnamed 2023 engine, {n})", "A100 prefill (splitwise-sim)"),
    ("H100 per-op prefill sums, Llama-3.1-8B/70B TP 1/2/4 (LLMServingSim, {n})", "H100 prefill op sums (LLMServingSim)"),
]


@generator("validation", True, "lynxsim validate: MAPE per group of end-to-end measurements")
def validation(ctx):
    groups, _, rows = validation_report(ctx)
    out = []
    for label, group in VALIDATION_GROUPS:
        value, n = mape([r for r in rows if r["group"] == group], group, groups)
        out.append([label.format(n=n), pct(value / 100, 1)])
    return table(["group (rows)", "MAPE"], out)


TRANSFER_GROUPS = ["transfer: nixl over rdma", "transfer: nixl over tcpxo", "transfer: mooncake over rdma",
                   "transfer: mooncake over efa"]


@generator("transfer-validation", True, "lynxsim validate: the transfer presets' library and transport terms "
           "against published micro-benchmarks")
def transfer_validation(ctx):
    groups, _, rows = validation_report(ctx)
    out = []
    for group in TRANSFER_GROUPS:
        chosen = [r for r in rows if r["group"] == group]
        value, n = mape(chosen, group, groups)
        worst = max(chosen, key=lambda r: abs(float(r["ratio"]) - 1))
        out.append([f"{group} ({n} held out)", pct(value / 100, 1),
                    f"{worst['condition']}: {fixed(float(worst['ratio']), 2)} ({worst['source']})"])
    return table(["group (held-out rows)", "MAPE", "worst row: predicted / measured time"], out)


@generator("gpu-derivation", True, "lynxsim validate: kernel tables of one measured GPU derived from another's, "
           "by the rule and by the peak-ratio rule it replaced")
def gpu_derivation(ctx):
    groups, _, _ = validation_report(ctx)
    rows = groups.get("gpu derivation") or []
    if not rows:
        raise FigureError("lynxsim validate printed no GPU derivation rows")
    out = [[r["family"], r["pair"].replace("h100", "H100").replace("h200", "H200").replace("b200", "B200"),
            f"{int(r['points']):,}", f"{float(r['median']):.1f}% / {float(r['p90']):.1f}%", f"{float(r['bias']):+.1f}%",
            f"{float(r['old_median']):.1f}% / {float(r['old_p90']):.1f}%"] for r in rows]
    return table(["family", "derived from -> measured", "points", "median / p90 error", "median bias",
                  "peak-ratio rule: median / p90"], out)


@generator("validation-breakdown", True, "lynxsim validate: splitwise-sim prefill MAPE by batch size and TP")
def validation_breakdown(ctx):
    _, breakdown, rows = validation_report(ctx)
    split = 2048

    def cell(gpu, label, select_row):
        group = f"{gpu} prefill (splitwise-sim)"
        chosen = [r for r in rows if r["group"] == group and select_row(r)]
        return mape(chosen, f"{group}, {label}", breakdown)

    def both(label, select_row):
        return [cell(gpu, label, select_row) for gpu in ("H100", "A100")]

    small = both(f"<= {split} batched tokens", lambda r: float(r["batched_tokens"]) <= split)
    large = both(f"> {split} batched tokens", lambda r: float(r["batched_tokens"]) > split)
    tps = [both(f"TP {tp}", lambda r, tp=tp: int(r["tp"]) == tp) for tp in (2, 4, 8)]
    for h, a in [small, large] + tps:
        if h[1] != a[1]:
            raise FigureError(f"H100 and A100 prefill have different row counts ({h[1]}, {a[1]}): one label")
    rows_out = [[f"up to {split:,} prompt tokens per batch ({small[0][1]})", pct(small[0][0] / 100, 1),
                 pct(small[1][0] / 100, 1)],
                [f"above {split:,} ({large[0][1]})", pct(large[0][0] / 100, 1), pct(large[1][0] / 100, 1)],
                [f"TP 2 / TP 4 / TP 8 ({' / '.join(str(t[0][1]) for t in tps)})",
                 " / ".join(pct(t[0][0] / 100, 1) for t in tps), " / ".join(pct(t[1][0] / 100, 1) for t in tps)]]
    return table(["prefill rows (splitwise-sim)", "H100", "A100"], rows_out)


# ---------------------------------------------------------------------------------------------------------------
# The paper's regime: experiments/lynx_headline.json (one 32K-token request per point).

HEADLINE = "experiments/lynx_headline.json"
NICS = [10, 25, 40, 50, 100]
# The points the tables show: measured acceptance (null: the accuracy file), int8 against Lynx (and int4).
HEADLINE_POINTS = {"lynx.acceptance_rate": [None], "format": ["int8-g64", "lynx-a4r4-g64"]}
COMPUTE_POINTS = {"lynx.acceptance_rate": [None], "format": ["int8-g64", "int4-g64", "lynx-a4r4-g64"]}


def ratio(points, mode, metric, numerator="int8-g64", denominator="lynx-a4r4-g64", nic=None, acceptance=None):
    """numerator's median `metric` over denominator's, as the experiment's `ratios` define them."""
    def value(fmt):
        p = select(points, format=fmt, transfer__mode=mode, cluster__network__nic_gbps=nic,
                   lynx__acceptance_rate=acceptance)
        return p[f"median_{metric}_ms"]
    return value(numerator) / value(denominator)


@generator("headline", True, f"int8 over Lynx first-token times, one 32K request ({HEADLINE})")
def headline(ctx):
    points = ctx.run_experiment(HEADLINE, only=HEADLINE_POINTS)
    rows = []
    for nic in NICS:
        row = [f"{nic} Gbps"]
        for mode in ("after-prefill", "layer-wise"):
            row += [fixed(ratio(points, mode, m, nic=nic), 3) for m in ("ttft_spec", "ttft_correct", "ttft")]
        rows.append(row)
    return table(["NIC", "after prefill: / ttft_spec", "/ ttft_correct", "/ ttft", "layer-wise: / ttft_spec",
                  "/ ttft_correct", "/ ttft"], rows)


# transfer.connector and transfer.transport presets (sim/transfer/transfer_cost.cpp)
ENGINES = ["ideal", "vllm-mooncake/rdma", "vllm-nixl/rdma", "sglang-mooncake/efa", "lmcache/tcpxo"]


def engine_settings(preset):
    connector, _, transport = preset.partition("/")
    return [f"transfer.connector={connector}"] + ([f"transfer.transport={transport}"] if transport else [])


@generator("headline-engines", True, f"the headline ratios under transfer presets (connector / transport, {HEADLINE})")
def headline_engines(ctx):
    runs = {e: ctx.run_experiment(HEADLINE, engine_settings(e), only=HEADLINE_POINTS) for e in ENGINES}
    rows = []
    for nic in NICS:
        row = [f"{nic} Gbps"]
        for mode in ("after-prefill", "layer-wise"):
            for metric in ("ttft_spec", "ttft"):
                row.append(" / ".join(fixed(ratio(runs[e], mode, metric, nic=nic), 3) for e in ENGINES))
        rows.append(row)
    return table(["NIC", "after prefill: / ttft_spec", "/ ttft", "layer-wise: / ttft_spec", "/ ttft"], rows)


def old_roofline_catalog(ctx):
    """The GPU catalog of the roofline this project used before it was calibrated: the shipped h200-sxm with the
    guessed 0.5 MFU / 0.7 MBU (the values models/catalog/gpus.json held before commit 3099440)."""
    gpus = read_json("models/catalog/gpus.json")["gpus"]
    h200 = dict(next(g for g in gpus if g["name"] == "h200-sxm"))
    h200.update(compute_efficiency=0.5, memory_efficiency=0.7)
    h200["efficiency_source"] = "guessed (the project's first roofline)"
    return ctx.write_json("old-roofline-gpus", {"gpus": [h200]})


@generator("headline-compute", False, f"the headline ratio on the profiled, roofline and old roofline models "
           f"({HEADLINE})")
def headline_compute(ctx):
    profiled = ctx.run_experiment(HEADLINE, only=COMPUTE_POINTS)
    roofline = ctx.run_experiment(HEADLINE, ["compute_model=roofline"], only=HEADLINE_POINTS)
    old = ctx.run_experiment(HEADLINE, ["compute_model=roofline", f"gpus_catalog={old_roofline_catalog(ctx)}"],
                             only=HEADLINE_POINTS)
    rows = []
    for nic in NICS:
        row = [f"{nic} Gbps"]
        for mode in ("after-prefill", "layer-wise"):
            p, r, o = (fixed(ratio(pts, mode, "ttft_spec", nic=nic), 3) for pts in (profiled, roofline, old))
            row.append(f"{p} ({r}) [{o}]")
        # Lynx's first token over int4's, KV sent after the prefill (where the transfer is exposed), profiled.
        row.append(fixed(ratio(profiled, "after-prefill", "ttft_spec", "lynx-a4r4-g64", "int4-g64", nic=nic), 3))
        rows.append(row)
    return table(["NIC", "KV sent after prefill: profiled (roofline) [old roofline]",
                  "KV streamed layer by layer: profiled (roofline) [old roofline]", "Lynx first token / int4 TTFT"],
                 rows)


# ---------------------------------------------------------------------------------------------------------------
# The Mooncake trace: prefix caching (experiments/prefix_caching.json), the anchor-width frontier
# (experiments/anchor_width.json) and the residual policies (prefix_caching.json's base at 10 Gbps).

PREFIX = "experiments/prefix_caching.json"
PREFIX_NICS = [10, 25, 100]  # the bandwidths the table shows (the experiment sweeps 50 and 200 Gbps too)


@generator("prefix-caching", False, f"the whole Mooncake trace with and without a prefix cache ({PREFIX})")
def prefix_caching(ctx):
    points = ctx.run_experiment(PREFIX, only={"cluster.network.nic_gbps": PREFIX_NICS})
    rows = []
    for fmt in ("int8-g64", "lynx-a4r4-g64"):
        for nic in PREFIX_NICS:
            off, on = (select(points, format=fmt, cluster__network__nic_gbps=nic, cluster__prefill__prefix_cache=c)
                       for c in (False, True))

            def pair(metric):
                return f"{ms(off[metric])} / {ms(on[metric])}"
            if off["prefix_cache_hit_ratio"] != 0:
                raise FigureError(f"{off.folder}: a hit ratio without a cache")
            rows.append([str(nic), fmt, "off / on", f"0 / {pct(on['prefix_cache_hit_ratio'], 1)}",
                         pair("mean_ttft_ms"), pair("median_ttft_ms"), pair("p99_ttft_ms"),
                         pair("mean_exposed_transfer_ms")])
    return table(["NIC Gbps", "format", "cache", "hit ratio", "TTFT mean", "TTFT p50", "TTFT p99",
                  "exposed transfer mean"], rows)


ANCHOR = "experiments/anchor_width.json"


def two_digits(x):
    """A share with two significant digits, as the frontier table prints the first drafts kept."""
    v = 100 * x
    return f"{v:.1f}%" if v < 9.95 else f"{v:.0f}%"


@generator("anchor-width", False, f"the anchor-width frontier at 10 Gbps, first 3,000 Mooncake requests ({ANCHOR})")
def anchor_width(ctx):
    points = ctx.run_experiment(ANCHOR, only={"cluster.network.nic_gbps": [10]})  # the table's bandwidth

    def at(fmt):
        return select(points, format=fmt)
    metrics = ["median_ttft_spec_ms", "median_ttft_correct_ms", "median_ttft_ms", "median_e2el_ms"]
    rows = []
    for fmt, label in (("int8-g64", "int8-g64"), ("int4-g64", "int4-g64 (lossy)")):
        rows.append([label] + [ms(at(fmt)[m]) for m in metrics] + ["-"])
    splits = [f"lynx-a{a}r{8 - a}-g64" for a in range(2, 7)]
    best = min((at(f)["median_ttft_correct_ms"], f) for s in splits for f in (s, s + "-rq"))[1]
    for s in splits:
        bit, rq = at(s), at(s + "-rq")
        row = [f"{s} / -rq"]
        for m in metrics:
            cells = [ms(p[m]) for p in (bit, rq)]
            if m == "median_ttft_correct_ms":
                cells = [f"**{c}**" if f == best else c for c, f in zip(cells, (s, s + "-rq"))]
            row.append(" / ".join(cells))
        row.append(" / ".join(two_digits(p["first_draft_kept_rate"]) for p in (bit, rq)))
        rows.append(row)
    return table(["format", "ttft_spec", "ttft_correct", "ttft", "e2el", "first draft kept"], rows)


RESIDUAL_WAITS_MS = [25, 100, 250, 1000]


def residual_base(ctx):
    """prefix_caching.json's base configuration (no prefix cache, least-loaded router) at 10 Gbps."""
    base = read_json(PREFIX)["base"]
    base["cluster"]["network"]["nic_gbps"] = 10
    return ctx.write_json("residual-base", base)


@generator("residual-policy", False, f"Lynx residual policies, the whole Mooncake trace at 10 Gbps ({PREFIX}'s base)")
def residual_policy(ctx):
    base = residual_base(ctx)
    runs = [(base, ["format=int8-g64"]), (base, ["format=lynx-a4r4-g64"])]
    runs += [(base, ["format=lynx-a4r4-g64", "transfer.residual_policy=aging", f"transfer.residual_max_wait_ms={w}"])
             for w in RESIDUAL_WAITS_MS]
    points = ctx.simulate_many(runs)
    labels = ["int8-g64 (no speculation)", "lynx, `weighted` (default)"] + \
        [f"lynx, `aging`, {w} ms" for w in RESIDUAL_WAITS_MS]
    rows = []
    for label, p in zip(labels, points):
        def stats(metric, kinds):
            return " / ".join(ms(p[f"{k}_{metric}_ms"]) for k in kinds)
        rows.append([label, stats("ttft_spec", ("median", "mean")), stats("ttft_correct", ("median", "mean")),
                     stats("ttft", ("median", "mean", "p99")), stats("e2el", ("mean", "p99"))])
    return table(["policy (`transfer.residual_policy`)", "ttft_spec p50 / mean", "ttft_correct p50 / mean",
                  "ttft p50 / mean / p99", "e2el mean / p99"], rows)


# ---------------------------------------------------------------------------------------------------------------
# Models from Hugging Face config.json: lynxsim list models --json, the counts from the shapes beside the
# published figures the catalog entries quote.

HF_MODELS = [
    ("qwen3-8b", "8.2B", "GQA 8 x 128, q/k norm"),
    ("qwen3-32b", "32.8B", "GQA 8 x 128, q/k norm"),
    ("qwen3-235b-a22b", "235B / 22B", "GQA 4 x 128; 8 of 128 experts"),
    ("deepseek-v3", "671B / 37B", "MLA 512 + 64 latent; 8 of 256 + 1 shared"),
    ("mixtral-8x7b", "46.7B / 12.9B", "GQA 8 x 128; 2 of 8 experts"),
    ("gpt-oss-120b", "116.8B / 5.13B", "GQA 8 x 64, 18 of 36 layers sliding (128)"),
]


@generator("hf-models", True, "lynxsim list models --json: the hf_config entries' counts and KV bytes per token")
def hf_models(ctx):
    models = {m["name"]: m for m in json.loads(ctx.lynx("list", "models", "--json"))["models"]}
    rows = []
    for name, published, attention in HF_MODELS:
        m = models[name]
        if "unavailable" in m:
            raise FigureError(f"{name}: {m['unavailable']}")
        active = round(m["active_params"])
        kv = m["kv_bytes_per_token_bf16"]
        kv_text = f"{kv:,.0f}" + (" at 64K tokens" if "sliding_window" in m else "")
        rows.append([f"`{name}`", f"{m['params']:,}", "= total" if active == m["params"] else f"{active:,}",
                     published, attention, kv_text])
    return table(["model", "total params", "active params", "published", "attention", "KV B/token (bf16)"], rows)


# Engines (docs/engines.md): lynxsim validate's groups of published end-to-end rows of named engines, predicted from
# AIConfigurator's component tables; and the held-out errors of the tables' interpolation, as the test prints them.

ENGINE_GROUP = re.compile(r"^(H100|H200|A100|B200) (vllm|sglang|trtllm)-")


@generator("engine-validation", True, "lynxsim validate: MAPE per group of named engines' published rows")
def engine_validation(ctx):
    groups, _, rows = validation_report(ctx)
    names = [g for g in groups if ENGINE_GROUP.match(g) and groups[g][0] > 0]  # a group of excluded rows only: none
    if not names:
        raise FigureError("lynxsim validate printed no engine group (GPU engine-version ...)")
    out, included = [], []
    for group in names:
        members = [r for r in rows if r["group"] == group]
        value, n = mape(members, group, groups)
        included += members
        out.append([group, str(n), pct(value / 100, 1)])
    total = 100 * sum(abs(float(r["predicted_ms"]) / float(r["measured_ms"]) - 1) for r in included) / len(included)
    out.append([f"all {len(included)} rows", str(len(included)), pct(total / 100, 1)])
    return table(["group (GPU, engine tables, phase, TP; published engine)", "rows", "MAPE"], out)


HELD_OUT = re.compile(r"MESSAGE: (gemm|context attention|generation attention) (m|n|isl|kv)=(\S+): (\d+) points, "
                      r"median (\S+), p90 (\S+)$")
HELD_OUT_LABELS = {"gemm": "GEMM", "context attention": "context attention",
                   "generation attention": "generation attention"}


@generator("aic-held-out", True, "test_aic_database: held-out grid points of vLLM's H100 tables")
def aic_held_out(ctx):
    binary = os.path.join(ctx.build_dir, "tests", "test_aic_database")
    if not os.path.exists(binary):
        raise FigureError(f"{binary} not found: build it first (cmake --build BUILD --target test_aic_database)")
    done = subprocess.run([binary, "-tc=aic database: held-out*", "-s"], capture_output=True, text=True)
    if done.returncode != 0:
        raise FigureError(f"{binary} failed (exit {done.returncode}):\n{done.stdout[-2000:]}{done.stderr[-2000:]}")
    out = []
    for line in done.stdout.split("\n"):
        m = HELD_OUT.search(line.strip())
        if m:
            op, axis, value, n, med, p90 = m.groups()
            axis = "KV" if axis == "kv" else axis
            out.append([f"{HELD_OUT_LABELS[op]} {axis} = {value}", n, pct(float(med), 1), pct(float(p90), 1)])
    if not out:
        raise FigureError(f"{binary} printed no held-out figures")
    return table(["table, held-out axis value", "points", "median error", "p90 error"], out)


# The serving group (docs/engines.md, "As they serve"): each replayable GPUStack H100 run simulated as it was served,
# against what `vllm bench serve` measured, with the fitted host and front-end terms; `validate --serving` prints
# each run, then the MAPE by engine and role (train or check).

def serving_report(ctx):
    def compute():
        printed = ctx.lynx("validate", "--serving")
        runs, groups, terms, section, columns = [], [], [], None, None
        for line in printed.split("\n"):
            if line.startswith("serving terms"):
                section = "terms"
                continue
            if section == "terms":
                if not line.strip():
                    section = None
                    continue
                name, *numbers = line.split(None, 6)
                if len(numbers) != 6:
                    raise FigureError(f"lynxsim validate --serving: a serving-terms line without five numbers: {line!r}")
                terms.append((name, numbers[:5], numbers[5].strip()))
                continue
            if line.startswith("run ") and "workload" in line:
                section = "runs"
                names = ["run", "engine", "model", "role", "workload", "dur_s"]
                columns = [line.index(n) for n in names]
                continue
            if line.startswith("serving group"):
                section = "groups"
                continue
            if line.startswith("serving breakdown") or not line.strip():
                section = None if line.strip() else section
                continue
            if section == "runs" and "not replayed" not in line:
                # the workload may run into the number columns: the numbers are the line's last six words
                head, *tail = line[columns[4]:].rsplit(None, 6)
                try:
                    numbers = [float(x) for x in tail]
                except ValueError:
                    numbers = []
                if len(numbers) != 6:
                    raise FigureError(f"lynxsim validate --serving: a run line without six numbers: {line!r}")
                cells = [line[columns[i]:columns[i + 1]].strip() for i in range(4)] + [head.strip()]
                runs.append(dict(zip(["run", "engine", "model", "role", "workload"], cells), numbers=numbers))
            elif section == "groups":
                parts = line.split()
                groups.append((" ".join(parts[:-4]), parts[-4:]))
        if not runs or not groups or not terms:
            raise FigureError("lynxsim validate --serving printed no serving terms, runs or serving group")
        return runs, groups, terms
    return ctx.once("validate-serving", compute)


@generator("serving-terms", True, "lynxsim validate --serving: each engine's fitted host and front-end terms")
def serving_terms(ctx):
    _, _, terms = serving_report(ctx)
    rows = [[f"`{name}`", f"{step} / {eager}", per_request, serial, latency, source]
            for name, (step, eager, per_request, serial, latency), source in terms]
    return table(["engine", "host_step_ms (captured / eager step)", "host_per_request_us", "frontend_serial_ms",
                  "frontend_ms", "source"], rows)


@generator("serving-validation", True, "lynxsim validate --serving: MAPE of the GPUStack H100 runs by engine and role")
def serving_validation(ctx):
    _, groups, _ = serving_report(ctx)
    rows = [[name, runs, f"{dur}%", f"{ttft}%", f"{tpot}%"] for name, (dur, ttft, tpot, runs) in groups]
    return table(["engine, role (train: fitted on; check: held out)", "runs", "duration MAPE", "mean TTFT MAPE",
                  "mean TPOT MAPE"], rows)


@generator("serving-runs", True, "lynxsim validate --serving: each GPUStack H100 run, predicted over measured")
def serving_runs(ctx):
    runs, _, _ = serving_report(ctx)
    rows = []
    for r in runs:
        dur, dur_p, ttft, ttft_p, tpot, tpot_p = r["numbers"]
        rows.append([f"`{r['run']}`", r["engine"], r["model"], r["role"], r["workload"], f"{dur:.1f}",
                     fixed(dur_p / dur, 2), f"{ttft:.0f}", fixed(ttft_p / ttft, 2), f"{tpot:.1f}", fixed(tpot_p / tpot, 2)])
    return table(["run (page:line)", "engine", "model", "role", "workload (I/O tokens)", "duration s", "pred/meas",
                  "mean TTFT ms", "pred/meas", "mean TPOT ms", "pred/meas"], rows)


# The serving group again with one kernel-time factor per page (one machine), fitted on the page's training runs at
# the engines' shipped terms (`validate --serving --deployment-factor`): how much of the error is the machine's.

@generator("serving-deployment-factors", False,
           "lynxsim validate --serving --deployment-factor: one kernel-time factor per page and the MAPE with them")
def serving_deployment_factors(ctx):
    printed = ctx.lynx("validate", "--serving", "--quiet", "--deployment-factor")
    factors, groups, section = [], [], None
    for line in printed.split("\n"):
        if line.startswith("deployment factors"):
            section = "factors"
            continue
        if line.startswith("serving group with deployment factors"):
            section = "groups"
            continue
        if not line.strip():
            section = None
            continue
        parts = line.split()
        if section == "factors":
            if len(parts) != 4:
                raise FigureError(f"lynxsim validate --deployment-factor: a factor line without three numbers: {line!r}")
            factors.append(parts)
        elif section == "groups":
            groups.append((" ".join(parts[:-4]), parts[-4:]))
    if not factors or not groups:
        raise FigureError("lynxsim validate --serving --deployment-factor printed no factors or groups")
    rows = [[f"`{page}`", factor, runs, f"{error}%", "", "", ""] for page, factor, runs, error in factors]
    rows += [[name, "", runs, "", f"{dur}%", f"{ttft}%", f"{tpot}%"] for name, (dur, ttft, tpot, runs) in groups]
    return table(["page (its factor) or engine, role", "kernel-time factor", "runs", "training error at the factor",
                  "duration MAPE", "mean TTFT MAPE", "mean TPOT MAPE"], rows)


# Should I disaggregate at all (docs/results.md): the same 8 H200s and the Mooncake trace co-located and
# disaggregated (experiments/colocated_vs_disaggregated.json), at four of its NIC speeds.

COLOCATED = "experiments/colocated_vs_disaggregated.json"
COLOCATED_NICS = [10, 25, 100, 400]


@generator("colocated-vs-disaggregated", False, f"co-located against 4+4 disaggregated serving ({COLOCATED})")
def colocated_vs_disaggregated(ctx):
    points = ctx.run_experiment(COLOCATED, only={"cluster.network.nic_gbps": COLOCATED_NICS})

    def at(serving, fmt, nic):
        return select(points, cluster__serving=serving, format=fmt, cluster__network__nic_gbps=nic)

    rows = []
    for nic in COLOCATED_NICS:
        co = at("colocated", "bf16", nic)
        cells = [f"{nic} Gbps", f"{ms(co['median_ttft_ms'])} / {fixed(co['median_tpot_ms'], 2)}"]
        for fmt in ("bf16", "int8-g64"):
            p = at("disaggregated", fmt, nic)
            cells.append(f"{ms(p['median_ttft_ms'])} / {fixed(p['median_tpot_ms'], 2)}" +
                         (" (overloaded)" if p["overloaded"] else ""))
        lynx = at("disaggregated", "lynx-a4r4-g64", nic)
        cells.append(f"{ms(lynx['median_ttft_spec_ms'])} / {ms(lynx['median_ttft_ms'])} / {fixed(lynx['median_tpot_ms'], 2)}")
        rows.append(cells)
    return table(["NIC", "co-located 8: p50 TTFT ms / TPOT ms", "4+4 bf16: p50 TTFT / TPOT",
                  "4+4 int8: p50 TTFT / TPOT", "4+4 Lynx a4r4: p50 first (speculative) / verified TTFT / TPOT"], rows)
