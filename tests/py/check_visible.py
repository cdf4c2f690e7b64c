#!/usr/bin/env python3
"""No control character (C0 but TAB and LF, DEL, C1) and no bidirectional
embedding, override or isolate (U+202A..U+202E, U+2066..U+2069) in any text
output under DIR (.html .md .svg .eml's decoded parts): raw, as an HTML
character reference, or as a JSON escape in a <script> block. Usage:
check_visible.py DIR"""
import email, os, re, sys

BAD = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
REF = re.compile(r"&#(x[0-9a-fA-F]+|[0-9]+);|\\u([0-9a-fA-F]{4})|\\[bfr]")

def hidden_ref(m):
    if m.group(0) in ("\\b", "\\f", "\\r"): return True
    h = m.group(1)
    cp = int(h[1:], 16) if h and h[0] in "xX" else int(h) if h else int(m.group(2), 16)
    return bool(BAD.match(chr(cp)))

def texts(path):
    raw = open(path, "rb").read()
    if path.endswith(".eml"):
        for p in email.message_from_bytes(raw).walk():
            if p.get_content_maintype() == "text": yield p.get_payload(decode=True).decode("utf-8", "replace")
    else: yield raw.decode("utf-8", "replace")

def main(d):
    bad = []
    for root, _, files in os.walk(d):
        for f in files:
            if not f.endswith((".html", ".md", ".svg", ".eml")): continue
            p = os.path.join(root, f)
            for t in texts(p):
                m = BAD.search(t)
                if m: bad.append("%s: U+%04X raw near %r" % (p, ord(m.group(0)), t[max(0, m.start() - 20):m.start()]))
                for r in REF.finditer(t):
                    if hidden_ref(r): bad.append("%s: %s near %r" % (p, r.group(0), t[max(0, r.start() - 20):r.start()])); break
    print("\n".join(bad[:10]) if bad else "ok")
    return 1 if bad else 0

if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
