#!/usr/bin/env python3
"""Instructions per configuration of the in-process pipeline, by stage.

Wall times on a shared VM drift by 10-50% from run to run; instruction
counts do not. This runs `blueprint-bench --benchmark_filter=<case>` under
valgrind's callgrind, collecting only inside
`sweep::Evaluator::evaluateContracts` (one call per configuration), and
prints the inclusive instructions per call of each pipeline stage.

Digests are llvm::SHA256 (issue 14 removed the hand-written SHA-NI hash),
so the counts under valgrind are the native counts; the SHA-256 row shows
what hashing the printed IR costs.

With --batch it runs `blueprint-sweep --jobs=1` on a 576-configuration
grid over examples/gpt3-175b.json instead, collecting inside
`sweep::runBatch`, and prints the instructions per row: import from the
spec's JSON, the pipeline, and the row.

With --whole-run it runs `blueprint-opt --distribute-transformer=scope=iteration
--work-summary` on the ModelIR of GPT-3 175B (TP 8, DP 12, micro-batch 1)
at each pipeline depth x micro-batch count of the issue-15 curve, and prints
the instructions of the whole process (parse, pass, verifier, totals,
start-up) with a least-squares line against stages x micro-batches: the
noise-free form of the curve bench/run-cli.py times.

Usage: bench/count-instructions.py [--bin build/bin] [--min-time 2]
                                   [--batch | --whole-run]
Needs valgrind (apt-get install valgrind).
"""

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# (label, callgrind function-name pattern): the stages of one configuration.
STAGES = [
    ("--distribute-transformer", r"DistributeTransformerPass::runOnOperation"),
    ("--plan-portable", r"PlanPortablePass::runOnOperation"),
    ("  of which the source digest (print + hash)", r"blueprint::computeDigest"),
    ("IR verifier (ModelIR and after each pass)", r"mlir::verify\(mlir::Operation\*, bool\)"),
    ("--verify-conservation", r"VerifyConservationPass::runOnOperation"),
    ("work-summary totals", r"blueprint::summarizeProgram\("),
    ("estimate", r"blueprint::estimatePlan\("),
    ("work algebra (distribution's and conservation's)",
     r"workload::deriveProgramWork\("),
]
BATCH_STAGES = [
    ("import (the spec's JSON to ModelIR)", r"blueprint::importTransformerJSON\("),
    ("the grid point's spec text", r"sweep::Batch::specText"),
    ("the pipeline (as above)", r"sweep::Evaluator::evaluateModule\("),
    ("the row (JSON lines)", r"blueprint::sweep::formatRow\("),
]
SHA256 = r"llvm::SHA256::hashBlock\(\)"
ENTRY = r"blueprint::sweep::Evaluator::evaluateContracts\("


def inclusive_costs(profile):
    out = subprocess.run(["callgrind_annotate", "--inclusive=yes",
                          "--threshold=100", profile],
                         capture_output=True, text=True, check=True).stdout
    costs = []
    for line in out.splitlines():
        m = re.match(r"\s*([\d,]+) \(.*?\)\s+\S*?:(.*)", line)
        if m:
            costs.append((int(m.group(1).replace(",", "")), m.group(2)))
    return costs


def calls_of(profile, pattern):
    out = subprocess.run(["callgrind_annotate", "--inclusive=yes",
                          "--tree=caller", "--threshold=100", profile],
                         capture_output=True, text=True, check=True).stdout
    calls, pending = 0, 0
    for line in out.splitlines():
        m = re.match(r"\s*[\d,]+ \(.*?\)\s+<.*\(([\d,]+)x\)", line)
        if m:
            pending += int(m.group(1).replace(",", ""))
            continue
        if re.match(r"\s*[\d,]+ \(.*?\)\s+\*\s+\S*?:", line):
            if re.search(pattern, line):
                calls += pending
            pending = 0
    return calls


def cost_of(costs, pattern):
    return max((cost for cost, name in costs if re.search(pattern, name)),
               default=0)


