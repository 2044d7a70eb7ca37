"""The package as a whole: every module, class and function documented,
errors that pickle, and docs/Python.md's walk-through, run as written and
printing what the page shows."""

import ast
import inspect
import os
import pickle
import re

import blueprint
from conftest import source_path


def package_sources():
    """The path of every Python module of the installed package."""
    directory = os.path.dirname(inspect.getfile(blueprint))
    return sorted(os.path.join(directory, name)
                  for name in os.listdir(directory) if name.endswith(".py"))


def test_every_module_class_and_function_is_documented():
    # From the sources: private helpers, methods and nested functions too.
    sources = package_sources()
    assert [os.path.basename(path) for path in sources] == \
        ["__init__.py", "errors.py"]
    undocumented = []
    for path in sources:
        with open(path) as file:
            tree = ast.parse(file.read(), path)
        if not (ast.get_docstring(tree) or "").strip():
            undocumented.append(path)
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef,
                                 ast.ClassDef)) and \
                    not (ast.get_docstring(node) or "").strip():
                undocumented.append("%s:%d %s" % (path, node.lineno,
                                                  node.name))
    assert undocumented == []


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
