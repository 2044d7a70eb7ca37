"""The package as a whole: every public function documented, errors that
pickle, and docs/Python.md's walk-through, run as written and printing what
the page shows."""

import inspect
import pickle
import re

import blueprint
from conftest import source_path


def test_every_export_is_documented():
    assert blueprint.__doc__.strip()
    for name in blueprint.__all__:
        export = getattr(blueprint, name)
        assert (export.__doc__ or "").strip(), name
        if inspect.isclass(export):
            for member_name, member in vars(export).items():
                if inspect.isfunction(member):
                    assert (member.__doc__ or "").strip(), \
                        "%s.%s" % (name, member_name)


def test_error_pickles_with_its_attributes():
    error = blueprint.BlueprintError(
        "import", ["import: $: decoder_training_c4: heads = 16 is not "
                   "divisible by tp = 32"])
    copy = pickle.loads(pickle.dumps(error))
    assert (copy.stage, copy.rule, copy.path, copy.diagnostics) == \
        ("import", "decoder_training_c4", "$", error.diagnostics)


def walk_through_blocks():
    """The ```python blocks of docs/Python.md, each with the ```text block
    that follows it (what it prints), or None."""
    with open(source_path("docs", "Python.md")) as file:
        page = file.read()
    blocks = re.findall(r"```python\n(.*?)```\s*(?:```text\n(.*?)```)?",
                        page, re.S)
    return [(code, output or None) for code, output in blocks]


def test_python_md_walk_through_prints_what_it_shows(monkeypatch, capsys):
    blocks = walk_through_blocks()
    assert len(blocks) >= 5
    # The page's paths are relative to the source tree.
    monkeypatch.chdir(source_path())
    namespace = {}
    for code, output in blocks:
        exec(compile(code, "docs/Python.md", "exec"), namespace)
        printed = capsys.readouterr().out
        if output is not None:
            assert printed == output, code
