-- The groups (trace and `per` keys "k0", "k1" ...) whose size is out of bounds, their
-- event ids in seq order; `empty` lists traces whose global group counts too (count
-- without `per` and with min > 0), so a trace with no matching event is a violation too.
WITH c AS (
    {rows}
), g AS (
    SELECT "trace_id", list("event_id" ORDER BY "seq") AS ids, count(*) AS n, min("seq") AS seq
    FROM c
    WHERE {present}
    GROUP BY "trace_id"{keys}
), empty AS (
    {empty}
)
SELECT "trace_id", ids, seq FROM g WHERE {bad}
UNION ALL
SELECT "trace_id", []::VARCHAR[], NULL FROM empty
WHERE "trace_id" NOT IN (SELECT "trace_id" FROM c)
