#!/usr/bin/env python3
"""The calibration loop round trip (lynxsim calibrate, app/cmd_calibrate.cpp): runs simulated by lynxsim with known
serving terms are written in every result format calibrate reads (vllm bench serve --save-result JSON with and
without --save-detailed, its printed block, SGLang bench_serving JSONL, AIPerf's artifact folder with a run sent at a
Poisson rate replayed at its recorded send times), calibrated back, and the fitted terms must equal the known ones
within 1%; a file whose totals disagree with its per-request rows is one error (exit 2) naming the file and key. Usage: calibrate_roundtrip.py LYNXSIM [WORKDIR] (default: a temporary folder, removed after)"""
import csv
import json
import os
import shutil
import subprocess
import sys
import tempfile

lynx = sys.argv[1]
work = sys.argv[2] if len(sys.argv) > 2 else tempfile.mkdtemp(prefix="calibrate_roundtrip.")
KNOWN = {"host_step_ms": 2.0, "host_per_request_us": 25.0, "frontend_ms": 20.0, "frontend_serial_ms": 5.0}
# overlap scheduling off (vLLM before 0.12): with it on, the engine hides host time and no run can see the host terms
pool = {"instances": 1, "gpu": "h100-sxm", "tp": 1, "engine": "vllm-0.24", "overlap_scheduling": "off"}
deployment = {"model": "llama-3.1-8b", "format": "bf16",
              "cluster": {"serving": "colocated", "colocated_instances": 1, "prefill": dict(pool), "decode": dict(pool)}}
with open(os.path.join(work, "deployment.json"), "w") as f:
    json.dump(deployment, f)

# (requests, input, output, clients or 0 for all at once, lengths drawn): the runs a user would have benchmarked
RUNS = [(24, 2000, 64, 0, False), (32, 256, 32, 0, False), (20, 1000, 48, 4, False), (24, 1200, 40, 0, True)]


# AIPerf's only: a run sent at a Poisson rate (requests/s), which calibrate replays at its recorded send times
RATE_RUN = (24, 1000, 40, 0, True, 6.0)


