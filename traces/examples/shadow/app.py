"""The candidate build of the order-receipt app (shadow/app-1.4.py is the release): the
same receipt, but the amounts are now read and summed as floats — a change its own tests
did not notice, and a shadow run over the frozen orders does.

    python traces/examples/shadow/app.py ORDER.json
"""

import datetime as dt
import json
import sys
import uuid

with open(sys.argv[1]) as f:
    order = json.load(f)
print(json.dumps({
    "order_id": order["order_id"],
    "kind": order["kind"],
    "lines": len(order["lines"]),
    "total": sum(line["amount"] for line in order["lines"]),  # 0.1 + 0.2 is 0.30000000000000004
    "currency": order["currency"],
    "receipt_id": str(uuid.uuid4()),
    "generated_at": dt.datetime.now(dt.UTC).isoformat(),
}))
