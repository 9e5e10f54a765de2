-- Findings grouped by signature: the same failure on other ids, steps or times.
-- A group is closed only by a replay that no longer reproduces it; until replays are
-- recorded in the store, every group is open.
CREATE VIEW finding_groups AS
SELECT
    signature,
    any_value(rule ORDER BY checked_at DESC) AS rule,
    any_value(severity ORDER BY checked_at DESC) AS severity,
    any_value(operation ORDER BY checked_at DESC) AS operation,
    any_value(message ORDER BY checked_at DESC) AS example,
    min(checked_at) AS first_seen,
    max(checked_at) AS last_seen,
    count(*) AS count,
    count(DISTINCT run_id) AS runs,
    count(DISTINCT trace_id) AS traces,
    'open' AS status
FROM findings
GROUP BY signature
