"""Blueprint from Python: the exact work, memory and time of training and
serving decoder-only Transformers (docs/Python.md).

The functions call the C++ libraries the command-line tools call, and return
what the tools print, parsed: totals as `blueprint-opt
--work-summary=format=json` writes them, rows as `blueprint-sweep` and
`blueprint-search` write them. Counts are exact Python ints (a whole
iteration's totals are 128-bit counts in C++); times and fractions are floats.
Rejections raise `BlueprintError` with the diagnostics and the rule label.
"""

import json
import os

from . import _blueprint
from .errors import BlueprintError

__all__ = [
    "BlueprintError",
    "PipelineResult",
    "Profile",
    "Spec",
    "estimate",
    "evaluate_grid",
    "load_profile",
    "load_spec",
    "run_pipeline",
    "run_suite",
    "search",
    "to_dataframe",
]


def _read_source(source, what):
    """The JSON text of `source` and where it came from: (text, label, path).

    A dict or list is serialized; a str that starts with '{' or '[' is JSON
    text; any other str or path-like is the path of a file (read as is, so
    diagnostics give its lines and columns)."""
    if isinstance(source, (dict, list)):
        return json.dumps(source), "<%s>" % what, None
    if isinstance(source, str) and source.lstrip()[:1] in ("{", "["):
        return source, "<%s>" % what, None
    if isinstance(source, (str, os.PathLike)):
        path = os.fspath(source)
        with open(path, encoding="utf-8") as file:
            return file.read(), path, path
    raise TypeError("%s: expected a dict, JSON text or a file path, got %s"
                    % (what, type(source).__name__))


class Spec:
    """A run the JSON importer accepted (docs/ImportJSON.md): a model, a
    training or inference workload and a mapping. Made by `load_spec`.

    Attributes:
        text: the spec's JSON text, as given.
        label: where it came from (its path, or "<spec>"), as diagnostics
            and checkpoint lineage name it.
        name: the ModelIR symbol (the spec's name made a symbol).
    """

    def __init__(self, text, label):
        """Imports `text` (named `label`); raises BlueprintError with the
        importer's diagnostics. Use `load_spec`."""
        self.text = text
        self.label = label
        self.name = _blueprint.check_spec(text, label)

    def __repr__(self):
        """The spec's symbol and where it came from."""
        return "<blueprint.Spec %s from %s>" % (self.name, self.label)

    def to_dict(self):
        """The spec as a new dict (change it and `load_spec` it again)."""
        return json.loads(self.text)

    def _work_summary(self, pipeline):
        """The work summary of the one program `pipeline` leaves."""
        _, _, summary = _blueprint.run_pipeline(self.text, self.label,
                                                pipeline, False, True)
        return json.loads(summary)["programs"][0]

    def block_work(self):
        """The work of one decoder block on one rank (docs/WorkAlgebra.md),
        exactly as `blueprint-opt --distribute-transformer
        --work-summary=format=json` reports its program: a dict with
        "program" and "cadences", each cadence ("per_micro_batch",
        "per_iteration"; inference: "per_generation", "per_decode_step")
        holding "by_phase_engine", "by_phase", "by_engine" and "total", each
        total a dict of exact ints (invocations, ops, read_bytes,
        write_bytes, message_bytes, min_transfer_bytes, stash_bytes). An
        inference spec adds "generation", the whole generation's work."""
        return self._work_summary("builtin.module(distribute-transformer)")

    def whole_run(self):
        """The whole training iteration (or generation) (docs/WholeRun.md),
        exactly as `blueprint-opt --distribute-transformer=scope=iteration
        --work-summary=format=json` reports its program: "stages", each
        stage's per-rank totals with its pipeline messages and bytes sent
        and received, and "iteration", the totals over every rank (exact
        ints; 128-bit counts in C++)."""
        return self._work_summary(
            "builtin.module(distribute-transformer{scope=iteration})")


def load_spec(source):
    """Loads and checks a spec (docs/ImportJSON.md, training or inference).

    `source` is a dict, JSON text, or the path of a JSON spec file (str or
    path-like). Every contract and composition rule is checked: a broken one
    raises BlueprintError whose `rule` is its label (e.g.
    "decoder_training_c4") and whose `path` is the JSON path it names. A
    missing file raises OSError. The model may be a Hugging Face
    config.json the spec names (docs/ImportHuggingFace.md): a relative path
    is read from the spec file's directory, or, for a dict or JSON text,
    from the working directory."""
    text, label, _ = _read_source(source, "spec")
    return Spec(text, label)


