#!/usr/bin/env python3
"""Opens every page of the built handbook in headless Chromium, light and dark, and fails on
what a reader would notice (README.md lists the checks: console errors, broken links, zero-size
charts, contrast, best cells, chart text size, series drawn alike, axes, key columns, marks). Saves
screenshots and prints a summary. Chromium is Debian's (`--chromium PATH`); playwright only drives it.

Usage: browser_test.py [BUILD_DIR] [--out DIR] [--chromium PATH] [--pages a.html,b.html]
       browser_test.py --self-test --chromium PATH   (the checker catches planted defects)
"""

import argparse
import functools
import http.server
import json
import re
import sys
import threading
from pathlib import Path
from urllib.parse import unquote, urldefrag, urljoin, urlparse

THEMES = {"light": "light", "dark": "navy"}
MIN_CONTRAST = 4.5
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 900}

# Runs in the page: charts, contrast of gpulab text, tables wider than their box, links.
PROBE = r"""
() => {
  const parse = (c) => {
    const m = c.match(/rgba?\(([^)]+)\)/);
    if (!m) return null;
    const p = m[1].split(/[ ,\/]+/).filter(Boolean).map(Number);
    return { r: p[0], g: p[1], b: p[2], a: p.length > 3 ? p[3] : 1 };
  };
  const lum = ({ r, g, b }) => {
    const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); };
    return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
  };
  const over = (top, bottom) => ({
    r: top.r * top.a + bottom.r * (1 - top.a),
    g: top.g * top.a + bottom.g * (1 - top.a),
    b: top.b * top.a + bottom.b * (1 - top.a),
    a: 1,
  });
  // The opaque colour behind an element: its ancestors' backgrounds composited over the page.
  const background = (el) => {
    const layers = [];
    for (let e = el; e && e.nodeType === 1; e = e.parentElement) {
      const c = parse(getComputedStyle(e).backgroundColor);
      if (c && c.a > 0) layers.push(c);
      if (c && c.a >= 1) break;
    }
    let bg = { r: 255, g: 255, b: 255, a: 1 };
    for (let i = layers.length - 1; i >= 0; i--) bg = over(layers[i], bg);
    return bg;
  };
  const opacity = (el) => {
    let o = 1;
    for (let e = el; e && e.nodeType === 1; e = e.parentElement) o *= Number(getComputedStyle(e).opacity);
    return o;
  };
  const visible = (el) => {
    const r = el.getBoundingClientRect();
    return r.width > 0 && r.height > 0 && getComputedStyle(el).visibility !== "hidden";
  };
  const describe = (el) => {
    const fig = el.closest("figure.gpulab");
    const where = fig ? `#${fig.id}` : "";
    return `${el.tagName.toLowerCase()}${where} "${(el.textContent || "").trim().slice(0, 40)}"`;
  };

  const charts = [...document.querySelectorAll("figure.gpulab-chart svg, svg.gpulab-chart-svg")]
    .filter((svg, i, all) => all.indexOf(svg) === i)
    .map((svg) => {
      const r = svg.getBoundingClientRect();
      const hidden = !!svg.closest("details:not([open])");
      const untipped = [...svg.querySelectorAll(".gpulab-tip")].filter(
        (t) => t.hasAttribute("data-tip") || !t.querySelector("title")
      ).length;
      return { what: describe(svg.closest("figure") || svg), width: r.width, height: r.height, hidden, untipped };
    });

  const lowContrast = [];
  const texts = document.querySelectorAll(
    ".gpulab td, .gpulab th, .gpulab caption, .gpulab figcaption, .gpulab p, .gpulab li, .gpulab a, .gpulab span, .gpulab svg text, .gpulab-box, .gpulab-status td"
  );
  for (const el of texts) {
    if (!visible(el) || !(el.textContent || "").trim()) continue;
    const style = getComputedStyle(el);
    const isSvg = el instanceof SVGElement;
    let fg = parse(isSvg ? style.fill : style.color);
    if (!fg) continue;
    // Text drawn on a chart's own shape (a heat-map cell) is checked against that shape: the
    // topmost filled rect under the text's centre.
    let bg = background(isSvg ? el.closest("svg") : el);
    if (isSvg) {
      const t = el.getBoundingClientRect();
      const [cx, cy] = [t.x + t.width / 2, t.y + t.height / 2];
      let under = null;
      for (const rect of el.closest("svg").querySelectorAll("rect")) {
        const r = rect.getBoundingClientRect();
        if (cx >= r.left && cx <= r.right && cy >= r.top && cy <= r.bottom) {
          const c = parse(getComputedStyle(rect).fill);
          if (c && c.a > 0) under = c;
        }
      }
      if (under) bg = over(under, bg);
    }
    fg = over({ ...fg, a: fg.a * opacity(el) }, bg);
    const [l1, l2] = [lum(fg), lum(bg)].sort((a, b) => b - a);
    const ratio = (l1 + 0.05) / (l2 + 0.05);
    if (ratio < __MIN__) lowContrast.push(`${describe(el)}: ${ratio.toFixed(2)}:1`);
  }

  const wide = [...document.querySelectorAll(".gpulab-table-wrap")].filter(
    (w) => w.scrollWidth > w.clientWidth + 1
  ).length;
  const stickyOk = [...document.querySelectorAll(".gpulab-table-wrap")]
    .filter((w) => w.scrollWidth > w.clientWidth + 1)
    .every((w) => {
      const th = w.querySelector("tbody th");
      return !th || getComputedStyle(th).position === "sticky";
    });

  const findings = __FINDINGS__();
  const links = [...document.querySelectorAll("a[href]")].map((a) => a.getAttribute("href"));
  const ids = [...document.querySelectorAll("[id]")].map((e) => e.id);
  return { charts, lowContrast, wide, stickyOk, links, ids, findings, theme: document.documentElement.className };
}
""".replace("__MIN__", str(MIN_CONTRAST))

