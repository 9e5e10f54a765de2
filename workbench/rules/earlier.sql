-- For each event of `t`: whether an event of `a` in the same trace, with the same keys
-- ("k0", "k1" ...), happens before it (Trace.precedes): `a` ended no later than `t`
-- started when `a` has both times and `t` a start, else a.seq < t.seq; never `t` itself.
-- One aggregate per (trace, keys) and a hash join: linear, however many events share a key.
-- The two smallest ends and the step (seq) of the smallest leave `t` out of its own group.
WITH a AS (
    {a}
), agg AS (
    SELECT "trace_id"{keys},
           min("seq") AS seq_all,
           min("seq") FILTER (WHERE "start_ns" IS NULL OR "end_ns" IS NULL) AS seq_untimed,
           min("end_ns", 2) FILTER (WHERE "start_ns" IS NOT NULL AND "end_ns" IS NOT NULL)
               AS ends,
           arg_min("seq", "end_ns") FILTER (WHERE "start_ns" IS NOT NULL
                                              AND "end_ns" IS NOT NULL) AS first_end
    FROM a
    GROUP BY "trace_id"{keys}
), t AS (
    {t}
)
SELECT t."trace_id", t."event_id", t."seq",
       COALESCE(t."start_ns" >= CASE WHEN t."seq" = agg.first_end THEN agg.ends[2]
                                     ELSE agg.ends[1] END, FALSE)
       OR COALESCE(t."seq" > CASE WHEN t."start_ns" IS NULL THEN agg.seq_all
                                  ELSE agg.seq_untimed END, FALSE) AS earlier
FROM t LEFT JOIN agg ON agg."trace_id" = t."trace_id"{on}
