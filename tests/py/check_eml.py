#!/usr/bin/env python3
"""Reads summary.eml back with Python's email package: a multipart/related
message holding multipart/alternative (text/plain and text/html) and PNG
images; every image's Content-ID is referenced from the HTML as cid:, and
every cid: in the HTML has its image; the text part reads as plain text (no
Markdown: no table pipes, no ** or backticks, no heading #s, no backslash
escapes, no <sub>). Usage: check_eml.py FILE [TO]"""
import email, re, sys
from email import policy

def main(path, to=None):
    msg = email.message_from_bytes(open(path, "rb").read(), policy=policy.default)
    errors = []
    if msg.get_content_type() != "multipart/related":
        errors.append("top type %s" % msg.get_content_type())
    if to and msg["To"] != to:
        errors.append("To: %r" % msg["To"])
    if not msg["Subject"] or not msg["Date"] or not msg["Message-ID"]:
        errors.append("missing Subject/Date/Message-ID")
    alt = [p for p in msg.iter_parts() if p.get_content_type() == "multipart/alternative"]
    if len(alt) != 1:
        errors.append("no multipart/alternative part")
        print("\n".join(errors)); return 1
    kinds = [p.get_content_type() for p in alt[0].iter_parts()]
    if kinds != ["text/plain", "text/html"]:
        errors.append("alternative parts %s" % kinds)
    text = alt[0].get_body(("plain",)).get_content()
    html = alt[0].get_body(("html",)).get_content()
    if "perfcard" not in text or "<html" not in html:
        errors.append("bodies do not look like perfcard's")
    for what, bad in (("a table row of pipes", re.search(r"^\|", text, re.M)), ("** emphasis", "**" in text),
                      ("a code span", "`" in text), ("a heading #", re.search(r"^#+ ", text, re.M)),
                      ("a backslash escape", re.search(r"\\[_*`|#]", text)), ("<sub>", "<sub>" in text)):
        if bad: errors.append("the text part holds Markdown: %s" % what)
    images = {p["Content-ID"].strip("<>"): p for p in msg.iter_parts() if p.get_content_type() == "image/png"}
    if not images:
        errors.append("no images")
    for cid, part in images.items():
        if part.get_content()[:8] != b"\x89PNG\r\n\x1a\n":
            errors.append("image %s is not a PNG" % cid)
        if "cid:" + cid not in html:
            errors.append("image %s not referenced from the HTML" % cid)
    for cid in re.findall(r'src="cid:([^"]+)"', html):
        if cid not in images:
            errors.append("HTML references missing image %s" % cid)
    if "http://" in html or "https://" in html:
        errors.append("the HTML references the network")
    print("\n".join(errors) if errors else "ok: %d images, %d bytes of HTML" % (len(images), len(html)))
    return 1 if errors else 0

if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
