-- Findings grouped by signature: the same failure on other ids, steps or times.
-- The life of a group (docs/replay.md): `fixed` once the last N replays in the
-- environment its findings came from were all clean -- N the attempts of the latest replay
-- run there (`replay --attempts`), and never fewer than {FIXED_AFTER} -- `flaky` while those disagree,
-- `open` otherwise -- and `open` again when a check finds the signature after them (a
-- regression: a finding on a trace ingested after them; re-checking the old traces does
-- not reopen it). Only attempts that observed a result count: `reproduced`, or `clean` with
-- every step landed; `diverged` and `error` observed nothing. A run made with
-- `replay --fixed-below RATE` is read by its reproduction rate instead (docs/statistics.md):
-- `fixed` when the upper bound of its 95% interval is under RATE, `flaky` when the
-- interval holds RATE, `open` when even its lower bound is at or over it.
CREATE VIEW finding_groups AS
WITH found AS (
    SELECT f.*, coalesce(t.env, 'default') AS env,
           coalesce(t.ingested_at, f.checked_at) AS recorded_at
    FROM findings f LEFT JOIN traces t USING (trace_id)
),
grouped AS (
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
        any_value(env ORDER BY checked_at DESC) AS env,
        max(recorded_at) AS last_recorded
    FROM found
    GROUP BY signature
),
own AS (
    SELECT signature, started_at, reproduced, run_attempts, fixed_below, rate_low, rate_high,
           row_number() OVER (PARTITION BY signature
                              ORDER BY started_at DESC, attempt DESC) AS k
    FROM (SELECT *, max(attempt) OVER (PARTITION BY replay_id) AS run_attempts
          FROM replays)
    WHERE outcome IN ('reproduced', 'clean') AND env = finding_env
),
needed AS (
    SELECT signature, greatest(run_attempts, {FIXED_AFTER}) AS n_needed, fixed_below,
           rate_low, rate_high
    FROM own WHERE k = 1
),
recent AS (
    SELECT o.signature, count(*) AS n, count(*) FILTER (WHERE o.reproduced) AS hits,
           max(o.started_at) AS at, any_value(d.n_needed) AS n_needed,
           any_value(d.fixed_below) AS fixed_below, any_value(d.rate_low) AS rate_low,
           any_value(d.rate_high) AS rate_high
    FROM own o JOIN needed d USING (signature)
    WHERE o.k <= d.n_needed
    GROUP BY o.signature
),
latest AS (
    SELECT signature,
           any_value(outcome ORDER BY started_at DESC, attempt DESC) AS last_replay,
           max(started_at) AS last_replay_at,
           any_value(env ORDER BY started_at DESC, attempt DESC) AS last_replay_env,
           any_value(target ORDER BY started_at DESC, attempt DESC) AS last_replay_target,
           first(coalesce(error_message, CASE WHEN divergence IS NOT NULL THEN
               concat('step ', diverged_step, ': ', divergence) END)
               ORDER BY started_at DESC, attempt DESC) AS last_replay_note,
           count(*) AS replays
    FROM replays
    GROUP BY signature
)
SELECT
    g.signature, g.rule, g.severity, g.operation, g.example, g.first_seen, g.last_seen,
    g.count, g.runs, g.traces,
    CASE
        WHEN r.n IS NULL OR g.last_recorded > r.at THEN 'open'
        WHEN r.fixed_below IS NOT NULL THEN CASE
            WHEN r.rate_high < r.fixed_below THEN 'fixed'
            WHEN r.rate_low < r.fixed_below THEN 'flaky'
            ELSE 'open' END
        WHEN r.hits = 0 AND r.n >= r.n_needed THEN 'fixed'
        WHEN r.hits > 0 AND r.hits < r.n THEN 'flaky'
        ELSE 'open'
    END AS status,
    g.env,
    l.last_replay, l.last_replay_at, l.last_replay_env, l.last_replay_target,
    l.last_replay_note,
    coalesce(l.replays, 0) AS replays
FROM grouped g
LEFT JOIN recent r USING (signature)
LEFT JOIN latest l USING (signature)
