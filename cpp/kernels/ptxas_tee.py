#!/usr/bin/env python3
"""CUDA compiler launcher for the kernel TUs: runs the nvcc command it is given, saves nvcc's stderr
(the `-Xptxas -v` resource report) next to the object as <object>.ptxas.txt, and forwards only the
non-"ptxas info" lines to the build log. collect_resources.py turns the reports into
data/kernel_resources.json, so the build knows every kernel's registers/spills/stack without a GPU.

    CMAKE_CUDA_COMPILER_LAUNCHER = python ptxas_tee.py
"""
import subprocess
import sys


def main() -> int:
    cmd = sys.argv[1:]
    obj = None
    for i, a in enumerate(cmd):
        if a == "-o" and i + 1 < len(cmd):
            obj = cmd[i + 1]
    proc = subprocess.run(cmd, stderr=subprocess.PIPE, text=True)
    if obj and proc.returncode == 0:
        with open(obj + ".ptxas.txt", "w") as f:
            f.write(proc.stderr)
    noise = ("ptxas info", "    ")
    passthrough = [l for l in proc.stderr.splitlines() if not l.startswith(noise)]
    if proc.returncode != 0:
        passthrough = proc.stderr.splitlines()
    if passthrough:
        sys.stderr.write("\n".join(passthrough) + "\n")
    return proc.returncode


if __name__ == "__main__":
    sys.exit(main())
