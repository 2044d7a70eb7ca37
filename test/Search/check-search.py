#!/usr/bin/env python3
"""Checks blueprint-search output against brute force over every row.

  check-search.py coverage ROWS       each axis's distinct values and counts
  check-search.py select ROWS TOP K   TOP is `--top=K --pareto` output: its
                                      first K rows must be the K fastest
                                      feasible rows of ROWS (time, then peak
                                      bytes, then GPUs, then index) and the
                                      rest exactly the Pareto front over
                                      (time, peak bytes, GPUs), by brute force
  check-search.py shapes STATS        STATS is `--search-stats` output: says
                                      whether runs shared the shapes derived
                                      in whole (fewer shapes than runs)
  check-search.py timed STATS...      for each `--search-stats` output, its
                                      configurations, valid, feasible and
                                      configurations timed
  check-search.py capacity PROFILE ROWS DELTA OUT  writes PROFILE to OUT
                                      with a capacity of the one row of
                                      ROWS's peak_bytes + DELTA
  check-search.py bindings ROWS PROFILE  for each network tier of PROFILE,
                                      the largest product of the mesh axes
                                      (tp, cp, pp, dp, edp, ep) a row binds to it, its
                                      group size, and the rows over it
  check-search.py context-parallel ROWS  the same-run rules of cp over
                                      every row: all_gather only at cp > 1,
                                      ZeRO > 0 only at dp x cp > 1, no
                                      cp_tier at cp = 1; prints the violations
                                      and the rows at dp = 1, cp > 1, ZeRO > 0
  check-search.py flops ROWS PEAK     each valid row's model and hardware
                                      FLOPs, utilization x iteration_seconds x
                                      gpus x PEAK, rounded to an integer
  check-search.py usable ROWS C N D   every valid row's fits and margin_bytes
                                      are those of peak_bytes against
                                      floor(C x N / D), and how many rows fit
                                      C but not that usable share
"""
import collections
import json
import sys


