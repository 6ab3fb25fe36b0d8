"""What the operator sees and sets: the event log, the Prometheus metrics, systemd's notify protocol
and watchdog, the garbage collector's tuning for a serving process, the sentence a bad flag gets.

Imported from everywhere (every room logs events), so it imports only `limits` (the log's own
rate limit) and the package's `VERSION`.
"""
