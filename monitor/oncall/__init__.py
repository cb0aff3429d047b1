"""On-call: ranking the answers behind an alert, links, and the evidence page. Pure."""
