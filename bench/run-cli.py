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

4. Whole-run program (issue 15): it times

       blueprint-translate --import-transformer-json examples/gpt3-175b.json |
         blueprint-opt --distribute-transformer=scope=iteration
                       --work-summary -o /dev/null

   pinned to one core (taskset -c 0, when available), `--whole-run-runs`
   times after one warm-up, and prints the median, minimum and maximum wall
   time and the median peak resident memory of the pipe (the largest
   process of it), then blueprint-opt alone on the imported ModelIR. Then the
   same pipe over pipeline stages x micro-batches for the same model
   (pp in 2, 4, 8, 16 and 16 to 256 micro-batches: the spec's pp, world and
   global batch changed, TP 8, DP 12, micro-batch 1 kept), with the time per
   (stage x micro-batch): a flat column is cost linear in their product.

`--only` runs one of these parts.
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


def peak_rss_run(command, with_stderr=False):
    """Runs `command`; returns (seconds, peak resident set in MiB), and its
    stderr with `with_stderr`."""
    start = time.perf_counter()
    child = subprocess.Popen(command, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(child.pid, 0)
    seconds = time.perf_counter() - start
    stderr = child.stderr.read().decode()
    child.stderr.close()
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit("run-cli: '%s' failed:\n%s" % (" ".join(command), stderr))
    peak = usage.ru_maxrss / 1024.0  # ru_maxrss is in KiB on Linux
    return (seconds, peak, stderr) if with_stderr else (seconds, peak)


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


def search(args):
    """blueprint-search on the GPT-3 175B space of 64 GPUs, global batch 64
    (the case Calculon's llm-optimal-execution is compared on), with one and
    two workers, then Calculon's restricted space on Blueprint's axes, then
    the IR path on a slice, then Calculon if present."""
    tool = os.path.join(args.bin, "blueprint-search")
    spec = os.path.join(ROOT, "examples", "gpt3-175b.json")
    print("\nsearch: blueprint-search examples/gpt3-175b.json --gpus=64 "
          "--global-batch=64 --top=5 --pareto")
    # configs/eval-CPU-s: the configurations over the CPU seconds of the
    # evaluation alone, every worker's, before the audit of the reported
    # rows (--search-stats' "evaluation CPU seconds").
    print("%-28s %8s %8s %10s %12s %14s %18s %10s %8s" % (
        "run", "configs", "fit", "seconds", "configs/s", "configs/s/core",
        "configs/eval-CPU-s", "peak MiB", "shapes"))
    with tempfile.TemporaryDirectory() as workdir:
        # Calculon's restricted space on Blueprint's axes
        # (bench/calculon/README.md, "Blueprint's counterpart").
        restricted = os.path.join(ROOT, "bench", "calculon",
                                  "restricted-space.json")
        runs = [("fast path, 1 worker", [spec], 1, []),
                ("fast path, 2 workers", [spec], 2, []),
                ("restricted space, 2 workers", [restricted], 2, [])]
        slice_path = os.path.join(workdir, "slice.json")
        with open(slice_path, "w") as f:
            json.dump({"spec": "%s" % spec,
                       "grid": {"tp": [8], "pp": [8], "recompute": ["full"],
                                "zero_stage": [0]}}, f)
        runs.append(("tp8 pp8 full: fast path", [slice_path], 1, []))
        runs.append(("tp8 pp8 full: --through-ir", [slice_path], 1,
                     ["--through-ir"]))
        for name, inputs, jobs, extra in runs:
            command = [tool] + inputs + [
                "--profile=" + args.profile, "--gpus=64",
                "--global-batch=64", "--top=5", "--pareto",
                "--jobs=%d" % jobs, "--search-stats",
                "-o", os.path.join(workdir, "rows.jsonl")] + extra
            seconds, peak, stderr = peak_rss_run(command, with_stderr=True)
            fields = dict(part.strip().rsplit(" ", 1)
                          for part in stderr.strip().split(","))
            configs = int(fields["configurations"])
            # Shapes derived in whole (docs/Sweep.md, "Speed, threads,
            # memory"); none through the IR.
            print("%-28s %8d %8s %10.2f %12.0f %14.0f %18s %10.1f %8s" % (
                name, configs, fields["feasible"], seconds,
                configs / seconds, configs / seconds / jobs,
                fields["configurations per evaluation CPU-second"], peak,
                fields.get("shapes derived", "-")))
    calculon = os.path.join(ROOT, "bench", "calculon", "run-calculon.py")
    if os.path.exists(calculon):
        print("\nCalculon's llm-optimal-execution on the same case "
              "(bench/calculon/README.md):")
        sys.stdout.flush()
        subprocess.run([sys.executable, calculon] +
                       (["--calculon", args.calculon] if args.calculon
                        else []))


def one_core():
    """The command prefix that pins a run to one core (empty if unavailable)."""
    for directory in os.environ.get("PATH", "").split(os.pathsep):
        if os.access(os.path.join(directory, "taskset"), os.X_OK):
            return ["taskset", "-c", "0"]
    return []


def shell_quote(part):
    return "'%s'" % part if " " in part or "=" in part else part


def whole_run_measure(pipe, runs):
    """Runs the shell pipeline `pipe` runs + 1 times (the first a warm-up);
    returns the wall times and peak resident sets (MiB) of the timed runs."""
    seconds, peaks = [], []
    for run in range(runs + 1):
        elapsed, peak = peak_rss_run(one_core() +
                                     ["bash", "-c", "set -o pipefail; " +
                                      pipe])
        if run == 0:
            continue
        seconds.append(elapsed)
        peaks.append(peak)
    return seconds, peaks


def whole_run(args):
    translate = os.path.join(args.bin, "blueprint-translate")
    opt = [os.path.join(args.bin, "blueprint-opt"),
           "--distribute-transformer=scope=iteration", "--work-summary",
           "-o", os.devnull]
    # --work-summary writes to stdout: discarded, as the output is.
    opt_text = " ".join(shell_quote(part) for part in opt) + " >/dev/null"
    with open(os.path.join(ROOT, "examples", "gpt3-175b.json")) as f:
        spec = json.load(f)
    pinned = "one core (taskset -c 0)" if one_core() else "not pinned"
    print("\nwhole-run program: blueprint-translate --import-transformer-json "
          "<spec> | %s, %s, %d runs" % (" ".join(opt[1:3]), pinned,
                                        args.whole_run_runs))
    print("%-34s %9s %9s %9s %10s" % ("", "median s", "min s", "max s",
                                      "peak MiB"))
    gpt3 = os.path.join(ROOT, "examples", "gpt3-175b.json")
    seconds, peaks = whole_run_measure(
        "%s --import-transformer-json %s | %s" % (translate, gpt3, opt_text),
        args.whole_run_runs)
    print("%-34s %9.3f %9.3f %9.3f %10.1f" % (
        "gpt3-175b.json (pipe)", statistics.median(seconds), min(seconds),
        max(seconds), statistics.median(peaks)))
    with tempfile.TemporaryDirectory() as workdir:
        model_ir = os.path.join(workdir, "gpt3-175b.mlir")
        timed([translate, "--import-transformer-json", gpt3, "-o", model_ir])
        opt_alone = " ".join(shell_quote(part) for part in
                             [opt[0], model_ir] + opt[1:]) + " >/dev/null"
        seconds, peaks = whole_run_measure(opt_alone, args.whole_run_runs)
        print("%-34s %9.3f %9.3f %9.3f %10.1f" % (
            "gpt3-175b (blueprint-opt alone)", statistics.median(seconds),
            min(seconds), max(seconds), statistics.median(peaks)))

        print("\ncurve: the same pipe for GPT-3 175B (TP 8, DP 12, "
              "micro-batch 1) by pipeline stages and micro-batches, medians")
        print("%4s %6s %10s %10s %10s %16s" % ("pp", "mb", "pp x mb",
                                               "seconds", "peak MiB",
                                               "us/(pp x mb)"))
        points = []
        for pp in args.whole_run_pp:
            for microbatches in args.whole_run_microbatches:
                curve = json.loads(json.dumps(spec))
                curve["name"] = "gpt3-175b-pp%d-mb%d" % (pp, microbatches)
                mapping, training = curve["mapping"], curve["training"]
                mapping["pp"] = pp
                mapping["world"] = mapping["tp"] * pp * mapping["dp"]
                training["global_batch"] = (microbatches * mapping["dp"] *
                                            training["micro_batch"])
                path = os.path.join(workdir, curve["name"] + ".json")
                with open(path, "w") as f:
                    json.dump(curve, f)
                seconds, peaks = whole_run_measure(
                    "%s --import-transformer-json %s | %s" % (
                        translate, path, opt_text), args.whole_run_runs)
                median = statistics.median(seconds)
                points.append((pp * microbatches, median,
                               statistics.median(peaks)))
                print("%4d %6d %10d %10.3f %10.1f %16.1f" % (
                    pp, microbatches, pp * microbatches, median,
                    statistics.median(peaks),
                    1e6 * median / (pp * microbatches)))
    whole_run_fit(points)


def whole_run_fit(points):
    """Least-squares fits of seconds and peak MiB against pp x mb: the fixed
    cost (process start-up, templates) and the cost per stage x micro-batch,
    with the largest relative deviation of a point from the time's line."""
    xs = [product for product, _, _ in points]
    if len(set(xs)) < 2:
        return
    time_fit = statistics.linear_regression(xs, [s for _, s, _ in points])
    rss_fit = statistics.linear_regression(xs, [m for _, _, m in points])
    worst = max(abs(s - (time_fit.intercept + time_fit.slope * x)) / s
                for x, s, _ in points)
    print("fit: seconds = %.4f + %.2f us x (pp x mb), largest deviation "
          "%.0f%%; peak MiB = %.1f + %.2f KiB x (pp x mb)" % (
              time_fit.intercept, 1e6 * time_fit.slope, 100 * worst,
              rss_fit.intercept, 1024 * rss_fit.slope))


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
    parser.add_argument("--whole-run-runs", type=int, default=5,
                        help="timed runs per whole-run configuration "
                             "(default: 5)")
    parser.add_argument("--whole-run-pp", type=int, nargs="+",
                        default=[2, 4, 8, 16],
                        help="pipeline stages of the whole-run curve "
                             "(default: 2 4 8 16)")
    parser.add_argument("--whole-run-microbatches", type=int, nargs="+",
                        default=[16, 32, 64, 128, 256],
                        help="micro-batches of the whole-run curve "
                             "(default: 16 32 64 128 256)")
    parser.add_argument("--calculon",
                        help="a Calculon work tree for the search comparison "
                             "(bench/calculon/README.md)")
    parser.add_argument("--only", choices=["pipeline", "module-size",
                                           "batch", "whole-run", "search"],
                        help="run only this part")
    args = parser.parse_args()
    if args.runs < 1 or args.whole_run_runs < 1:
        sys.exit("run-cli: --runs and --whole-run-runs must be at least 1")
    parts = [("pipeline", pipeline_per_example),
             ("module-size", module_scaling), ("batch", batch_mode),
             ("whole-run", whole_run), ("search", search)]
    for name, part in parts:
        if args.only in (None, name):
            part(args)


if __name__ == "__main__":
    main()