# Runs in the page: what the issue-34 checks find (one string per problem).
FINDINGS = r"""
() => {
  const out = [];
  const shown = (el) => !el.closest("details:not([open])") && el.getBoundingClientRect().width > 0;
  const where = (el) => { const f = el.closest("figure.gpulab, .gpulab"); return f && f.id ? `#${f.id}` : el.tagName.toLowerCase(); };
  // Shading: the unit at the end of the metric header says which way is better.
  for (const table of document.querySelectorAll("table.gpulab-table")) {
    const head = table.querySelector("th.gpulab-metric");
    if (!head) continue;
    const unit = (head.textContent.match(/\(([^()]*)\)\s*$/) || [])[1] || "";
    const way = /^(ms|s|ps|ns|us|µs)$/.test(unit) ? "lower" : /^(×|.*\/s|GIPS)$/.test(unit) ? "higher"
      : /^(way|B|FLOP\/B|FLOP\/access)$/.test(unit) ? "none" : "unknown";
    for (const row of table.querySelectorAll("tbody tr")) {
      const cells = [...row.querySelectorAll("td.gpulab-num")].map((td) => ({
        best: td.classList.contains("gpulab-best"),
        value: parseFloat((td.firstChild ? td.firstChild.textContent : "").replace(/[^0-9.eE+-]/g, "")),
      })).filter((c) => Number.isFinite(c.value));
      const best = cells.filter((c) => c.best);
      if (!best.length) continue;
      if (way === "none") { out.push(`${where(table)}: a best cell under "${unit}", which has no direction`); break; }
      if (way === "unknown") continue;
      const pick = way === "lower" ? Math.min : Math.max;
      const want = pick(...cells.map((c) => c.value));
      if (best.some((c) => c.value !== want)) { out.push(`${where(table)}: best cell ${best[0].value} is not the row's ${way} (${want}, ${unit})`); break; }
    }
  }
  for (const svg of document.querySelectorAll("svg.gpulab-chart-svg")) {
    if (!shown(svg)) continue;
    const vb = svg.viewBox && svg.viewBox.baseVal && svg.viewBox.baseVal.width ? svg.viewBox.baseVal.width : 0;
    const scale = vb ? svg.getBoundingClientRect().width / vb : 1;
    const texts = [...svg.querySelectorAll("text")].filter((t) => t.textContent.trim());
    const small = texts.map((t) => parseFloat(getComputedStyle(t).fontSize) * scale).filter((px) => px < 11);
    if (small.length) out.push(`${where(svg)}: chart text of ${Math.min(...small).toFixed(1)} px on screen (< 11 px)`);
    // Legend: the elements before the plot's first axis or grid line, one entry per text.
    const seen = new Map();
    let swatch = [];
    for (const el of svg.children) {
      const tag = el.tagName.toLowerCase();
      if (tag !== "text" && [el.getAttribute("stroke"), el.getAttribute("fill")].includes("currentColor")) break;
      if (tag !== "text") {
        const b = el.getBBox();
        swatch.push([tag, el.getAttribute("fill"), el.getAttribute("stroke"), el.getAttribute("stroke-dasharray"), Math.round(b.width), Math.round(b.height)].join(":"));
        continue;
      }
      if (swatch.length) {
        const key = swatch.join("|");
        if (seen.has(key)) out.push(`${where(svg)}: legend entries "${seen.get(key)}" and "${el.textContent}" are drawn alike`);
        seen.set(key, el.textContent);
      }
      swatch = [];
    }
    // Axis labels reach the data: tick marks (short currentColor strokes) against the points.
    const ticks = { x: [], y: [] };
    for (const pl of svg.querySelectorAll("polyline[stroke=currentColor]")) {
      const p = pl.getAttribute("points").trim().split(/[\s,]+/).map(Number);
      if (p.length !== 4) continue;
      const [x1, y1, x2, y2] = p;
      if (x1 === x2 && Math.abs(y2 - y1) <= 6) ticks.x.push(x1);
      if (y1 === y2 && Math.abs(x2 - x1) <= 6) ticks.y.push(y1);
    }
    const pts = [...svg.querySelectorAll(".gpulab-tip")].map((t) => {
      const b = t.getBBox();
      return { x: b.x + b.width / 2, y: b.y + b.height / 2 };
    });
    for (const axis of ["x", "y"]) {
      const t = ticks[axis].sort((a, b) => a - b);
      if (t.length < 2 || !pts.length) continue;
      const gap = Math.max(...t.slice(1).map((v, i) => v - t[i]));
      const [lo, hi] = [Math.min(...pts.map((p) => p[axis])), Math.max(...pts.map((p) => p[axis]))];
      if (lo < t[0] - gap - 1 || hi > t[t.length - 1] + gap + 1)
        out.push(`${where(svg)}: points reach beyond its ${axis} axis labels by more than a label gap`);
    }
    // A ring says what it means: in the legend or under the chart.
    const fig = svg.closest("figure.gpulab-chart");
    if (svg.querySelector(".gpulab-tip-flag") && !/Ringed/.test((fig || svg).textContent))
      out.push(`${where(svg)}: ringed points without a note saying what the rings mean`);
  }
  // Key columns are in view without scrolling sideways.
  for (const key of document.querySelectorAll("th.gpulab-key, tr:first-child > td.gpulab-key")) {
    if (!shown(key)) continue;
    const box = (key.closest(".gpulab-table-wrap") || document.body).getBoundingClientRect();
    const r = key.getBoundingClientRect();
    if (r.right > Math.min(box.right, window.innerWidth) + 1 || r.left < box.left - 1)
      out.push(`${where(key)}: key column "${key.textContent.trim().slice(0, 30)}" is out of view`);
  }
  // A quality mark is explained beside it: the provenance line of its result.
  for (const mark of document.querySelectorAll("sup.gpulab-q")) {
    const fig = mark.closest("figure.gpulab");
    if (fig && !/quality:/.test(fig.textContent)) { out.push(`${where(mark)}: a quality mark without the line that explains it`); break; }
  }
  for (const status of document.querySelectorAll(".gpulab-status")) {
    const first = status.firstElementChild;
    if (!first || !first.classList.contains("gpulab-status-summary"))
      out.push("the status table's summary is not its first line");
  }
  return out;
}
"""
PROBE = PROBE.replace("__FINDINGS__", "(" + FINDINGS.strip() + ")")


