#!/usr/bin/env python3
"""Finds calls whose arguments depend on an unspecified evaluation order.

The order in which C++ evaluates a call's arguments is unspecified: GCC and
clang differ. Two patterns of it have produced compiler-dependent results
here, and this script lists every parenthesised call that has one:

1. Two or more arguments that each run an overflow-checked computation. An
   OverflowGuard (or WideGuard) remembers the *first* quantity that
   overflows, so `guard.add(guard.mul(a, b, "x"), guard.mul(c, d, "y"))`
   names "x" under one compiler and "y" under the other.
2. An argument that calls an overflow builtin writing its out-parameter
   (`llvm::MulOverflow(a, b, result)`) next to an argument that reads that
   out-parameter: `record(!MulOverflow(a, b, result), result)` read
   `result` before it was written under GCC.

The fix is to compute the arguments into named locals first. Braced
initialisers (`{f(), g()}`) are sequenced left to right and are not flagged.

Usage: check-evaluation-order.py ROOT...   (exit status 1 if any is found)
"""

import pathlib
import re
import sys

# Names whose call runs a guarded computation: the guards themselves, and
# the work builders' helpers that count through their member guard
# (lib/Workload/ForwardBuilder.h, BlockWork.cpp, Inference.cpp).
GUARDED = re.compile(
    r"\b(guard|wide|activation|weight|gradient|elements|linearOps|"
    r"attentionMatmulOps|rowwiseOps|elementwiseOps|reductionOps|cached|"
    r"newKeysOrValues|cachedBytes|cachedOver|newKeys|newValues|"
    r"latentKeyCols|rotated|normParameters|rotaryTable|rotaryOps|"
    r"latentAttentionParameters|makeRankColumns)\b\s*[.(]|"
    r"\bguard\b")

OPENERS = {"(": ")", "[": "]", "{": "}"}


def strip_comments_and_strings(text):
    """Blanks comments and string/char literals, keeping offsets."""
    out = list(text)
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out[i:j] = " " * (j - i)
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out[i:j] = [ch if ch == "\n" else " " for ch in text[i:j]]
            i = j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            out[i + 1:j] = " " * (j - i - 1)
            i = j + 1
        else:
            i += 1
    return "".join(out)


def top_level_arguments(text, open_index):
    """The argument texts of the parenthesised list opening at open_index."""
    depth, start, args = 0, open_index + 1, []
    stack = []
    for i in range(open_index, len(text)):
        c = text[i]
        if c in OPENERS:
            stack.append(OPENERS[c])
        elif stack and c == stack[-1]:
            stack.pop()
            if not stack:
                args.append(text[start:i])
                return args
        elif c == "," and len(stack) == 1 and stack[0] == ")":
            args.append(text[start:i])
            start = i + 1
    return args


# An overflow builtin and its out-parameter, the last argument.
OVERFLOW_BUILTIN = re.compile(
    r"\b(?:Mul|Add|Sub)Overflow\s*\([^()]*,\s*([A-Za-z_][A-Za-z0-9_]*)\s*\)")


def unsequenced(args):
    """Why a call with these argument texts depends on evaluation order."""
    guarded = [a for a in args if GUARDED.search(a) and "(" in a]
    if len(guarded) >= 2:
        return "two or more unsequenced guarded arguments"
    for index, arg in enumerate(args):
        for written in OVERFLOW_BUILTIN.findall(arg):
            reads = re.compile(r"\b%s\b" % re.escape(written))
            if any(reads.search(other)
                   for other_index, other in enumerate(args)
                   if other_index != index):
                return ("an argument reads '%s', which a sibling argument's "
                        "overflow builtin writes" % written)
    return None


def findings(path):
    text = strip_comments_and_strings(path.read_text())
    for match in re.finditer(r"[A-Za-z_][A-Za-z0-9_]*\s*\(", text):
        keyword = match.group(0).rstrip("( \t\n")
        if keyword in {"if", "for", "while", "switch", "return", "sizeof"}:
            continue
        why = unsequenced(top_level_arguments(text, match.end() - 1))
        if why:
            line = text.count("\n", 0, match.start()) + 1
            yield line, keyword, why


def main(roots):
    found = 0
    for root in roots:
        for path in sorted(pathlib.Path(root).rglob("*")):
            if path.suffix not in {".cpp", ".h"}:
                continue
            for line, callee, why in findings(path):
                print(f"{path}:{line}: '{callee}(...)': {why}; compute the "
                      "arguments into named locals first")
                found += 1
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:] or ["."]))
