"""A tiny system under test run as a command: reads the input on stdin, answers on stdout.

Inputs steer it: ``crash`` exits 3 with a message on stderr, ``sleep`` hangs, ``leak``
prints the ``SUT_TOKEN`` variable on stderr and fails, ``env`` prints the ``GREETING``
variable, ``has:NAME`` prints whether variable NAME is set, ``escape:FILE`` starts
``setsid sleep 300`` (writing its pid to FILE) and answers (``escape-hang:FILE`` then
hangs), ``daemon:FILE`` daemonizes a sleeper by a double fork and answers, ``complain:...`` fails quoting its input on stderr, ``bad-json`` prints text
that is not JSON, ``flood`` writes 17 MiB, ``json`` prints an object, ``silent`` prints
nothing and ``blank`` only a blank line (both exit 0); anything else is answered in a
sentence.
"""

import json
import os
import sys
import time

text = sys.stdin.read()
if text == "crash":
    print("Traceback: something broke inside the bot", file=sys.stderr)
    sys.exit(3)
if text == "sleep":
    time.sleep(60)
if text == "leak":
    print(f"auth failed with token {os.environ.get('SUT_TOKEN', '')}", file=sys.stderr)
    sys.exit(1)
if text.startswith("complain:"):
    print(f"cannot answer {text!r}", file=sys.stderr)
    sys.exit(2)
if text == "env":
    print(os.environ.get("GREETING", "unset"))
    sys.exit(0)
if text.startswith("has:"):
    print("set" if text.removeprefix("has:") in os.environ else "unset")
    sys.exit(0)
if text.startswith(("escape:", "escape-hang:")):
    import subprocess

    kind, _, pidfile = text.partition(":")
    left = subprocess.Popen(["setsid", "sleep", "300"])  # keeps our stdout open
    with open(pidfile, "w") as handle:
        handle.write(str(left.pid))
    if kind == "escape-hang":
        time.sleep(60)
    print("escaped")
    sys.exit(0)
if text.startswith("daemon:"):
    pidfile = text.removeprefix("daemon:")
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            with open(pidfile + ".tmp", "w") as handle:
                handle.write(str(os.getpid()))
            os.replace(pidfile + ".tmp", pidfile)
            devnull = os.open(os.devnull, os.O_RDWR)
            for fd in (0, 1, 2):
                os.dup2(devnull, fd)
            time.sleep(300)
        os._exit(0)
    while not os.path.exists(pidfile):
        time.sleep(0.01)
    print("daemonized")
    sys.exit(0)
if text == "flood":
    sys.stdout.write("x" * (17 * 1024 * 1024))
    sys.exit(0)
if text == "silent":
    sys.exit(0)
if text == "blank":
    print("  ")
    sys.exit(0)
if text == "bad-json":
    print("{not json")
    sys.exit(0)
if text.startswith("{"):
    data = json.loads(text)
    print(json.dumps({"answer": data.get("question", "").upper(), "words": 2}))
    sys.exit(0)
print(f"You asked: {text}. [source: Handbook]")
