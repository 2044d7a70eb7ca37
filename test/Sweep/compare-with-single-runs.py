#!/usr/bin/env python3
"""Checks blueprint-sweep rows against single runs of the CLI pipeline.

Expands the grid itself (axis order tp, pp, dp, micro_batch, recompute,
tp_comm, the last varying fastest; docs/Sweep.md), and for every
configuration runs

    blueprint-translate --import-transformer-json spec.json |
      blueprint-opt --distribute-transformer --plan-portable
                    --verify-conservation --work-summary=format=json
                    --estimate=format=json
      blueprint-opt --distribute-transformer=scope=iteration --plan-portable
                    --memory-report=format=json --critical-path=format=json

then requires the sweep's row to hold the same grid point, the same
work-summary totals (with their keys in the same order), the same
cadence and block times, and the whole run's worst peak and critical path
(docs/Memory.md), or, for a
configuration the single run rejects, to be invalid and carry the single
run's diagnostics.
Prints one summary line; exits non-zero on the first difference.
"""

import argparse
import itertools
import json
import os
import subprocess
import sys
import tempfile

AXES = (("tp", "mapping"), ("pp", "mapping"), ("dp", "mapping"),
        ("micro_batch", "training"), ("recompute", "mapping"),
        ("tp_comm", "mapping"))


def expand(grid):
    """The grid's (point, spec) pairs in the documented order."""
    axes = [(name, contract) for name, contract in AXES
            if name in grid["grid"]]
    for values in itertools.product(*(grid["grid"][name]
                                       for name, _ in axes)):
        spec = json.loads(json.dumps(grid["spec"]))
        point = {}
        for (name, contract), value in zip(axes, values):
            spec[contract][name] = value
            point[name] = value
        yield point, spec