def rows_of(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def feasible(row):
    run = row.get("run", {})
    return row["valid"] and run.get("fits") and "iteration_seconds" in run


def key(row):
    run = row["run"]
    return (run["iteration_seconds"], run["peak_bytes"], row["point"]["gpus"],
            row["index"])


def coverage(path):
    rows = rows_of(path)
    print(f"{len(rows)} rows, {sum(feasible(r) for r in rows)} feasible")
    for axis in rows[0]["point"]:
        counts = collections.Counter(
            json.dumps(r["point"][axis]) for r in rows)
        print(f"{axis}: " + ", ".join(f"{v}={n}" for v, n in
                                       sorted(counts.items())))


def bindings(path, profile_path):
    rows = rows_of(path)
    with open(profile_path) as f:
        tiers = json.load(f)["network_tiers"]
    for tier in tiers:
        name, group = tier["name"], tier["group_size"]["value"]
        products = []
        for row in rows:
            point = row["point"]
            product = 1
            # At ep > 1 the data-parallel ranks are the axes edp x ep.
            ep = point.get("ep", 1)
            sizes = {"tp": point["tp"], "cp": point["cp"], "pp": point["pp"],
                     "dp": point["dp"], "edp": point["dp"] // ep, "ep": ep}
            for axis, size in sizes.items():
                if point.get(axis + "_tier") == name:
                    product *= size
            products.append(product)
        over = sum(p > group for p in products)
        print(f"{name}: largest product {max(products)} of group {group}, "
              f"{over} rows over")


def select(all_path, top_path, k, with_front=True):
    rows = rows_of(all_path)
    reported = rows_of(top_path)
    best = sorted((r for r in rows if feasible(r)), key=key)[:k]
    by_index = {r["index"]: r for r in rows}
    problems = []
    top = reported[:len(best)]
    for rank, (got, want) in enumerate(zip(top, best), start=1):
        if got.get("rank") != rank or got["index"] != want["index"]:
            problems.append(f"rank {rank}: got index {got['index']}, "
                            f"want {want['index']}")
        expected = dict(want)
        expected = {"index": want["index"], "rank": rank,
                    **{k2: v for k2, v in want.items() if k2 != "index"}}
        if got != expected:
            problems.append(f"rank {rank}: row differs from the full row")
    front = reported[len(best):]
    if not with_front:
        if front:
            problems.append(f"{len(front)} rows after the top {len(best)}")
        if problems:
            print("\n".join(problems))
            sys.exit(1)
        print(f"top {len(best)} equal brute force over {len(rows)} rows")
        return
    cand = [r for r in rows if feasible(r)]

    def dominates(a, b):
        ka, kb = key(a)[:3], key(b)[:3]
        return all(x <= y for x, y in zip(ka, kb)) and ka != kb

    want_front = []
    for r in cand:
        if any(dominates(o, r) for o in cand):
            continue
        if any(key(o)[:3] == key(r)[:3] and o["index"] < r["index"]
               for o in cand):
            continue
        want_front.append(r)
    want_front.sort(key=key)
    if [r["index"] for r in front] != [r["index"] for r in want_front]:
        problems.append("front: got " + str([r["index"] for r in front]) +
                        ", want " + str([r["index"] for r in want_front]))
    for r in front:
        if r != by_index[r["index"]]:
            problems.append(f"front row {r['index']} differs from the full row")
    if problems:
        print("\n".join(problems))
        sys.exit(1)
    print(f"top {len(best)} and front of {len(front)} equal brute force over "
          f"{len(rows)} rows")


def shapes(path):
    fields = stats_fields(path)
    derived = int(fields["shapes derived"])
    runs = int(fields["runs through a skeleton"])
    print(f"configurations {fields['configurations']}: "
          f"{'runs share shapes' if 0 < derived < runs else 'no sharing'}, "
          f"{runs} runs through skeletons of {derived} shapes")


def stats_fields(path):
    with open(path) as f:
        stats = f.read().strip().splitlines()[-1]
    return dict(part.strip().rsplit(" ", 1) for part in stats.split(","))


def timed(paths):
    for path in paths:
        fields = stats_fields(path)
        print(", ".join(f"{name} {fields[name]}" for name in
                        ("configurations", "valid", "feasible",
                         "configurations timed")))


def skipped(paths):
    """A query times some of the configurations that fit and skips the rest,
    those its bar excludes (slower than the K-th best and, under --pareto,
    no better than a point of the front): the two counts, and their sum
    (the configurations that fit)."""
    for path in paths:
        fields = stats_fields(path)
        timed_count = int(fields["configurations timed"])
        skipped_count = int(fields["configurations skipped as slower than "
                                   "the K-th best"])
        print(f"timed {timed_count} + skipped {skipped_count} = "
              f"{timed_count + skipped_count}")


def ruled_out(paths):
    """The training runs a query rules out by a bound of their memory (their
    persistent state, or the bound of their stages' peaks from their parts)
    and those it gives a shape's skeleton."""
    for path in paths:
        fields = stats_fields(path)
        print(", ".join(f"{name} {fields[name]}" for name in
                        ("runs ruled out by their persistent state",
                         "runs ruled out by a bound of their peak",
                         "runs through a skeleton")))


def capacity(profile_path, rows_path, delta, out_path):
    [row] = rows_of(rows_path)
    with open(profile_path) as f:
        profile = json.load(f)
    profile["memory"]["capacity_bytes"]["value"] = (
        row["run"]["peak_bytes"] + delta)
    with open(out_path, "w") as f:
        json.dump(profile, f)


def context_parallel(path):
    rows = rows_of(path)
    violations = 0
    sharded_by_cp = 0
    for row in rows:
        point = row["point"]
        cp, dp = point["cp"], point["dp"]
        if cp == 1 and (point["cp_comm"] != "ring" or
                        point.get("cp_tier") is not None):
            violations += 1
        if point["zero_stage"] > 0 and dp * cp == 1:
            violations += 1
        if point["zero_stage"] > 0 and dp == 1 and cp > 1:
            sharded_by_cp += 1
    print(f"{violations} violations; {sharded_by_cp} rows shard ZeRO over cp "
          "ranks alone")


def flops(path, peak):
    for row in rows_of(path):
        run = row.get("run", {})
        if not row["valid"] or "model_flops_utilization" not in run:
            continue
        point = row["point"]
        capacity = run["iteration_seconds"] * point["gpus"] * peak
        model = round(run["model_flops_utilization"] * capacity)
        hardware = round(run["hardware_flops_utilization"] * capacity)
        print(f"tp {point['tp']} cp {point['cp']} dp {point['dp']}: "
              f"model {model}, hardware {hardware}")


def usable(path, capacity, numerator, denominator):
    usable_bytes = capacity * numerator // denominator
    rows = [r for r in rows_of(path) if r["valid"]]
    wrong = [r["index"] for r in rows
             if r["run"]["fits"] != (r["run"]["peak_bytes"] <= usable_bytes)
             or r["run"]["margin_bytes"] != usable_bytes - r["run"]["peak_bytes"]]
    flipped = sum(usable_bytes < r["run"]["peak_bytes"] <= capacity
                  for r in rows)
    print(f"usable {usable_bytes} of {capacity}: "
          f"{len(wrong)} rows disagree {wrong[:5]}, "
          f"{flipped} rows fit the capacity but not the usable share")


if __name__ == "__main__":
    if sys.argv[1] == "coverage":
        coverage(sys.argv[2])
    elif sys.argv[1] == "shapes":
        shapes(sys.argv[2])
    elif sys.argv[1] == "timed":
        timed(sys.argv[2:])
    elif sys.argv[1] == "skipped":
        skipped(sys.argv[2:])
    elif sys.argv[1] == "ruled-out":
        ruled_out(sys.argv[2:])
    elif sys.argv[1] == "select-top":
        select(sys.argv[2], sys.argv[3], int(sys.argv[4]), with_front=False)
    elif sys.argv[1] == "capacity":
        capacity(sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5])
    elif sys.argv[1] == "bindings":
        bindings(sys.argv[2], sys.argv[3])
    elif sys.argv[1] == "context-parallel":
        context_parallel(sys.argv[2])
    elif sys.argv[1] == "flops":
        flops(sys.argv[2], float(sys.argv[3]))
    elif sys.argv[1] == "usable":
        usable(sys.argv[2], *(int(a) for a in sys.argv[3:6]))
    else:
        select(sys.argv[2], sys.argv[3], int(sys.argv[4]))
