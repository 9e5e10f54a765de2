"""HTTP recordings: HAR, VCR cassettes and Pact files, mapped to one ``http`` event shape."""

from ._har import HAR
from ._pact import PACT
from ._vcr import VCR

__all__ = ["HAR", "PACT", "VCR"]
