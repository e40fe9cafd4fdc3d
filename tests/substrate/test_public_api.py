"""The public names of ``substrate`` resolve lazily and agree with the typed import block."""

from __future__ import annotations

import ast
import importlib
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import substrate

LAZY_PACKAGES = [substrate, importlib.import_module("substrate.secrets")]


def typed_exports(package: object = substrate) -> dict[str, str]:
    tree = ast.parse(Path(package.__file__).read_text())  # type: ignore[attr-defined]
    found = {}
    for node in tree.body:
        if isinstance(node, ast.If):
            for sub in node.body:
                if isinstance(sub, ast.ImportFrom) and sub.module:
                    found.update({alias.name: sub.module for alias in sub.names})
    return found


@pytest.mark.parametrize("package", LAZY_PACKAGES, ids=lambda p: p.__name__)
def test_lazy_map_matches_the_typed_imports(package: Any) -> None:
    assert typed_exports(package) == package._EXPORTS


@pytest.mark.parametrize("package", LAZY_PACKAGES, ids=lambda p: p.__name__)
def test_every_public_name_resolves_to_its_module(package: Any) -> None:
    for name, module in package._EXPORTS.items():
        assert getattr(package, name) is getattr(importlib.import_module(module), name)
    extra = {"__version__"} if package is substrate else set()
    assert set(package.__all__) == {*package._EXPORTS, *extra}


@pytest.mark.parametrize("package", LAZY_PACKAGES, ids=lambda p: p.__name__)
def test_a_type_checker_sees_no_all_it_cannot_read(package: Any) -> None:
    # mypy reads `from substrate import *` as no name at all when ``__all__`` is computed;
    # with none it sees, the star import gives the typed import block's names
    tree = ast.parse(Path(package.__file__).read_text())
    assigned = [
        target.id
        for node in tree.body
        if isinstance(node, ast.Assign)
        for target in node.targets
        if isinstance(target, ast.Name)
    ]
    assert "__all__" not in assigned


def test_import_loads_no_feature_modules() -> None:
    code = (
        "import sys, substrate\n"
        "loaded = [m for m in sys.modules if m.startswith('substrate.')]\n"
        "assert loaded == [], loaded\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_the_library_prints_no_log_record_unless_the_program_asks() -> None:
    code = (
        "import logging, substrate\n"
        "logging.getLogger('substrate.locking').warning('waiting for a lock')\n"
        "logging.basicConfig()\n"  # a program that configures logging sees the records
        "logging.getLogger('substrate.locking').warning('shown')\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert "waiting" not in done.stderr and "shown" in done.stderr


def test_the_proposal_states_import_from_the_governance_module_as_the_seed_has_them() -> None:
    from substrate import proposals
    from substrate.governance import APPROVED, PENDING, REJECTED

    assert (PENDING, APPROVED, REJECTED) == ("pending", "approved", "rejected")
    assert (proposals.PENDING, proposals.APPROVED, proposals.REJECTED) == (
        PENDING,
        APPROVED,
        REJECTED,
    )


def test_the_readme_s_python_example_runs_as_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    root = Path(__file__).resolve().parents[2]
    readme = (root / "README.md").read_text(encoding="utf-8")
    code = readme.split("```python\n", 1)[1].split("```", 1)[0]
    monkeypatch.chdir(root)  # it ingests the repository's sample notes
    exec(code.replace("/tmp/mixle-lib-demo", str(tmp_path / "shard")), {})
    printed = capsys.readouterr().out
    assert "refunds.md" in printed and "within five business days" in printed


def test_the_library_ships_its_type_hints() -> None:
    marker = Path(substrate.__file__).parent / "py.typed"
    assert marker.exists()  # without it, a program's type checker reads every name as Any
    pyproject = Path(substrate.__file__).parent.parent / "pyproject.toml"
    assert 'substrate = ["py.typed"]' in pyproject.read_text()  # and the wheel holds it


def test_add_given_an_item_says_to_put_it() -> None:
    store = substrate.Substrate()
    with pytest.raises(substrate.InvalidInputError, match=r"put\(item\)"):
        store.add(substrate.SubstrateItem("text", "hello"))  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "name",
    [
        "Answer",
        "ContextPacket",
        "ExternalAnswer",
        "FactualityReceipt",
        "Freshness",
        "Governance",
        "HarnessResult",
        "HopChain",
        "Investigation",
        "LineageReport",
        "Retrieval",
        "Substrate",
    ],
)
def test_the_seed_classes_document_every_public_method(name: str) -> None:
    import inspect

    cls = getattr(substrate, name)
    undocumented = [
        attr
        for attr, value in vars(cls).items()
        if not attr.startswith("_")
        and callable(member := value.fget if isinstance(value, property) else value)
        and not inspect.getdoc(member)
    ]
    assert undocumented == []


def test_search_and_save_say_what_they_filter_and_raise() -> None:
    search_doc = substrate.Substrate.search.__doc__ or ""
    for said in ("kind", "scope", "[0, 1]", "score 0", "left out"):
        assert said in search_doc, said
    assert "InvalidInputError" in (substrate.Substrate.save.__doc__ or "")


def test_a_python_whose_regular_expressions_miss_secrets_is_refused(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # CPython before 3.11.5 matched possessive quantifiers wrongly: the gate missed passwords
    import importlib.util

    monkeypatch.setattr(sys, "version_info", (3, 11, 2, "final", 0))
    spec = importlib.util.spec_from_file_location("substrate_on_3112", substrate.__file__)
    assert spec is not None and spec.loader is not None
    with pytest.raises(ImportError, match="needs Python 3.11.5 or newer"):
        spec.loader.exec_module(importlib.util.module_from_spec(spec))