def profile_batch(args, workdir):
    """Callgrind profile of blueprint-sweep on the small grid; returns
    (profile, rows)."""
    with open(os.path.join(ROOT, "examples", "gpt3-175b.json")) as f:
        spec = json.load(f)
    grid = {"tp": [1, 2, 4, 8], "pp": [1, 2, 4, 8, 16, 32],
            "recompute": ["none", "selective", "full"],
            "tp_comm": ["all_reduce", "reduce_scatter_all_gather"],
            "dp": [1, 2], "micro_batch": [1, 2]}
    grid_path = os.path.join(workdir, "grid.json")
    with open(grid_path, "w") as f:
        json.dump({"spec": spec, "grid": grid}, f)
    profile = os.path.join(workdir, "callgrind.out")
    rows_path = os.path.join(workdir, "rows.jsonl")
    subprocess.run(
        ["valgrind", "--tool=callgrind", "--callgrind-out-file=" + profile,
         "--toggle-collect=blueprint::sweep::runBatch*",
         os.path.join(args.bin, "blueprint-sweep"), grid_path,
         "--profile=" + os.path.join(ROOT, "profiles", "a100-80gb.json"),
         "--binding=tp:nvlink", "--jobs=1", "-o", rows_path],
        check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    with open(rows_path) as f:
        rows = sum(1 for _ in f)
    return profile, rows


def whole_run_instructions(args):
    """Instructions of blueprint-opt --distribute-transformer=scope=iteration
    --work-summary per curve configuration, and the line they fit."""
    with open(os.path.join(ROOT, "examples", "gpt3-175b.json")) as f:
        spec = json.load(f)
    print("whole-run program: blueprint-opt "
          "--distribute-transformer=scope=iteration --work-summary, "
          "GPT-3 175B, instructions of the process")
    print("%4s %6s %10s %14s %16s" % ("pp", "mb", "pp x mb", "M instr",
                                      "K instr/(pp x mb)"))
    points = []
    with tempfile.TemporaryDirectory() as workdir:
        for pp in args.pp:
            for microbatches in args.microbatches:
                curve = json.loads(json.dumps(spec))
                mapping, training = curve["mapping"], curve["training"]
                mapping["pp"] = pp
                mapping["world"] = mapping["tp"] * pp * mapping["dp"]
                training["global_batch"] = (microbatches * mapping["dp"] *
                                            training["micro_batch"])
                spec_path = os.path.join(workdir, "spec.json")
                model_ir = os.path.join(workdir, "model.mlir")
                with open(spec_path, "w") as f:
                    json.dump(curve, f)
                subprocess.run([os.path.join(args.bin, "blueprint-translate"),
                                "--import-transformer-json", spec_path, "-o",
                                model_ir], check=True)
                done = subprocess.run(
                    ["valgrind", "--tool=callgrind",
                     "--callgrind-out-file=" +
                     os.path.join(workdir, "callgrind.out"),
                     os.path.join(args.bin, "blueprint-opt"), model_ir,
                     "--distribute-transformer=scope=iteration",
                     "--work-summary", "-o", os.devnull],
                    stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                    text=True, check=True)
                m = re.search(r"Collected : (\d+)", done.stderr)
                if not m:
                    sys.exit("callgrind printed no instruction count")
                count = int(m.group(1))
                points.append((pp * microbatches, count))
                print("%4d %6d %10d %14.1f %16.1f" % (
                    pp, microbatches, pp * microbatches, count / 1e6,
                    count / 1e3 / (pp * microbatches)))
    xs = [x for x, _ in points]
    if len(set(xs)) < 2:
        return
    fit = statistics.linear_regression(xs, [count for _, count in points])
    worst = max(abs(count - (fit.intercept + fit.slope * x)) / count
                for x, count in points)
    print("fit: instructions = %.1f M + %.1f K x (pp x mb), largest "
          "deviation %.1f%%" % (fit.intercept / 1e6, fit.slope / 1e3,
                                100 * worst))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--bin", default=os.path.join(ROOT, "build", "bin"))
    parser.add_argument("--case", default="BM_PipelineGPT3_175B$",
                        help="blueprint-bench filter (default: %(default)s)")
    parser.add_argument("--min-time", default="2",
                        help="--benchmark_min_time under valgrind, seconds")
    parser.add_argument("--batch", action="store_true",
                        help="profile batch mode instead (blueprint-sweep)")
    parser.add_argument("--whole-run", action="store_true",
                        help="count the whole-run program's curve instead "
                             "(blueprint-opt --distribute-transformer="
                             "scope=iteration)")
    parser.add_argument("--pp", type=int, nargs="+", default=[2, 4, 8, 16],
                        help="--whole-run: pipeline stages (default: 2 4 8 "
                             "16)")
    parser.add_argument("--microbatches", type=int, nargs="+",
                        default=[16, 32, 64, 128, 256],
                        help="--whole-run: micro-batches (default: 16 32 64 "
                             "128 256)")
    args = parser.parse_args()
    if args.whole_run:
        whole_run_instructions(args)
        return
    with tempfile.TemporaryDirectory() as workdir:
        if args.batch:
            profile, calls = profile_batch(args, workdir)
            entry, stages = r"blueprint::sweep::runBatch\(", BATCH_STAGES
            what = "batch mode, small grid: %d rows profiled" % calls
        else:
            profile = os.path.join(workdir, "callgrind.out")
            subprocess.run(
                ["valgrind", "--tool=callgrind",
                 "--callgrind-out-file=" + profile,
                 "--toggle-collect="
                 "blueprint::sweep::Evaluator::evaluateContracts*",
                 os.path.join(args.bin, "blueprint-bench"),
                 "--benchmark_filter=" + args.case,
                 "--benchmark_min_time=" + args.min_time],
                check=True, stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL)
            calls = calls_of(profile, ENTRY)
            entry, stages = ENTRY, STAGES
            what = "case %s: %d configurations profiled" % (args.case, calls)
        if calls == 0:
            sys.exit("nothing was profiled")
        costs = inclusive_costs(profile)
    total = cost_of(costs, entry)
    print(what)
    print("%-45s %12s" % ("stage", "instr/config"))
    for label, pattern in stages:
        print("%-45s %12d" % (label, cost_of(costs, pattern) // calls))
    print("%-45s %12d" % ("SHA-256 of the printed IR (in the rows above)",
                          cost_of(costs, SHA256) // calls))
    print("%-45s %12d" % ("whole configuration", total // calls))


if __name__ == "__main__":
    main()