class Profile:
    """A SystemProfile (docs/Estimate.md) the loader accepted. Made by
    `load_profile`.

    Attributes:
        text: its JSON text.
        name: its name.
    """

    def __init__(self, text, path=None):
        """Parses `text` (read from `path`, which errors then name); raises
        BlueprintError. Use `load_profile`."""
        self.text = text
        self.name = _blueprint.check_profile(text, path)

    def __repr__(self):
        """The profile's name."""
        return "<blueprint.Profile %s>" % self.name


def load_profile(source):
    """Loads and checks a SystemProfile (docs/Estimate.md): a dict, JSON text
    or the path of a profile file such as profiles/a100-80gb.json. A broken
    rule raises BlueprintError (stage "profile") naming its JSON path."""
    text, _, path = _read_source(source, "profile")
    return Profile(text, path)


def _as_profile(profile):
    """`profile` if it is a Profile, else `load_profile(profile)`."""
    return profile if isinstance(profile, Profile) else load_profile(profile)


def _binding(binding):
    """A NetworkTierBinding parsed in C++ by the tools' own parser: None (no
    axis bound), a dict from mesh axis to tier, or "axis:tier,..." as the
    tools' --binding takes it. A bad binding raises BlueprintError (stage
    "binding") with the tools' wording."""
    if binding is None:
        binding = {}
    if isinstance(binding, str):
        return _blueprint.parse_binding_entries(binding)
    if not isinstance(binding, dict):
        raise TypeError("binding: expected a dict from mesh axis to tier or "
                        "'axis:tier,...', got %s" % type(binding).__name__)
    return _blueprint.parse_binding(json.dumps(binding))


def _threads(threads):
    """The worker count for C++: `threads`, or 0 for one per hardware
    thread when None; raises ValueError below 1, as the tools' --jobs."""
    if threads is None:
        return 0
    if threads < 1:
        raise ValueError("threads must be at least 1, got %d" % threads)
    return threads


def _rows(lines, as_dataframe):
    """The JSON `lines` the tools write, parsed: a list of dicts, or a
    DataFrame of them with `as_dataframe`."""
    rows = [json.loads(line) for line in lines]
    return to_dataframe(rows) if as_dataframe else rows


def to_dataframe(rows):
    """The rows (dicts) as a pandas DataFrame, nested fields flattened into
    dotted columns ("run.iteration_seconds", "point.tp"). Raises ImportError
    when pandas is not installed."""
    try:
        import pandas
    except ImportError as error:
        raise ImportError("blueprint.to_dataframe needs pandas (Debian: "
                          "apt install python3-pandas; else pip install "
                          "pandas); the rows themselves are plain dicts"
                          ) from error
    return pandas.json_normalize(rows)


def estimate(spec, profile, binding=None):
    """The whole run and the block of `spec` on `profile`, bound by
    `binding`: the row `blueprint-sweep` writes for a list holding only this
    spec (docs/Sweep.md, "Rows"), as a dict. "run" has the whole run's
    peak_bytes per GPU (its worst stage), fits and margin_bytes against the
    profile's usable capacity, iteration_seconds (the critical path),
    exposed_communication_seconds, model/hardware_flops_utilization,
    tokens_per_second and gpu_hours_per_million_tokens; "totals",
    "cadence_seconds" and "block_seconds" are the block's. Every mesh axis
    a collective spans must be bound (stage "estimate" otherwise).

    `spec` is a Spec or anything `load_spec` takes, `profile` a Profile or
    anything `load_profile` takes, `binding` a dict from mesh axis to tier
    ({"tp": "nvlink", "pp": "infiniband"}), "tp:nvlink,..." or None. A
    rejection raises BlueprintError."""
    spec = spec if isinstance(spec, Spec) else load_spec(spec)
    row = _blueprint.estimate(spec.text, spec.label, _as_profile(profile).text,
                              _binding(binding))
    return json.loads(row)


def evaluate_grid(batch, profile, binding=None, threads=None,
                  as_dataframe=False):
    """Evaluates every configuration of a batch through the pipeline, as
    `blueprint-sweep` does (docs/Sweep.md): `batch` is a grid
    ({"spec": {...}, "grid": {"tp": [...], ...}}), a list of specs (dicts or
    Spec), JSON text or a file path. Returns one row per configuration, in
    order, as dicts (a pandas DataFrame with `as_dataframe`); a rejected
    configuration is a row with "valid": False and its diagnostics. A bad
    grid, profile or binding raises BlueprintError. `threads`: workers
    (default one per hardware thread; rows do not depend on it)."""
    if isinstance(batch, list):
        batch = [item.to_dict() if isinstance(item, Spec) else item
                 for item in batch]
    text, _, _ = _read_source(batch, "grid")
    return _rows(_blueprint.evaluate_batch(text, _as_profile(profile).text,
                                           _binding(binding),
                                           _threads(threads)),
                 as_dataframe)


