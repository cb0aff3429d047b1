"""What leaves: verdict JSON, the audit policy and its text, TREC runs, the HTML report, the
calibration tables and span metrics.

Imports records/, sampling/ and config/.
"""
