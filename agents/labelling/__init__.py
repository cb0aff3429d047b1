"""Human labels: the `labels` topic read into every worker, joined with the judge's verdicts,
canary gold labels emitted from the check path (docs/estimation.md, "On the human scale")."""