def serve(root):
    handler = functools.partial(QuietHandler, directory=str(root))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def ids_in(path, cache={}):
    if path not in cache:
        text = path.read_text(encoding="utf-8", errors="replace")
        cache[path] = set(re.findall(r'\bid="([^"]+)"', text))
    return cache[path]


def check_links(root, page, links, page_ids):
    """Broken local links and anchors of `page` (relative to `root`)."""
    broken = []
    base = "http://x/" + page
    for href in links:
        if href.startswith(("mailto:", "javascript:")):
            continue
        url = urlparse(urljoin(base, href))
        if url.netloc != "x":
            continue  # external: not checked (offline)
        target_rel = unquote(url.path).lstrip("/") or "index.html"
        if target_rel.endswith("/"):
            target_rel += "index.html"
        target = root / target_rel
        if not target.exists():
            broken.append(f"{href}: {target_rel} does not exist")
            continue
        fragment = unquote(url.fragment)
        if fragment and target.suffix == ".html":
            ids = set(page_ids) if target_rel == page else ids_in(target)
            if fragment not in ids:
                broken.append(f"{href}: no id `{fragment}` in {target_rel}")
    return broken


def check_site(root, pages, out, chromium):
    """Runs every check on `pages` of the site at `root`; returns (problems, summary)."""
    from playwright.sync_api import sync_playwright

    out.mkdir(parents=True, exist_ok=True)
    server = serve(root)
    origin = f"http://127.0.0.1:{server.server_address[1]}/"

    problems = []
    summary = {"pages": len(pages), "themes": list(THEMES), "charts": 0, "wide_tables_1280": 0, "wide_tables_phone": 0}
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
        for theme_name, theme in THEMES.items():
            context = browser.new_context(viewport=DESKTOP)
            context.add_init_script(
                f"try {{ localStorage.setItem('mdbook-theme', '{theme}'); localStorage.setItem('mdbook-sidebar', 'hidden'); }} catch (e) {{}}"
            )
            for page_rel in pages:
                page = context.new_page()
                errors = []
                page.on("console", lambda m, e=errors: m.type == "error" and e.append(f"console: {m.text}"))
                page.on("pageerror", lambda exc, e=errors: e.append(f"page error: {exc}"))
                page.on(
                    "response",
                    lambda r, e=errors: r.status >= 400 and r.url.startswith(origin) and e.append(f"HTTP {r.status}: {r.url}"),
                )
                page.goto(origin + page_rel, wait_until="load")
                page.wait_for_timeout(150)
                probe = page.evaluate(PROBE)
                where = f"{page_rel} [{theme_name}]"
                if theme not in probe["theme"]:
                    problems.append(f"{where}: theme `{theme}` not applied (html class: {probe['theme']})")
                for e in errors:
                    problems.append(f"{where}: {e}")
                for c in probe["charts"]:
                    if not c["hidden"] and (c["width"] < 1 or c["height"] < 1):
                        problems.append(f"{where}: chart {c['what']} has zero size ({c['width']}x{c['height']})")
                    if c["untipped"]:
                        problems.append(f"{where}: chart {c['what']} has {c['untipped']} point(s) without a hover tip")
                for c in probe["lowContrast"][:5]:
                    problems.append(f"{where}: low contrast (< {MIN_CONTRAST}:1): {c}")
                if len(probe["lowContrast"]) > 5:
                    problems.append(f"{where}: … {len(probe['lowContrast']) - 5} more low-contrast texts")
                if not probe["stickyOk"]:
                    problems.append(f"{where}: a table that scrolls sideways has no sticky first column")
                for f in probe["findings"]:
                    problems.append(f"{where}: {f}")
                if theme_name == "light":
                    for b in check_links(root, page_rel, probe["links"], probe["ids"]):
                        problems.append(f"{page_rel}: broken link {b}")
                    summary["charts"] += len(probe["charts"])
                    summary["wide_tables_1280"] += probe["wide"]
                shot = out / theme_name / (page_rel.replace("/", "__").removesuffix(".html") + ".png")
                shot.parent.mkdir(parents=True, exist_ok=True)
                page.screenshot(path=str(shot), full_page=True)
                page.close()
            context.close()

        # Phone width: every page's tables must scroll inside their box; screenshots of the widest.
        phone = browser.new_context(viewport=PHONE, device_scale_factor=2, is_mobile=True)
        phone.add_init_script("try { localStorage.setItem('mdbook-theme', 'light'); } catch (e) {}")
        for page_rel in pages:
            page = phone.new_page()
            page.goto(origin + page_rel, wait_until="load")
            probe = page.evaluate(PROBE)
            summary["wide_tables_phone"] += probe["wide"]
            if not probe["stickyOk"]:
                problems.append(f"{page_rel} [phone]: a table that scrolls sideways has no sticky first column")
            for f in probe["findings"]:
                problems.append(f"{page_rel} [phone]: {f}")
            overflow = page.evaluate("() => document.documentElement.scrollWidth - window.innerWidth")
            if overflow > 2:
                problems.append(f"{page_rel} [phone]: the page itself scrolls sideways by {overflow} px")
            if probe["wide"]:
                shot = out / "phone" / (page_rel.replace("/", "__").removesuffix(".html") + ".png")
                shot.parent.mkdir(parents=True, exist_ok=True)
                page.screenshot(path=str(shot), full_page=False)
            page.close()
        phone.close()
        browser.close()
    server.shutdown()
    return problems, summary


