"""Report stage: renders what the scorer wrote (rows.json, details.json) for people."""
