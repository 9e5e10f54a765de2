"""``workbench.minimize`` exports exactly its public names, and each exists."""

import workbench.minimize


def test_public_names():
    assert set(workbench.minimize.__all__) == {
        "VOTES", "CommandOracle", "Graph", "MinimizeProgress", "MinimizeResult",
        "NoFindingError", "NotReproducedError", "Oracle", "OracleError", "RuleOracle",
        "UnknownRuleError", "command_oracle", "derive_trace", "derived_trace_id",
        "finding_trace_id", "minimize", "minimize_trace", "pick_finding", "pick_rule",
        "place_result", "rule_oracle", "save_result", "stored_minimization", "write_result"}
    for name in workbench.minimize.__all__:
        assert hasattr(workbench.minimize, name), name
