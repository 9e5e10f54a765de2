"""For measuring only: ``bench/ingest.py --personal-off-too`` puts this folder on
``PYTHONPATH`` of one method's run, so that every interpreter of that run (the
measured process and the ingest workers it starts) turns the free-text personal-data
finders and their gate off before it ingests. The product has no such switch; the
value-by-key judgements (``customer_name``, ``ssn`` ...) stay on.
"""

import os

if os.environ.get("WORKBENCH_BENCH_PERSONAL_OFF") == "1":
    from workbench.redact import _detect

    def _personal_off(text: str) -> list:  # type: ignore[type-arg]
        return []

    def _maybe_off(text: str) -> bool:
        return False

    _detect.find_personal = _personal_off  # type: ignore[assignment]
    _detect.maybe_personal = _maybe_off  # type: ignore[assignment]
