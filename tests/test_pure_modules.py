"""Every module of the pure cores imports without Django.

The pure modules are those of the import-linter contract "pure" in pyproject.toml (one list for
both checks); packages are expanded to every module they hold, so a new module is checked
without being named here. The contract reads the import graph; this test really imports.
"""

import importlib.util
import os
import pkgutil
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def pure_roots() -> list[str]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    contracts = config["tool"]["importlinter"]["contracts"]
    return next(c["source_modules"] for c in contracts if c["id"] == "pure")


def pure_modules() -> list[str]:
    modules = []
    for name in pure_roots():
        spec = importlib.util.find_spec(name)
        assert spec is not None, f"{name} is in the contract but does not exist"
        modules.append(name)
        if spec.submodule_search_locations:
            found = pkgutil.walk_packages(spec.submodule_search_locations, prefix=f"{name}.")
            modules.extend(module.name for module in found)
    return sorted(modules)


def test_the_pure_modules_include_every_module_of_each_pure_package():
    modules = set(pure_modules())
    assert {
        "core.stats.alpha",
        "core.stats.alpha_likelihood",
        "core.stats.ppi",
        "core.stats.ppi_planning",
        "core.analysis.reports",
        "core.analysis.scales",
        "core.formats.criteria",
        "core.prompting",
        "core.scoring",
    } <= modules
    on_disk = {p.stem for p in (ROOT / "core" / "analysis").glob("[!_]*.py")}
    assert {f"core.analysis.{stem}" for stem in on_disk} <= modules


def test_every_pure_module_imports_without_django():
    env = {k: v for k, v in os.environ.items() if k != "DJANGO_SETTINGS_MODULE"}
    code = (
        "import importlib, sys\n"
        f"for name in {pure_modules()!r}:\n"
        "    importlib.import_module(name)\n"
        "loaded = sorted(m for m in sys.modules if m == 'django' or m.startswith('django.'))\n"
        "sys.exit(f'Django loaded: {loaded[:5]}' if loaded else 0)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
