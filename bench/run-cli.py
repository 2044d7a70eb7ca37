#!/usr/bin/env python3
"""Command-line benchmarks: the pipeline on every example, and batch mode.

1. For each examples/*.json and examples/*.args it times

       blueprint-translate --import-... <example> |
         blueprint-opt --distribute-transformer --plan-portable
                       --verify-conservation --estimate=... -o /dev/null

   `--runs` times (after one warm-up run) and prints the median, minimum and
   maximum wall time of the whole pipe, and the median of each process alone
   (the import, then blueprint-opt on the imported ModelIR). These include
   process start-up, dynamic loading and dialect registration, which the
   in-process benchmarks (blueprint-bench) do not: they are what a user sees
   from a shell, not the cost of one configuration in batch mode.

2. It runs blueprint-opt on modules of 300, 1,000, 3,000 and 10,000
   decoder ops (copies of one small model), with and without checkpoints,
   and prints seconds, microseconds per op and peak memory: the pipeline,
   its digests and its checkpoint records must grow linearly with the
   module (a flat microseconds-per-op column).

3. It runs blueprint-sweep with one worker on two grids over
   examples/gpt3-175b.json, one about 18 times larger than the other, and
   prints configurations per second and the peak resident memory of each
   run: batch mode's throughput per core and whether its memory stays flat as
   the batch grows.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
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


def peak_rss_run(command):
    """Runs `command`; returns (seconds, peak resident set in MiB)."""
    start = time.perf_counter()
    child = subprocess.Popen(command, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(child.pid, 0)
    seconds = time.perf_counter() - start
    stderr = child.stderr.read().decode()
    child.stderr.close()
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit("run-cli: '%s' failed:\n%s" % (" ".join(command), stderr))
    return seconds, usage.ru_maxrss / 1024.0  # ru_maxrss is in KiB on Linux


def pipeline_per_example(args):
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
    print("%-26s %9s %9s %9s %11s %11s" % ("example", "median", "min", "max",
                                           "translate", "opt"))
    for name in examples:
        path = os.path.join(ROOT, "examples", name)
        importer = [translate, importers[os.path.splitext(name)[1]], path]
        pipe = " ".join(importer) + " | " + " ".join(
            "'%s'" % part if " " in part else part for part in opt)
        whole, translate_alone, opt_alone = [], [], []
        for run in range(args.runs + 1):
            seconds, _ = timed(["sh", "-c", pipe])
            seconds_translate, model_ir = timed(importer)
            seconds_opt, _ = timed(opt, model_ir)
            if run == 0:
                continue  # warm-up: page cache and dynamic loader
            whole.append(seconds)
            translate_alone.append(seconds_translate)
            opt_alone.append(seconds_opt)
        print("%-26s %9.2f %9.2f %9.2f %11.2f %11.2f" % (
            name, 1e3 * statistics.median(whole), 1e3 * min(whole),
            1e3 * max(whole), 1e3 * statistics.median(translate_alone),
            1e3 * statistics.median(opt_alone)))


# One small decoder op; the module holds `count` of them, each its own symbol.
SCALING_OP = (
    "transformer.decoder_training @m{index} model = <hidden = 64, heads = 4, "
    "ffn_hidden = 256, seq_length = 32, vocab = 128, blocks = 2, "
    "norm = layernorm, activation = gelu> training = <global_batch = 4, "
    "micro_batch = 2, activation_type = bf16, weight_type = bf16, "
    "gradient_type = f32, optimizer_state_type = f32> mapping = <world = 2, "
    "tp = 2, pp = 1, dp = 1, virtual_stages = 1, "
    "tp_comm = reduce_scatter_all_gather, recompute = selective, "
    "schedule = one_f_one_b>\n")


def module_scaling(args):
    opt = os.path.join(args.bin, "blueprint-opt")
    pipeline = ["--distribute-transformer", "--plan-portable",
                "--verify-conservation"]
    print("\nmodule size: blueprint-opt %s on N decoder ops" %
          " ".join(pipeline))
    print("%-8s %-12s %10s %10s %10s" % ("ops", "checkpoints", "seconds",
                                         "us/op", "peak MiB"))
    with tempfile.TemporaryDirectory() as workdir:
        for count in args.module_sizes:
            module = os.path.join(workdir, "module-%d.mlir" % count)
            with open(module, "w") as f:
                f.writelines(SCALING_OP.format(index=index)
                             for index in range(count))
            for checkpoints in (False, True):
                command = [opt, module, *pipeline, "-o", os.devnull]
                if checkpoints:
                    command.append("--blueprint-checkpoint-dir=" +
                                   os.path.join(workdir, "ck-%d" % count))
                seconds, peak = peak_rss_run(command)
                print("%-8d %-12s %10.2f %10.1f %10.1f" % (
                    count, "yes" if checkpoints else "no", seconds,
                    1e6 * seconds / count, peak))


def batch_mode(args):
    with open(os.path.join(ROOT, "examples", "gpt3-175b.json")) as f:
        spec = json.load(f)
    # Every axis of the grid; 1536 sequences divide by every dp, 96 blocks
    # by every pp. Some dp x micro_batch products exceed the global batch:
    # those configurations are rejected rows, as in real sweeps.
    common = {"tp": [1, 2, 4, 8], "pp": [1, 2, 4, 8, 16, 32],
              "recompute": ["none", "selective", "full"],
              "tp_comm": ["all_reduce", "reduce_scatter_all_gather"]}
    grids = [("small", dict(common, dp=[1, 2], micro_batch=[1, 2])),
             ("large", dict(common, dp=[1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48,
                                        64],
                            micro_batch=[1, 2, 4, 8, 16, 32]))]
    sweep = os.path.join(args.bin, "blueprint-sweep")
    print("\nbatch mode: blueprint-sweep --jobs=1 on grids over "
          "examples/gpt3-175b.json")
    print("%-6s %8s %8s %10s %12s %10s" % ("grid", "configs", "valid",
                                           "seconds", "configs/s",
                                           "peak MiB"))
    with tempfile.TemporaryDirectory() as workdir:
        for name, axes in grids:
            grid_path = os.path.join(workdir, name + ".json")
            rows_path = os.path.join(workdir, name + ".jsonl")
            with open(grid_path, "w") as f:
                json.dump({"spec": spec, "grid": axes}, f)
            seconds, peak = peak_rss_run(
                [sweep, grid_path, "--profile=" + args.profile,
                 "--binding=tp:nvlink", "--jobs=1", "-o", rows_path])
            with open(rows_path) as f:
                rows = [json.loads(line) for line in f]
            valid = sum(1 for row in rows if row["valid"])
            print("%-6s %8d %8d %10.2f %12.0f %10.1f" % (
                name, len(rows), valid, seconds, len(rows) / seconds, peak))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bin", default=os.path.join(ROOT, "build", "bin"),
                        help="directory holding blueprint-translate, "
                             "blueprint-opt and blueprint-sweep (default: "
                             "build/bin)")
    parser.add_argument("--runs", type=int, default=20,
                        help="timed runs per example (default: 20)")
    parser.add_argument("--profile",
                        default=os.path.join(ROOT, "profiles",
                                             "a100-80gb.json"))
    parser.add_argument("--module-sizes", type=int, nargs="+",
                        default=[300, 1000, 3000, 10000],
                        help="decoder ops per module for the module-size "
                             "benchmark (default: 300 1000 3000 10000)")
    args = parser.parse_args()
    if args.runs < 1:
        sys.exit("run-cli: --runs must be at least 1")
    pipeline_per_example(args)
    module_scaling(args)
    batch_mode(args)


if __name__ == "__main__":
    main()
