// stablegraph's graph explorer (shipped inline with each drawing: no network, no libraries).
// A drawing is a tree of panels, one per group (name scope, control-flow body, chunk);
// a closed group's box links to its panel ("#<panel id>"). Clicking the box opens or
// closes the panel, clicking a panel's heading closes it, hovering a box shows its
// tooltip (name, type, the user's file:line) in the info line.
(function () {
  "use strict";
  if (window.sgExplorer) return;

  var XLINK = "http://www.w3.org/1999/xlink";

  function byId(root, id) {
    return root.querySelector('[id="' + id + '"]');
  }

  function linkOf(a) {
    return a.getAttribute("xlink:href") || a.getAttributeNS(XLINK, "href") || a.getAttribute("href");
  }

  function tipOf(a) {
    return a.getAttribute("xlink:title") || a.getAttributeNS(XLINK, "title") || a.getAttribute("title");
  }

  // The box that opens a panel has the panel's id with -g for -p.
  function boxOf(root, panel) {
    return byId(root, panel.id.replace(/-p(\d+)$/, "-g$1"));
  }

  function setOpen(root, panel, open) {
    panel.hidden = !open;
    var box = boxOf(root, panel);
    if (box) box.classList.toggle("sgx-open", open);
    if (open && panel.scrollIntoView) panel.scrollIntoView({ block: "nearest" });
  }

  function setAll(root, open) {
    var panels = root.querySelectorAll(".sgx-panel.sgx-closable");
    for (var i = 0; i < panels.length; i++) setOpen(root, panels[i], open);
  }

  function onClick(root, ev) {
    var button = ev.target.closest("[data-sgx-all]");
    if (button) return setAll(root, button.getAttribute("data-sgx-all") === "open");
    var head = ev.target.closest(".sgx-head");
    if (head && head.parentElement.classList.contains("sgx-closable")) {
      return setOpen(root, head.parentElement, false);
    }
    var a = ev.target.closest("a");
    var href = a && linkOf(a);
    if (!href || href.charAt(0) !== "#") return;
    var panel = byId(root, href.slice(1));
    if (!panel) return;
    ev.preventDefault();
    setOpen(root, panel, panel.hidden);
  }

  function onHover(root, ev) {
    var a = ev.target.closest("a");
    var tip = a && tipOf(a);
    var info = root.querySelector(".sgx-info");
    if (tip && info) info.textContent = tip;
  }

  window.sgExplorer = function (root) {
    if (!root || root.getAttribute("data-sgx-ready")) return;
    root.setAttribute("data-sgx-ready", "1");
    var shown = root.querySelectorAll(".sgx-panel.sgx-closable:not([hidden])");
    for (var i = 0; i < shown.length; i++) {
      var box = boxOf(root, shown[i]);
      if (box) box.classList.add("sgx-open");
    }
    root.addEventListener("click", function (ev) { onClick(root, ev); });
    root.addEventListener("mouseover", function (ev) { onHover(root, ev); });
  };
})();
