"""Shared fixtures of the Python package's tests: where the sources and the
tools are (ctest passes them in the environment), a small spec and profile,
and a way to run a tool for the comparisons with the command line."""

import json
import os
import subprocess

import pytest

SOURCE_DIR = os.environ["BLUEPRINT_SOURCE_DIR"]
TOOLS_DIR = os.environ["BLUEPRINT_TOOLS_DIR"]

# Four blocks on two pipeline stages, two TP and two DP ranks: every kind
# of work and message, in milliseconds.
SMALL_SPEC = {
    "name": "small",
    "model": {"hidden": 128, "heads": 16, "ffn_hidden": 512,
              "seq_length": 64, "vocab": 256, "blocks": 4},
    "training": {"global_batch": 8, "micro_batch": 1,
                 "activation_type": "bf16", "weight_type": "bf16",
                 "gradient_type": "f32", "optimizer_state_type": "f32"},
    "mapping": {"tp": 2, "pp": 2, "dp": 2},
}

BINDING = {"tp": "nvlink", "pp": "infiniband", "dp": "infiniband"}


def source_path(*parts):
    """A path in the source tree."""
    return os.path.join(SOURCE_DIR, *parts)


def run_tool(name, *arguments, stdin=None):
    """The standard output of a Blueprint tool, which must succeed."""
    return subprocess.run([os.path.join(TOOLS_DIR, name), *arguments],
                          input=stdin, capture_output=True, text=True,
                          check=True).stdout


def tool_error(name, *arguments):
    """What a Blueprint tool that must fail prints after "error: ", without
    the final newline: a BlueprintError's `diagnostic` for the same input."""
    result = subprocess.run([os.path.join(TOOLS_DIR, name), *arguments],
                            capture_output=True, text=True)
    assert result.returncode != 0, result.stdout
    assert result.stderr.startswith("error: "), result.stderr
    return result.stderr[len("error: "):].rstrip("\n")


def json_lines(text):
    """The objects of a JSON-lines text."""
    return [json.loads(line) for line in text.splitlines() if line]


@pytest.fixture
def small_spec_file(tmp_path):
    """SMALL_SPEC written to a file."""
    path = tmp_path / "small.json"
    path.write_text(json.dumps(SMALL_SPEC))
    return str(path)


@pytest.fixture
def a100_path():
    """The bundled A100 profile."""
    return source_path("profiles", "a100-80gb.json")
