#!/usr/bin/python3
"""The table of issue 22's benchmark: vkdml-run against vkdml-bench's graph presets and PyTorch eager.

  bench-table.py OUT     (the -o directory of `ONNX=1 tools/run-gpu-bench.sh`)

Reads OUT/vkdml-run-PRESET.json (`vkdml-run MODEL --runs N --report --json`, one per model named
after its preset), OUT/vkdml-bench.json (the graph presets of the same run) and
OUT/pytorch-anchors.txt (PyTorch eager's times, PRESET=MS); prints a markdown table. Ratios are
speed ratios, the other's time over vkdml-run's: vkdml-run is as fast as the preset at 1.00x (the
runner adds nothing at run time; issue 22's bar, met within 2%: the presets' run-to-run spread).
"""
import glob
import json
import os
import sys

AS_FAST = 0.98


def load_json(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError) as error:
        print(f"bench-table.py: {path}: {error}", file=sys.stderr)
        return None


def load_anchors(path):
    anchors = {}
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                name, _, ms = line.strip().partition("=")
                if ms:
                    anchors[name] = float(ms)
    return anchors


def presets(path):
    bench = load_json(path) if os.path.exists(path) else None
    return {g["name"]: g for g in (bench or {}).get("graphs", [])}


def cell(value, digits=3):
    return f"{value:.{digits}f}" if value else ""


def ratio(other_ms, run_ms):
    return f"{other_ms / run_ms:.2f}x" if other_ms and run_ms else ""


def row(name, run, preset, pytorch_ms):
    if not run or run.get("status") != 0 or not run.get("gpu_ms"):
        status = "no JSON" if not run else f"exit status {run.get('status')}"
        return f"| {name} | failed ({status}: vkdml-run-{name}.txt) | | | | | | |"
    run_ms = run["gpu_ms"]
    report = run.get("report", {})
    run_dispatches = f"{report['dispatches']} ({report['dispatches_unfused']})" if report else ""
    preset_ms = preset.get("graph_ms") if preset and preset.get("status") == "ok" else None
    preset_dispatches = f"{preset['dispatches']} ({preset['dispatches_unfused']})" \
        if preset and "dispatches" in preset else ""
    verdict = ""
    if preset_ms:
        verdict = "met" if preset_ms / run_ms >= AS_FAST else "**missed**"
    return (f"| {name} | {run_ms:.3f} | {run_dispatches} | {cell(preset_ms)} | {preset_dispatches} | "
            f"{ratio(preset_ms, run_ms)} {verdict} | {cell(pytorch_ms)} | {ratio(pytorch_ms, run_ms)} |")


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    out = sys.argv[1]
    graphs = presets(os.path.join(out, "vkdml-bench.json"))
    anchors = load_anchors(os.path.join(out, "pytorch-anchors.txt"))
    runs = sorted(glob.glob(os.path.join(out, "vkdml-run-*.json")))
    print("| network | vkdml-run ms | dispatches (unfused) | graph preset ms | dispatches (unfused) | "
          f"preset / vkdml-run (>= {AS_FAST:.2f}x) | PyTorch eager ms | PyTorch / vkdml-run |")
    print("|---|---|---|---|---|---|---|---|")
    first = {}
    for path in runs:
        name = os.path.basename(path)[len("vkdml-run-"):-len(".json")]
        run = load_json(path)
        first = first or run or {}
        print(row(name, run, graphs.get(name), anchors.get(name)))
    print(f"\nvkdml-run: GPU time per run, median of {first.get('runs', 0)} (between two profiler markers, as "
          f"the presets) on {first.get('device') or 'an unknown device'}; preset: vkdml-bench's graph_ms (median, one "
          "RecordDispatch between markers); PyTorch eager: CUDA events, median of 50 after 10 warm-up.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
