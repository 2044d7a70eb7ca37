"""load_spec, Spec.block_work and Spec.whole_run, against blueprint-opt."""

import copy
import json
import pathlib

import pytest

import blueprint
from conftest import SMALL_SPEC, run_tool, source_path


def cli_work_summary(spec_file, distribute):
    module = run_tool("blueprint-translate", "--import-transformer-json",
                      spec_file)
    summary = run_tool("blueprint-opt", distribute,
                       "--work-summary=format=json", "-o", "/dev/null",
                       stdin=module)
    return json.loads(summary)["programs"][0]


def test_load_spec_from_dict_text_path_and_path_like(small_spec_file):
    from_dict = blueprint.load_spec(SMALL_SPEC)
    from_text = blueprint.load_spec(json.dumps(SMALL_SPEC))
    from_path = blueprint.load_spec(small_spec_file)
    from_path_like = blueprint.load_spec(pathlib.Path(small_spec_file))
    for spec in (from_dict, from_text, from_path, from_path_like):
        assert spec.name == "small"
        assert spec.to_dict() == SMALL_SPEC
    assert from_dict.label == "<spec>"
    assert from_path.label == small_spec_file
    assert "small" in repr(from_path)


def test_broken_rule_raises_with_its_label():
    spec = copy.deepcopy(SMALL_SPEC)
    spec["mapping"]["tp"] = 32
    with pytest.raises(blueprint.BlueprintError) as raised:
        blueprint.load_spec(spec)
    error = raised.value
    assert error.stage == "import"
    assert error.rule == "decoder_training_c4"
    assert error.path == "$"
    assert "heads = 16 is not divisible by tp = 32" in error.diagnostic
    assert str(error) == error.diagnostic
    assert error.diagnostics == error.diagnostic.split("\n")


def test_contract_rule_names_its_object():
    spec = copy.deepcopy(SMALL_SPEC)
    spec["model"]["hidden"] = 0
    with pytest.raises(blueprint.BlueprintError) as raised:
        blueprint.load_spec(spec)
    assert raised.value.rule == "transformer_model_c1"
    assert raised.value.path == "$.model"


def test_bad_field_has_a_path_and_no_rule():
    spec = copy.deepcopy(SMALL_SPEC)
    spec["model"]["hiden"] = spec["model"].pop("hidden")
    with pytest.raises(blueprint.BlueprintError) as raised:
        blueprint.load_spec(spec)
    assert raised.value.rule is None
    assert raised.value.path == "$.model.hiden"


def test_invalid_json_text_raises():
    with pytest.raises(blueprint.BlueprintError) as raised:
        blueprint.load_spec("{\"name\": ")
    assert raised.value.stage == "import"
    assert "invalid JSON" in raised.value.diagnostic


def test_hostile_input_raises_instead_of_crashing():
    # The importer scans the nesting before parsing: no stack overflow.
    with pytest.raises(blueprint.BlueprintError) as raised:
        blueprint.load_spec("[" * 100000)
    assert "nesting deeper than 64 levels" in raised.value.diagnostic
    spec = copy.deepcopy(SMALL_SPEC)
    spec["model"]["hidden"] = 2**70
    with pytest.raises(blueprint.BlueprintError) as raised:
        blueprint.load_spec(spec)
    assert raised.value.path == "$.model.hidden"


def test_missing_file_and_wrong_type(tmp_path):
    with pytest.raises(FileNotFoundError):
        blueprint.load_spec(str(tmp_path / "missing.json"))
    with pytest.raises(TypeError):
        blueprint.load_spec(42)


def test_block_work_is_blueprint_opt_work_summary():
    path = source_path("examples", "gpt3-175b.json")
    work = blueprint.load_spec(path).block_work()
    assert work == cli_work_summary(path, "--distribute-transformer")
    total = work["cadences"]["per_micro_batch"]["total"]
    assert type(total["ops"]) is int and total["ops"] > 0
    phases = {entry["phase"] for entry in
              work["cadences"]["per_micro_batch"]["by_phase_engine"]}
    assert {"forward", "activation_grad", "weight_grad"} <= phases


def test_whole_run_is_blueprint_opt_work_summary():
    path = source_path("examples", "gpt3-175b.json")
    run = blueprint.load_spec(path).whole_run()
    assert run == cli_work_summary(
        path, "--distribute-transformer=scope=iteration")
    assert len(run["stages"]) == 16
    # The iteration's totals are 128-bit counts in C++: exact ints here.
    ops = run["iteration"]["total"]["ops"]
    assert type(ops) is int and ops == 4515771183439527936


def test_inference_spec_has_its_generation():
    path = source_path("examples", "gpt3-175b-serving.json")
    work = blueprint.load_spec(path).block_work()
    assert work == cli_work_summary(path, "--distribute-transformer")
    assert "generation" in work
