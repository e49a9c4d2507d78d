"""One version for the whole set of contracts; bump on any incompatible change."""

CONTRACTS_VERSION = 1
