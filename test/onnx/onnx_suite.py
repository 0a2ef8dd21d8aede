#!/usr/bin/env python3
"""ONNX's backend test data through vkdml-run (docs/onnx.md, "The test suite").

Every case folder (model.onnx and test_data_set_N) of the chosen data folders runs as
`vkdml-run MODEL --check CASE` in its own process, with a time limit, several at a time. Each case
is classified by vkdml-run's exit status: pass (0), mismatch (1), unsupported (2, and stderr says
"unsupported:"), error (2 otherwise, or another status), crash (a signal, or a sanitizer's report),
timeout; a Vulkan validation message turns the others into "validation". The suite fails on any
mismatch, error, crash, timeout or validation message, on an unsupported case that
expected-unsupported.txt does not list, and on a listed case that passes now (the list stays honest).

Standard library only: the op types of each model come from a small protobuf reader below.
"""

import argparse
import concurrent.futures
import fnmatch
import json
import os
import re
import subprocess
import sys
import tempfile
import time

DEFAULT_DATA = "/usr/share/libonnx-testdata/data"
DEFAULT_FOLDERS = ["node", "pytorch-converted", "pytorch-operator", "simple"]
HERE = os.path.dirname(os.path.abspath(__file__))
CATEGORIES = ["pass", "unsupported", "mismatch", "error", "crash", "timeout", "validation"]
FAILING = {"mismatch", "error", "crash", "timeout", "validation"}
# lower.c: "node 'NAME' (OP, opset N): unsupported: REASON"
UNSUPPORTED_NODE = re.compile(r"node '.*' \(([^,()]+), opset -?\d+\): unsupported: (.*)")
# api/debug.c writes validation messages as "vkdml:LEVEL:validation:ID: message".
VALIDATION_LINE = re.compile(r"^vkdml:[a-z]+:validation:", re.MULTILINE)
# A sanitizer's report (the ASan + UBSan build of CI): its exit status alone could read as a mismatch.
SANITIZER_LINE = re.compile(r"ERROR: (Address|Leak|Thread|Memory)Sanitizer|runtime error:")


# ---- Op types of a model: ModelProto.graph (7) -> GraphProto.node (1) -> NodeProto.op_type (4), domain (7) ----

def read_varint(data, pos):
    value = shift = 0
    while True:
        if pos >= len(data):
            raise ValueError("truncated varint")
        byte = data[pos]
        pos += 1
        value |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return value, pos
        shift += 7
        if shift > 63:
            raise ValueError("varint too long")


def fields(data):
    """(field number, wire type, value) of one message; value is an int or a memoryview."""
    pos = 0
    while pos < len(data):
        key, pos = read_varint(data, pos)
        number, wire = key >> 3, key & 7
        if wire == 0:
            value, pos = read_varint(data, pos)
        elif wire == 1:
            value, pos = data[pos:pos + 8], pos + 8
        elif wire == 2:
            length, pos = read_varint(data, pos)
            value, pos = data[pos:pos + length], pos + length
        elif wire == 5:
            value, pos = data[pos:pos + 4], pos + 4
        else:
            raise ValueError(f"wire type {wire}")
        if pos > len(data):
            raise ValueError("truncated field")
        yield number, wire, value


def model_op_types(path):
    """The model's op types in file order, without repeats ("domain:Op" outside the default domain)."""
    with open(path, "rb") as f:
        data = memoryview(f.read())
    ops = []
    for number, wire, graph in fields(data):
        if number != 7 or wire != 2:
            continue
        for node_number, node_wire, node in fields(graph):
            if node_number != 1 or node_wire != 2:
                continue
            op_type, domain = "", ""
            for field, field_wire, value in fields(node):
                if field == 4 and field_wire == 2:
                    op_type = bytes(value).decode("utf-8", "replace")
                elif field == 7 and field_wire == 2:
                    domain = bytes(value).decode("utf-8", "replace")
            name = op_type if domain in ("", "ai.onnx") else f"{domain}:{op_type}"
            if name not in ops:
                ops.append(name)
    return ops


# ---- Cases and the expected-unsupported list ----

def find_cases(data, folders, filters):
    cases = []
    for folder in folders:
        root = os.path.join(data, folder)
        if not os.path.isdir(root):
            continue
        for name in sorted(os.listdir(root)):
            case = f"{folder}/{name}"
            if not os.path.isfile(os.path.join(root, name, "model.onnx")):
                continue
            if filters and not any(fnmatch.fnmatchcase(case, f) or fnmatch.fnmatchcase(name, f) for f in filters):
                continue
            cases.append(case)
    return cases


def read_expected(path):
    """[(glob, reason)] from lines `GLOB  REASON`; `#` starts a comment. A glob without a reason is an error."""
    entries = []
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            parts = line.split(None, 1)
            if len(parts) < 2:
                raise ValueError(f"{path}:{number}: '{parts[0]}' has no reason")
            entries.append((parts[0], parts[1]))
    return entries


