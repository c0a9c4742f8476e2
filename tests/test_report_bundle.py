"""The report's JavaScript modules joined into one script for the page (papertopics.report.bundle)."""

from __future__ import annotations

import shutil
import subprocess

import pytest
from papertopics.report.bundle import BundleError, bundle

NODE = shutil.which("node")


def _modules(folder, **sources):
    for name, text in sources.items():
        (folder / f"{name}.js").write_text(text, encoding="utf-8")
    return folder


def _run(script: str) -> str:
    if NODE is None:
        pytest.skip("node is absent (the report needs none; this check runs the bundle)")
    return subprocess.run([NODE, "-e", script], capture_output=True, text=True, check=True).stdout


def test_modules_are_joined_after_what_they_import_each_keeping_its_own_names(tmp_path):
    folder = _modules(
        tmp_path,
        main='import { twice } from "./maths.js";\nimport { label as name } from "./text.js";\n'
        "const scale = 10;\nconsole.log(name(twice(scale)));\n",
        maths='import { label } from "./text.js";\nconst scale = 2;\n'
        "export function twice(x) { return scale * x; }\nexport const unused = label;\n",
        text="export const label = (x) => `value ${x}`;\n",
    )
    script = bundle("main.js", folder)
    assert script.index("assets/text.js") < script.index("assets/maths.js") < script.index("assets/main.js")
    assert "import " not in script and "export " not in script
    assert _run(script) == "value 20\n", "each module's own `scale`"


@pytest.mark.parametrize(
    "source, problem",
    [
        ('import thing from "./b.js";\n', "only `import { ... }"),
        ("export default 1;\n", "only `import { ... }"),
        ("export let counter = 0;\n", "only `import { ... }"),
        ('const text = "</script>";\n', "'</script'"),
        ('import { missing } from "./b.js";\n', "exports no missing"),
        ('import { b } from "./absent.js";\n', "assets/absent.js: no such module"),
    ],
)
def test_what_cannot_be_bundled_stops_the_build_naming_the_module(tmp_path, source, problem):
    folder = _modules(tmp_path, a=source, b="export const b = 1;\n")
    with pytest.raises(BundleError, match="assets/"):
        bundle("a.js", folder)
    with pytest.raises(BundleError) as error:
        bundle("a.js", folder)
    assert problem in str(error.value)


def test_an_import_cycle_is_named(tmp_path):
    folder = _modules(
        tmp_path,
        a='import { b } from "./b.js";\nexport const a = 1;\n',
        b='import { a } from "./a.js";\nexport const b = 2;\n',
    )
    with pytest.raises(BundleError, match=r"import cycle: a\.js -> b\.js -> a\.js"):
        bundle("a.js", folder)


@pytest.mark.parametrize("entry", ["main.js", "worker.js"])
def test_the_reports_scripts_bundle_and_parse(entry, tmp_path):
    script = bundle(entry)
    assert "</script" not in script.lower()
    if NODE is None:
        pytest.skip("node is absent")
    (tmp_path / entry).write_text(script, encoding="utf-8")
    subprocess.run([NODE, "--check", str(tmp_path / entry)], check=True)
