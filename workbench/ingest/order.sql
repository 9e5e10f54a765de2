-- Staged rows in recording order, one trace after another: the event columns, then
-- what the Python pass needs (stated seq, data-flow leaves and keys, the orphan flag).
-- Recording order: the seq the source states; else, for formats that list events in
-- recording order (transcripts, logs), the order of the file; else start time (an
-- enclosing span before what it encloses when they start together), then file order.
SELECT
    s.trace_id, s.event_id, s.parent_id,
    s.kind, s.name, s.start_ns, s.end_ns, s.status,
    s.args, s.result, s.error, s.attrs,
    s.seq_given, s.refs_given, s.arg_leaves, s.result_keys, s.sent_keys, s.src,
    (s.parent_id IS NOT NULL AND p.event_id IS NULL) AS orphan
FROM staged AS s
LEFT JOIN (SELECT trace_id, event_id FROM staged) AS p
    ON p.trace_id = s.trace_id AND p.event_id = s.parent_id
ORDER BY s.trace_id, s.seq_given NULLS LAST, s.file_rank NULLS LAST, s.start_ns NULLS LAST, s.end_ns DESC NULLS LAST,
    s.ord