SELF_TEST_PAGES = {
    "good.html": """<html class="light"><head><link rel="icon" href="data:,"></head><body><figure class="gpulab" id="g"><p>fine</p>
<figure class="gpulab-chart"><svg class="gpulab-chart-svg" width="200" height="100"><circle class="gpulab-tip" cx="9" cy="9" r="7"><title>3 samples</title></circle></svg></figure></figure>
<a href="#g">ok</a> <a href="bad.html#zero">ok</a></body></html>""",
    "bad.html": """<html class="light"><head><link rel="icon" href="data:,"></head><body><script>console.error("boom")</script>
<figure class="gpulab" id="zero"><p style="color:#ddd;background:#fff">faint</p>
<figure class="gpulab-chart"><svg class="gpulab-chart-svg" style="width:0;height:0"><circle class="gpulab-tip" cx="9" cy="9" r="7" data-tip="no script" /></svg></figure></figure>
<a href="#nowhere">dangling</a> <a href="missing.html">missing</a>
<figure class="gpulab" id="shade"><div class="gpulab-table-wrap" style="width:120px"><table class="gpulab-table"><thead><tr><th class="gpulab-metric">time (ms)</th></tr></thead>
<tbody><tr><th scope="row" style="position:sticky">1</th><td class="gpulab-num">1.5<sup class="gpulab-q">~</sup></td><td class="gpulab-num gpulab-best">2.5</td><td style="padding-left:400px" class="gpulab-key">key</td></tr></tbody></table></div></figure>
<figure class="gpulab" id="plot"><figure class="gpulab-chart"><svg class="gpulab-chart-svg" viewBox="0 0 720 200" style="width:200px">
<rect x="1" y="1" width="6" height="6" fill="#0072B2" /><text x="9" y="6" font-size="12">a</text><rect x="30" y="1" width="6" height="6" fill="#0072B2" /><text x="40" y="6" font-size="12">b</text>
<polyline stroke="currentColor" points="50,150 50,155" /><polyline stroke="currentColor" points="100,150 100,155" />
<circle class="gpulab-tip-flag" cx="600" cy="100" r="6" /><circle class="gpulab-tip" cx="600" cy="100" r="7"><title>t</title></circle></svg></figure></figure>
<div class="gpulab gpulab-status"><details><summary>paper</summary></details><p class="gpulab-status-summary">9 items</p></div></body></html>""",
}
SELF_TEST_EXPECT = [
    "console: boom", "zero size", "without a hover tip", "low contrast", "no id `nowhere`", "missing.html does not exist",
    "is not the row's lower", "(< 11 px)", "are drawn alike", "beyond its x axis labels", "is out of view",
    "without a note saying", "without the line that explains it", "summary is not its first line",
]


