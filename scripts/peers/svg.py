"""A small SVG writer for bench-peers: one group of horizontal bars per task (packcheck's rows
first, then each peer's), GB/s on a log axis (the contenders span three orders of magnitude)."""
import math
from xml.sax.saxutils import escape

COLORS = {"packcheck": "#1b7837", "packcheck (reused buffer)": "#a6dba0"}
PALETTE = ["#2166ac", "#b2182b", "#e08214", "#762a83", "#8c510a", "#4d4d4d", "#35978f",
           "#d6604d", "#4393c3", "#9970ab", "#bf812d", "#878787", "#80cdc1", "#f4a582", "#c51b7d"]


def bars(task):
    out = [("packcheck %dt" % r["threads"], "packcheck", r["gbps"]) for r in task.get("packcheck_rows", [])]
    out += [("%s %dt" % (b["name"], b["threads"]), b["name"], b["gbps"]) for b in task.get("beside", [])]
    out += [("%s %dt" % (p["name"], p["threads"]), p["name"], p["gbps"]) for p in task["peers"]]
    return [b for b in out if b[2]]


def write(path, doc):
    tasks = [t for t in doc["tasks"] if bars(t)]
    names = sorted({b[1] for t in tasks for b in bars(t)} - set(COLORS))
    color = dict(COLORS, **{n: PALETTE[i % len(PALETTE)] for i, n in enumerate(names)})
    vals = [b[2] for t in tasks for b in bars(t)]
    lo = 10 ** math.floor(math.log10(min(vals))) if vals else 0.01
    hi = 10 ** math.ceil(math.log10(max(vals))) if vals else 100
    left, width, bar, gap, top = 330, 560, 11, 14, 60
    x = lambda v: left + width * (math.log10(v) - math.log10(lo)) / (math.log10(hi) - math.log10(lo))  # noqa: E731
    rows = sum(len(bars(t)) for t in tasks)
    H = top + rows * bar + len(tasks) * gap + 60 + 18 * (len(names) + len(COLORS))
    s = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" font-size="10">' % (left + width + 40, H),
         '<rect width="100%" height="100%" fill="white"/>',
         '<text x="10" y="20" font-size="14" font-weight="bold">packcheck vs peers: throughput (GB/s, log scale; %s)</text>' % escape(doc["machine"]["date"]),
         '<text x="10" y="38">%s, %d cores; medians of %d interleaved runs; 1t = one thread (decode: CPU seconds), 2t+ = wall</text>' % (
             escape(doc["machine"]["cpu"][:60]), doc["machine"]["cores"], doc["reps"])]
    d = lo
    while d <= hi * 1.0001:
        s.append('<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#ddd"/>' % (x(d), top - 5, x(d), H - 40 - 18 * (len(names) + len(COLORS) - 1)))
        s.append('<text x="%.1f" y="%d" text-anchor="middle">%g</text>' % (x(d), top - 8, d))
        d *= 10
    y = top
    for t in tasks:
        s.append('<text x="10" y="%d" font-weight="bold">%s</text>' % (y + bar - 2, escape(t["task"][:52])))
        for label, who, v in bars(t):
            s.append('<rect x="%d" y="%d" width="%.1f" height="%d" fill="%s"/>' % (left, y, max(1.0, x(v) - left), bar - 2, color[who]))
            s.append('<text x="%d" y="%d" text-anchor="end" fill="#333">%s</text>' % (left - 4, y + bar - 3, escape(label[:40])))
            s.append('<text x="%.1f" y="%d">%.3g</text>' % (x(v) + 3, y + bar - 3, v))
            y += bar
        y += gap
    y += 10
    for i, n in enumerate(list(COLORS) + names):
        s.append('<rect x="10" y="%d" width="12" height="10" fill="%s"/><text x="28" y="%d">%s</text>' % (y + 18 * i, color[n], y + 18 * i + 9, escape(n)))
    s.append("</svg>")
    with open(path, "w") as fh:
        fh.write("\n".join(s) + "\n")
