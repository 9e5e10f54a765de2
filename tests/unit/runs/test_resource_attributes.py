"""The ``OTEL_RESOURCE_ATTRIBUTES`` a run is started with: the user's pairs kept, ours
last (the SDK takes the last value of a key) and never twice."""

from workbench.runs import resource_attributes


def test_ours_are_added_after_the_users():
    assert resource_attributes("refund", "1.5.0", "service.name=agent,deployment=ci") == (
        "service.name=agent,deployment=ci,workbench.scenario=refund,workbench.build=1.5.0")


def test_an_earlier_value_of_ours_is_replaced_and_no_build_means_none():
    assert resource_attributes("b", None, "workbench.scenario=a, workbench.build=9,x=1") == (
        "x=1,workbench.scenario=b")
    assert resource_attributes("s", "2", None) == "workbench.scenario=s,workbench.build=2"
