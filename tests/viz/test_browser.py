"""The explorer in a real browser: a notebook is executed, exported to HTML by nbconvert and opened in
headless chromium (Debian's chromium + chromium-driver, installed by `make setup`); clicking a closed scope
(a library call, here a dense layer, and the call inside it) opens it, clicking its heading closes it, and hovering a box shows its type and source line. Leaves a screenshot in out/explorer.png.

No network is needed or used: the explorer's script and style are inline in the exported page.
"""

from __future__ import annotations

from pathlib import Path

import nbclient
import nbconvert
import nbformat
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By

ROOT = Path(__file__).resolve().parents[2]
CELLS = [
    "import numpy as np\nimport stablegraph as sg\nfrom stablegraph import numpy as snp",
    """g = sg.Graph("notebook")
with g:
    x = sg.placeholder(("batch", 4), sg.float32, name="x")
    with sg.name_scope("model"):
        h = sg.nn.relu(sg.nn.dense(x, 8, name="fc1"))
        y = sg.nn.dense(h, 2, name="fc2")
g""",
]


def _exported_notebook(kernel_name: str, folder: Path) -> Path:
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in CELLS])
    client = nbclient.NotebookClient(
        nb, kernel_name=kernel_name, timeout=120, resources={"metadata": {"path": str(folder)}}
    )
    client.execute()
    body, _ = nbconvert.HTMLExporter().from_notebook_node(nb)
    page = folder / "notebook.html"
    page.write_text(body, encoding="utf-8")
    return page


def _open(driver, panel_path: str, label: str):
    """Click the closed box showing ``label`` in the panel of ``panel_path``; the panel it opens."""
    boxes = driver.find_elements(By.CSS_SELECTOR, f'[data-path="{panel_path}"] > .sgx-svg g.sg-collapsed')
    (box,) = [b for b in boxes if label in b.text.split("\n")]
    uid, k = box.get_attribute("id").rsplit("-g", 1)  # the box of group k opens panel k
    panel = driver.find_element(By.ID, f"{uid}-p{k}")
    assert not panel.is_displayed() and "sgx-open" not in box.get_attribute("class").split()
    box.click()
    assert panel.is_displayed() and "sgx-open" in box.get_attribute("class").split()
    return panel


def test_clicking_a_closed_scope_in_an_exported_notebook_opens_it(kernel_name, tmp_path, chromium):
    page = _exported_notebook(kernel_name, tmp_path)
    driver = chromium
    driver.get(page.as_uri())
    model = driver.find_element(By.CSS_SELECTOR, '[data-path="model"]')
    assert model.is_displayed()  # a graph this size starts with its scopes open, library calls closed
    fc1 = _open(driver, "model", "fc1")
    assert fc1.get_attribute("data-path") == "model/fc1" and "dense" in model.text
    init = _open(driver, "model/fc1", "kernel/init")
    assert init.get_attribute("data-path") == "model/fc1/kernel/init" and "uniform" in init.text
    dot = next(n for n in fc1.find_elements(By.CSS_SELECTOR, "g.node") if n.text.startswith("dot_general"))
    ActionChains(driver).move_to_element(dot).perform()
    info = driver.find_element(By.CSS_SELECTOR, ".sgx-info").text
    assert info.startswith("model/fc1/dot_general = dot_general : f32[batch,8]") and "built at" in info
    init.find_element(By.CSS_SELECTOR, ".sgx-head").click()
    assert not init.is_displayed() and fc1.is_displayed()
    _open(driver, "model/fc1", "kernel/init")
    (ROOT / "out").mkdir(exist_ok=True)
    driver.find_element(By.CSS_SELECTOR, ".sgx").screenshot(str(ROOT / "out" / "explorer.png"))
    assert (ROOT / "out" / "explorer.png").read_bytes()[:4] == b"\x89PNG"