def simulate(i, n, inp, out, clients, drawn, rate=None, base=None, notify_us=None, families=None):
    config = json.loads(json.dumps(base or deployment))
    for p in ("prefill", "decode"):
        config["cluster"][p].update(KNOWN)
        if families:
            config["cluster"][p]["kernel_family_factors"] = families
    if notify_us is not None:
        config["transfer"] = {"notify_us": notify_us}
    lengths = (lambda x: {"uniform": [x // 2, x * 3 // 2]}) if drawn else (lambda x: {"fixed": x})
    arrival = {"arrival": "poisson", "rate_per_s": rate} if rate else {"arrival": "at-once"}
    config["workload"] = {"synthetic": {**arrival, "count": n, "input_tokens": lengths(inp),
                                        "output_tokens": lengths(out)}}
    if clients:
        config["workload"]["max_concurrency"] = clients
    path = os.path.join(work, f"truth{i}.json")
    with open(path, "w") as f:
        json.dump(config, f)
    out_dir = os.path.join(work, f"truth{i}")
    subprocess.run([lynx, "simulate", "--config", path, "--out", out_dir, "--quiet"], check=True,
                   stdout=subprocess.DEVNULL)
    rows = list(csv.DictReader(open(os.path.join(out_dir, "requests.csv"))))
    first = min(float(r["arrival_s"]) for r in rows)
    last = max(float(r["end_s"]) for r in rows)
    tpots = [float(r["tpot_s"]) for r in rows if int(r["output_tokens"]) > 1]
    return {"completed": len(rows), "duration": last - first,
            "total_input_tokens": sum(int(r["input_tokens"]) for r in rows),
            "total_output_tokens": sum(int(r["output_tokens"]) for r in rows),
            "mean_ttft_ms": 1e3 * sum(float(r["ttft_s"]) for r in rows) / len(rows),
            "mean_tpot_ms": 1e3 * sum(tpots) / len(tpots),
            "max_concurrency": clients or None, "request_rate": rate or "inf",
            "input_lens": [int(r["input_tokens"]) for r in rows],
            "output_lens": [int(r["output_tokens"]) for r in rows],
            "ttfts": [float(r["ttft_s"]) for r in rows],
            "sends": [float(r["arrival_s"]) - first for r in rows],
            "tpots": [float(r["tpot_s"]) if int(r["output_tokens"]) > 1 else None for r in rows]}


results = [simulate(i, *run) for i, run in enumerate(RUNS)]
rate_result = simulate(len(RUNS), *RATE_RUN)
summary_only = [{k: v for k, v in r.items() if k not in ("input_lens", "output_lens", "ttfts", "sends", "tpots")}
                for r in results]
detailed = [{k: v for k, v in r.items() if k not in ("sends", "tpots")} for r in results]


def block(r):
    lines = ["============ Serving Benchmark Result ============",
             f"{'Successful requests:':<40} {r['completed']}"]
    if r["max_concurrency"]:
        lines.append(f"{'Maximum request concurrency:':<40} {r['max_concurrency']}")
    lines += [f"{'Benchmark duration (s):':<40} {r['duration']:.6f}",
              f"{'Total input tokens:':<40} {r['total_input_tokens']}",
              f"{'Total generated tokens:':<40} {r['total_output_tokens']}",
              f"{'Mean TTFT (ms):':<40} {r['mean_ttft_ms']:.4f}",
              f"{'Mean TPOT (ms):':<40} {r['mean_tpot_ms']:.4f}", "=" * 50, ""]
    return "\n".join(lines)


formats = {}
# vllm bench serve --save-result --save-detailed: one file per run, every run (the drawn-length one included)
formats["vllm-detailed"] = []
for i, r in enumerate(results):
    path = os.path.join(work, f"vllm_detailed_{i}.json")
    json.dump(detailed[i], open(path, "w"))
    formats["vllm-detailed"].append(path)
# without --save-detailed, the printed block and SGLang's JSONL: the fixed-length runs (their means are exact)
fixed = [i for i, run in enumerate(RUNS) if not run[4]]
formats["vllm-summary"] = []
for i in fixed:
    path = os.path.join(work, f"vllm_{i}.json")
    json.dump(summary_only[i], open(path, "w"))
    formats["vllm-summary"].append(path)
path = os.path.join(work, "printed.log")
open(path, "w").write("\n".join(block(results[i]) for i in fixed))
formats["printed-block"] = [path]
path = os.path.join(work, "sglang.jsonl")
open(path, "w").write("".join(json.dumps(summary_only[i]) + "\n" for i in fixed))
formats["sglang-jsonl"] = [path]


def aiperf_folder(name, r, requests_sent):
    """An AIPerf artifact folder: the aggregate (metrics as {unit, avg}, the load settings under input_config) and
    one record per request, with a warmup record and a failed one that the counts leave out."""
    folder = os.path.join(work, name)
    os.makedirs(folder, exist_ok=True)
    n = r["completed"]
    loadgen = {"request_count": n}
    if r["request_rate"] != "inf":
        loadgen.update({"request_rate": r["request_rate"], "request_rate_mode": "poisson"})
    else:
        loadgen.update({"concurrency": requests_sent, "request_rate_mode": "concurrency_burst"})
    aggregate = {"request_count": {"unit": "requests", "avg": n},
                 "benchmark_duration": {"unit": "sec", "avg": r["duration"]},
                 "total_isl": {"unit": "tokens", "avg": r["total_input_tokens"]},
                 "total_osl": {"unit": "tokens", "avg": r["total_output_tokens"]},
                 "time_to_first_token": {"unit": "ms", "avg": r["mean_ttft_ms"], "p50": None},
                 "inter_token_latency": {"unit": "ms", "avg": r["mean_tpot_ms"]},
                 "input_config": {"endpoint": {"streaming": True}, "loadgen": loadgen}}
    json.dump(aggregate, open(os.path.join(folder, "profile_export_aiperf.json"), "w"), indent=2)
    epoch = 1_800_000_000_000_000_000  # ns since 1970: AIPerf's records carry wall-clock send times
    lines = [{"metadata": {"request_start_ns": epoch - 10**9, "benchmark_phase": "warmup"},
              "metrics": {"input_sequence_length": {"value": 7, "unit": "tokens"},
                          "output_sequence_length": {"value": 3, "unit": "tokens"},
                          "time_to_first_token": {"value": 1.0, "unit": "ms"}}, "error": None}]
    for k in range(n):
        metrics = {"input_sequence_length": {"value": r["input_lens"][k], "unit": "tokens"},
                   "output_sequence_length": {"value": r["output_lens"][k], "unit": "tokens"},
                   "time_to_first_token": {"value": 1e3 * r["ttfts"][k], "unit": "ms"}}
        if r["tpots"][k] is not None:
            metrics["inter_token_latency"] = {"value": 1e3 * r["tpots"][k], "unit": "ms"}
        lines.append({"metadata": {"session_num": k, "request_start_ns": epoch + round(r["sends"][k] * 1e9),
                                   "benchmark_phase": "profiling", "was_cancelled": False},
                      "metrics": metrics, "error": None})
        if k == 1:
            lines.append({"metadata": {"request_start_ns": epoch + round(r["sends"][k] * 1e9),
                                       "benchmark_phase": "profiling"},
                          "metrics": {"error_isl": {"value": 100, "unit": "tokens"}},
                          "error": {"code": 500, "type": "InternalServerError", "message": "injected"}})
    open(os.path.join(folder, "profile_export.jsonl"), "w").write("".join(json.dumps(x) + "\n" for x in lines))
    return folder


# AIPerf: every run (at once written as concurrency = request count, as AIPerf sends it) and the Poisson-rate one,
# folders and an aggregate file named directly
formats["aiperf"] = [aiperf_folder(f"aiperf_{i}", r, RUNS[i][3] or RUNS[i][0]) for i, r in enumerate(results)]
formats["aiperf"].append(os.path.join(aiperf_folder("aiperf_rate", rate_result, 0), "profile_export_aiperf.json"))

# A P/D deployment of the same engine and GPUs: a configuration among the RUN arguments is the deployment of the runs
# after it, and the P/D handoff (on each KV stream's notification, beyond the connector's own notify_us) is fitted
# beside the shared terms, which the co-located runs separate from the front end's latency.
PD_HANDOFF_MS = 5.0
pd_deployment = {"model": "llama-3.1-8b", "format": "bf16",
                 "cluster": {"serving": "disaggregated", "prefill": dict(pool), "decode": dict(pool)}}
with open(os.path.join(work, "pd_deployment.json"), "w") as f:
    json.dump(pd_deployment, f)
probe = simulate(90, 1, 100, 2, 0, False, base=pd_deployment)
base_notify_us = json.load(open(os.path.join(work, "truth90", "summary.json")))["config"]["transfer"][
    "connector_cost"]["notify_us"]
PD_RUNS = [(16, 2000, 32, 0, False), (12, 1000, 24, 4, False)]
pd_files = []
for k, run in enumerate(PD_RUNS):
    r = simulate(91 + k, *run, base=pd_deployment, notify_us=base_notify_us + 1e3 * PD_HANDOFF_MS)
    path = os.path.join(work, f"pd_{k}.json")
    json.dump({key: v for key, v in r.items() if key not in ("sends", "tpots")}, open(path, "w"))
    pd_files.append(path)
formats["co-located + P/D"] = formats["vllm-detailed"] + [os.path.join(work, "pd_deployment.json")] + pd_files

# --fit-kernel-families with the serving terms fixed (--fix, as measured elsewhere): the runs simulated with GEMMs
# at 1.25x and context attention at 1.5x their tables come back as those factors, the others at their prior 1.
# (Fitted together with the serving terms from four runs, context attention trades against the front end's latency
# and generation attention against the per-request host time: client metrics alone do not separate them.)
FAMILIES = {"gemm": 1.25, "context_attention": 1.5, "generation_attention": 1.0, "moe": 1.0, "allreduce": 1.0}
formats["kernel families"] = []
for i, run in enumerate(RUNS):
    r = simulate(80 + i, *run, families=FAMILIES)
    path = os.path.join(work, f"families_{i}.json")
    json.dump({key: v for key, v in r.items() if key not in ("sends", "tpots")}, open(path, "w"))
    formats["kernel families"].append(path)

# Under the sanitizers (scripts/asan-test.sh sets ASAN_OPTIONS) every replay is several times slower: the sanitized
# suite calibrates the detailed JSON alone, which reads through the same fit and profile code as the other formats.
if os.environ.get("ASAN_OPTIONS"):
    formats = {"vllm-detailed": formats["vllm-detailed"]}

failed = 0
for name, files in formats.items():
    out = os.path.join(work, "profile_" + name.replace(" ", "").replace("/", ""))
    folds = ["--folds", "2"] if name == "vllm-detailed" else ["--folds", "0"]
    fixes = []  # before the run files: each --fix takes one value, the files stay positional
    if name == "kernel families":
        folds.append("--fit-kernel-families")
        for key, value in KNOWN.items():
            fixes += ["--fix", f"{key}={value}"]
    p = subprocess.run([lynx, "calibrate", os.path.join(work, "deployment.json"), *fixes, *files, "--out", out,
                        "--quiet", *folds], capture_output=True, text=True)
    if p.returncode != 0:
        print(f"FAIL {name}: exit {p.returncode}: {p.stderr.strip()}")
        failed += 1
        continue
    terms = json.load(open(os.path.join(out, "profile.json")))["terms"]
    known = dict(KNOWN, pd_handoff_ms=PD_HANDOFF_MS) if "P/D" in name else KNOWN
    for key, value in known.items():
        if key not in terms or abs(terms[key] - value) > 0.01 * value:
            print(f"FAIL {name}: {key} = {terms.get(key)}, known {value}")
            failed += 1
    if name == "kernel families" and terms.get("kernel_family_factors") != FAMILIES:
        print(f"FAIL {name}: kernel_family_factors {terms.get('kernel_family_factors')}, known {FAMILIES}")
        failed += 1
    if "P/D" not in name and "pd_handoff_ms" in terms:
        print(f"FAIL {name}: a P/D handoff fitted on co-located runs alone")
        failed += 1
    print(f"{name}: {len(files)} file(s), terms {terms}")

# A configuration naming the profile: the terms it fitted, and its held-out error in the summary.
config = json.loads(json.dumps(deployment))
config["serving_profile"] = os.path.join(work, "profile_vllm-detailed", "profile.json")
config["workload"] = {"synthetic": {"arrival": "at-once", "count": 8, "input_tokens": {"fixed": 1000},
                                    "output_tokens": {"fixed": 32}}}
path = os.path.join(work, "with_profile.json")
json.dump(config, open(path, "w"))
p = subprocess.run([lynx, "simulate", "--config", path, "--out", os.path.join(work, "with_profile")],
                   capture_output=True, text=True)
summary = json.load(open(os.path.join(work, "with_profile", "summary.json"))) if p.returncode == 0 else {}
held = summary.get("sources", {}).get("serving_profile", {}).get("held_out_error", {})
if p.returncode != 0 or "held out over 2 folds: mean TTFT within" not in p.stdout or held.get("folds") != 2:
    print(f"FAIL profile in a configuration: exit {p.returncode}: {p.stdout.strip()} {p.stderr.strip()}")
    failed += 1
# Each checked metric carries the band that held 90% of the held-out runs: value x (1 -/+ p90 error).
bands = summary.get("sources", {}).get("serving_profile", {}).get("bands_90_percent_of_held_out_runs", {})
for metric, key in (("mean_ttft_ms", "ttft_p90_error_percent"), ("mean_tpot_ms", "tpot_p90_error_percent"),
                    ("duration_s", "duration_p90_error_percent")):
    band, value = bands.get(metric, {}), summary.get("metrics", {}).get(metric)
    share = held.get(key, -1) / 100
    if band.get("value") != value or band.get("within_percent") != held.get(key) or \
            abs(band.get("low", 0) - value * (1 - share)) > 1e-9 * value or \
            abs(band.get("high", 0) - value * (1 + share)) > 1e-9 * value:
        print(f"FAIL band of {metric}: {band}, metric {value}, held-out {key} {held.get(key)}")
        failed += 1
if "(90% of held-out runs)" not in p.stdout:
    print(f"FAIL the terminal shows no band: {p.stdout.strip()}")
    failed += 1
# The same run with the known terms written on the pools gives the same numbers.
explicit = json.loads(json.dumps(config))
del explicit["serving_profile"]
for pool_name in ("prefill", "decode"):
    explicit["cluster"][pool_name].update(KNOWN)
path = os.path.join(work, "explicit.json")
json.dump(explicit, open(path, "w"))
subprocess.run([lynx, "simulate", "--config", path, "--out", os.path.join(work, "explicit"), "--quiet"], check=True,
               stdout=subprocess.DEVNULL)
want = json.load(open(os.path.join(work, "explicit", "summary.json")))["metrics"]
got = summary.get("metrics", {})
for key in ("mean_ttft_ms", "mean_tpot_ms", "mean_e2el_ms"):
    if got.get(key) != want[key]:
        print(f"FAIL profile in a configuration: {key} {got.get(key)}, with the terms written out {want[key]}")
        failed += 1

# A P/D configuration on the co-located + P/D profile: its handoff lands on the connector's notification, as the
# same run with every term and notify_us written out.
if "co-located + P/D" in formats:
    runs_on = {}
    for label, with_profile in (("pd_profile", True), ("pd_explicit", False)):
        pd_config = json.loads(json.dumps(pd_deployment))
        pd_config["workload"] = {"synthetic": {"arrival": "at-once", "count": 6, "input_tokens": {"fixed": 1500},
                                            "output_tokens": {"fixed": 16}}}
        if with_profile:
            pd_config["serving_profile"] = os.path.join(work, "profile_co-located+PD", "profile.json")
        else:
            for pool_name in ("prefill", "decode"):
                pd_config["cluster"][pool_name].update(KNOWN)
            pd_config["transfer"] = {"notify_us": base_notify_us + 1e3 * PD_HANDOFF_MS}
        path = os.path.join(work, label + ".json")
        json.dump(pd_config, open(path, "w"))
        subprocess.run([lynx, "simulate", "--config", path, "--out", os.path.join(work, label), "--quiet"],
                       check=True, stdout=subprocess.DEVNULL)
        runs_on[label] = json.load(open(os.path.join(work, label, "summary.json")))["metrics"]
    for key in ("mean_ttft_ms", "mean_tpot_ms", "duration_s"):
        if runs_on["pd_profile"][key] != runs_on["pd_explicit"][key]:
            print(f"FAIL P/D profile: {key} {runs_on['pd_profile'][key]}, written out {runs_on['pd_explicit'][key]}")
            failed += 1

# Without a profile, a named engine's built-in terms name the shipped profile that checked them.
builtin = json.loads(json.dumps(config))
del builtin["serving_profile"]
path = os.path.join(work, "builtin.json")
json.dump(builtin, open(path, "w"))
p = subprocess.run([lynx, "simulate", "--config", path, "--out", os.path.join(work, "builtin")], capture_output=True,
                   text=True)
terms_source = json.load(open(os.path.join(work, "builtin", "summary.json")))["sources"].get("serving_terms", {}) \
    if p.returncode == 0 else {}
if "serving terms: vllm-0.24's built-in, checked on GPUStack's H100 runs" not in p.stdout or \
        terms_source.get("backed_by") != "models/serving_profiles/vllm-0.24_h100_gpustack/profile.json":
    print(f"FAIL built-in terms: exit {p.returncode}: {p.stdout.strip()}")
    failed += 1

# A damaged AIPerf folder: one record fewer than the aggregate counts.
folder = aiperf_folder("aiperf_damaged", results[1], RUNS[1][0])
records = open(os.path.join(folder, "profile_export.jsonl")).read().splitlines(keepends=True)
open(os.path.join(folder, "profile_export.jsonl"), "w").write("".join(records[:-1]))
p = subprocess.run([lynx, "calibrate", os.path.join(work, "deployment.json"), folder, "--out",
                    os.path.join(work, "aiperf_damaged_out"), "--folds", "0"], capture_output=True, text=True)
if p.returncode != 2 or "profile_export.jsonl: 31 rows, 32 requests in the totals" not in p.stderr:
    print(f"FAIL damaged AIPerf folder: exit {p.returncode}: {p.stderr.strip()}")
    failed += 1

# AIPerf's per-request records given alone (without the aggregate that holds the load settings), the whole file or
# one record (a single JSON object): one error each.
one_record = os.path.join(work, "one_record.jsonl")
open(one_record, "w").write(records[0])
for records_file in (os.path.join(folder, "profile_export.jsonl"), one_record):
    p = subprocess.run([lynx, "calibrate", os.path.join(work, "deployment.json"), records_file, "--out",
                        os.path.join(work, "records_alone_out"), "--folds", "0"], capture_output=True, text=True)
    if p.returncode != 2 or ":1: an AIPerf per-request record: give the run's profile_export_aiperf.json" \
            not in p.stderr:
        print(f"FAIL AIPerf records alone ({records_file}): exit {p.returncode}: {p.stderr.strip()}")
        failed += 1

# A damaged file: its per-request rows disagree with its totals.
bad = dict(detailed[0])
bad["completed"] = bad["completed"] + 1
path = os.path.join(work, "damaged.json")
json.dump(bad, open(path, "w"))
p = subprocess.run([lynx, "calibrate", os.path.join(work, "deployment.json"), path, "--out",
                    os.path.join(work, "damaged_out"), "--folds", "0"], capture_output=True, text=True)
if p.returncode != 2 or "damaged.json:1: $.input_lens: 24 rows, 25 requests in the totals" not in p.stderr:
    print(f"FAIL damaged file: exit {p.returncode}: {p.stderr.strip()}")
    failed += 1
if os.path.exists(os.path.join(work, "damaged_out", "profile.json")):
    print("FAIL damaged file: a profile was written")
    failed += 1
# A run whose prompts exceed the model's context (Llama-3.1-8B: 131,072 tokens) is refused before any fit.
long = dict(summary_only[1])
long["total_input_tokens"] = long["completed"] * 200000
path = os.path.join(work, "too_long.json")
json.dump(long, open(path, "w"))
p = subprocess.run([lynx, "calibrate", os.path.join(work, "deployment.json"), path, "--out",
                    os.path.join(work, "too_long_out"), "--folds", "0"], capture_output=True, text=True)
if p.returncode != 2 or "too_long.json:1: the run cannot be replayed on the deployment" not in p.stderr:
    print(f"FAIL prompts beyond the context: exit {p.returncode}: {p.stderr.strip()}")
    failed += 1

print(f"calibrate round trip: {len(formats)} format(s), {failed} failed")
if len(sys.argv) <= 2:
    shutil.rmtree(work)
sys.exit(1 if failed else 0)
