"""Grafana: the HTTP client (annotations, sync), the dashboard and alert-rule model, PromQL
expressions, and the renderer of the deploy/ and dashboards/ files.

May import: telemetry.
"""
