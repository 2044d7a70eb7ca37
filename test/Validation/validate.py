#!/usr/bin/env python3
"""Blueprint's validation gate: every reference case through the real pipeline.

For each case of the reference files given (--reference-file; by default
the gate's, test/reference/seqsel_paper.json and calculon_seqsel.json) this
builds the training spec the case describes, runs

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

--mutate runs the same gate on a deliberately wrong model, to show the gate
can fail (test/Validation/validation-mutations.test): one term of every
case's composed iteration time (docs/ModelSummary.md, "Iteration time") is
perturbed -- the pipeline bubble doubled, the data-parallel gradient
all-reduce dropped, or the pipeline transfers dropped -- and the total and
the FLOPs utilizations are recomposed by the identity the model summary
reports (the total is the sum of the terms, in their order; a utilization
is FLOPs / (total x GPUs x peak)). The option exists for that test only: it
changes nothing in the tools, and its results say which mutation made them.
"""

import argparse
import copy
import json
import math
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import comparisons  # noqa: E402

# The case lists the gate runs by default. mlm2021_table1.json (MLM2021
# Table 1, every case dp > 1) fails its rules today and is run on its own by
# test/Validation/validation-mlm2021.test, which states what fails and why.
GATE_FILES = ("seqsel_paper.json", "calculon_seqsel.json")


# The perturbations of --mutate: (iteration-time term, factor).
MUTATIONS = {
    "double_bubble": ("bubble", 2.0),
    "drop_dp_allreduce": ("dp_grad_allreduce", 0.0),
    "drop_pipeline_transfers": ("pipeline_transfers", 0.0),
}


def sum_of_terms(terms):
    """The composed iteration time: its terms summed in order, as
    composeIterationTime (lib/Analysis/ModelQuantities.cpp) sums them."""
    total = 0.0
    for term in terms:
        total += term["seconds"]
    return total


def mutate(summary, mutation):
    """Perturbs one term of the summary's composed iteration time and
    recomposes the total and the utilizations from it."""
    time = summary["iteration_time"]
    total = time["total_seconds"]
    if not math.isclose(sum_of_terms(time["terms"]), total, rel_tol=1e-12):
        raise ValueError("the iteration time is not the sum of its terms: "
                         "--mutate cannot recompose it")
    name, factor = MUTATIONS[mutation]
    (term,) = [term for term in time["terms"] if term["name"] == name]
    term["seconds"] *= factor
    time["total_seconds"] = sum_of_terms(time["terms"])
    for utilization in ("model_flops_utilization",
                        "hardware_flops_utilization"):
        time[utilization] *= total / time["total_seconds"]


class PipelineError(Exception):
    """A tool of the pipeline rejected a case."""


