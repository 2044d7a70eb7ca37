"""evaluate_grid, search, run_suite and to_dataframe, against
blueprint-sweep and blueprint-search."""

import json
import shutil
import sys

import pytest

import blueprint
from conftest import BINDING, SMALL_SPEC, json_lines, run_tool, tool_error

GRID = {"spec": SMALL_SPEC,
        "grid": {"tp": [1, 2, 32], "recompute": ["none", "full"]}}


def test_evaluate_grid_is_blueprint_sweep(a100_path, tmp_path):
    rows = blueprint.evaluate_grid(GRID, a100_path, BINDING, threads=2)
    grid = tmp_path / "grid.json"
    grid.write_text(json.dumps(GRID))
    assert rows == json_lines(run_tool(
        "blueprint-sweep", str(grid), "--profile=" + a100_path,
        "--binding=tp:nvlink,pp:infiniband,dp:infiniband"))
    assert len(rows) == 6
    rejected = [row for row in rows if not row["valid"]]
    assert [row["point"]["tp"] for row in rejected] == [32, 32]
    assert "decoder_training_c4" in rejected[0]["diagnostics"][0]
    # A list of specs, some of them loaded.
    listed = blueprint.evaluate_grid(
        [SMALL_SPEC, blueprint.load_spec(SMALL_SPEC)], a100_path, BINDING)
    assert listed[0]["run"] == listed[1]["run"] == rows[2]["run"]


def test_bad_grid_raises(a100_path):
    with pytest.raises(blueprint.BlueprintError) as raised:
        blueprint.evaluate_grid({"spec": SMALL_SPEC, "grid": {"wings": [1]}},
                                a100_path, BINDING)
    assert raised.value.stage == "grid"
    assert raised.value.path == "$.grid.wings"
    with pytest.raises(ValueError):
        blueprint.evaluate_grid(GRID, a100_path, BINDING, threads=0)


def test_search_is_blueprint_search(a100_path, tmp_path):
    space = {"spec": SMALL_SPEC,
             "grid": {"tp": [1, 2], "pp": [1, 2], "dp": [1, 2, 4],
                      "recompute": ["none", "full"]}}
    path = tmp_path / "space.json"
    path.write_text(json.dumps(space))
    binding = "--binding=tp:nvlink,pp:infiniband,dp:infiniband"
    every = blueprint.search(space, a100_path, BINDING)
    assert every == json_lines(run_tool(
        "blueprint-search", str(path), "--profile=" + a100_path, binding))
    best = blueprint.search(str(path), a100_path, BINDING, top=3, pareto=True,
                            through_ir=True, threads=1)
    assert best == json_lines(run_tool(
        "blueprint-search", str(path), "--profile=" + a100_path, binding,
        "--top=3", "--pareto", "--through-ir", "--jobs=1"))
    assert [row.get("rank") for row in best[:3]] == [1, 2, 3]


@pytest.mark.parametrize("space", [
    {"spec": SMALL_SPEC, "grid": {"tp": ["two"]}},  # the grid
    {"spec": SMALL_SPEC, "extra": 1},  # the space file
    "{\"spec\": ",  # its JSON
])
def test_bad_space_raises_in_the_tools_words(space, a100_path, tmp_path):
    path = tmp_path / "space.json"
    path.write_text(space if isinstance(space, str) else json.dumps(space))
    with pytest.raises(blueprint.BlueprintError) as raised:
        blueprint.search(str(path), a100_path)
    assert raised.value.stage == "space"
    assert raised.value.diagnostic.startswith(str(path) + ": ")
    assert raised.value.diagnostic == tool_error(
        "blueprint-search", str(path), "--profile=" + a100_path)


def test_search_on_a_gpu_count(a100_path, small_spec_file):
    rows = blueprint.search(blueprint.load_spec(small_spec_file), a100_path,
                            gpus=8, global_batch=16, top=2)
    assert rows == json_lines(run_tool(
        "blueprint-search", small_spec_file, "--profile=" + a100_path,
        "--gpus=8", "--global-batch=16", "--top=2"))
    assert all(row["point"]["gpus"] == 8 for row in rows)