def self_test(out, chromium):
    """The checker must catch each kind of defect on a page made to have them, and pass a clean one."""
    import tempfile

    global THEMES
    themes, THEMES = THEMES, {"light": "light"}
    try:
        with tempfile.TemporaryDirectory() as site:
            root = Path(site)
            for name, html in SELF_TEST_PAGES.items():
                (root / name).write_text(html)
            (root / "index.html").write_text("<html><body>index</body></html>")
            problems, _ = check_site(root, sorted(SELF_TEST_PAGES), out / "self-test", chromium)
    finally:
        THEMES = themes
    missed = [e for e in SELF_TEST_EXPECT if not any(e in p for p in problems)]
    false_alarms = [p for p in problems if p.startswith("good.html")]
    for p in problems:
        print(f"  self-test found: {p}")
    if missed or false_alarms:
        print(f"browser test SELF-TEST FAILED: missed {missed}, false alarms {false_alarms}")
        return 1
    print(f"browser test self-test: all {len(SELF_TEST_EXPECT)} kinds of defect caught, clean page passes")
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("build", type=Path, nargs="?", default=Path("build-out"))
    ap.add_argument("--out", type=Path, default=Path("target/browser-test"))
    ap.add_argument("--chromium", default=None)
    ap.add_argument("--pages", default="", help="comma-separated pages (default: every page)")
    ap.add_argument("--self-test", action="store_true", help="check the checker on pages with known defects")
    args = ap.parse_args()

    if args.self_test:
        return self_test(args.out, args.chromium)
    root = args.build.resolve()
    if not (root / "index.html").exists():
        sys.exit(f"error: {root}/index.html missing: build the book first")
    pages = sorted(
        str(p.relative_to(root))
        for p in root.rglob("*.html")
        if p.name not in ("print.html", "toc.html") and "theme" not in p.parts
    )
    if args.pages:
        pages = [p for p in args.pages.split(",") if p]
    problems, summary = check_site(root, pages, args.out, args.chromium)

    (args.out / "summary.json").write_text(json.dumps({**summary, "problems": problems}, indent=2))
    print(
        f"browser test: {summary['pages']} pages x {len(THEMES)} themes, {summary['charts']} charts; "
        f"tables scrolling sideways (sticky first column): {summary['wide_tables_1280']} at 1280 px, "
        f"{summary['wide_tables_phone']} at {PHONE['width']} px; screenshots in {args.out}"
    )
    for p in problems:
        print(f"  FAIL {p}")
    passed = summary["pages"] * len(THEMES) - len({p.split(':')[0] for p in problems})
    print(f"{passed} passed, {len({p.split(':')[0] for p in problems})} failed")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
