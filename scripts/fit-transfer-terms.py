#!/usr/bin/env python3
"""Fits the transport terms of two transfer presets (sim/transfer/transfer_cost.cpp) on the published
micro-benchmarks in the data folder (calibration/transfer-benchmarks/transcribed/), and prints them with every row's
error, training rows marked. The C++ presets hold the printed values; `lynxsim validate` shows the same rows.

  Mooncake TE over EFA: p5en GPU-to-GPU writes, threads 16, batch 128, block-size sweep; efficiency from the 2 MiB
  row, then the window (an integer) and the op latency from the 64 KiB and 256 KiB rows: per NIC,
  rate = min(eff x B, W x m / (t + m / (eff x B))).
  NIXL over GPUDirect-TCPXO: nixlbench 4 threads, batch 1 (W = 4); efficiency from 64 MiB WRITE, op latency from
  4 KiB READ.

Usage: scripts/fit-transfer-terms.py [DATA_DIR]   (default: $LYNX_DATA_DIR, else ../shared/data beside the checkout)
"""
import csv
import os
import sys
from pathlib import Path


def data_dir():
    if len(sys.argv) > 1:
        return Path(sys.argv[1])
    if os.environ.get("LYNX_DATA_DIR"):
        return Path(os.environ["LYNX_DATA_DIR"])
    return Path(__file__).resolve().parent.parent.parent / "shared" / "data"


def rows(name):
    path = data_dir() / "calibration" / "transfer-benchmarks" / "transcribed" / name
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def size_bytes(text):
    number = float(text.split()[0].replace("KB", "").replace("MB", ""))
    return int(number * (1 << 20 if "MB" in text else 1 << 10))


def rate(m, line, eff, window, latency_s):
    return min(eff * line, window * m / (latency_s + m / (eff * line)))


def fit_efa():
    sweep = {}
    for r in rows("mooncake_efa_transfer_engine_bench.csv"):
        if (r["instance"] == "p5en.48xlarge" and r["memory_path"] == "GPU-to-GPU" and r["op"] == "write"
                and r["notes"] == "block-size sweep"):
            sweep[size_bytes(r["block_size"])] = float(r["value"]) * 1e9
    nics, line = 16, 200e9 / 8
    eff = sweep[2 << 20] / nics / line
    train = (64 << 10, 256 << 10, 2 << 20)
    best = None
    for window in range(1, 33):
        m = 64 << 10
        latency = window * m / (sweep[m] / nics) - m / (eff * line)
        err = sum((nics * rate(k, line, eff, window, latency) / sweep[k] - 1) ** 2 for k in train)
        if best is None or err < best[0]:
            best = (err, window, latency)
    _, window, latency = best
    print(f"Mooncake TE over EFA: efficiency {eff:.3f}, inflight {window}, op_latency_us {latency * 1e6:.2f}")
    for k in sorted(sweep):
        predicted = nics * rate(k, line, eff, window, latency)
        print(f"  {k >> 10:5d} KiB  measured {sweep[k] / 1e9:7.2f} GB/s  predicted {predicted / 1e9:7.2f}  "
              f"{'train' if k in train else 'held out'}  {predicted / sweep[k] - 1:+.1%}")


def fit_tcpxo():
    measured = {}
    for r in rows("nixl_pr2276_nixlbench_gcp_tcpxo.csv"):
        block = int(r["block_size_B"].split()[0])
        measured[(r["op"], block)] = float(r["value"]) * 1e9
    line, window = 200e9 / 8, 4
    eff = measured[("WRITE", 64 << 20)] / line
    m = 4096
    latency = window * m / measured[("READ", m)] - m / (eff * line)
    print(f"NIXL over TCPXO: efficiency {eff:.4f}, inflight {window}, op_latency_us {latency * 1e6:.1f}")
    for (op, k), value in sorted(measured.items()):
        predicted = rate(k, line, eff, window, latency)
        train = (op, k) in (("WRITE", 64 << 20), ("READ", 4096))
        print(f"  {op:5s} {k:9d} B  measured {value / 1e9:9.6f} GB/s  predicted {predicted / 1e9:9.6f}  "
              f"{'train' if train else 'held out'}  {predicted / value - 1:+.1%}")


if __name__ == "__main__":
    fit_efa()
    fit_tcpxo()
