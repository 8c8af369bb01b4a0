#!/usr/bin/env python3
"""Open pages in a real headless Chromium (Debian's `chromium`), driven over
the DevTools protocol on a pipe (--remote-debugging-pipe: no port, no
websocket library), one browser for every page and width.

    report-browser.py OUTDIR WIDTH PAGE...

For each page and width it loads file://PAGE, waits for the load event,
and prints one line:

    PAGE WIDTH ok|FAIL scroll=<document width> title=<title> errors=<n>

followed by one "#   error: ..." line per console error, uncaught
exception or failed resource load (Log and Runtime domains), and saves a
full-page screenshot as OUTDIR/<page name>-<width>.png. The exit status is
0 when the browser answered for every page (the caller judges the lines).
"""
import base64
import fcntl
import json
import os
import subprocess
import sys
import tempfile
import time

TIMEOUT = 60.0


class Browser:
    def __init__(self):
        self.profile = tempfile.mkdtemp(prefix="kreg-chromium-")
        r_cmd, w_cmd = os.pipe()      # we write commands, chromium reads fd 3
        r_res, w_res = os.pipe()      # chromium writes results on fd 4
        def child_fds():
            a = fcntl.fcntl(r_cmd, fcntl.F_DUPFD, 10)
            b = fcntl.fcntl(w_res, fcntl.F_DUPFD, 10)
            os.dup2(a, 3)
            os.dup2(b, 4)
        self.proc = subprocess.Popen(
            ["chromium", "--headless", "--no-sandbox", "--disable-gpu",
             "--remote-debugging-pipe", "--no-first-run", "--no-default-browser-check",
             "--disable-extensions", "--disable-background-networking",
             "--user-data-dir=" + self.profile, "about:blank"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            pass_fds=(3, 4, r_cmd, w_res), preexec_fn=child_fds, start_new_session=True)
        os.close(r_cmd)
        os.close(w_res)
        self.wfd, self.rfd = w_cmd, r_res
        self.buf = b""
        self.next_id = 0
        self.events = []

    def close(self):
        try:
            self.send("Browser.close", wait=False)
        except OSError:
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, 9)
            self.proc.wait()
        os.close(self.wfd)
        os.close(self.rfd)
        subprocess.run(["rm", "-rf", self.profile])

    def read_message(self, deadline):
        import select
        while b"\0" not in self.buf:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("chromium did not answer in time")
            ready, _, _ = select.select([self.rfd], [], [], left)
            if ready:
                chunk = os.read(self.rfd, 1 << 20)
                if not chunk:
                    raise EOFError("chromium closed the pipe")
                self.buf += chunk
        msg, self.buf = self.buf.split(b"\0", 1)
        return json.loads(msg)

    def send(self, method, params=None, session=None, wait=True):
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        os.write(self.wfd, json.dumps(msg).encode() + b"\0")
        if not wait:
            return None
        deadline = time.monotonic() + TIMEOUT
        while True:
            m = self.read_message(deadline)
            if m.get("id") == self.next_id:
                if "error" in m:
                    raise RuntimeError("%s: %s" % (method, m["error"]))
                return m.get("result", {})
            self.events.append(m)

    def wait_event(self, method, session, deadline):
        while True:
            for i, m in enumerate(self.events):
                if m.get("method") == method and m.get("sessionId") == session:
                    del self.events[i]
                    return m
            m = self.read_message(deadline)
            self.events.append(m)
            if m.get("method") == "Page.javascriptDialogOpening":
                self.send("Page.handleJavaScriptDialog", {"accept": True},
                          session=m.get("sessionId"), wait=False)


def problems(events, session):
    out = []
    for m in events:
        if m.get("sessionId") != session:
            continue
        method, p = m.get("method"), m.get("params", {})
        if method == "Runtime.exceptionThrown":
            d = p.get("exceptionDetails", {})
            out.append("exception: " + d.get("text", "") + " " +
                       str(d.get("exception", {}).get("description", "")))
        elif method == "Runtime.consoleAPICalled" and p.get("type") in ("error", "warning", "assert"):
            out.append("console.%s: %s" % (p.get("type"), " ".join(
                str(a.get("value", a.get("description", ""))) for a in p.get("args", []))))
        elif method == "Page.javascriptDialogOpening":
            out.append("dialog: %s %s" % (p.get("type"), p.get("message")))
        elif method == "Log.entryAdded" and p.get("entry", {}).get("level") in ("error", "warning"):
            e = p["entry"]
            out.append("%s %s: %s %s" % (e.get("source"), e.get("level"), e.get("text"),
                                         e.get("url", "")))
    return out


def main():
    outdir, width = sys.argv[1], int(sys.argv[2])
    pages = sys.argv[3:]
    os.makedirs(outdir, exist_ok=True)
    b = Browser()
    try:
        for page in pages:
            target = b.send("Target.createTarget", {"url": "about:blank"})["targetId"]
            session = b.send("Target.attachToTarget", {"targetId": target,
                                                       "flatten": True})["sessionId"]
            for domain in ("Page", "Runtime", "Log"):
                b.send(domain + ".enable", session=session)
            b.send("Emulation.setDeviceMetricsOverride",
                   {"width": width, "height": 800, "deviceScaleFactor": 1,
                    "mobile": width < 600}, session=session)
            b.events = [m for m in b.events if m.get("sessionId") != session]
            b.send("Page.navigate", {"url": "file://" + os.path.abspath(page)}, session=session)
            b.wait_event("Page.loadEventFired", session, time.monotonic() + TIMEOUT)
            info = b.send("Runtime.evaluate", {
                "expression": "JSON.stringify([document.documentElement.scrollWidth, "
                              "window.innerWidth, document.title, "
                              "document.querySelectorAll('h1').length])",
                "returnByValue": True}, session=session)["result"]["value"]
            scroll, inner, title, h1 = json.loads(info)
            shot = b.send("Page.captureScreenshot", {"format": "png",
                                                     "captureBeyondViewport": True},
                          session=session)["data"]
            name = os.path.basename(page).rsplit(".", 1)[0]
            with open(os.path.join(outdir, "%s-%d.png" % (name, width)), "wb") as f:
                f.write(base64.b64decode(shot))
            # late events (a failed image after load) get a moment to arrive
            try:
                b.send("Runtime.evaluate", {"expression": "1"}, session=session)
            except RuntimeError:
                pass
            errs = problems(b.events, session)
            ok = not errs and h1 >= 1
            print("%s %d %s scroll=%d inner=%d h1=%d errors=%d title=%s" % (
                os.path.basename(page), width, "ok" if ok else "FAIL", scroll, inner, h1,
                len(errs), title.replace("\n", " ")))
            for e in errs:
                print("#   error: " + e.replace("\n", " "))
            b.send("Target.closeTarget", {"targetId": target})
            b.events = [m for m in b.events if m.get("sessionId") != session]
    finally:
        b.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
