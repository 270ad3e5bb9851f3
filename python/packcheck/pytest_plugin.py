"""pytest plugin (entry point pytest11 "packcheck"), loaded by every pytest that has packcheck installed.

    @pytest.mark.packcheck(family="awq", verdict="pass")
    def test_my_loader(packcheck_case):
        view = my_loader.load_logical_view(packcheck_case.input)   # {"M.codes": ..., "M.weight": ...}
        packcheck.testing.assert_view(packcheck_case, view)        # or packcheck_case.check(view)

`packcheck_case` is parametrised over the corpus cases the marker selects, one test per case id:
family="awq" (or a list), verdict="pass", rule="AWQ-001", layout="q8_0" (or a list: the reader's
declared scope, as certify --layout; a GGUF case's layouts are its block types), format="gguf",
case="awq/neg-bits-8" or case=["awq/neg-bits-8", "awq/neg-no-config"] (exactly those ids; the
other selectors then do not apply); none: every case. --packcheck-corpus DIR (or
PACKCHECK_CORPUS) picks another corpus. The header names the corpus version and digest."""
from __future__ import annotations

import os
from typing import Any, List

import pytest


def pytest_addoption(parser: Any) -> None:
    g = parser.getgroup("packcheck")
    g.addoption("--packcheck-corpus", default=None, help="corpus folder for packcheck_case (default: the packaged one)")


def pytest_configure(config: Any) -> None:
    config.addinivalue_line("markers", "packcheck(family=None, verdict=None, rule=None, layout=None, format=None, case=None): "
                                       "parametrise the packcheck_case fixture over corpus cases")
    if config.getoption("--packcheck-corpus", default=None):
        os.environ["PACKCHECK_CORPUS"] = os.path.abspath(config.getoption("--packcheck-corpus"))


def pytest_report_header(config: Any) -> List[str]:
    from . import corpus
    try:
        return [f"packcheck corpus {corpus.version() or 'unversioned'} (MANIFEST sha256 {corpus.manifest_sha256()[:16]}) at {corpus.root()}"]
    except OSError:
        return ["packcheck corpus: none found"]


def pytest_generate_tests(metafunc: Any) -> None:
    if "packcheck_case" not in metafunc.fixturenames:
        return
    from . import corpus
    m = metafunc.definition.get_closest_marker("packcheck")
    kw = dict(m.kwargs) if m else {}
    ids = kw.pop("case", None)
    if ids is not None:
        sel = [corpus.case(i) for i in ([ids] if isinstance(ids, str) else ids)]
    else:
        sel = corpus.cases(**kw)
    metafunc.parametrize("packcheck_case", sel, ids=[c.id for c in sel])


@pytest.fixture
def packcheck_assert_view() -> Any:
    """packcheck.testing.assert_view, as a fixture."""
    from .testing import assert_view
    return assert_view
