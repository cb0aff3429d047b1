"""Rates the judge would give to every claim, estimated from the cheap score on every claim and
the judge's verdicts on a uniform sample (prediction-powered inference). Pure: standard library
only."""
