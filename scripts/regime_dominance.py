#!/usr/bin/env python3
"""Where the adaptive format policy stands against the fixed formats it chooses between, on a regime map's results
(docs/regimes.md, "The adaptive format policy"):
    scripts/regime_dominance.py results/lynx_regimes [--candidates int8-g64,lynx-a4r4-g64] [--acceptance quantspec]
For each metric (median ttft_spec, ttft_correct, ttft, e2el, tpot) and each map cell (every point but the format
axis), compares the adaptive policy's median with each fixed candidate's (the same acceptance source for Lynx):
prints how many cells it is within 1% of the best fixed format or better ("dominates"), how many it is more than 1%
worse than the best, and the worst cell with its coordinates; then the share of requests the policy gave each
candidate, by per-node bandwidth (from each adaptive point's summary.json). Standard library only."""
import argparse
import csv
import json
import os
import sys

METRICS = ["ttft_spec", "ttft_correct", "ttft", "e2el", "tpot"]
SERIES = ["format", "lynx.acceptance_published", "transfer.format_policy", "transfer.adaptive_formats",
          "transfer.adaptive_min_gain"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("results")
    ap.add_argument("--candidates", default="int8-g64,lynx-a4r4-g64")
    ap.add_argument("--acceptance", default="quantspec")
    ap.add_argument("--tolerance", type=float, default=0.01)
    args = ap.parse_args()
    with open(os.path.join(args.results, "summary.csv"), newline="") as f:
        rows = list(csv.DictReader(f))
    if not rows:
        sys.exit("%s/summary.csv: no points" % args.results)
    with open(os.path.join(args.results, "experiment.json")) as f:
        axes = json.load(f)["experiment"]["sweep"]["axes"]
    cell_paths = [p for a in axes for p in a.get("paths", [a.get("path")]) if p not in SERIES]
    candidates = args.candidates.split(",")
    cells = {}
    for r in rows:
        cell = tuple(r.get(p, "") for p in cell_paths)
        if r.get("transfer.format_policy") == "adaptive":
            if r.get("lynx.acceptance_published", "") == args.acceptance:
                cells.setdefault(cell, {})["adaptive"] = r
        elif r["format"] in candidates:
            if r["format"].startswith("lynx") and r.get("lynx.acceptance_published", "") != args.acceptance:
                continue
            cells.setdefault(cell, {})[r["format"]] = r
    complete = {c: v for c, v in cells.items() if len(v) == len(candidates) + 1}
    print("%d cells with the adaptive policy and %s (acceptance %s)" % (len(complete), " and ".join(candidates),
                                                                      args.acceptance))
    for metric in METRICS:
        column = "median_%s_ms" % metric
        dominates, worse, worst = 0, 0, (1.0, None, None)
        for cell, v in sorted(complete.items()):
            best_format = min(candidates, key=lambda k: float(v[k][column]))
            ratio = float(v["adaptive"][column]) / float(v[best_format][column])
            if ratio <= 1 + args.tolerance:
                dominates += 1
            else:
                worse += 1
            if ratio > worst[0]:
                worst = (ratio, cell, best_format)
        line = "%-13s within %.0f%% of the best fixed format or better in %d cells, worse in %d" % (
            metric, 100 * args.tolerance, dominates, worse)
        if worst[1] is not None:
            line += "; worst %.3fx the best (%s) at %s" % (worst[0], worst[2], ", ".join(
                "%s=%s" % (p.rsplit(".", 1)[-1], x) for p, x in zip(cell_paths, worst[1])))
        print(line)
    shares = {}
    for cell, v in complete.items():
        point = v["adaptive"]["point"]
        with open(os.path.join(args.results, point, "summary.json")) as f:
            chosen = json.load(f)["metrics"].get("format_requests", {})
        gbps = v["adaptive"]["cluster.network.nic_gbps"]
        total = shares.setdefault(gbps, {})
        for name, n in chosen.items():
            total[name] = total.get(name, 0) + n
    for gbps in sorted(shares, key=float):
        n = sum(shares[gbps].values())
        print("%s Gbps: %s" % (gbps, ", ".join("%s %.1f%%" % (k, 100.0 * c / n) for k, c in sorted(shares[gbps].items()))))


if __name__ == "__main__":
    main()
