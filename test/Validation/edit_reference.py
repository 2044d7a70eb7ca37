#!/usr/bin/env python3
"""Writes a copy of a reference file with fields of named cases changed:
the evidence a validation test perturbs on purpose.

    edit_reference.py REFERENCE OUTPUT [--only NAME] [NAME:FIELD=JSON...]

sets the dotted FIELD of the case named NAME to the JSON value, for each
change, and writes every case of REFERENCE, changed or not, to OUTPUT, or
with --only the one case NAME
(test/Validation/validation-mlm2021-bounds.test). A NAME or FIELD that is
not in the file is an error: a test must not change nothing.
"""

import argparse
import json
import sys


def set_fields(case, changes):
    """Sets each dotted FIELD=JSON of `changes` in `case`; raises KeyError
    naming a field whose parent is not there."""
    for change in changes:
        path, value = change.split("=", 1)
        *parents, leaf = path.split(".")
        scope = case
        for key in parents:
            scope = scope[key]
        if leaf not in scope:
            raise KeyError("%s has no field %s" % (case["name"], path))
        scope[leaf] = json.loads(value)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("reference")
    parser.add_argument("output")
    parser.add_argument("--only", metavar="NAME",
                        help="write only the case NAME")
    parser.add_argument("changes", nargs="*", metavar="NAME:FIELD=JSON")
    args = parser.parse_args()
    with open(args.reference) as f:
        cases = json.load(f)
    by_name = {case["name"]: case for case in cases}
    for name in [args.only] if args.only else []:
        if name not in by_name:
            sys.exit("%s: no case named %s" % (args.reference, name))
    for change in args.changes:
        name, field = change.split(":", 1)
        if name not in by_name:
            sys.exit("%s: no case named %s" % (args.reference, name))
        set_fields(by_name[name], [field])
    if args.only:
        cases = [by_name[args.only]]
    with open(args.output, "w") as f:
        json.dump(cases, f)


if __name__ == "__main__":
    main()
