// Stand-in for https://unpkg.com/react-dom@18 (tests/compat): createRoot(el).render(tree) builds the DOM.
(function () {
  function build(v) {
    if (v == null || v === false) return document.createTextNode("");
    if (typeof v !== "object") return document.createTextNode(String(v));
    const el = document.createElement(v.type);
    for (const [k, val] of Object.entries(v.props)) if (k !== "children") el.setAttribute(k === "className" ? "class" : k, val);
    for (const c of v.children) el.append(build(c));
    return el;
  }
  window.ReactDOM = { createRoot: (el) => ({ render: (tree) => el.replaceChildren(build(tree)) }) };
})();
