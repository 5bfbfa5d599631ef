"""Attacks that still work (issue 19's hostile audit): kept to be run by hand, not in the
suite, since each fails by design until its hole is closed (README, "The kernel
surface" and "Duplicate dealing"). Run them with ``ARENA_OPEN_ATTACKS=1 .venv/bin/python
-m pytest tests/hostile/open -s``.

* ``test_audit19_usr_pagecache``: two duplicate instances talk through the page cache
  of a file both can read, timed; the partner's finished decks recognised by the draw.
  Through the bot's own folder this is closed (each instance k > 0 has its own copy:
  ``tests/hostile/test_audit19_pagecache_channel.py``); through the runtime every
  sandbox mounts (a large file under ``/usr``) it is not.
* ``test_audit19_draw_recognition``: the same recognition with a perfect channel.
* ``test_audit19_socket_memory``: socket buffers outside the cgroup v1 memory cap, and
  ``/proc/net/sockstat``'s figure as a channel.
"""

import os

collect_ignore_glob = [] if os.environ.get("ARENA_OPEN_ATTACKS") == "1" else ["test_*.py"]
