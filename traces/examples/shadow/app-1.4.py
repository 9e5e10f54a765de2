"""Release 1.4 of a tiny order-receipt app: reads an order (JSON) and prints its receipt
(JSON) on stdout. Amounts are summed as decimals.

    python traces/examples/shadow/app-1.4.py ORDER.json
"""

import datetime as dt
import json
import sys
import uuid
from decimal import Decimal

with open(sys.argv[1]) as f:
    order = json.load(f, parse_float=Decimal)
total = sum((Decimal(line["amount"]) for line in order["lines"]), Decimal(0))
print(json.dumps({
    "order_id": order["order_id"],
    "kind": order["kind"],
    "lines": len(order["lines"]),
    "total": float(total),          # 0.1 + 0.2 is 0.3
    "currency": order["currency"],
    "receipt_id": str(uuid.uuid4()),
    "generated_at": dt.datetime.now(dt.UTC).isoformat(),
}))
