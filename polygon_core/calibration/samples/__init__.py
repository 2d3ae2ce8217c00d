"""A small hand-written labelled sample (calls.jsonl, labels.csv): illustrations, not real data."""
