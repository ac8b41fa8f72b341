// Stand-in for https://cdn.tailwindcss.com (tests/compat): like the Play CDN, it watches the document's
// classes and writes the CSS they need into a <style> element.
(function () {
  const rules = { "p-4": "padding:1rem", "font-bold": "font-weight:700", "text-red-500": "color:rgb(239,68,68)" };
  const style = document.createElement("style");
  function scan() {
    const used = new Set();
    document.querySelectorAll("[class]").forEach((el) => el.classList.forEach((c) => rules[c] && used.add(c)));
    const css = [...used].map((c) => `.${c}{${rules[c]}}`).join("\n");
    if (style.textContent !== css) style.textContent = css; // its own change would wake the observer again
  }
  document.head.append(style);
  new MutationObserver(scan).observe(document.documentElement, { subtree: true, childList: true, attributes: true, attributeFilter: ["class"] });
  scan();
})();
