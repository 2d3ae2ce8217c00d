"""The duplicate-seed check of suite.yaml is linear (issue 32, item 8: 19,000 seeds took 45 s).

The bound is counted, not timed: values that count their own equality tests show how many
comparisons the check makes.
"""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from polygon_core.files._models import SuiteConfig, repeated


class _Counted:
    """A value that counts every `==` made on any value of its kind."""

    comparisons = 0

    def __init__(self, value: int) -> None:
        self.value = value

    def __hash__(self) -> int:
        return hash(self.value)

    def __eq__(self, other: object) -> bool:
        _Counted.comparisons += 1
        return isinstance(other, _Counted) and other.value == self.value


def test_finding_repeats_in_19000_values_compares_each_at_most_once() -> None:
    values = [_Counted(n) for n in range(19_000)] + [_Counted(7), _Counted(18_999), _Counted(7)]
    _Counted.comparisons = 0
    found = repeated(values)
    assert [v.value for v in found] == [7, 18_999]
    assert _Counted.comparisons <= len(values)  # the quadratic check made about 361 million


def test_19000_seeds_with_repeats_are_refused_naming_them() -> None:
    seeds = [*range(19_000), 12, 3, 12]
    with pytest.raises(ValidationError) as caught:
        SuiteConfig.model_validate({"seeds": seeds})
    assert "seeds are listed more than once: 3, 12" in str(caught.value)
    assert SuiteConfig.model_validate({"seeds": list(range(19_000))}).seeds[-1] == 18_999