def single_run(args, spec, workdir):
    """(work-summary programs, estimate report) of one CLI run, or
    (None, stderr)."""
    spec_path = os.path.join(workdir, "spec.json")
    summary_path = os.path.join(workdir, "summary.json")
    estimate_path = os.path.join(workdir, "estimate.json")
    with open(spec_path, "w") as f:
        json.dump(spec, f)
    model_ir = subprocess.run(
        [args.blueprint_translate, "--import-transformer-json", spec_path],
        capture_output=True, text=True)
    if model_ir.returncode != 0:
        return None, model_ir.stderr
    plan = subprocess.run(
        [args.blueprint_opt, "--distribute-transformer", "--plan-portable",
         "--verify-conservation",
         "--work-summary=format=json output=%s" % summary_path,
         "--estimate=profile=%s binding=%s format=json output=%s" %
         (args.profile, args.binding, estimate_path),
         "-o", os.devnull],
        input=model_ir.stdout, capture_output=True, text=True)
    if plan.returncode != 0:
        return None, plan.stderr
    memory_path = os.path.join(workdir, "memory.json")
    path_path = os.path.join(workdir, "path.json")
    summary_of_run_path = os.path.join(workdir, "run-summary.json")
    memory_run = subprocess.run(
        [args.blueprint_opt, "--distribute-transformer=scope=iteration",
         "--plan-portable",
         "--memory-report=format=json output=%s" % memory_path,
         "--model-summary=format=json output=%s" % summary_of_run_path,
         "-o", os.devnull],
        input=model_ir.stdout, capture_output=True, text=True)
    if memory_run.returncode != 0:
        return None, memory_run.stderr
    path_run = subprocess.run(
        [args.blueprint_opt, "--distribute-transformer=scope=iteration",
         "--plan-portable",
         "--critical-path=profile=%s binding=%s format=json output=%s" %
         (args.profile, args.binding, path_path),
         "-o", os.devnull],
        input=model_ir.stdout, capture_output=True, text=True)
    with open(summary_path) as f:
        programs = json.load(f)["programs"]
    with open(estimate_path) as f:
        estimate = json.load(f)
    with open(memory_path) as f:
        (memory,) = json.load(f)["plans"]
    with open(summary_of_run_path) as f:
        (run_summary,) = json.load(f)["plans"]
    with open(args.profile) as f:
        profile = json.load(f)
    peak = max(stage["peak_bytes"] for stage in memory["stages"])
    # The usable capacity, floor(capacity x numerator / denominator)
    # (docs/Estimate.md), in exact integers.
    usable = profile["memory"].get("usable_fraction",
                                   {"numerator": 1, "denominator": 1})
    capacity = (profile["memory"]["capacity_bytes"]["value"] *
                usable["numerator"] // usable["denominator"])
    estimate["run"] = {
        "peak_bytes": peak,
        "peak_stage": next(stage["stage"] for stage in memory["stages"]
                           if stage["peak_bytes"] == peak),
        "fits": peak <= capacity,
        "margin_bytes": capacity - peak,
    }
    if path_run.returncode != 0:
        # The row keeps the memory and says why it has no time.
        estimate["run"]["time_unavailable"] = path_run.stderr
        return programs, estimate
    with open(path_path) as f:
        (path,) = json.load(f)["plans"]
    # The row's derived figures, in the order and with the arithmetic of
    # docs/Sweep.md.
    seconds = path["iteration_seconds"]
    world = float(spec["mapping"]["tp"] * spec["mapping"]["pp"] *
                  spec["mapping"].get("dp", 1))
    graph = run_summary["graph"]
    model_flops = graph["model_flops"]
    hardware_flops = model_flops + graph["recompute_flops"]
    matmul_peak = profile["compute"]["matmul"][
        spec["training"]["activation_type"]]["peak_ops_per_second"]["value"]
    capacity_ops = seconds * world * matmul_peak
    tokens = float(spec["training"]["global_batch"]) * float(
        spec["model"]["seq_length"])
    estimate["run"].update({
        "iteration_seconds": seconds,
        "exposed_communication_seconds":
            path["exposed_communication_seconds"],
        "model_flops_utilization": float(model_flops) / capacity_ops,
        "hardware_flops_utilization": float(hardware_flops) / capacity_ops,
        "tokens_per_second": tokens / seconds,
        "gpu_hours_per_million_tokens":
            world * seconds / 3600 * 1e6 / tokens,
    })
    return programs, estimate


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("grid")
    parser.add_argument("rows")
    parser.add_argument("--blueprint-translate", required=True)
    parser.add_argument("--blueprint-opt", required=True)
    parser.add_argument("--profile", required=True)
    parser.add_argument("--binding", required=True)
    args = parser.parse_args()

    with open(args.grid) as f:
        grid = json.load(f)
    with open(args.rows) as f:
        rows = [json.loads(line) for line in f]
    configurations = list(expand(grid))
    if len(rows) != len(configurations):
        sys.exit("%d rows for %d configurations" %
                 (len(rows), len(configurations)))

    valid = 0
    with tempfile.TemporaryDirectory() as workdir:
        for index, ((point, spec), row) in enumerate(zip(configurations,
                                                         rows)):
            where = "row %d %s" % (index, json.dumps(point))
            if row["index"] != index or row["point"] != point:
                sys.exit("%s: the sweep has index %d, point %s" %
                         (where, row["index"], json.dumps(row["point"])))
            programs, result = single_run(args, spec, workdir)
            if programs is None:
                if row["valid"]:
                    sys.exit("%s: the single run fails, the row is valid:\n%s"
                             % (where, result))
                missing = [d for d in row["diagnostics"] if d not in result]
                if not row["diagnostics"] or missing:
                    sys.exit("%s: diagnostics %s are not the single run's:\n%s"
                             % (where, json.dumps(row["diagnostics"]), result))
                continue
            if not row["valid"]:
                sys.exit("%s: the single run succeeds, the row is rejected: %s"
                         % (where, json.dumps(row["diagnostics"])))
            (program,) = programs
            if row["name"] != program["program"]:
                sys.exit("%s: name %s, the single run's program is %s" %
                         (where, row["name"], program["program"]))
            # Compared as text, so the keys must come in the same order too:
            # the row streams its totals in the order --work-summary's
            # json::Object prints them (sorted).
            if json.dumps(row["totals"]) != json.dumps(program["cadences"]):
                sys.exit("%s: totals differ from --work-summary (values or "
                         "key order)" % where)
            unavailable = result["run"].pop("time_unavailable", None)
            if unavailable is not None:
                reason = row["run"].pop("time_unavailable", "")
                if not reason or reason not in unavailable:
                    sys.exit("%s: the row's reason for no time %r is not the "
                             "single --critical-path run's:\n%s"
                             % (where, reason, unavailable))
            for times in ("cadence_seconds", "block_seconds", "run"):
                if row[times] != result[times]:
                    sys.exit("%s: %s %s, --estimate gives %s" %
                             (where, times, json.dumps(row[times]),
                              json.dumps(result[times])))
            valid += 1
    print("%d rows: %d valid, %d rejected; every row equals its single run"
          % (len(rows), valid, len(rows) - valid))


if __name__ == "__main__":
    main()
