"""load_spec of a spec whose model is a Hugging Face config.json
(docs/ImportHuggingFace.md): from a dict, JSON text and a file, with the
config's path resolved as documented."""

import copy
import json
import os
import shutil

import pytest

import blueprint
from conftest import SMALL_SPEC, source_path

LLAMA_3_8B = source_path("test", "Import", "huggingface", "llama-3-8b",
                         "config.json")

# Llama-3-8B stated field by field, as the config maps.
LLAMA_3_8B_MODEL = {
    "hidden": 4096, "heads": 32, "kv_heads": 8, "ffn_hidden": 14336,
    "seq_length": 2048, "max_positions": 8192, "vocab": 128256, "blocks": 32,
    "norm": "rmsnorm", "activation": "swiglu", "linear_bias": "none",
    "position_embedding": "rotary", "tied_embeddings": False,
}


def spec_naming(config):
    """SMALL_SPEC's run with its model read from `config`."""
    spec = copy.deepcopy(SMALL_SPEC)
    spec["name"] = "llama"
    spec["model"] = {"huggingface_config": config, "seq_length": 2048}
    return spec


def test_dict_with_absolute_path_is_the_model_stated_field_by_field():
    named = blueprint.load_spec(spec_naming(LLAMA_3_8B))
    stated = copy.deepcopy(SMALL_SPEC)
    stated["name"] = "llama"
    stated["model"] = LLAMA_3_8B_MODEL
    assert named.name == "llama"
    assert named.block_work() == blueprint.load_spec(stated).block_work()


def test_text_resolves_a_relative_path_against_the_working_directory(
        monkeypatch):
    monkeypatch.chdir(os.path.dirname(LLAMA_3_8B))
    spec = blueprint.load_spec(json.dumps(spec_naming("config.json")))
    assert spec.label == "<spec>"
    assert spec.name == "llama"


def test_file_resolves_a_relative_path_against_its_directory(tmp_path,
                                                             monkeypatch):
    (tmp_path / "models").mkdir()
    shutil.copy(LLAMA_3_8B, tmp_path / "models" / "config.json")
    spec_file = tmp_path / "spec.json"
    spec_file.write_text(json.dumps(spec_naming("models/config.json")))
    # Not the spec's directory: the path must not depend on it.
    monkeypatch.chdir(source_path())
    assert blueprint.load_spec(str(spec_file)).name == "llama"
    assert blueprint.load_spec(spec_file).name == "llama"


def test_config_errors_name_the_config_and_its_key(tmp_path):
    config = tmp_path / "config.json"
    config.write_text(json.dumps({"model_type": "falcon"}))
    with pytest.raises(blueprint.BlueprintError) as raised:
        blueprint.load_spec(spec_naming(str(config)))
    error = raised.value
    assert error.stage == "import"
    assert error.path == "$.model_type"
    assert str(config) in error.diagnostic
    assert 'unsupported model type "falcon"' in error.diagnostic


def test_missing_config_names_the_spec_field(tmp_path):
    with pytest.raises(blueprint.BlueprintError) as raised:
        blueprint.load_spec(spec_naming(str(tmp_path / "absent.json")))
    assert raised.value.path == "$.model.huggingface_config"
    assert "cannot read" in raised.value.diagnostic


def test_model_field_next_to_the_config_is_rejected():
    spec = spec_naming(LLAMA_3_8B)
    spec["model"]["hidden"] = 4096
    with pytest.raises(blueprint.BlueprintError) as raised:
        blueprint.load_spec(spec)
    assert raised.value.path == "$.model.hidden"
    assert "not allowed with huggingface_config" in raised.value.diagnostic
