"""The circuit's schematic in a real browser.

Renders the documentation page an FMU built from
``components/circuits/circuit-file/examples/pump_relief.toml`` carries (the
``documentation_page`` example of the circuit-file crate writes it), and
the page of every hand-written circuit's FMU in ``dist/fmi3`` (written by
the build command), opens each in headless Chromium and checks what a
reader sees: every part's label in the drawing, inside the page, of
non-zero size, not hidden under anything, not overlapping another label
and inked in the screenshot; the drawing itself not blank. The
screenshots stay in ``target/schematic-browser/`` for a person to look at.

Needs Debian's ``chromium`` (tests/run-all.sh installs it); without it, and
without root to install it, the test is skipped with the command to run.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import tomllib
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "components/circuits/circuit-file/examples/pump_relief.toml"
OUT = ROOT / "target/schematic-browser"
WIDTH = 1280

# Measures the drawing and its labels once the page has loaded and writes
# the figures into the page, where --dump-dom shows them.
PROBE = """
<script>
(() => {
  const svg = document.querySelector('svg.schematic');
  // A long page: bring the drawing into the viewport, where
  // elementFromPoint sees it.
  if (svg) svg.scrollIntoView({block: 'center'});
  const box = (e) => { const r = e.getBoundingClientRect();
    return {x: r.left + scrollX, y: r.top + scrollY, w: r.width, h: r.height}; };
  const labels = [...document.querySelectorAll('svg.schematic text.label')].map((t) => {
    const b = box(t);
    const hit = document.elementFromPoint(b.x + b.w / 2 - scrollX, b.y + b.h / 2 - scrollY);
    const style = getComputedStyle(t);
    return {part: t.getAttribute('data-part'), text: t.textContent, box: b,
            on_top: hit === t || t.contains(hit),
            visible: style.visibility !== 'hidden' && style.display !== 'none' && style.opacity !== '0'};
  });
  const out = document.createElement('pre');
  out.id = 'probe';
  out.textContent = JSON.stringify({svg: svg ? box(svg) : null, labels,
    page: {w: document.documentElement.scrollWidth, h: document.documentElement.scrollHeight},
    viewport: {w: innerWidth, h: innerHeight}});
  document.body.appendChild(out);
})();
</script>
"""


def _chromium() -> str:
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found:
        return found
    command = "sudo apt-get install chromium"
    if os.geteuid() != 0:
        pytest.skip(f"Chromium is not installed and this is not root: install it with `{command}`")
    done = subprocess.run(
        ["apt-get", "install", "-y", "-qq", "chromium"],
        env={**os.environ, "DEBIAN_FRONTEND": "noninteractive"},
        capture_output=True,
        text=True,
        timeout=1800,
    )
    found = shutil.which("chromium")
    if done.returncode != 0 or not found:
        pytest.skip(f"Chromium could not be installed ({done.stderr.strip()[-300:]}): run `{command}`")
    return found


def _browser(chromium: str, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
         "--force-device-scale-factor=1", "--default-background-color=ffffffff", *args],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )


@pytest.fixture(scope="module")
def page() -> Path:
    """The documentation page of the pump-relief example, written fresh."""
    OUT.mkdir(parents=True, exist_ok=True)
    cargo = shutil.which("cargo")
    if cargo is None:
        pytest.fail("cargo is needed to write the documentation page")
    done = subprocess.run(
        [cargo, "run", "--release", "--quiet", "-p", "circuit-file", "--example", "documentation_page", "--",
         str(EXAMPLE)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=1800,
    )
    assert done.returncode == 0, done.stderr
    path = OUT / "index.html"
    path.write_text(done.stdout, encoding="utf-8")
    return path


# The hand-written circuits' FMUs; each page carries its circuit's
# schematic (components/circuits/circuit-file/tests/hand_written_schematics.rs
# draws them and checks each part's label is in the drawing once).
HAND_WRITTEN = [
    "OrificeChain", "ValveCylinder", "ValveActuator", "SlidingMass", "LiftActuator",
    "LiftHydraulics", "HoseH", "HoseG", "HoseY", "HoseZ", "FourBar", "FourBarActuator",
    "FourBarMechanism", "FourBarTwin",
]


def test_the_schematic_shows_every_part_in_chromium(page: Path) -> None:
    parts = list(tomllib.loads(EXAMPLE.read_text(encoding="utf-8"))["parts"])
    _check_page(page, parts, "pump_relief", smallest=200)


@pytest.mark.parametrize("model", HAND_WRITTEN)
def test_the_hand_written_circuits_pages_show_their_schematics(model: str) -> None:
    fmu = ROOT / "dist/fmi3" / f"{model}.fmu"
    if not fmu.exists():
        pytest.fail(f"{fmu} is missing: build the FMUs first (cargo run --release -p build-fmu)")
    OUT.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(fmu) as archive:
        html = archive.read("documentation/index.html").decode("utf-8")
    path = OUT / f"{model}.html"
    path.write_text(html, encoding="utf-8")
    # The parts the drawing names (its labels' data-part attributes): the
    # browser must show each of them.
    drawing = html[html.index("<svg "):html.index("</svg>")]
    parts = re.findall(r'<text class="label" data-part="([^"]+)"', drawing)
    assert parts, f"{model}: the schematic names no part"
    _check_page(path, parts, model, smallest=40)


def _check_page(page: Path, parts: list[str], name: str, smallest: int) -> None:
    """Opens `page` in Chromium: its one schematic shows the labels of
    `parts`, each visible and inked, and the screenshot goes to
    target/schematic-browser/`name`.png."""
    chromium = _chromium()
    from PIL import Image

    html = page.read_text(encoding="utf-8")
    assert html.count("<svg ") == 1 and "&lt;svg" not in html

    probe = OUT / f"{name}-probe.html"
    probe.write_text(html.replace("</body>", PROBE + "</body>"), encoding="utf-8")
    dom = _browser(chromium, f"--window-size={WIDTH},3000", "--dump-dom", probe.as_uri()).stdout
    start = dom.index('<pre id="probe">') + len('<pre id="probe">')
    raw = dom[start:dom.index("</pre>", start)]
    figures = json.loads(raw.replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", '"')
                         .replace("&amp;", "&"))
    svg = figures["svg"]
    assert svg is not None, "no schematic in the page"
    assert svg["w"] > smallest and svg["h"] > smallest, svg
    assert svg["x"] >= 0 and svg["x"] + svg["w"] <= figures["viewport"]["w"], "drawing wider than the page"

    labels = figures["labels"]
    assert sorted(label["part"] for label in labels) == sorted(parts)
    for label in labels:
        b = label["box"]
        assert label["text"] == label["part"]
        assert b["w"] > 5 and b["h"] > 5, label
        assert svg["x"] <= b["x"] and b["x"] + b["w"] <= svg["x"] + svg["w"] + 1, label
        assert svg["y"] <= b["y"] and b["y"] + b["h"] <= svg["y"] + svg["h"] + 1, label
        assert label["visible"] and label["on_top"], f"label {label['part']} is hidden"
    for i, a in enumerate(labels):
        for b in labels[i + 1:]:
            p, q = a["box"], b["box"]
            apart = (p["x"] + p["w"] <= q["x"] or q["x"] + q["w"] <= p["x"]
                     or p["y"] + p["h"] <= q["y"] or q["y"] + q["h"] <= p["y"])
            assert apart, f"labels {a['part']} and {b['part']} overlap"

    # The screenshot: the page down to the end of the drawing.
    shot = OUT / f"{name}.png"
    height = int(svg["y"] + svg["h"]) + 40
    _browser(chromium, f"--window-size={WIDTH},{height}", f"--screenshot={shot}", page.as_uri())
    image = Image.open(shot).convert("L")
    assert image.size == (WIDTH, height), image.size
    area = image.crop((int(svg["x"]), int(svg["y"]), int(svg["x"] + svg["w"]), int(svg["y"] + svg["h"])))
    counts = area.histogram()
    inked = sum(counts[:160]) / sum(counts)
    assert 0.005 < inked < 0.3, f"{inked:.2%} of the drawing is inked: blank or black"
    for label in labels:
        b = label["box"]
        text = image.crop((int(b["x"]), int(b["y"]), int(b["x"] + b["w"]) + 1, int(b["y"] + b["h"]) + 1))
        dark = sum(text.histogram()[:128])
        assert dark >= 10, f"label {label['part']} is not inked in the screenshot"
