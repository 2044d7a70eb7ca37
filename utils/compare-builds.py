#!/usr/bin/env python3
"""Two builds, one answer: compares what two builds of Blueprint print.

    utils/compare-builds.py BUILD_A BUILD_B

Runs every bundled example (examples/*.json, examples/*.args) through both
builds (e.g. clang-22 and GCC 12) and compares, byte for byte, the work
summary (--work-summary=format=json), the estimate (--estimate, JSON) and,
for training runs, the model summary with its iteration time
(--model-summary, JSON and table), on both bundled profiles. Fails, showing
the difference, at the first output that differs or is missing.
"""

import difflib
import glob
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PLAN = ["--distribute-transformer", "--plan-portable"]
BINDING = "tp:nvlink,pp:infiniband,dp:infiniband"


def outputs():
    """(name, import arguments, blueprint-opt arguments) of every output."""
    importers = {".json": "--import-transformer-json",
                 ".args": "--import-megatron-args"}
    examples = sorted(glob.glob(os.path.join(ROOT, "examples", "*.json")) +
                      glob.glob(os.path.join(ROOT, "examples", "*.args")))
    profiles = sorted(glob.glob(os.path.join(ROOT, "profiles", "*.json")))
    for example in examples:
        name = os.path.basename(example)
        importer = [importers[os.path.splitext(example)[1]], example]
        with open(example) as f:
            training = '"inference"' not in f.read()
        yield (name + " work summary", importer,
               PLAN + ["--work-summary=format=json"])
        for profile in profiles:
            tag = "%s on %s" % (name, os.path.basename(profile))
            yield (tag + " estimate", importer,
                   PLAN + ["--estimate=profile=%s binding=tp:nvlink "
                           "format=json" % profile])
            if training:
                for form in ("json", "table"):
                    yield ("%s model summary (%s)" % (tag, form), importer,
                           PLAN + ["--model-summary=profile=%s binding=%s "
                                   "format=%s" % (profile, BINDING, form)])


def run(build, importer, pipeline):
    """What blueprint-opt of `build` prints for the imported example: its
    exit status, standard output and diagnostics. A diagnostic (a binding
    the profile cannot hold, say) is an output like any other: both builds
    must print the same one."""
    bin_dir = os.path.join(build, "bin")
    model = subprocess.run([os.path.join(bin_dir, "blueprint-translate"),
                            *importer], capture_output=True, check=True).stdout
    done = subprocess.run([os.path.join(bin_dir, "blueprint-opt"), *pipeline,
                           "-o", os.devnull], input=model,
                          capture_output=True)
    return (b"exit %d\n" % done.returncode) + done.stdout + done.stderr


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__.strip().splitlines()[2].strip())
    first, second = sys.argv[1], sys.argv[2]
    count = diagnostics = 0
    for name, importer, pipeline in outputs():
        a, b = run(first, importer, pipeline), run(second, importer, pipeline)
        if a.startswith(b"exit 0\n"):
            if a == b"exit 0\n":
                sys.exit("compare-builds: %s printed nothing" % name)
        elif "work summary" in name:
            sys.exit("compare-builds: %s failed:\n%s" % (name, a.decode()))
        else:
            diagnostics += 1
        if a != b:
            diff = difflib.unified_diff(
                a.decode().splitlines(), b.decode().splitlines(), first,
                second, lineterm="", n=1)
            sys.exit("compare-builds: %s differs:\n%s" %
                     (name, "\n".join(list(diff)[:40])))
        count += 1
    print("compare-builds: %d outputs (%d of them diagnostics) "
          "byte-identical between %s and %s" %
          (count, diagnostics, first, second))


if __name__ == "__main__":
    main()