def expected_reason(entries, case):
    for glob, reason in entries:
        if fnmatch.fnmatchcase(case, glob):
            return glob, reason
    return None


# ---- Running ----

def classify(returncode, stderr):
    if SANITIZER_LINE.search(stderr):
        return "crash"
    if VALIDATION_LINE.search(stderr):
        return "validation"
    if returncode == 0:
        return "pass"
    if returncode == 1:
        return "mismatch"
    if returncode < 0:
        return "crash"
    if returncode == 2 and "unsupported:" in stderr:
        return "unsupported"
    return "error"


def detail_of(category, returncode, stdout, stderr):
    """One line that says why a case did not pass."""
    lines = stderr.splitlines()
    if category == "validation":
        return next(l for l in lines if VALIDATION_LINE.match(l))
    if category == "mismatch":
        return next((l for l in stdout.splitlines() if "MISMATCH" in l), "exit status 1")
    if category == "crash":
        report = next((l for l in lines if SANITIZER_LINE.search(l)), None)
        if report:
            return f"exit status {returncode}; {report.strip()}"
        return f"signal {-returncode}" + (f"; {lines[-1]}" if lines else "")
    if category == "unsupported":
        return next(l for l in lines if "unsupported:" in l)
    if category == "error":
        line = next((l for l in lines if l.startswith("vkdml-run:")), lines[-1] if lines else "")
        return line if returncode == 2 else f"exit status {returncode}; {line}"
    return ""


def run_case(args, case):
    folder = os.path.join(args.data, case)
    command = [args.runner, os.path.join(folder, "model.onnx"), "--check", folder]
    result = {"case": case, "ops": [], "blamed_op": None}
    try:
        result["ops"] = model_op_types(os.path.join(folder, "model.onnx"))
    except (OSError, ValueError) as e:
        result["ops"] = [f"(unreadable: {e})"]
    start = time.monotonic()
    try:
        done = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=args.timeout,
                              stdin=subprocess.DEVNULL)
        stdout = done.stdout.decode("utf-8", "replace")
        stderr = done.stderr.decode("utf-8", "replace")
        result["category"] = classify(done.returncode, stderr)
        result["detail"] = detail_of(result["category"], done.returncode, stdout, stderr)
        result["output"] = stdout + stderr
    except subprocess.TimeoutExpired as e:
        result["category"] = "timeout"
        result["detail"] = f"still running after {args.timeout} s"
        result["output"] = "".join(x.decode("utf-8", "replace") for x in (e.stdout, e.stderr) if x)
    result["seconds"] = time.monotonic() - start
    if result["category"] == "unsupported":
        match = UNSUPPORTED_NODE.search(result["detail"])
        if match:
            result["blamed_op"] = match.group(1)
    return result


def run_all(args, cases):
    # Largest models first, so a long case does not start last and hold the whole run.
    def size(case):
        return os.path.getsize(os.path.join(args.data, case, "model.onnx"))

    order = sorted(cases, key=size, reverse=True)
    results = {}
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        futures = {pool.submit(run_case, args, case): case for case in order}
        for future in concurrent.futures.as_completed(futures):
            result = future.result()
            results[result["case"]] = result
            if args.verbose or result["category"] != "pass":
                print(f"{result['category'].upper():11} {result['case']} ({result['seconds']:.1f} s)"
                      f"{': ' + result['detail'] if result['detail'] else ''}", flush=True)
            if args.show_output and result["category"] in FAILING:
                print(result["output"].rstrip(), flush=True)
    return [results[case] for case in cases]


# ---- Verdict and summary ----

def judge(results, entries):
    """Marks each result with its listed reason, and returns the problems that fail the suite."""
    problems = []
    for r in results:
        listed = expected_reason(entries, r["case"])
        r["listed"] = listed[1] if listed else None
        if r["category"] in FAILING:
            problems.append(f"{r['category']}: {r['case']}: {r['detail']}")
        elif r["category"] == "unsupported" and not listed:
            problems.append(f"unsupported but not in the expected list: {r['case']}: {r['detail']}")
        elif r["category"] == "pass" and listed:
            problems.append(f"passes, but the expected list says '{listed[1]}' ({listed[0]}): {r['case']}: "
                            "remove it from the list")
    return problems


def op_table(results):
    """Per op type: cases holding it, passed, unsupported where this op was the one refused, failing."""
    table = {}
    for r in results:
        for op in r["ops"]:
            row = table.setdefault(op, {"cases": 0, "pass": 0, "unsupported": 0, "failing": 0})
            row["cases"] += 1
            row["pass"] += r["category"] == "pass"
            row["failing"] += r["category"] in FAILING
        if r["blamed_op"]:
            table.setdefault(r["blamed_op"], {"cases": 0, "pass": 0, "unsupported": 0, "failing": 0})
            table[r["blamed_op"]]["unsupported"] += 1
    return dict(sorted(table.items(), key=lambda item: item[0].lower()))


