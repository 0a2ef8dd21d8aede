#!/usr/bin/env python3
"""onnx_suite.py's own verdicts, on a fake vkdml-run and fake test folders (no device, no test data).

The fake runner acts by the case's name: passes, mismatches, refuses a node ("unsupported:"), fails,
crashes (a signal or a sanitizer's report), hangs or prints a validation message. The suite must
fail exactly on what docs/onnx.md ("The test suite") says, and name the case.
"""

import os
import stat
import subprocess
import sys
import tempfile

SUITE = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                             "onnx_suite.py")

FAKE_RUNNER = r'''
import os, signal, sys, time
case = os.path.basename(sys.argv[3])
if "pass" in case:
    print("output 'y': OK")
    sys.exit(0)
if "mismatch" in case:
    print("output 'y': MISMATCH: 1 of 6 values")
    sys.exit(1)
if "unsup" in case:
    print("vkdml-run: node '#0' (Relu, opset 13): unsupported: Relu is not mapped", file=sys.stderr)
    sys.exit(2)
if "error" in case:
    print("vkdml-run: error: something broke", file=sys.stderr)
    sys.exit(2)
if "crash" in case:
    os.kill(os.getpid(), signal.SIGSEGV)
if "asan" in case:
    print("==77==ERROR: AddressSanitizer: heap-buffer-overflow on address 0x1", file=sys.stderr)
    sys.exit(1)
if "hang" in case:
    time.sleep(30)
if "validation" in case:
    print("vkdml:err:validation:VUID-x: bad barrier", file=sys.stderr)
    sys.exit(0)
sys.exit(3)
'''

# ModelProto { graph (7) { node (1) { op_type (4): "Relu" } } }
MODEL = bytes([0x3a, 0x08, 0x0a, 0x06, 0x22, 0x04]) + b"Relu"


def make_data(root, cases):
    for case in cases:
        folder = os.path.join(root, "node", case)
        os.makedirs(os.path.join(folder, "test_data_set_0"))
        with open(os.path.join(folder, "model.onnx"), "wb") as f:
            f.write(MODEL)


def run(runner, data, expected_lines, *extra):
    expected = os.path.join(os.path.dirname(data), "expected.txt")
    with open(expected, "w") as f:
        f.write("\n".join(expected_lines) + "\n")
    done = subprocess.run([sys.executable, SUITE, "--runner", runner, "--data", data, "--expected", expected,
                           "--timeout", "2", "--folder", "node"] + list(extra),
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    return done.returncode, done.stdout


def check(condition, what, output):
    if not condition:
        print(output)
        print(f"FAILED: {what}")
        sys.exit(1)


def main():
    with tempfile.TemporaryDirectory() as root:
        runner = os.path.join(root, "fake-vkdml-run")
        with open(runner, "w") as f:
            f.write(f"#!{sys.executable}\n" + FAKE_RUNNER)
        os.chmod(runner, stat.S_IRWXU)
        data = os.path.join(root, "data")
        make_data(data, ["test_pass_a", "test_pass_b", "test_unsup_listed", "test_unsup_other", "test_mismatch",
                         "test_error", "test_crash", "test_asan", "test_hang", "test_validation", "test_exit3"])
        listed = ["# a comment", "", "node/test_unsup_listed   strings: DirectML has no string type",
                  "node/test_pass_b  random: listed, but it passes"]

        status, out = run(runner, data, listed, "--markdown", os.path.join(root, "t.md"))
        check(status == 1, "the suite fails", out)
        check("11 cases" in out and "2 pass, 2 unsupported, 1 mismatch, 2 error, 2 crash, 1 timeout, "
              "1 validation" in out, "the counts", out)
        check("unsupported: 1 listed in expected.txt, 1 not listed" in out, "listed and unlisted", out)
        for line in ["unsupported but not in the expected list: node/test_unsup_other",
                     "mismatch: node/test_mismatch", "error: node/test_error: vkdml-run: error: something broke",
                     "crash: node/test_crash: signal 11", "timeout: node/test_hang",
                     "crash: node/test_asan: exit status 1; ==77==ERROR: AddressSanitizer: heap-buffer-overflow",
                     "validation: node/test_validation: vkdml:err:validation:VUID-x",
                     "error: node/test_exit3: exit status 3",
                     "passes, but the expected list says 'random: listed, but it passes' (node/test_pass_b)"]:
            check(line in out, line, out)
        check("node/test_unsup_listed" not in out.split("FAILED:")[1], "a listed case is no problem", out)
        check("FAILED: 9 problems" in out, "9 problems", out)
        check("Relu" in out and "| Relu | 11 | 2 | 2 | 7 |" in open(os.path.join(root, "t.md")).read(),
              "the op table", out)

        status, out = run(runner, data, listed, "--filter", "test_pass_a", "--filter", "node/test_unsup_l*")
        check(status == 0 and "2 cases" in out and out.rstrip().endswith("OK"), "a clean filtered run", out)

        status, out = run(runner, data, ["node/test_unsup_listed"], "--filter", "test_pass_a")
        check(status == 1 and "has no reason" in out, "a glob without a reason", out)

        status, out = run(runner, os.path.join(root, "nowhere"), listed)
        check(status == 77, "no test data: skipped", out)
    print("onnx_suite.py: all verdicts as documented")


if __name__ == "__main__":
    main()
