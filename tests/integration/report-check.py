#!/usr/bin/env python3
"""Checks of a site kreg report wrote, with Debian's python3-html5lib (the
WHATWG HTML5 parsing algorithm):

  report-check.py html5 DIR        every *.html is UTF-8 and parses with no
                                   HTML5 parse error (strict mode)
  report-check.py links DIR [URL_PREFIX...]
                                   every href/src of every page names a file
                                   of the site (and its #id when it has one);
                                   absolute URLs only under the prefixes given
  report-check.py safe DIR         no <script>, no on* attribute, no
                                   javascript: URL anywhere
  report-check.py text FILE        the page's text content (for grep)

Each prints one line per problem and "checked N pages" last; the exit status
is 1 when there was a problem.
"""
import glob
import os
import sys
from urllib.parse import unquote, urlsplit

import html5lib

NS = "{http://www.w3.org/1999/xhtml}"
XLINK = "{http://www.w3.org/1999/xlink}href"


def pages(d):
    return sorted(glob.glob(os.path.join(d, "*.html")))


def parse(path):
    with open(path, "rb") as f:
        return html5lib.parse(f.read(), treebuilder="etree", namespaceHTMLElements=True)


def check_html5(d):
    bad = 0
    for p in pages(d):
        with open(p, "rb") as f:
            data = f.read()
        try:
            data.decode("utf-8", errors="strict")
        except UnicodeDecodeError as e:
            print("not UTF-8: %s: %s" % (os.path.basename(p), e))
            bad += 1
            continue
        parser = html5lib.HTMLParser(strict=True)
        try:
            parser.parse(data)
        except Exception as e:  # html5lib raises ParseError on the first error
            print("parse error: %s: %s %s" % (os.path.basename(p), e, parser.errors[:3]))
            bad += 1
    return bad, len(pages(d))


def ids_of(root):
    return {el.get("id") for el in root.iter() if el.get("id")}


def check_links(d, prefixes):
    bad = 0
    idcache = {}
    for p in pages(d):
        root = parse(p)
        for el in root.iter():
            if not isinstance(el.tag, str):
                continue
            for attr in ("href", "src", XLINK):
                url = el.get(attr)
                if url is None:
                    continue
                parts = urlsplit(url)
                if parts.scheme == "data":
                    continue
                if parts.scheme or parts.netloc:
                    if not any(url.startswith(x) for x in prefixes):
                        print("external: %s -> %s" % (os.path.basename(p), url))
                        bad += 1
                    continue
                if parts.path.startswith("/") or ".." in parts.path.split("/"):
                    print("not relative: %s -> %s" % (os.path.basename(p), url))
                    bad += 1
                    continue
                target = os.path.join(d, unquote(parts.path)) if parts.path else p
                if not os.path.isfile(target):
                    print("broken: %s -> %s" % (os.path.basename(p), url))
                    bad += 1
                    continue
                if parts.fragment and target.endswith(".html"):
                    if target not in idcache:
                        idcache[target] = ids_of(parse(target))
                    if unquote(parts.fragment) not in idcache[target]:
                        print("no such anchor: %s -> %s" % (os.path.basename(p), url))
                        bad += 1
    return bad, len(pages(d))


def check_safe(d):
    bad = 0
    for p in pages(d):
        for el in parse(p).iter():
            if not isinstance(el.tag, str):
                continue
            tag = el.tag.split("}")[-1]
            if tag == "script":
                print("script element: %s: %r" % (os.path.basename(p), (el.text or "")[:80]))
                bad += 1
            for k, v in el.attrib.items():
                name = k.split("}")[-1].lower()
                if name.startswith("on"):
                    print("event attribute: %s: %s=%r" % (os.path.basename(p), name, v))
                    bad += 1
                if name in ("href", "src") and v.strip().lower().startswith("javascript:"):
                    print("javascript URL: %s: %r" % (os.path.basename(p), v))
                    bad += 1
    return bad, len(pages(d))


def main():
    mode = sys.argv[1]
    if mode == "text":
        root = parse(sys.argv[2])
        sys.stdout.write("".join(root.itertext()))
        return 0
    d = sys.argv[2]
    if mode == "html5":
        bad, n = check_html5(d)
    elif mode == "links":
        bad, n = check_links(d, sys.argv[3:])
    elif mode == "safe":
        bad, n = check_safe(d)
    else:
        print("unknown mode " + mode)
        return 2
    print("checked %d pages" % n)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
