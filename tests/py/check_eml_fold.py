#!/usr/bin/env python3
"""Every line of summary.eml's headers (the message's and each part's) within
RFC 5322's recommended 78 characters (998 is the hard limit); To: read back
(unfolded) as exactly the N addresses given; the Subject decoded (RFC 2047)
as exactly the subject given. Usage: check_eml_fold.py FILE N_ADDRESSES SUBJECT"""
import email, sys
from email import policy

def main(path, n, subject):
    raw = open(path, "rb").read()
    errors = []
    # header blocks: the message's, then each part's (after a boundary line)
    blocks = [raw.split(b"\r\n\r\n")[0]] + [p.split(b"\r\n\r\n")[0] for p in raw.split(b"\r\n--=_perfcard")[1:]]
    for b in blocks:
        for line in b.split(b"\r\n"):
            if len(line) > 78:
                errors.append("a header line of %d characters: %r" % (len(line), line[:60]))
    msg = email.message_from_bytes(raw, policy=policy.default)
    got = [a.addr_spec for a in msg["To"].addresses]
    want = ["user%d@example.com" % i for i in range(int(n))]
    if got != want:
        errors.append("To: %d addresses, not the %d given" % (len(got), len(want)))
    if str(msg["Subject"]) != subject:
        errors.append("Subject %r, not %r" % (str(msg["Subject"])[:80], subject[:80]))
    print("\n".join(errors) if errors else "ok: %d header lines" % sum(b.count(b"\r\n") + 1 for b in blocks))
    return 1 if errors else 0

if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:4]))
