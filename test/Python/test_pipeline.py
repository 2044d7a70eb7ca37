"""run_pipeline, against blueprint-translate | blueprint-opt."""

import json
import os

import pytest

import blueprint
from conftest import SMALL_SPEC, run_tool


def cli_pipeline(spec_file, *passes):
    # With locations, so that lineage reaches the spec file's fields.
    module = run_tool("blueprint-translate", "--import-transformer-json",
                      spec_file, "--mlir-print-debuginfo")
    return run_tool("blueprint-opt", *passes, stdin=module)


def cli_ir(spec_file, *passes):
    # blueprint-opt ends its output with an empty line (the end of its one
    # split of the input); the module's text is the rest.
    return cli_pipeline(spec_file, *passes)[:-1]


def test_ir_is_blueprint_opt_output(small_spec_file):
    result = blueprint.run_pipeline(small_spec_file)
    assert result.ir == cli_ir(small_spec_file, "--distribute-transformer",
                               "--plan-portable")
    assert result.checkpoints == [] and result.checkpoint_ir == []
    # Flags with options, and MLIR's textual form, name the same pipeline.
    flags = blueprint.run_pipeline(
        small_spec_file, "--distribute-transformer=scope=iteration")
    textual = blueprint.run_pipeline(
        small_spec_file, "distribute-transformer{scope=iteration}")
    assert flags.ir == textual.ir == cli_ir(
        small_spec_file, "--distribute-transformer=scope=iteration")


def test_checkpoints_are_blueprint_opt_records(small_spec_file, tmp_path):
    result = blueprint.run_pipeline(small_spec_file, checkpoints=True)
    assert "2 checkpoints" in repr(result)
    directory = tmp_path / "checkpoints"
    cli_pipeline(small_spec_file, "--distribute-transformer",
                 "--plan-portable",
                 "--blueprint-checkpoint-dir=" + str(directory))
    expected = sorted(os.listdir(directory))
    assert [record["ir_file"] for record in result.checkpoints] == \
        [name for name in expected if name.endswith(".mlir")]
    for record, ir in zip(result.checkpoints, result.checkpoint_ir):
        stem = record["ir_file"][:-len(".mlir")]
        with open(directory / (stem + ".json")) as file:
            cli_record = json.load(file)
        # The same snapshot, pass and lineage; the fingerprint names the
        # tool, and the host time is the run's own.
        for key in ("digest", "format", "lineage", "schema", "sequence",
                    "stage"):
            assert record[key] == cli_record[key]
        assert record["pass"]["output_digest"] == \
            cli_record["pass"]["output_digest"]
        assert ir == (directory / record["ir_file"]).read_text()
    assert [record["stage"] for record in result.checkpoints] == \
        ["distribution", "planning"]


def test_pipeline_errors(small_spec_file):
    with pytest.raises(blueprint.BlueprintError) as raised:
        blueprint.run_pipeline(small_spec_file, "--no-such-pass")
    assert raised.value.stage == "pipeline"
    assert "no-such-pass" in raised.value.diagnostic
    # A pass that fails.
    with pytest.raises(blueprint.BlueprintError) as raised:
        blueprint.run_pipeline(small_spec_file,
                               "--distribute-transformer "
                               "--work-summary=format=xml")
    assert raised.value.stage == "pipeline"
    assert raised.value.diagnostics == [
        "work-summary: format must be 'table' or 'json', got 'xml'"]
    spec = dict(SMALL_SPEC,
                mapping={"tp": 2, "pp": 2, "dp": 2, "zero_stage": 7})
    with pytest.raises(blueprint.BlueprintError) as raised:
        blueprint.run_pipeline(spec)
    assert raised.value.rule == "transformer_mapping_c5"
