#!/usr/bin/env python3
"""Checks that the whole-model parameter count Blueprint derives from each
bundled Hugging Face config equals the checkpoint's published count.

    check_parameters.py parameters.json --translate blueprint-translate \
        --opt blueprint-opt

parameters.json maps each model directory next to it (holding config.json
and train.json, the spec that names it) to its published count
(PROVENANCE.md says where each comes from). Every model is checked; each
line says the model, both counts and their difference, and the exit code is
1 when any differs."""

import argparse
import json
import os
import subprocess
import sys


def derived_parameters(args, spec):
    """The `parameters.model` of the model summary of `spec`'s plan."""
    module = subprocess.run([args.translate, "--import-transformer-json", spec],
                            check=True, capture_output=True, text=True).stdout
    summary = subprocess.run(
        [args.opt, "--distribute-transformer", "--plan-portable",
         "--model-summary=format=json", "-o", os.devnull],
        input=module, check=True, capture_output=True, text=True).stdout
    return json.loads(summary)["plans"][0]["parameters"]["model"]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("reference")
    parser.add_argument("--translate", required=True)
    parser.add_argument("--opt", required=True)
    args = parser.parse_args()
    directory = os.path.dirname(os.path.abspath(args.reference))
    with open(args.reference, encoding="utf-8") as file:
        reference = json.load(file)
    mismatches = 0
    for model, entry in reference.items():
        published = entry["parameters"]
        derived = derived_parameters(
            args, os.path.join(directory, model, "train.json"))
        verdict = "ok" if derived == published else "MISMATCH"
        mismatches += derived != published
        print("%s %s: derived %d, published %d, difference %+d" %
              (verdict, model, derived, published, derived - published))
    return 1 if mismatches else 0


if __name__ == "__main__":
    sys.exit(main())
