#!/usr/bin/env python3
"""Checks of the Calculon lane's derivations that need no reference run
(test/Validation/validation-calculon-domain.test).

  variant REFERENCE OUTPUT INDEX FIELD=JSON...
      writes the INDEX-th case of REFERENCE, with each dotted FIELD set to
      the JSON value and the paper's vocabulary (51200) given so that it
      runs on its own, as a one-case reference file OUTPUT: a case outside
      a calculon_domain rule.

  rule REFERENCE QUANTITY
      prints the rule comparisons.py gives QUANTITY of the one case of
      REFERENCE, or the calculon_domain rule that rejects it: for a case
      that Blueprint's importer rejects before any comparison is made.

  mutations REFERENCE INDEX --blueprint-translate T --blueprint-opt O
            --profile P
      runs the INDEX-th case of REFERENCE through the real pipeline, then
      perturbs Blueprint's task records (each pass's reads doubled, and
      each shape the layer mapping rejects) and prints which Calculon
      comparisons fail or which rule rejects them.

  opcounts WORK_ALGEBRA BLOCK_WORK
      checks comparisons.OPCOUNT, the declared operation counts the FLOPs
      rows hold Blueprint's vector tasks to, against docs/WorkAlgebra.md's
      table and the opcount:: constants of BlockWork.h, and prints each
      disagreement.
"""

import argparse
import copy
import json
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import comparisons  # noqa: E402
import validate  # noqa: E402
import edit_reference  # noqa: E402

# The paper's vocabulary of the Calculon models (Calculon models none).
VOCABULARY = 51200

# The Calculon comparisons a backward or recompute task's bytes reach.
QUANTITIES = (
    "per_block_per_microbatch_per_gpu.fwd_flops",
    "per_block_per_microbatch_per_gpu.bwd_dgrad_flops",
    "per_block_per_microbatch_per_gpu.bwd_wgrad_flops",
    "per_block_per_microbatch_per_gpu.recompute_flops",
    "per_block_per_microbatch_per_gpu.bwd_dgrad_mem_accessed_bytes",
    "per_block_per_microbatch_per_gpu.bwd_wgrad_mem_accessed_bytes",
    "per_block_per_microbatch_per_gpu.recompute_mem_accessed_bytes",
    "calculon_timing.total_time",
)


def variant(args):
    with open(args.reference) as f:
        case = json.load(f)[args.index]
    case["model"]["vocab"] = VOCABULARY
    edit_reference.set_fields(case, args.changes)
    with open(args.output, "w") as f:
        json.dump([case], f)


def rule(args):
    with open(args.reference) as f:
        (case,) = json.load(f)
    try:
        print("%s: %s" % (args.quantity, comparisons.rule_for(
            case, case["group"], args.quantity).describe()))
    except ValueError as error:
        print("%s: rejected: %s" % (args.quantity, error))


def failing(case, ours):
    """The QUANTITIES of the case that fail, or the error that stops them."""
    expected = dict(validate.expected_quantities(case))
    try:
        records = [validate.compare(case, quantity, expected[quantity], ours)
                   for quantity in QUANTITIES]
    except ValueError as error:
        return "rejected: %s" % error
    return "fails %s" % (", ".join(
        record["quantity"].split(".")[-1] for record in records
        if record["status"] == "failing") or "nothing")


def perturbed(ours, change):
    """A copy of `ours` whose task records `change` has edited."""
    copied = copy.copy(ours)
    copied.tasks = copy.deepcopy(ours.tasks)
    change(copied.tasks)
    return copied


def double_reads(phase):
    def change(tasks):
        for task in tasks:
            if task["phase"] == phase:
                task["reads"] = {tensor: 2 * size
                                 for tensor, size in task["reads"].items()}
    return change


def double_ops(phase):
    def change(tasks):
        for task in tasks:
            if task["phase"] == phase:
                task["ops"] *= 2
    return change


def scale_vector_ops(phase, factor):
    def change(tasks):
        for task in tasks:
            if task["phase"] == phase and task["engine"] == "vector":
                task["ops"] *= factor
    return change


def the_task(tasks, phase, primitive):
    (task,) = [task for task in tasks
               if task["phase"] == phase and task["primitive"] == primitive]
    return task


def rename_forward_norm1(tasks):
    the_task(tasks, "forward", "norm1")["primitive"] = "rms_norm"


def weight_grad_writes_activation(tasks):
    task = the_task(tasks, "weight_grad", "fc1")
    task["writes"] = {"fc1_out": size for size in task["writes"].values()}


