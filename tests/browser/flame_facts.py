#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""flame_facts.py FILE.html: the flame graphs of an HTML report as JSON, read
with html.parser (no browser): for each svg.flame its data-total, width and
frames (data-* attributes, rect geometry, title and label text, unescaped),
the note of what was not drawn, and how many <script> elements the page has.
"""
import json
import sys
from html.parser import HTMLParser


class Facts(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.scripts = 0
        self.sections = []
        self.graphs = {}
        self.notes = {}
        self.graph = None
        self.frame = None
        self.into = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "script":
            self.scripts += 1
        if tag == "section":
            self.sections.append(a.get("id"))
        if tag == "svg" and "flame" in a.get("class", "").split():
            self.graph = {"total": int(a["data-total"]),
                          "width": float(a["width"]), "frames": []}
            self.graphs[a["id"]] = self.graph
        elif tag == "g" and self.graph is not None and \
                a.get("class") == "frame":
            self.frame = {"depth": int(a["data-depth"]),
                          "count": int(a["data-count"]),
                          "kind": a["data-kind"],
                          "function": a.get("data-function"),
                          "inlined": a.get("data-inlined"),
                          "title": "", "text": ""}
            self.graph["frames"].append(self.frame)
        elif tag == "rect" and self.frame is not None:
            self.frame["x"] = float(a["x"])
            self.frame["w"] = float(a["width"])
            self.frame["fill"] = a["fill"]
        elif tag in ("title", "text") and self.frame is not None:
            self.into = tag
        elif tag == "p" and a.get("id", "").endswith("-left-out"):
            self.notes[a["id"][:-len("-left-out")]] = {
                "frames": int(a["data-frames"]),
                "events": int(a["data-events"])}

    def handle_endtag(self, tag):
        if tag == "svg":
            self.graph = None
        elif tag == "g":
            self.frame = None
        elif tag == self.into:
            self.into = None

    def handle_data(self, data):
        if self.into and self.frame is not None:
            self.frame[self.into] += data


def main():
    p = Facts()
    with open(sys.argv[1], encoding="utf-8") as f:
        p.feed(f.read())
    p.close()
    for gid, note in p.notes.items():
        p.graphs[gid]["left_out"] = note
    json.dump({"scripts": p.scripts, "sections": p.sections,
               "graphs": p.graphs}, sys.stdout, indent=1)


if __name__ == "__main__":
    main()
