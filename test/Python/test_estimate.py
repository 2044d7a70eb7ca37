"""load_profile and estimate, against blueprint-sweep."""

import copy
import json

import pytest

import blueprint
from conftest import BINDING, SMALL_SPEC, json_lines, run_tool, tool_error


def test_load_profile_from_path_and_dict(a100_path):
    from_path = blueprint.load_profile(a100_path)
    with open(a100_path) as file:
        from_dict = blueprint.load_profile(json.load(file))
    assert from_path.name == from_dict.name == "nvidia-a100-sxm4-80gb"
    assert "nvidia-a100-sxm4-80gb" in repr(from_path)


def test_bad_profile_raises_naming_the_field(a100_path, tmp_path):
    with open(a100_path) as file:
        profile = json.load(file)
    profile["memory"]["capacity_bytes"]["value"] = -1
    with pytest.raises(blueprint.BlueprintError) as raised:
        blueprint.load_profile(profile)
    assert raised.value.stage == "profile"
    assert raised.value.path.startswith("$.memory.capacity_bytes")
    # Read from a file, the error names it.
    path = tmp_path / "bad-profile.json"
    path.write_text(json.dumps(profile))
    with pytest.raises(blueprint.BlueprintError) as raised:
        blueprint.load_profile(str(path))
    assert raised.value.diagnostic.startswith(str(path) + ": ")
    # In the tools' words.
    batch = tmp_path / "batch.json"
    batch.write_text(json.dumps([SMALL_SPEC]))
    assert raised.value.diagnostic == tool_error(
        "blueprint-sweep", str(batch), "--profile=" + str(path),
        "--binding=tp:nvlink")
    with pytest.raises(FileNotFoundError):
        blueprint.load_profile(str(tmp_path / "missing.json"))


def test_profile_parses_the_text_it_holds(a100_path, tmp_path):
    # The text Python read is what is checked; the path only names it in
    # the diagnostics, and is not read again.
    with open(a100_path) as file:
        text = file.read()
    broken = json.loads(text)
    broken["memory"]["capacity_bytes"]["value"] = -1
    with pytest.raises(blueprint.BlueprintError) as raised:
        blueprint.Profile(json.dumps(broken), a100_path)
    assert raised.value.diagnostic.startswith(a100_path + ": ")
    assert raised.value.path.startswith("$.memory.capacity_bytes")
    gone = str(tmp_path / "gone.json")
    assert blueprint.Profile(text, gone).name == "nvidia-a100-sxm4-80gb"


def test_estimate_is_blueprint_sweep_row(a100_path, tmp_path):
    row = blueprint.estimate(SMALL_SPEC, a100_path, BINDING)
    batch = tmp_path / "batch.json"
    batch.write_text(json.dumps([SMALL_SPEC]))
    (expected,) = json_lines(run_tool(
        "blueprint-sweep", str(batch), "--profile=" + a100_path,
        "--binding=tp:nvlink,pp:infiniband,dp:infiniband", "--jobs=1"))
    assert row == expected
    run = row["run"]
    assert run["fits"] is True
    assert type(run["peak_bytes"]) is int
    assert run["iteration_seconds"] > 0
    # The binding as the tools' --binding takes it, and a loaded profile.
    profile = blueprint.load_profile(a100_path)
    assert blueprint.estimate(blueprint.load_spec(SMALL_SPEC), profile,
                              "tp:nvlink,pp:infiniband,dp:infiniband") == row


def test_estimate_needs_every_collective_axis_bound(a100_path):
    with pytest.raises(blueprint.BlueprintError) as raised:
        blueprint.estimate(SMALL_SPEC, a100_path)
    assert raised.value.stage == "estimate"
    assert "'tp', which the network tier binding does not bind" in \
        raised.value.diagnostic


# Bindings in the tools' --binding form that their parser rejects.
BAD_BINDING_ENTRIES = ["tp:", "tp", "tp=nvlink", ":nvlink", "tp:nvlink,",
                       ",tp:nvlink", ""]


@pytest.mark.parametrize("entries", BAD_BINDING_ENTRIES)
def test_bad_binding_entries_raise_as_the_tools_reject_them(
        entries, a100_path, tmp_path):
    with pytest.raises(blueprint.BlueprintError) as raised:
        blueprint.estimate(SMALL_SPEC, a100_path, entries)
    assert raised.value.stage == "binding"
    batch = tmp_path / "batch.json"
    batch.write_text(json.dumps([SMALL_SPEC]))
    assert raised.value.diagnostic == tool_error(
        "blueprint-sweep", str(batch), "--profile=" + a100_path,
        "--binding=" + entries)


def test_binding_entries_mean_what_they_mean_to_the_tools(a100_path,
                                                          tmp_path):
    # The tools' parser accepts an axis given twice; the last tier wins.
    entries = "tp:infiniband,tp:nvlink,pp:infiniband,dp:infiniband"
    batch = tmp_path / "batch.json"
    batch.write_text(json.dumps([SMALL_SPEC]))
    (expected,) = json_lines(run_tool(
        "blueprint-sweep", str(batch), "--profile=" + a100_path,
        "--binding=" + entries, "--jobs=1"))
    assert blueprint.estimate(SMALL_SPEC, a100_path, entries) == expected
    assert expected == blueprint.estimate(SMALL_SPEC, a100_path, BINDING)


def test_estimate_rejections(a100_path):
    with pytest.raises(blueprint.BlueprintError) as raised:
        blueprint.estimate(SMALL_SPEC, a100_path, {"sp": "nvlink"})
    assert raised.value.stage == "binding"
    assert "'sp' is not a mesh axis" in raised.value.diagnostic
    with pytest.raises(blueprint.BlueprintError) as raised:
        blueprint.estimate(SMALL_SPEC, a100_path, {"tp": "ethernet"})
    assert "no network tier named 'ethernet'" in raised.value.diagnostic
    with pytest.raises(TypeError):
        blueprint.estimate(SMALL_SPEC, a100_path, ["tp", "nvlink"])
    spec = copy.deepcopy(SMALL_SPEC)
    spec["mapping"]["pp"] = 3
    with pytest.raises(blueprint.BlueprintError) as raised:
        blueprint.estimate(spec, a100_path, BINDING)
    assert raised.value.rule == "decoder_training_c3"