def print_summary(results, problems, entries, seconds, args):
    counts = {c: sum(r["category"] == c for r in results) for c in CATEGORIES}
    print()
    print(f"onnx suite: {len(results)} cases in {seconds:.0f} s ({args.jobs} at a time): "
          + ", ".join(f"{counts[c]} {c}" for c in CATEGORIES if counts[c] or c in ("pass", "unsupported")))
    listed = sum(r["category"] == "unsupported" and r["listed"] is not None for r in results)
    print(f"unsupported: {listed} listed in {os.path.basename(args.expected)}, "
          f"{counts['unsupported'] - listed} not listed")
    print()
    print(f"{'op type':40} {'cases':>6} {'passed':>7} {'unsupported':>12} {'failing':>8}")
    for op, row in op_table(results).items():
        print(f"{op:40} {row['cases']:6} {row['pass']:7} {row['unsupported']:12} {row['failing']:8}")
    unused = [glob for glob, _ in entries if not any(fnmatch.fnmatchcase(r["case"], glob) for r in results)]
    if unused and not args.filter and set(args.folders) == set(DEFAULT_FOLDERS):
        print()
        print("note: expected-unsupported globs that match no case of this data: " + ", ".join(unused))
    if problems:
        print()
        print(f"FAILED: {len(problems)} problems")
        for p in problems:
            print("  " + p)
    else:
        print("OK")


def write_markdown(path, results):
    table = op_table(results)
    counts = {c: sum(r["category"] == c for r in results) for c in CATEGORIES}
    with open(path, "w", encoding="utf-8") as f:
        f.write(f"{len(results)} cases: " + ", ".join(f"{counts[c]} {c}" for c in CATEGORIES if counts[c]) + ".\n\n")
        f.write("| ONNX op type | cases | passed | unsupported | failing |\n")
        f.write("|---|---:|---:|---:|---:|\n")
        for op, row in table.items():
            f.write(f"| {op} | {row['cases']} | {row['pass']} | {row['unsupported']} | {row['failing']} |\n")


def write_json(path, results):
    with open(path, "w", encoding="utf-8") as f:
        json.dump([{k: v for k, v in r.items() if k != "output"} for r in results], f, indent=1)
        f.write("\n")


def main():
    parser = argparse.ArgumentParser(description="Runs ONNX's backend test data through vkdml-run --check.")
    parser.add_argument("--runner", required=True, help="the vkdml-run executable")
    parser.add_argument("--data", default=DEFAULT_DATA, help=f"the test data (default {DEFAULT_DATA})")
    parser.add_argument("--folder", dest="folders", action="append",
                        help="a data folder to run (repeatable; default: " + ", ".join(DEFAULT_FOLDERS) + ")")
    parser.add_argument("--filter", action="append", help="only cases matching GLOB (FOLDER/CASE or CASE; repeatable)")
    parser.add_argument("--expected", default=os.path.join(HERE, "expected-unsupported.txt"),
                        help="the expected-unsupported list (GLOB  REASON lines)")
    parser.add_argument("--jobs", "-j", type=int, default=os.cpu_count() or 1, help="cases at a time")
    parser.add_argument("--timeout", type=float, default=60, help="seconds a case may run (default 60)")
    parser.add_argument("--markdown", help="writes the table of op types (passed / unsupported) here")
    parser.add_argument("--json", help="writes every case's result here")
    parser.add_argument("--pipeline-cache", action="store_true",
                        help="shares one VKDML_PIPELINE_CACHE_DIR (a temporary folder) between the cases")
    parser.add_argument("--show-output", action="store_true", help="prints vkdml-run's output of failing cases")
    parser.add_argument("--verbose", "-v", action="store_true", help="prints passing cases too")
    args = parser.parse_args()
    args.folders = args.folders or DEFAULT_FOLDERS
    args.runner = os.path.abspath(args.runner)

    if not os.path.isdir(args.data):
        print(f"onnx suite: no test data at {args.data} (Debian: libonnx-testdata): skipped")
        return 77
    try:
        entries = read_expected(args.expected)
    except (OSError, ValueError) as e:
        print(f"onnx suite: {e}")
        return 1
    cases = find_cases(args.data, args.folders, args.filter)
    if not cases:
        print("onnx suite: no case matches")
        return 1
    start = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="vkdml-onnx-") as cache:
        if args.pipeline_cache:
            os.environ["VKDML_PIPELINE_CACHE_DIR"] = cache
        results = run_all(args, cases)
    seconds = time.monotonic() - start
    problems = judge(results, entries)
    print_summary(results, problems, entries, seconds, args)
    if args.markdown:
        write_markdown(args.markdown, results)
    if args.json:
        write_json(args.json, results)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
