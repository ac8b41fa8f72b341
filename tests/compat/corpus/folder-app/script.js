// A folder app: its style, its data and this script sit next to index.html.
const list = document.getElementById("items");
function show(items) { list.replaceChildren(...items.map((i) => Object.assign(document.createElement("li"), { textContent: i }))); }
fetch("data.json").then((r) => r.json()).then((d) => {
  show(d.items);
  const styled = getComputedStyle(document.querySelector("h1")).color === "rgb(10, 120, 60)";
  document.getElementById("status").textContent = `${d.items.length} items, styled: ${styled}`;
  document.body.dataset.done = "yes";
}, (e) => { document.getElementById("status").textContent = "could not load the list: " + e.message; document.body.dataset.done = "yes"; });
(document.modelContext || navigator.modelContext)?.registerTool({
  name: "add_item", description: "Add an item to the list",
  inputSchema: { type: "object", properties: { item: { type: "string" } }, required: ["item"] },
  execute: ({ item }) => { list.append(Object.assign(document.createElement("li"), { textContent: item })); return "added"; },
});
