"""Measurement kit: microbenchmarks and traced runs of one GPU, written as a
bpw-measurement-pack (data/schemas/bpw-measurement-pack.schema.json)."""

FORMAT = "bpw-measurement-pack"
VERSION = 1
