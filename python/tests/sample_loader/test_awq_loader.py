"""A loader's own test suite using the packcheck pytest plugin: every valid AWQ case of the corpus
must read to the pinned logical view. SAMPLE_LOADER_BUG=awq-order runs the planted-bug reader,
which must fail each case with the first differing element and the diagnosis "awq-order"
(scripts/test-python.sh checks both runs)."""
import os

import pytest

import packcheck
from awq_numpy import load_awq

BUG = os.environ.get("SAMPLE_LOADER_BUG", "")


@pytest.mark.packcheck(family="awq", verdict="pass")
def test_reads_the_pinned_view(packcheck_case):
    view = load_awq(packcheck_case.input, bug=BUG)
    packcheck.testing.assert_view(packcheck_case, view)