def search(space, profile, binding=None, gpus=None, global_batch=None,
           top=None, pareto=False, through_ir=False, threads=None,
           as_dataframe=False):
    """Searches mappings of one run, as `blueprint-search` does
    (docs/Sweep.md, "Search"): `space` is a Spec (its run alone), a space
    dict ({"spec": <spec or path>, "grid": {...}}), a spec dict, JSON text
    or a file path. `gpus` (an int or a list): every valid configuration on
    that many GPUs; `global_batch` overrides the spec's; `top=K` returns the
    K fastest that fit (each with its "rank"), `pareto` the Pareto front
    over time, memory per GPU and GPUs (both: the K best, then the front);
    `through_ir` evaluates every configuration through the MLIR pipeline.
    Returns the rows as dicts (a DataFrame with `as_dataframe`). A bad space,
    profile or binding raises BlueprintError."""
    if isinstance(space, Spec):
        text, input_file = space.text, space.label
    else:
        text, label, path = _read_source(space, "space")
        input_file = path or label
    if isinstance(gpus, int):
        gpus = [gpus]
    if global_batch is not None and global_batch < 1:
        raise ValueError("global_batch must be at least 1, got %d"
                         % global_batch)
    if top is not None and top < 1:
        raise ValueError("top must be at least 1, got %d" % top)
    return _rows(_blueprint.search(text, input_file, _as_profile(profile).text,
                                   _binding(binding), list(gpus or []),
                                   global_batch, top, pareto, through_ir,
                                   _threads(threads)),
                 as_dataframe)


def run_suite(suite, threads=None, as_dataframe=False):
    """Runs a scenario suite (docs/Sweep.md, "Suites"), as
    `blueprint-search --suite` does: `suite` is the path of a suite file
    (its profile paths relative to it), a dict or JSON text (profile paths
    relative to the working directory). Returns its lines as dicts: one per
    scenario and candidate system (the best row, or why there is none), then
    one per candidate in rank order. A bad suite raises BlueprintError."""
    text, label, _ = _read_source(suite, "suite")
    return _rows(_blueprint.run_suite(text, label, _threads(threads)),
                 as_dataframe)


class PipelineResult:
    """What `run_pipeline` returns.

    Attributes:
        ir: the module after the pipeline, as blueprint-opt prints it.
        checkpoints: the record of every published checkpoint, as dicts in
            the format of docs/Checkpoints.md ("digest", "pass", "lineage",
            ...); empty unless asked for.
        checkpoint_ir: the IR of each checkpoint (with locations), in the
            same order: the file "ir_file" names.
    """

    def __init__(self, ir, checkpoints, checkpoint_ir):
        """Use `run_pipeline`."""
        self.ir = ir
        self.checkpoints = checkpoints
        self.checkpoint_ir = checkpoint_ir

    def __repr__(self):
        """How many checkpoints were published."""
        return "<blueprint.PipelineResult %d checkpoints>" % len(
            self.checkpoints)


def _textual_pipeline(passes):
    """MLIR's textual pipeline of `passes`: already one ("builtin.module(...)"
    or "a,b{x=1}"), or blueprint-opt flags ("--a --b=x=1")."""
    passes = passes.strip()
    if passes.startswith("-"):
        steps = []
        for flag in passes.split():
            name, _, options = flag.lstrip("-").partition("=")
            steps.append("%s{%s}" % (name, options) if options else name)
        passes = ",".join(steps)
    if not passes.startswith("builtin.module("):
        passes = "builtin.module(%s)" % passes
    return passes


def run_pipeline(spec, passes="--distribute-transformer --plan-portable",
                 checkpoints=False):
    """Imports `spec` (a Spec or anything `load_spec` takes) and runs a pass
    pipeline on it under the verifier, as `blueprint-translate
    --import-transformer-json | blueprint-opt <passes>` does. `passes` is
    blueprint-opt flags without spaces inside one flag
    ("--distribute-transformer=scope=iteration --plan-portable") or MLIR's
    textual pipeline ("distribute-transformer{scope=iteration},
    plan-portable"). With `checkpoints`, a checkpoint session records every
    checkpoint in memory (docs/Checkpoints.md; its fingerprint names the
    tool "blueprint-python"). Returns a PipelineResult. A failing pass, an
    invalid pipeline or a rejected spec raises BlueprintError."""
    spec = spec if isinstance(spec, Spec) else load_spec(spec)
    ir, published, _ = _blueprint.run_pipeline(
        spec.text, spec.label, _textual_pipeline(passes), checkpoints, False)
    return PipelineResult(ir, [json.loads(record) for record, _ in published],
                          [text for _, text in published])
