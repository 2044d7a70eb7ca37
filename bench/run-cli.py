#!/usr/bin/env python3
"""Times the command-line pipeline on every bundled example.

For each examples/*.json and examples/*.args it runs

    blueprint-translate --import-... <example> |
      blueprint-opt --distribute-transformer --plan-portable
                    --verify-conservation --estimate=... -o /dev/null

`--runs` times (after one warm-up) and prints the median, minimum and
maximum wall time of the whole pipe, and the median of each process alone
(the import, then blueprint-opt on the imported ModelIR). These figures
include process start-up, dynamic loading and dialect registration, which
the in-process benchmarks (blueprint-bench) do not: they are what a user
sees from a shell, not the cost of one configuration in batch mode.
"""

import argparse
import os
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def timed(command, stdin_bytes=None):
    """Runs `command`; returns (seconds, stdout). Fails loudly on error."""
    start = time.perf_counter()
    done = subprocess.run(command, input=stdin_bytes, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, check=False)
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        sys.exit("run-cli: '%s' failed:\n%s" %
                 (" ".join(command), done.stderr.decode()))
    return seconds, done.stdout


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bin", default=os.path.join(ROOT, "build", "bin"),
                        help="directory holding blueprint-translate and "
                             "blueprint-opt (default: build/bin)")
    parser.add_argument("--runs", type=int, default=20,
                        help="timed runs per example (default: 20)")
    parser.add_argument("--profile",
                        default=os.path.join(ROOT, "profiles",
                                             "a100-80gb.json"))
    args = parser.parse_args()
    if args.runs < 1:
        sys.exit("run-cli: --runs must be at least 1")

    translate = os.path.join(args.bin, "blueprint-translate")
    opt = [os.path.join(args.bin, "blueprint-opt"),
           "--distribute-transformer", "--plan-portable",
           "--verify-conservation",
           "--estimate=profile=%s binding=tp:nvlink output=-" % args.profile,
           "-o", os.devnull]
    importers = {".json": "--import-transformer-json",
                 ".args": "--import-megatron-args"}
    examples = sorted(name for name in os.listdir(os.path.join(ROOT,
                                                               "examples"))
                      if os.path.splitext(name)[1] in importers)

    print("command-line pipeline, %d runs per example (ms)" % args.runs)
    print("%-24s %9s %9s %9s %11s %11s" % ("example", "median", "min", "max",
                                           "translate", "opt"))
    for name in examples:
        path = os.path.join(ROOT, "examples", name)
        importer = [translate, importers[os.path.splitext(name)[1]], path]
        pipe = " ".join(importer) + " | " + " ".join(
            "'%s'" % part if " " in part else part for part in opt)
        whole, translate_alone, opt_alone = [], [], []
        for run in range(args.runs + 1):
            seconds, _ = timed(["sh", "-c", pipe])
            seconds_translate, modelir = timed(importer)
            seconds_opt, _ = timed(opt, modelir)
            if run == 0:
                continue  # warm-up: page cache and dynamic loader
            whole.append(seconds)
            translate_alone.append(seconds_translate)
            opt_alone.append(seconds_opt)
        print("%-24s %9.2f %9.2f %9.2f %11.2f %11.2f" % (
            name, 1e3 * statistics.median(whole), 1e3 * min(whole),
            1e3 * max(whole), 1e3 * statistics.median(translate_alone),
            1e3 * statistics.median(opt_alone)))


if __name__ == "__main__":
    main()
