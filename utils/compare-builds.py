#!/usr/bin/env python3
"""Two builds, one answer: compares what two builds of Blueprint print.

    utils/compare-builds.py BUILD_A BUILD_B

Runs every bundled example (examples/*.json, examples/*.args), and specs
built to fail (a count that overflows 64 bits, contracts that do not
compose, an inference whose context overflows), through both builds (e.g.
clang-22 and GCC 12), and compares byte for byte: the distributed and
planned IR, their digests, the work summary (--work-summary=format=json),
the estimate (JSON), the whole run's memory report and critical path
(JSON) with their pictures (SVG), and, for training runs, the model
summary with its iteration time (JSON and table) on both bundled profiles,
every diagnostic, and blueprint-search's rows (JSON lines and CSV), its
top-K and Pareto front, its scatter (SVG) and a scenario suite's report,
and the Chakra traces of two examples (blueprint-chakra, one per stage,
compared by SHA-256 with their process groups). Which quantity an overflow names, like every count, must not
depend on the compiler. Fails, showing the difference, at the first output
that differs.
"""

import difflib
import glob
import hashlib
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PLAN = ["--distribute-transformer", "--plan-portable"]
WHOLE_RUN = ["--distribute-transformer=scope=iteration", "--plan-portable"]
BINDING = "tp:nvlink,pp:infiniband,dp:infiniband"
NULL = ["-o", os.devnull]

# Specs that must be rejected, the same way by both builds.
SMALL_MODEL = {"hidden": 64, "heads": 4, "ffn_hidden": 256, "seq_length": 32,
               "vocab": 128, "blocks": 2}
TRAINING = {"global_batch": 4, "micro_batch": 2, "activation_type": "bf16",
            "weight_type": "bf16", "gradient_type": "f32",
            "optimizer_state_type": "f32"}
FAILING_SPECS = {
    "overflowing-counts.json": {
        "name": "overflow",
        "model": dict(SMALL_MODEL, hidden=2**40, heads=2**10,
                      ffn_hidden=2**42, seq_length=2**20, vocab=2**10),
        "training": dict(TRAINING, global_batch=2**10, micro_batch=2**10),
        "mapping": {"tp": 8, "pp": 1, "dp": 1}},
    "not-composing.json": {
        "name": "tp3", "model": SMALL_MODEL, "training": TRAINING,
        "mapping": {"tp": 3, "pp": 1, "dp": 1}},
    "overflowing-context.json": {
        "name": "context",
        "model": dict(SMALL_MODEL, max_positions=2**62),
        "inference": {"batch": 2, "prompt_length": 2**62,
                      "generated_tokens": 2**62, "activation_type": "bf16",
                      "weight_type": "bf16", "kv_cache_type": "bf16"},
        "mapping": {"tp": 2, "pp": 1, "dp": 1}},
}


def outputs(failing_dir):
    """(name, import arguments, blueprint-opt arguments) of every output."""
    importers = {".json": "--import-transformer-json",
                 ".args": "--import-megatron-args"}
    examples = sorted(glob.glob(os.path.join(ROOT, "examples", "*.json")) +
                      glob.glob(os.path.join(ROOT, "examples", "*.args")) +
                      glob.glob(os.path.join(failing_dir, "*.json")))
    profiles = sorted(glob.glob(os.path.join(ROOT, "profiles", "*.json")))
    for example in examples:
        name = os.path.basename(example)
        importer = [importers[os.path.splitext(example)[1]], example]
        with open(example) as f:
            training = '"inference"' not in f.read()
        yield name + " IR", importer, PLAN + ["-o", "-"]
        yield name + " digests", importer, PLAN + ["--print-digest"] + NULL
        yield (name + " work summary", importer,
               PLAN + ["--work-summary=format=json"] + NULL)
        yield (name + " memory report", importer,
               WHOLE_RUN + ["--memory-report=format=json"] + NULL)
        yield (name + " memory picture", importer,
               WHOLE_RUN + ["--memory-report=output=%s memory-svg=-" %
                            os.devnull] + NULL)
        for profile in profiles:
            tag = "%s on %s" % (name, os.path.basename(profile))
            yield (tag + " estimate", importer,
                   PLAN + ["--estimate=profile=%s binding=tp:nvlink "
                           "format=json" % profile] + NULL)
            yield (tag + " critical path", importer,
                   WHOLE_RUN + ["--critical-path=profile=%s binding=%s "
                                "format=json" % (profile, BINDING)] + NULL)
            yield (tag + " timeline picture", importer,
                   WHOLE_RUN + ["--critical-path=profile=%s binding=%s "
                                "output=%s timeline-svg=-" %
                                (profile, BINDING, os.devnull)] + NULL)
            if training:
                for form in ("json", "table"):
                    yield ("%s model summary (%s)" % (tag, form), importer,
                           PLAN + ["--model-summary=profile=%s binding=%s "
                                   "format=%s" % (profile, BINDING, form)] +
                           NULL)