def qkv_ops_not_divisible(tasks):
    the_task(tasks, "forward", "qkv_proj")["ops"] += 1


def move_gelu_ops_onto_norm1(tasks):
    """The forward GeLU's operations counted on norm1's forward task: the
    pass's total is unchanged, each task's count is not."""
    activation = the_task(tasks, "forward", "activation")
    the_task(tasks, "forward", "norm1")["ops"] += activation["ops"]
    activation["ops"] = 0


def drop_activation_grad_of_fc2(tasks):
    tasks.remove(the_task(tasks, "activation_grad", "fc2"))


MUTATIONS = [
    ("activation_grad reads x 2", double_reads("activation_grad")),
    ("weight_grad reads x 2", double_reads("weight_grad")),
    ("recompute reads x 2", double_reads("recompute")),
    ("activation_grad ops x 2", double_ops("activation_grad")),
    ("weight_grad ops x 2", double_ops("weight_grad")),
    ("recompute ops x 2", double_ops("recompute")),
    ("forward vector ops x 10", scale_vector_ops("forward", 10)),
    ("activation_grad vector ops x 10",
     scale_vector_ops("activation_grad", 10)),
    ("weight_grad vector ops x 10", scale_vector_ops("weight_grad", 10)),
    ("recompute vector ops x 10", scale_vector_ops("recompute", 10)),
    ("forward activation ops moved onto norm1", move_gelu_ops_onto_norm1),
    ("forward norm1 renamed", rename_forward_norm1),
    ("fc1 weight gradient writes fc1_out", weight_grad_writes_activation),
    ("qkv_proj forward ops + 1", qkv_ops_not_divisible),
    ("fc2 activation_grad task removed", drop_activation_grad_of_fc2),
]


def opcounts(args):
    with open(args.work_algebra) as f:
        work_algebra = f.read()
    with open(args.block_work) as f:
        block_work = f.read()
    disagreements = comparisons.declared_counts_agree(work_algebra,
                                                      block_work)
    for disagreement in disagreements:
        print("disagrees: %s" % disagreement)
    if not disagreements:
        print("%d declared counts agree with docs/WorkAlgebra.md and "
              "BlockWork.h" % len(comparisons.OPCOUNT))


def mutations(args):
    with open(args.reference) as f:
        cases = json.load(f)
    case = cases[args.index]
    case["model"]["vocab"] = VOCABULARY
    with tempfile.TemporaryDirectory() as workdir:
        pipeline = validate.Pipeline(args.blueprint_translate,
                                     args.blueprint_opt, args.profile,
                                     workdir)
        ours = comparisons.Ours(case, {}, pipeline)
        print("%s: %s" % (case["name"], failing(case, ours)))
        for name, change in MUTATIONS:
            print("%s: %s" % (name, failing(case, perturbed(ours, change))))
        quantity = "per_block_per_microbatch_per_gpu.fwd_flops"
        record = validate.compare(
            case, quantity, dict(validate.expected_quantities(case))[quantity],
            perturbed(ours, move_gelu_ops_onto_norm1))
        print("%s: %s: %s" % (quantity, record["status"], record["relation"]))
        stopped = copy.copy(ours)
        stopped.summary = copy.deepcopy(ours.summary)
        stopped.summary["iteration_time"]["block_seconds"]["combined"] = 0
        record = validate.compare(case, "calculon_timing.total_time",
                                  {"value": 0}, stopped)
        print("block seconds 0: %s: %s" % (record["status"],
                                           record["relation"]))
    try:
        comparisons.calculon_rate(
            comparisons.CALCULON_SYSTEMS["systems/a100_80g.json"]["memory"],
            -1)
    except ValueError as error:
        print("negative bytes: rejected: %s" % error)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    command = commands.add_parser("variant")
    command.add_argument("reference")
    command.add_argument("output")
    command.add_argument("index", type=int)
    command.add_argument("changes", nargs="+")
    command = commands.add_parser("rule")
    command.add_argument("reference")
    command.add_argument("quantity")
    command = commands.add_parser("mutations")
    command.add_argument("reference")
    command.add_argument("index", type=int)
    command.add_argument("--blueprint-translate", required=True)
    command.add_argument("--blueprint-opt", required=True)
    command.add_argument("--profile", required=True)
    command = commands.add_parser("opcounts")
    command.add_argument("work_algebra")
    command.add_argument("block_work")
    args = parser.parse_args()
    {"variant": variant, "rule": rule, "mutations": mutations,
     "opcounts": opcounts}[
        args.command](args)


if __name__ == "__main__":
    main()
