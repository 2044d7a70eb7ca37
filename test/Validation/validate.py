#!/usr/bin/env python3
"""Blueprint's validation gate: every reference case through the real pipeline.

For each case of test/reference/seqsel_paper.json and calculon_seqsel.json
this builds the training spec the case describes, runs

    blueprint-translate --import-transformer-json
    blueprint-opt --distribute-transformer --plan-portable
                  --model-summary="profile=... binding=... format=json" -o plan.mlir

with the bundled A100 profile, reads the model summary and the plan's
tasks, and compares every expected quantity of the case (and Calculon's own
composed times) with Blueprint's value under the rule comparisons.py gives
it: exact, or a stated tolerance with named causes. It writes every comparison to a
JSON results file (the input of utils/generate-validation-table.py) and
exits non-zero if any comparison or gate fails, any quantity has no rule, or
any case cannot be run. No reference number is written here or in
comparisons.py: every expected value is read from the reference files.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import comparisons  # noqa: E402

REFERENCE_FILES = ("seqsel_paper.json", "calculon_seqsel.json",
                   "mlm2021_table1.json")


class PipelineError(Exception):
    """A tool of the pipeline rejected a case."""


class Pipeline:
    """Runs the real tools on a spec, once per distinct spec."""

    def __init__(self, translate, opt, profile, workdir):
        self.translate = translate
        self.opt = opt
        self.profile = profile
        self.workdir = workdir
        self.cache = {}

    def run(self, spec):
        key = json.dumps(spec, sort_keys=True)
        if key not in self.cache:
            self.cache[key] = self._run(spec, len(self.cache))
        return self.cache[key]

    def _run(self, spec, index):
        spec_path = os.path.join(self.workdir, "spec%d.json" % index)
        summary_path = os.path.join(self.workdir, "summary%d.json" % index)
        plan_path = os.path.join(self.workdir, "plan%d.mlir" % index)
        with open(spec_path, "w") as f:
            json.dump(spec, f)
        model_ir = subprocess.run(
            [self.translate, "--import-transformer-json", spec_path],
            capture_output=True, text=True)
        if model_ir.returncode != 0:
            raise PipelineError("blueprint-translate: " + model_ir.stderr)
        binding = ",".join(comparisons.BINDING)
        plan = subprocess.run(
            [self.opt, "--distribute-transformer", "--plan-portable",
             "--model-summary=profile=%s binding=%s format=json output=%s" %
             (self.profile, binding, summary_path),
             "-o", plan_path],
            input=model_ir.stdout, capture_output=True, text=True)
        if plan.returncode != 0:
            raise PipelineError("blueprint-opt: " + plan.stderr)
        with open(summary_path) as f:
            summary = json.load(f)["plans"][0]
        with open(plan_path) as f:
            plan_text = f.read()
        return summary, plan_text


def relative_difference(ours, reference):
    if reference == 0:
        return 0.0 if ours == 0 else None
    return (ours - reference) / abs(reference)


def compare(case, quantity, expected, blueprint):
    """One comparison record for the expected `quantity` of `case`;
    `blueprint` holds Blueprint's outputs for the case (comparisons.Ours)."""
    rule = comparisons.rule_for(case, case["group"], quantity)
    record = {
        "quantity": quantity,
        "unit": expected.get("unit"),
        "from": expected.get("from"),
        "reference": expected.get("value"),
        "ours": None,
        "difference": None,
        "relative_difference": None,
    }
    if rule is None:
        record.update(status="failing", relation="no rule", causes=[])
        return record
    record["causes"] = list(rule.causes)
    record["relation"] = rule.describe()
    if isinstance(rule.relation, comparisons.NotCompared):
        record["status"] = "not_compared"
        return record
    ours = rule.ours(blueprint)
    reference = rule.reference(expected["value"])
    record["ours"] = ours
    record["reference"] = reference
    if not isinstance(reference, list):
        record["difference"] = ours - reference
        # A difference of percentages is read in percentage points.
        if not isinstance(rule.relation, comparisons.Absolute):
            record["relative_difference"] = relative_difference(ours,
                                                                reference)
    if comparisons.equal(ours, reference) and not rule.adjusted:
        record["status"] = "exact"
    elif rule.relation.holds(ours, reference):
        record["status"] = "within_tolerance"
    else:
        record["status"] = "failing"
    return record


def expected_quantities(case):
    """(path, {"value": ..., "unit": ..., "from": ...}) of every expected
    quantity (a bare value, as Calculon's collective lists, is its own
    value), then of the reference's composed times."""
    for scope, quantities in case["expected"].items():
        for name, expected in quantities.items():
            if not isinstance(expected, dict):
                expected = {"value": expected}
            yield scope + "." + name, expected
    yield from comparisons.timing_quantities(case)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--blueprint-translate", required=True)
    parser.add_argument("--blueprint-opt", required=True)
    parser.add_argument("--reference-dir", required=True)
    parser.add_argument("--profile", required=True)
    parser.add_argument("--output", required=True,
                        help="where to write the results JSON")
    args = parser.parse_args()

    cases = []
    for file_name in REFERENCE_FILES:
        with open(os.path.join(args.reference_dir, file_name)) as f:
            for case in json.load(f):
                cases.append((file_name, case))
    models = comparisons.models_by_name([case for _, case in cases])

    results = []
    problems = []
    with tempfile.TemporaryDirectory() as workdir:
        pipeline = Pipeline(args.blueprint_translate, args.blueprint_opt,
                            args.profile, workdir)
        for file_name, case in cases:
            entry = {"name": case["name"], "group": case["group"],
                     "reference_file": file_name}
            try:
                ours = comparisons.Ours(case, models, pipeline)
                entry["configuration"] = ours.configuration()
                entry["terms"] = {
                    term["name"]: term["seconds"]
                    for term in ours.get("iteration_time.terms")}
                entry["comparisons"] = [
                    compare(case, path, expected, ours)
                    for path, expected in expected_quantities(case)]
            except (PipelineError, ValueError) as error:
                entry["error"] = str(error)
                entry["comparisons"] = []
                problems.append("%s: %s" % (case["name"], error))
            results.append(entry)

    gates = comparisons.gates(results)
    summary = {status: 0 for status in comparisons.STATUSES}
    for entry in results:
        for record in entry["comparisons"]:
            summary[record["status"]] += 1
            if record["status"] == "failing":
                problems.append("%s: %s: ours %r, reference %r (%s)" % (
                    entry["name"], record["quantity"], record["ours"],
                    record["reference"], record["relation"]))
    for gate in gates:
        if not gate["passed"]:
            problems.append("gate %s: %.4f exceeds %.4f" % (
                gate["name"], gate["value"], gate["limit"]))

    output = {
        "profile": os.path.basename(args.profile),
        "binding": comparisons.BINDING,
        "summary": summary,
        "gates": gates,
        "causes": comparisons.CAUSES,
        "cases": results,
    }
    with open(args.output, "w") as f:
        json.dump(output, f, indent=1, sort_keys=True)
        f.write("\n")

    print("validation: %d cases, %s" % (len(results), ", ".join(
        "%s %d" % (status, count) for status, count in summary.items())))
    for gate in gates:
        print("gate %s: %.4f (limit %.4f) %s" % (
            gate["name"], gate["value"], gate["limit"],
            "passed" if gate["passed"] else "FAILED"))
    for problem in problems:
        print("FAIL: " + problem)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