# A small training run for blueprint-search: every valid configuration on 4
# GPUs, and a suite over both bundled profiles.
SEARCH_SPEC = {"name": "small", "model": dict(SMALL_MODEL, blocks=8),
               "training": dict(TRAINING, global_batch=8),
               "mapping": {"tp": 1, "pp": 1, "dp": 1}}
SEARCH_SUITE = {
    "name": "small-suite", "model": dict(SMALL_MODEL, blocks=8),
    "scenarios": [
        {"name": "train", "weight": 2, "training": dict(TRAINING,
                                                         global_batch=8)},
        {"name": "serve", "weight": 1,
         "inference": {"batch": 2, "prompt_length": 16, "generated_tokens": 4,
                       "activation_type": "bf16", "weight_type": "bf16",
                       "kv_cache_type": "bf16"},
         "slo": {"time_to_first_token_seconds": 1.0}}],
    "systems": [{"name": os.path.basename(profile), "profile": profile,
                 "gpus": [2, 4]}
                for profile in sorted(glob.glob(
                    os.path.join(ROOT, "profiles", "*.json")))]}


def search_outputs(work_dir):
    """(name, blueprint-search arguments, extra output file) of every
    search output."""
    spec = os.path.join(work_dir, "search-spec.json")
    with open(spec, "w") as f:
        json.dump(SEARCH_SPEC, f)
    suite = os.path.join(work_dir, "search-suite.json")
    with open(suite, "w") as f:
        json.dump(SEARCH_SUITE, f)
    svg = os.path.join(work_dir, "scatter.svg")
    profile = "--profile=" + os.path.join(ROOT, "profiles", "a100-80gb.json")
    yield "search rows", [spec, profile, "--gpus=4"], None
    yield "search rows (CSV)", [spec, profile, "--gpus=4", "--format=csv"], None
    yield ("search top-K, front and scatter",
           [spec, profile, "--gpus=2,4", "--top=5", "--pareto",
            "--svg=" + svg], svg)
    yield "search suite", ["--suite=" + suite], None


def run_search(build, arguments, extra):
    """blueprint-search's exit status, output and diagnostics, and the
    extra file it wrote."""
    done = subprocess.run([os.path.join(build, "bin", "blueprint-search"),
                           *arguments], capture_output=True)
    printed = (b"exit %d\n" % done.returncode) + done.stdout + done.stderr
    if extra:
        with open(extra, "rb") as f:
            printed += f.read()
        os.remove(extra)
    return printed


def run(build, importer, pipeline):
    """What `build` prints for the example: the import's diagnostics if it
    is rejected, otherwise blueprint-opt's exit status, output and
    diagnostics (a binding the profile cannot hold is a diagnostic both
    builds must print alike)."""
    bin_dir = os.path.join(build, "bin")
    model = subprocess.run([os.path.join(bin_dir, "blueprint-translate"),
                            *importer], capture_output=True)
    if model.returncode != 0:
        return b"import exit %d\n" % model.returncode + model.stderr
    done = subprocess.run([os.path.join(bin_dir, "blueprint-opt"), *pipeline],
                          input=model.stdout, capture_output=True)
    return (b"exit %d\n" % done.returncode) + done.stdout + done.stderr


# The examples whose Chakra traces are compared: a small and a full-scale
# run (the largest examples write hundreds of megabytes of traces).
CHAKRA_EXAMPLES = ["seqsel-22b.json", "gpt3-175b.json"]


