#!/usr/bin/env python3
"""Regenerates the CHECK lines of a golden lit test.

    utils/update-golden-checks.py BUILD_DIR TEST_FILE -- PASS_FLAGS...

Each `// -----` chunk of TEST_FILE is run through `blueprint-opt PASS_FLAGS`;
its old `// CHECK` lines are replaced by one CHECK-LABEL line for the first
line of output and CHECK-NEXT lines for the rest, with SSA numbers and
digests generalized. Review the diff before committing: the golden files are
only as good as that review.
"""
import re
import subprocess
import sys


def check_lines(output):
    lines = [l.strip() for l in output.splitlines()]
    # The module's braces go; the braces of nested regions (templates and
    # stages of a whole-run program) stay, so CHECK-NEXT runs across them.
    lines = [l for l in lines if l and l != "module {"]
    while lines and lines[-1] == "}":
        lines.pop()
    checks = []
    for i, line in enumerate(lines):
        line = re.sub(r"sha256:[0-9a-f]{64}", "sha256:{{[0-9a-f]+}}", line)
        line = line.replace("[[", "{{\\[\\[}}")
        line = re.sub(r"%(\d+)", r"%{{[0-9]+}}", line)
        prefix = "// CHECK-LABEL: " if i == 0 else "// CHECK-NEXT: "
        checks.append(prefix + line)
    return checks


def main():
    build, test = sys.argv[1], sys.argv[2]
    flags = sys.argv[sys.argv.index("--") + 1:]
    text = open(test).read()
    chunks = text.split("\n// -----\n")
    updated = []
    for index, chunk in enumerate(chunks):
        kept = [l for l in chunk.split("\n") if not l.startswith("// CHECK")]
        body = "\n".join(l for l in kept if not l.startswith("// RUN"))
        output = subprocess.run([f"{build}/bin/blueprint-opt", *flags, "-"],
                                input=body, capture_output=True, text=True,
                                check=True).stdout
        # Header comments and RUN lines stay first, then the checks.
        head = []
        while kept and (kept[0].startswith("//") or not kept[0].strip()):
            head.append(kept.pop(0))
        updated.append("\n".join(head + check_lines(output) + kept))
    open(test, "w").write("\n// -----\n".join(updated))


if __name__ == "__main__":
    main()
