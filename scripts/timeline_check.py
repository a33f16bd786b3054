#!/usr/bin/env python3
"""Checks a `lynxsim simulate --timeline` file the way a trace viewer reads it.

ts and dur are read as Python floats (IEEE doubles, what JavaScript viewers such as speedscope and Perfetto's JSON
importer use), and on every track (pid, tid) the "X" spans, in time order, must not overlap: each ends (ts + dur,
added in doubles) no later than the next one starts, and the same in nanoseconds (ts * 1000, Perfetto's unit).
Every request's spans must form one flow: version-2 flow events (bind_id, flow_in, flow_out) resolved as Perfetto's
flow tracker resolves them, events in time order, "flow_out" alone beginning the flow and "flow_in"+"flow_out"
stepping it, must link all the request's spans in one chain. Prints what it checked; exit status 1 on any failure.

Usage: scripts/timeline_check.py TIMELINE.json
"""
import collections
import json
import sys


def main(path):
    with open(path) as f:
        trace = json.load(f)
    spans = [e for e in trace["traceEvents"] if e["ph"] == "X"]
    failures = []
    tracks = collections.defaultdict(list)
    for e in spans:
        tracks[(e["pid"], e["tid"])].append(e)
    pairs = 0
    for track, events in tracks.items():
        events.sort(key=lambda e: e["ts"])
        for a, b in zip(events, events[1:]):
            pairs += 1
            if a["ts"] + a["dur"] > b["ts"] or a["ts"] * 1000 + a["dur"] * 1000 > b["ts"] * 1000:
                failures.append(f"track {track}: {a['name']} of request {a['args']['request']} ends at "
                                f"{a['ts'] + a['dur']!r} after {b['name']} of request {b['args']['request']} "
                                f"starts at {b['ts']!r}")
    # Perfetto's resolution of version-2 flows on slices: events in (stable) time order.
    order = sorted(range(len(spans)), key=lambda i: spans[i]["ts"])
    last, entered = {}, collections.Counter()
    links = collections.Counter()
    for i in order:
        e = spans[i]
        if "bind_id" not in e:
            failures.append(f"{e['name']} of request {e['args']['request']} has no bind_id")
            continue
        flow_in, flow_out = e.get("flow_in", False), e.get("flow_out", False)
        if flow_out and not flow_in:
            last[e["bind_id"]] = i
        elif flow_in and flow_out and e["bind_id"] in last:
            source = spans[last[e["bind_id"]]]
            if source["args"]["request"] != e["args"]["request"]:
                failures.append(f"a flow links request {source['args']['request']} to {e['args']['request']}")
            links[e["args"]["request"]] += 1
            entered[i] += 1
            last[e["bind_id"]] = i
    per_request = collections.Counter(e["args"]["request"] for e in spans)
    for request, count in per_request.items():
        if links[request] != count - 1:
            failures.append(f"request {request}: {count} spans, {links[request]} flow links (expected {count - 1})")
    for line in failures[:20]:
        print("FAILED:", line)
    print(f"{path}: {len(spans)} spans on {len(tracks)} tracks, {pairs} consecutive pairs nest as doubles: "
          f"{'no' if failures else 'yes'}; {len(per_request)} requests, {sum(links.values())} flow links, "
          f"every request's spans in one flow: {'no' if failures else 'yes'}")
    return 1 if failures else 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1]))
