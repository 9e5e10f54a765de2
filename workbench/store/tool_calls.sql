-- One row per tool call: the event columns, plus the tool's name and duration.
CREATE VIEW tool_calls AS
SELECT
    trace_id,
    event_id,
    parent_id,
    seq,
    name AS tool,
    status,
    args,
    result,
    error,
    start_ns,
    end_ns,
    (end_ns - start_ns) / 1e6 AS duration_ms,
    attrs,
    refs,
    name
FROM events
WHERE kind = 'tool_call'
