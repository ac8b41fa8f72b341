// Small DOM helpers shared by the room's modules. Text always goes in as text, never as HTML.

export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "class") node.className = v;
    else if (k === "dataset") Object.assign(node.dataset, v);
    else if (k.startsWith("on") && typeof v === "function") node.addEventListener(k.slice(2), v);
    else if (v === true) node.setAttribute(k, "");
    else if (v !== false && v != null) node.setAttribute(k, String(v));
  }
  for (const c of children.flat()) {
    if (c == null || c === false) continue;
    node.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return node;
}

// notify shows a message for a while; errors stay until clicked.
export function notify(message, level = "info") {
  const box = document.getElementById("notices");
  const n = el("div", { class: `notice ${level}`, role: level === "error" ? "alert" : "status" }, message);
  n.addEventListener("click", () => n.remove());
  box.append(n);
  if (level !== "error") setTimeout(() => n.remove(), 5000);
  while (box.children.length > 5) box.firstChild.remove();
}

// logActivity adds a line to the activity log: who called what, with which input, and what came back.
export function logActivity(who, what, input, outcome, failed = false) {
  const log = document.getElementById("activity-log");
  const time = new Date().toLocaleTimeString();
  const show = (v) => (typeof v === "string" ? v : JSON.stringify(v));
  log.prepend(el("li", { class: failed ? "failed" : "" },
    el("time", {}, time), " ", el("b", {}, who), " → ", el("code", {}, what),
    input !== undefined ? el("code", { class: "args" }, show(input)) : null,
    outcome !== undefined ? el("span", { class: "outcome" }, show(outcome)) : null));
  while (log.children.length > 200) log.lastChild.remove();
}
