"""The exception every rejection of Blueprint raises."""

import re

# A rule label of docs/TransformerSpec.md as diagnostics print it:
# "import: $: decoder_training_c5: kv_heads = 1 is not divisible by tp = 2".
_RULE = re.compile(r"(?<![\w$.])([a-z][a-z0-9]*(?:_[a-z0-9]+)*_c[0-9]+):")
# The JSON path a diagnostic names: "$", "$.model.hidden", "$.grid.tp[2]".
_PATH = re.compile(r"(?<![\w])(\$(?:\.[A-Za-z_][\w-]*|\[[0-9]+\])*)(?=:|\s|$)")


class BlueprintError(Exception):
    """A spec, profile, binding, grid, space, suite or pipeline that Blueprint
    rejects.

    Attributes:
        stage: what was being done: "import" (the importer's contract and
            composition rules), "pipeline" (a pass, the verifier or a
            checkpoint observer), "estimate", "profile", "binding", "grid",
            "space", "search", "suite" or "work-summary".
        diagnostics: the error diagnostics, in emission order.
        diagnostic: all of them, one per line (also the message).
        rule: the first rule label the diagnostics name (e.g.
            "decoder_training_c5", docs/TransformerSpec.md), or None.
        path: the first JSON path the diagnostics name (e.g. "$.model"),
            or None.
    """

    def __init__(self, stage, diagnostics):
        """The rejection at `stage` with its diagnostics (strings)."""
        self.stage = stage
        self.diagnostics = list(diagnostics)
        self.diagnostic = "\n".join(self.diagnostics)
        rule = _RULE.search(self.diagnostic)
        self.rule = rule.group(1) if rule else None
        path = _PATH.search(self.diagnostic)
        self.path = path.group(1) if path else None
        super().__init__(self.diagnostic)

    def __reduce__(self):
        """Pickles by stage and diagnostics (worker processes re-raise it)."""
        return (type(self), (self.stage, self.diagnostics))