class Pipeline:
    """Runs the real tools on a spec, once per distinct spec."""

    def __init__(self, translate, opt, profile, workdir, mutation=None,
                 run_implementations=False):
        self.mutation = mutation
        self.run_implementations = run_implementations
        self.translate = translate
        self.opt = opt
        self.profile = profile
        self.workdir = workdir
        self.cache = {}

    def run(self, spec, source):
        """The model summary and the printed plan of the spec of a case of
        reference `source`, its time under the implementation
        transformations the source's runs used when the pipeline applies
        them; the summary perturbed by the pipeline's mutation, if it has
        one."""
        implementations = (comparisons.IMPLEMENTATIONS[source]
                           if self.run_implementations else [])
        key = json.dumps([spec, implementations], sort_keys=True)
        if key not in self.cache:
            self.cache[key] = self._run(spec, implementations,
                                        len(self.cache))
        summary, plan_text = self.cache[key]
        summary = copy.deepcopy(summary)
        if self.mutation:
            mutate(summary, self.mutation)
        return summary, plan_text

    def _run(self, spec, implementations, index):
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
        summary_options = "profile=%s binding=%s format=json output=%s" % (
            self.profile, binding, summary_path)
        if implementations:
            summary_options += " implementations=" + ",".join(implementations)
        plan = subprocess.run(
            [self.opt, "--distribute-transformer", "--plan-portable",
             "--model-summary=" + summary_options, "-o", plan_path],
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
    record = {
        "quantity": quantity,
        "unit": expected.get("unit"),
        "from": expected.get("from"),
        "reference": expected.get("value"),
        "ours": None,
        "difference": None,
        "relative_difference": None,
    }
    try:
        rule = comparisons.rule_for(case, case["group"], quantity)
    except comparisons.OutsideDomain as error:
        # This comparison's derivation does not hold for the case; the
        # case's other comparisons still run.
        record.update(status="failing", relation=str(error), causes=[])
        return record
    if rule is None:
        record.update(status="failing", relation="no rule", causes=[])
        return record
    record["causes"] = list(rule.causes)
    record["relation"] = rule.describe()
    if isinstance(rule.relation, comparisons.NotCompared):
        record["status"] = "not_compared"
        return record
    try:
        ours = rule.ours(blueprint)
    except comparisons.OutsideDomain as error:
        record.update(status="failing", relation=str(error))
        return record
    if rule.details:
        record["details"] = rule.details(blueprint)
    reference = rule.reference(expected["value"])
    record["ours"] = ours
    record["reference"] = reference
    if not isinstance(reference, list):
        record["difference"] = ours - reference
        # A difference of percentages is read in percentage points.
        relation = rule.relation
        if isinstance(relation, comparisons.SameSign):
            relation = relation.relation
        if not isinstance(relation, comparisons.Absolute):
            record["relative_difference"] = relative_difference(ours,
                                                                reference)
    if comparisons.equal(ours, reference) and not rule.adjusted:
        record["status"] = "exact"
    elif rule.relation.holds(ours, reference):
        record["status"] = (
            "exact_after_adjustment"
            if isinstance(rule.relation, comparisons.EXACT_RELATIONS)
            else "within_tolerance")
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


def first_error_line(text):
    """The diagnostic of a tool's failure, without the IR it may print."""
    lines = [line for line in text.splitlines() if "error:" in line]
    return lines[0].strip() if lines else text.strip()


def evaluate(cases, models, pipeline):
    """Every comparison of every case, the gates over them, and what fails."""
    results = []
    problems = []
    for file_name, case in cases:
        entry = {"name": case["name"], "group": case["group"],
                 "reference_file": file_name}
        try:
            entry["configuration"] = comparisons.configuration(
                comparisons.spec_of(case, models))
            ours = comparisons.Ours(case, models, pipeline)
            entry["terms"] = {
                term["name"]: term["seconds"]
                for term in ours.get("iteration_time.terms")}
            entry["comparisons"] = [
                compare(case, path, expected, ours)
                for path, expected in expected_quantities(case)]
        except (PipelineError, ValueError) as error:
            entry["error"] = first_error_line(str(error))
            entry["comparisons"] = []
            problems.append("%s: %s" % (case["name"], entry["error"]))
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
    return results, gates, summary, problems


def failures(results, gates):
    """What fails: (case, quantity) of every failing comparison, the names
    of the cases that do not run and of the gates that fail."""
    return (
        {(entry["name"], record["quantity"]) for entry in results
         for record in entry["comparisons"] if record["status"] == "failing"},
        {entry["name"] for entry in results if entry.get("error")},
        {gate["name"] for gate in gates if not gate["passed"]})


def mutation_check(name, base, mutated):
    """What the mutation makes fail that the unperturbed model passes."""
    base_failing, base_errors, base_gates = failures(*base)
    failing, errors, gates = failures(*mutated)
    new_failing = sorted(failing - base_failing)
    new_gates = sorted(gates - base_gates)
    return {"mutation": name,
            "term": MUTATIONS[name][0],
            "factor": MUTATIONS[name][1],
            "new_failures": [list(item) for item in new_failing],
            "cases": sorted({case for case, _ in new_failing}),
            "gates": new_gates,
            # Each gate's value unperturbed and perturbed: whether the
            # mutation moves the mean error away from the measurements.
            "gate_values": {gate["name"]: [before["value"], gate["value"]]
                            for before, gate in zip(base[1], mutated[1])},
            "detected": bool(new_failing or new_gates)}


def mlm2021_bounds(cases, pipeline, reference_dir, profile_path):
    """The derivation of the MLM2021 throughput bounds
    (comparisons.mlm2021_bounds_derivation) from the unperturbed model, when
    MLM2021 cases are run; None otherwise. It is derived over every
    committed Table 1 run (comparisons.MLM2021_FILE) and SeqSel Table 5's
    full-recompute runs, read from the reference directory whichever cases
    this run compares."""
    if not any(case["group"] == comparisons.MLM2021_GROUP
               for _, case in cases):
        return None
    def read(file_name):
        with open(os.path.join(reference_dir, file_name)) as f:
            return json.load(f)
    mlm = read(comparisons.MLM2021_FILE)
    file_name, group, recompute = comparisons.MLM2021_STACK_EVIDENCE
    evidence = [case for case in read(file_name)
                if case["group"] == group and
                case["mapping"]["recompute"] == recompute]
    with open(profile_path) as f:
        memory = json.load(f)["memory"]
    models = comparisons.models_by_name(mlm + evidence)
    mutation, pipeline.mutation = pipeline.mutation, None
    try:
        def run(case):
            return case, comparisons.Ours(case, models, pipeline)
        return comparisons.mlm2021_bounds_derivation(
            {case["name"]: run(case) for case in mlm},
            {case["name"]: run(case) for case in evidence}, memory)
    finally:
        pipeline.mutation = mutation


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--blueprint-translate", required=True)
    parser.add_argument("--blueprint-opt", required=True)
    parser.add_argument("--reference-dir", required=True)
    parser.add_argument("--reference-file", action="append",
                        help="a case list of the reference directory "
                        "(repeatable; default: %s)" % ", ".join(GATE_FILES))
    parser.add_argument("--profile", required=True)
    parser.add_argument("--output", required=True,
                        help="where to write the results JSON")
    parser.add_argument("--mutate", choices=sorted(MUTATIONS),
                        help="perturb one iteration-time term of every case "
                        "(a check that the gate can fail; tests only)")
    parser.add_argument("--implementations", choices=("none", "runs"),
                        default="runs",
                        help="cost each case's block under the implementation "
                        "transformations its reference's runs used "
                        "(comparisons.IMPLEMENTATIONS; the gate, default) or "
                        "under none (the semantic lane, "
                        "test/Validation/validation-implementation.test)")
    parser.add_argument("--mutation-checks", action="store_true",
                        help="also run the gate under every mutation and "
                        "report what each makes fail (exit status "
                        "unaffected)")
    args = parser.parse_args()

    files = args.reference_file or list(GATE_FILES)
    cases = []
    for file_name in files:
        with open(os.path.join(args.reference_dir, file_name)) as f:
            for case in json.load(f):
                cases.append((file_name, case))
    models = comparisons.models_by_name([case for _, case in cases])

    checks = []
    with tempfile.TemporaryDirectory() as workdir:
        pipeline = Pipeline(args.blueprint_translate, args.blueprint_opt,
                            args.profile, workdir, args.mutate,
                            args.implementations == "runs")
        results, gates, summary, problems = evaluate(cases, models, pipeline)
        # The bounds are derived for the gate's lane, the runs'
        # implementations.
        derivation = None
        if args.implementations == "runs":
            try:
                derivation = mlm2021_bounds(cases, pipeline,
                                            args.reference_dir, args.profile)
            except (PipelineError, ValueError) as error:
                problems.append("MLM2021 bounds: " +
                                first_error_line(str(error)))
        if args.mutation_checks:
            for name in sorted(MUTATIONS):
                pipeline.mutation = name
                mutated = evaluate(cases, models, pipeline)
                checks.append(mutation_check(name, (results, gates),
                                             mutated[:2]))

    output = {
        "reference_files": files,
        "mutation": args.mutate,
        "implementations": args.implementations,
        "mutation_checks": checks,
        "profile": os.path.basename(args.profile),
        "binding": comparisons.BINDING,
        "summary": summary,
        "gates": gates,
        "mlm2021_bounds": derivation,
        "causes": comparisons.CAUSES,
        "cases": results,
    }
    with open(args.output, "w") as f:
        json.dump(output, f, indent=1, sort_keys=True)
        f.write("\n")

    if args.mutate:
        print("mutation: %s (%s x %g)" % ((args.mutate,) +
                                          MUTATIONS[args.mutate]))
    if args.implementations == "runs":
        print("implementations: the runs' (%s)" % "; ".join(
            "%s: %s" % (source, ",".join(names) or "none")
            for source, names in sorted(comparisons.IMPLEMENTATIONS.items())))
    print("validation: %d cases, %s" % (len(results), ", ".join(
        "%s %d" % (status, count) for status, count in summary.items())))
    for gate in gates:
        print("gate %s: %.4f (limit %.4f) %s" % (
            gate["name"], gate["value"], gate["limit"],
            "passed" if gate["passed"] else "FAILED"))
    if derivation:
        print("mlm2021 bounds derived: " + ", ".join(
            "%s %+.2f%% (committed %+.1f%%) %s" % (
                bound["bound"], 100 * bound["derived"],
                100 * bound["committed"],
                "passed" if bound["passed"] else "FAILED")
            for bound in derivation["bounds"]))
        for bound in derivation["bounds"]:
            if not bound["passed"]:
                problems.append(
                    "the committed MLM2021 %s bound is wider than its "
                    "derivation" % bound["bound"])
    for check in checks:
        print("mutation check %s: %s" % (check["mutation"], (
            "fails %d comparisons of %s; gates %s" % (
                len(check["new_failures"]), ", ".join(check["cases"]) or
                "no case", ", ".join(check["gates"]) or "none"))
            if check["detected"] else "NOT DETECTED"))
    for problem in problems:
        print("FAIL: " + problem)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
