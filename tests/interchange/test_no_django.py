import subprocess
import sys
from pathlib import Path

import core.formats

ROOT = Path(core.formats.__file__).resolve().parents[2]
MODULES = sorted(p.stem for p in Path(core.formats.__file__).parent.glob("[!_]*.py"))


def test_every_format_module_imports_without_django():
    imports = "; ".join(f"import core.formats.{name}" for name in MODULES)
    check = f"import sys; {imports}; sys.exit('django' in sys.modules)"
    result = subprocess.run([sys.executable, "-c", check], cwd=ROOT, capture_output=True)
    assert result.returncode == 0, result.stderr.decode()


def test_the_import_check_sees_every_format_module():
    assert {"criteria", "l2bench_csv", "problems"} <= set(MODULES)