def run_chakra(build, importer, work_dir):
    """The Chakra traces `build` writes for the example's whole run: each
    file's name and SHA-256 (the traces are binary), or the diagnostics."""
    bin_dir = os.path.join(build, "bin")
    model = subprocess.run([os.path.join(bin_dir, "blueprint-translate"),
                            *importer], capture_output=True)
    if model.returncode != 0:
        return b"import exit %d\n" % model.returncode + model.stderr
    program = subprocess.run(
        [os.path.join(bin_dir, "blueprint-opt"),
         "--distribute-transformer=scope=iteration"],
        input=model.stdout, capture_output=True)
    if program.returncode != 0:
        return b"blueprint-opt exit %d\n" % program.returncode + program.stderr
    traces = os.path.join(work_dir, "chakra")
    os.makedirs(traces)
    done = subprocess.run([os.path.join(bin_dir, "blueprint-chakra"),
                           "-o", os.path.join(traces, "trace")],
                          input=program.stdout, capture_output=True)
    printed = (b"exit %d\n" % done.returncode) + done.stdout + done.stderr
    for name in sorted(os.listdir(traces)):
        path = os.path.join(traces, name)
        with open(path, "rb") as f:
            printed += b"%s %s\n" % (name.encode(),
                                      hashlib.sha256(f.read()).hexdigest()
                                      .encode())
        os.remove(path)
    os.rmdir(traces)
    return printed


def require_same(name, a, b, first, second):
    """Exits showing the first lines that differ if `a` and `b` differ."""
    if a == b:
        return
    diff = difflib.unified_diff(a.decode().splitlines(),
                                b.decode().splitlines(), first, second,
                                lineterm="", n=1)
    sys.exit("compare-builds: %s differs:\n%s" %
             (name, "\n".join(list(diff)[:40])))


def require_ran_and_same(name, a, b, first, second):
    """Exits unless the first build's run succeeded and printed something,
    and both builds printed the same."""
    if not a.startswith(b"exit 0\n") or a == b"exit 0\n":
        sys.exit("compare-builds: %s failed:\n%s" % (name, a.decode()[:2000]))
    require_same(name, a, b, first, second)


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__.strip().splitlines()[2].strip())
    first, second = sys.argv[1], sys.argv[2]
    count = failures = 0
    with tempfile.TemporaryDirectory() as failing_dir:
        for file_name, spec in FAILING_SPECS.items():
            with open(os.path.join(failing_dir, file_name), "w") as f:
                json.dump(spec, f)
        for name, importer, pipeline in outputs(failing_dir):
            a = run(first, importer, pipeline)
            b = run(second, importer, pipeline)
            if a == b"exit 0\n":
                sys.exit("compare-builds: %s printed nothing" % name)
            expected_to_fail = any(name.startswith(failing)
                                   for failing in FAILING_SPECS)
            if not a.startswith(b"exit 0\n"):
                if "work summary" in name and not expected_to_fail:
                    sys.exit("compare-builds: %s failed:\n%s" %
                             (name, a.decode()))
                failures += 1
            elif expected_to_fail and "work summary" in name:
                sys.exit("compare-builds: %s was accepted" % name)
            require_same(name, a, b, first, second)
            count += 1
        chakra_built = [os.path.exists(os.path.join(build, "bin",
                                                    "blueprint-chakra"))
                        for build in (first, second)]
        if chakra_built[0] != chakra_built[1]:
            sys.exit("compare-builds: only one build has blueprint-chakra "
                     "(BLUEPRINT_BUILD_CHAKRA)")
        if not chakra_built[0]:
            print("compare-builds: neither build has blueprint-chakra "
                  "(no protobuf); its traces are not compared")
        for example in CHAKRA_EXAMPLES if chakra_built[0] else []:
            name = example + " Chakra traces"
            importer = ["--import-transformer-json",
                        os.path.join(ROOT, "examples", example)]
            require_ran_and_same(name, run_chakra(first, importer,
                                                  failing_dir),
                                 run_chakra(second, importer, failing_dir),
                                 first, second)
            count += 1
        for name, arguments, extra in search_outputs(failing_dir):
            require_ran_and_same(name, run_search(first, arguments, extra),
                                 run_search(second, arguments, extra),
                                 first, second)
            count += 1
    print("compare-builds: %d outputs (%d of them diagnostics) "
          "byte-identical between %s and %s" %
          (count, failures, first, second))


if __name__ == "__main__":
    main()
