"""Running the project's own commands for the README's figures: lynxsim simulate, run, validate, trace-stats.

Every run goes to a fresh temporary folder under the build folder (never a cached result: a table shows what the
code computes now), removed at the end. Runs asked for twice in one invocation are run once."""
import concurrent.futures
import csv
import json
import os
import shutil
import subprocess
import tempfile

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


class FigureError(Exception):
    pass


class Point:
    """One simulation's results: its config.json, summary.json, and its requests.csv on demand."""

    def __init__(self, folder):
        self.folder = folder
        with open(os.path.join(folder, "config.json"), encoding="utf-8") as f:
            self.config = json.load(f)
        with open(os.path.join(folder, "summary.json"), encoding="utf-8") as f:
            self.summary = json.load(f)

    def get(self, dotted, default=None):
        """A configuration field by its dotted path (an axis path), default when left out."""
        node = self.config
        for key in dotted.split("."):
            if not isinstance(node, dict) or key not in node:
                return default
            node = node[key]
        return node

    def __getitem__(self, metric):
        metrics = self.summary.get("metrics", {})
        if metric not in metrics:
            raise FigureError(f"{self.folder}/summary.json has no metrics.{metric}")
        return metrics[metric]

    def requests(self):
        with open(os.path.join(self.folder, "requests.csv"), encoding="utf-8", newline="") as f:
            return list(csv.DictReader(f))


class Context:
    def __init__(self, build_dir, jobs):
        self.build_dir = os.path.abspath(build_dir)
        self.lynxsim = os.path.join(self.build_dir, "app", "lynxsim")
        if not (os.path.isfile(self.lynxsim) and os.access(self.lynxsim, os.X_OK)):
            raise FigureError(f"{self.lynxsim} not found: build it first "
                              f"(cmake --build {build_dir} --target lynxsim)")
        self.jobs = jobs
        self.work_dir = tempfile.mkdtemp(prefix="figures-", dir=self.build_dir)
        self._memo = {}
        self._count = 0

    def cleanup(self):
        shutil.rmtree(self.work_dir, ignore_errors=True)

    def folder(self, label):
        self._count += 1
        path = os.path.join(self.work_dir, f"{self._count:03d}-{label}")
        return path

    def once(self, key, compute):
        """compute() the first time key is asked for in this invocation, its value afterwards."""
        if key not in self._memo:
            self._memo[key] = compute()
        return self._memo[key]

    def lynx(self, *args, cwd=REPO):
        """Runs lynxsim with args from the project folder; its stdout. A failure is a FigureError with its stderr."""
        cmd = [self.lynxsim, *map(str, args)]
        p = subprocess.run(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        if p.returncode != 0:
            raise FigureError(f"{' '.join(cmd)} exited {p.returncode}:\n{p.stderr.strip()}")
        return p.stdout

    def write_json(self, label, value):
        path = self.folder(label) + ".json"
        with open(path, "w", encoding="utf-8") as f:
            json.dump(value, f, indent=1)
        return path

    def run_experiment(self, experiment, sets=(), only=None):
        """`lynxsim run EXPERIMENT --set ...`: the points, in the experiment's order. `only` ({axis path: values})
        runs a copy of the experiment whose axes keep only those values (the same points, fewer of them: each point
        is its base plus its axis values, so its config.json is the one the whole sweep writes)."""
        key = ("run", experiment, tuple(sets), json.dumps(only, sort_keys=True))
        if key not in self._memo:
            label = os.path.splitext(os.path.basename(experiment))[0]
            path = experiment
            if only:
                with open(os.path.join(REPO, experiment), encoding="utf-8") as f:
                    spec = json.load(f)
                for axis in spec["sweep"]["axes"]:
                    paths = axis.get("paths") or [axis["path"]]
                    name = " ".join(paths)
                    if name in only:
                        kept = [v for v in axis["values"] if v in only[name]]
                        if len(kept) != len(only[name]):
                            raise FigureError(f"{experiment}: axis {name} lacks some of {only[name]}")
                        axis["values"] = kept
                # The figures read the points, never the subset's plots; a plot section naming a series value the
                # subset left out (its baseline) would be refused before the sweep.
                spec.pop("plot", None)
                # In the temporary folder: a file the experiment named by a relative path would not be found
                # there (an error, never another result); the shipped experiments name theirs by @data/.
                path = self.write_json(label + "-subset", spec)
            out = self.folder("run-" + label)
            args = ["run", path, "--out", out, "--jobs", self.jobs]
            for s in sets:
                args += ["--set", s]
            self.lynx(*args)
            names = sorted(n for n in os.listdir(out) if n.startswith("p") and os.path.isdir(os.path.join(out, n)))
            self._memo[key] = [Point(os.path.join(out, n)) for n in names]
        return self._memo[key]

    def simulate_many(self, runs):
        """`lynxsim simulate --config CONFIG --set ...` for each (config_path, sets) in runs, jobs at a time; their
        points in the same order."""
        todo = []
        for config, sets in runs:
            key = ("simulate", config, tuple(sets))
            if key not in self._memo:
                todo.append((key, config, sets, self.folder("simulate")))
                self._memo[key] = None

        def one(item):
            key, config, sets, out = item
            args = ["simulate", "--config", config, "--out", out, "--quiet"]
            for s in sets:
                args += ["--set", s]
            self.lynx(*args)
            return key, Point(out)

        with concurrent.futures.ThreadPoolExecutor(max_workers=self.jobs) as pool:
            futures = [pool.submit(one, item) for item in todo]
            try:
                for f in futures:
                    key, point = f.result()
                    self._memo[key] = point
            except BaseException:
                for f in futures:
                    f.cancel()
                for key, *_ in todo:
                    if self._memo.get(key) is None:
                        self._memo.pop(key, None)
                raise
        return [self._memo[("simulate", config, tuple(sets))] for config, sets in runs]


def select(points, **fields):
    """The one point whose configuration has these values (keys: dotted paths with '__' for '.')."""
    want = {k.replace("__", "."): v for k, v in fields.items()}
    found = [p for p in points if all(p.get(k) == v for k, v in want.items())]
    if len(found) != 1:
        raise FigureError(f"{len(found)} points match {want} (expected 1)")
    return found[0]


def median(values):
    """The median as numpy and Python's statistics module define it (mean of the middle two of an even count)."""
    s = sorted(values)
    if not s:
        raise FigureError("median of no values")
    n = len(s)
    return s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2
