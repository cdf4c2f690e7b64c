#!/usr/bin/env python3
"""One Ctrl-C in a terminal must reach the captured program once.

Runs `perfcard capture -- train count-int` on a pseudo-terminal (so the
terminal driver, not a process, sends SIGINT to the foreground process
group), types Ctrl-C once, and prints how many SIGINTs the program counted.
usage: ctrl_c.py PERFCARD TRAIN OUTDIR COUNTFILE"""
import os, pty, select, sys, time

pc, train, out, countfile = sys.argv[1:5]
pid, fd = pty.fork()
if pid == 0:
    os.execv(pc, [pc, "capture", "-o", out, "--no-report", "--", train, "count-int", "1", countfile])

def drain(t):
    end = time.time() + t
    while time.time() < end:
        r, _, _ = select.select([fd], [], [], 0.05)
        if r:
            try:
                os.read(fd, 4096)
            except OSError:
                return

deadline = time.time() + 60
while time.time() < deadline:
    drain(0.05)
    if os.path.exists(countfile) and open(countfile).read().strip() == "ready":
        break
drain(0.2)
os.write(fd, b"\x03")
status = None
while time.time() < deadline:
    drain(0.05)
    w, st = os.waitpid(pid, os.WNOHANG)
    if w == pid:
        status = st
        break
count = open(countfile).read().strip() if os.path.exists(countfile) else "none"
print(count)
sys.exit(0 if count == "1" and status is not None and os.waitstatus_to_exitcode(status) == 0 else 1)
