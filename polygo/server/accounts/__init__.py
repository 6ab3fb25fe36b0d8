"""Who a connection is: sessions and their tokens, registered users' passwords (scrypt), the
delay after failed logins, and bans.

Imports `limits` and `store`.
"""
