#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Open an HTML report in headless Chromium and say what it rendered.

    render.py FILE.html SCREENSHOT.png [PRINT.pdf] > facts.json

The page is laid out 1,280 pixels wide (a laptop's screen, the width the
report must fit).  The screenshot is of the whole page; SCREENSHOT-top.png
is the first 1280x1300 pixels, as a reader first sees the page.

Speaks the DevTools protocol over --remote-debugging-pipe (file descriptors
3 and 4, messages ended by NUL): the standard library only.  Prints one JSON
object: facts read from the rendered DOM (tests/browser/facts.js), every
console message, exception and log entry of level warning or error (a
refused request shows there), and the screenshot's size.
"""
import base64
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

TIMEOUT = 60
WIDTH = 1280
HEIGHT = 1300


class Browser:
    def __init__(self):
        self.profile = tempfile.mkdtemp(prefix="ct-chromium-")
        to_chrome_r, self.to_chrome = os.pipe()
        self.from_chrome, from_chrome_w = os.pipe()
        os.set_inheritable(to_chrome_r, True)
        os.set_inheritable(from_chrome_w, True)
        # Chromium reads commands on fd 3 and writes answers on fd 4.
        cmd = ["chromium", "--headless=new", "--no-sandbox", "--disable-gpu",
               "--hide-scrollbars", "--disable-dev-shm-usage",
               "--remote-debugging-pipe", "--no-first-run",
               "--no-default-browser-check",
               "--user-data-dir=" + self.profile, "about:blank"]
        self.proc = subprocess.Popen(
            ["sh", "-c", 'exec 3<&"$1" 4>&"$2"; shift 2; exec "$@"', "sh",
             str(to_chrome_r), str(from_chrome_w)] + cmd,
            pass_fds=(to_chrome_r, from_chrome_w),
            stdout=subprocess.DEVNULL, stderr=open(os.environ.get("CT_CHROMIUM_LOG", os.devnull), "w"))
        os.close(to_chrome_r)
        os.close(from_chrome_w)
        self.buf = b""
        self.next_id = 0
        self.events = []

    def send(self, method, params=None, session=None):
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        os.write(self.to_chrome, json.dumps(msg).encode() + b"\0")
        return self.wait(lambda m: m.get("id") == self.next_id)

    def read_message(self, deadline):
        while b"\0" not in self.buf:
            if time.monotonic() > deadline:
                raise TimeoutError("no answer from chromium")
            chunk = os.read(self.from_chrome, 1 << 20)
            if not chunk:
                raise EOFError("chromium closed the pipe")
            self.buf += chunk
        raw, self.buf = self.buf.split(b"\0", 1)
        return json.loads(raw)

    def wait(self, match):
        deadline = time.monotonic() + TIMEOUT
        for m in self.events:
            if match(m):
                self.events.remove(m)
                return m
        while True:
            m = self.read_message(deadline)
            if match(m):
                if "error" in m:
                    raise RuntimeError(json.dumps(m["error"]))
                return m
            self.events.append(m)

    def close(self):
        try:
            self.send("Browser.close")
        except (EOFError, OSError, TimeoutError):
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        shutil.rmtree(self.profile, ignore_errors=True)


def problems(events):
    """Console calls, exceptions and log entries worth failing a test on."""
    out = []
    for m in events:
        p = m.get("params", {})
        if m.get("method") == "Runtime.consoleAPICalled":
            out.append({"console": p.get("type"),
                        "text": " ".join(str(a.get("value", a.get("description")))
                                         for a in p.get("args", []))})
        elif m.get("method") == "Runtime.exceptionThrown":
            out.append({"exception": p.get("exceptionDetails", {}).get("text")})
        elif m.get("method") == "Log.entryAdded":
            e = p.get("entry", {})
            if e.get("level") in ("warning", "error"):
                out.append({"log": e.get("level"), "source": e.get("source"),
                            "text": e.get("text")})
    return out


def render(html, png, pdf=None):
    facts_js = open(os.path.join(os.path.dirname(__file__), "facts.js")).read()
    b = Browser()
    try:
        target = b.send("Target.createTarget", {"url": "about:blank"})
        tid = target["result"]["targetId"]
        att = b.send("Target.attachToTarget", {"targetId": tid, "flatten": True})
        s = att["result"]["sessionId"]
        for domain in ("Page", "Runtime", "Log"):
            b.send(domain + ".enable", session=s)
        b.send("Emulation.setDeviceMetricsOverride", {
            "width": WIDTH, "height": HEIGHT, "deviceScaleFactor": 1,
            "mobile": False}, session=s)
        b.send("Page.navigate", {"url": "file://" + os.path.abspath(html)},
               session=s)
        b.wait(lambda m: m.get("method") == "Page.loadEventFired")
        facts = b.send("Runtime.evaluate", {
            "expression": facts_js, "returnByValue": True}, session=s)
        value = facts["result"]["result"].get("value")
        shot = b.send("Page.captureScreenshot", {
            "format": "png", "captureBeyondViewport": True}, session=s)
        data = base64.b64decode(shot["result"]["data"])
        with open(png, "wb") as f:
            f.write(data)
        # And the first screenful alone, as a reader first sees it.
        top = b.send("Page.captureScreenshot", {"format": "png"}, session=s)
        with open(png[:-4] + "-top.png", "wb") as f:
            f.write(base64.b64decode(top["result"]["data"]))
        if pdf:
            out = b.send("Page.printToPDF", {"printBackground": False},
                         session=s)
            with open(pdf, "wb") as f:
                f.write(base64.b64decode(out["result"]["data"]))
        # Late messages (a refused request is logged after load).
        b.send("Runtime.evaluate", {"expression": "1"}, session=s)
        return {"facts": value, "problems": problems(b.events),
                "screenshot_bytes": len(data)}
    finally:
        b.close()


if __name__ == "__main__":
    if len(sys.argv) not in (3, 4):
        sys.exit("usage: render.py FILE.html SCREENSHOT.png [PRINT.pdf]")
    json.dump(render(*sys.argv[1:]), sys.stdout, indent=1)
    print()