def test_bad_search_raises(a100_path):
    with pytest.raises(blueprint.BlueprintError) as raised:
        blueprint.search({"spec": SMALL_SPEC, "grid": {"tp": ["two"]}},
                         a100_path)
    assert raised.value.stage == "space"
    assert raised.value.path == "$.grid.tp[0]"
    with pytest.raises(blueprint.BlueprintError) as raised:
        blueprint.search({"spec": SMALL_SPEC, "extra": 1}, a100_path)
    assert raised.value.path == "$.extra"
    with pytest.raises(ValueError):
        blueprint.search(SMALL_SPEC, a100_path, top=0)
    with pytest.raises(ValueError):
        blueprint.search(SMALL_SPEC, a100_path, global_batch=0)


SUITE = {
    "name": "small-suite",
    "model": SMALL_SPEC["model"],
    "scenarios": [
        {"name": "train", "weight": 1,
         "training": SMALL_SPEC["training"], "grid": {"recompute": ["none"]}},
    ],
    "systems": [{"name": "a100", "profile": "a100.json", "gpus": 2}],
}


def test_run_suite_is_blueprint_search_suite(a100_path, tmp_path):
    shutil.copy(a100_path, tmp_path / "a100.json")
    path = tmp_path / "suite.json"
    path.write_text(json.dumps(SUITE))
    lines = blueprint.run_suite(str(path), threads=1)
    assert lines == json_lines(run_tool("blueprint-search",
                                        "--suite=" + str(path)))
    assert lines[-1]["rank"] == 1 and lines[-1]["system"] == "a100"


@pytest.mark.parametrize("suite", [
    dict(SUITE, scenarios=[dict(SUITE["scenarios"][0], weight=-1)]),
    dict(SUITE, systems=[dict(SUITE["systems"][0], profile="absent.json")]),
    "{\"name\": ",
])
def test_bad_suite_raises_in_the_tools_words(suite, tmp_path):
    path = tmp_path / "suite.json"
    path.write_text(suite if isinstance(suite, str) else json.dumps(suite))
    with pytest.raises(blueprint.BlueprintError) as raised:
        blueprint.run_suite(str(path))
    assert raised.value.stage == "suite"
    assert raised.value.diagnostic.startswith(str(path) + ": ")
    assert raised.value.diagnostic == tool_error("blueprint-search",
                                                 "--suite=" + str(path))


def test_bad_suite_raises(tmp_path):
    suite = dict(SUITE, scenarios=[dict(SUITE["scenarios"][0], weight=-1)])
    with pytest.raises(blueprint.BlueprintError) as raised:
        blueprint.run_suite(suite)
    assert raised.value.stage == "suite"
    assert raised.value.path == "$.scenarios[0].weight"
    assert raised.value.diagnostic.startswith("<suite>: $.scenarios[0]")
    # Profile paths of a suite file are relative to it.
    path = tmp_path / "suite.json"
    path.write_text(json.dumps(SUITE))
    with pytest.raises(blueprint.BlueprintError) as raised:
        blueprint.run_suite(str(path))
    assert raised.value.path == "$.systems[0].profile"
    assert str(tmp_path / "a100.json") in raised.value.diagnostic


def test_rows_as_a_dataframe(a100_path):
    frame = blueprint.evaluate_grid(GRID, a100_path, BINDING,
                                    as_dataframe=True)
    assert len(frame) == 6
    assert list(frame["point.tp"]) == [1, 1, 2, 2, 32, 32]
    rows = blueprint.evaluate_grid(GRID, a100_path, BINDING)
    assert frame["run.peak_bytes"][0] == rows[0]["run"]["peak_bytes"]
    assert blueprint.to_dataframe(rows).equals(frame)


def test_dataframe_without_pandas(monkeypatch):
    monkeypatch.setitem(sys.modules, "pandas", None)
    with pytest.raises(ImportError, match="needs pandas"):
        blueprint.to_dataframe([{"index": 0}])
