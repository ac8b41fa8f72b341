/* SDK section: declarative WebMCP (docs/webmcp.md). A <form toolname tooldescription> is a tool whose input
 * schema is built from the form's controls, inside the tool contract's enforceable subset; what the subset
 * cannot say (a pattern, a date format, a step) goes into the property's description. A call fills the
 * controls, runs the form's constraint validation, and then either submits (toolautosubmit: the submit event
 * says agentInvoked and offers respondWith) or leaves the filled form to the person. A MutationObserver keeps
 * the tools in step with the forms. The section is a function of the SDK's `sdk` object (sdk.js). */
function (sdk) {
  "use strict";
  var SKIP = { submit: 1, reset: 1, button: 1, image: 1, hidden: 1, file: 1 };
  var TEXT = { text: 1, email: 1, url: 1, tel: 1, search: 1, password: 1, textarea: 1 };
  var FORMATS = { // what the subset cannot say about these inputs, for the model
    email: "an email address", url: "an absolute URL", date: "a date as YYYY-MM-DD", time: "a time as HH:MM",
    "datetime-local": "a local date and time as YYYY-MM-DDTHH:MM", month: "a month as YYYY-MM",
    week: "a week as YYYY-Www", color: "a colour as #rrggbb"
  };
  var MAX_TEXT = 300;
  var tools = new Map(); // form → {name, key} of the tool it declared

  function clip(s) { s = String(s).replace(/\s+/g, " ").trim(); return s.length > MAX_TEXT ? s.slice(0, MAX_TEXT) + "…" : s; }
  function attr(el, name) { var v = el.getAttribute(name); return v == null ? "" : clip(v); }
  function kind(el) {
    var tag = el.localName;
    if (tag === "textarea") return "textarea";
    if (tag === "select") return el.multiple ? "select-multiple" : "select";
    if (tag !== "input") return "";
    return (el.getAttribute("type") || "text").toLowerCase();
  }
  // labelText is a label's text without the controls inside it (the browser's rule).
  function labelText(label) {
    var c = label.cloneNode(true);
    var inner = c.querySelectorAll("input, select, textarea, button, meter, output, progress");
    for (var i = 0; i < inner.length; i++) inner[i].remove();
    return clip(c.textContent || "");
  }
  function groupDescription(el) {
    var fs = el.closest("fieldset[toolparamdescription]");
    return fs ? attr(fs, "toolparamdescription") : "";
  }
  // Descriptions: toolparamdescription, then the <label>, then aria-description, then a <fieldset
  // toolparamdescription> around it. A group (radio buttons, checkboxes sharing a name) skips the labels,
  // which name its choices.
  function describe(members, grouped) {
    for (var i = 0; i < members.length; i++) { var d = attr(members[i], "toolparamdescription"); if (d) return d; }
    var first = members[0];
    if (!grouped && first.labels && first.labels.length) { var l = labelText(first.labels[0]); if (l) return l; }
    return attr(first, "aria-description") || groupDescription(first);
  }
  function num(v) { if (v === null || v.trim() === "") return undefined; var n = Number(v); return isFinite(n) ? n : undefined; }
  function whole(n) { return n === undefined || Math.floor(n) === n; }
  function choiceTitle(el) { return el.localName === "option" ? clip(el.label || el.textContent || "") : (el.labels && el.labels.length ? labelText(el.labels[0]) : ""); }
  // choices lists the values with the text a person sees, when that says more than the value.
  function choices(values, titles) {
    var parts = [];
    for (var i = 0; i < values.length; i++) if (titles[i] && titles[i] !== values[i]) parts.push(JSON.stringify(values[i]) + " = " + titles[i]);
    return parts.length ? "Choices: " + parts.join("; ") + "." : "";
  }

  // property builds one schema property from the controls that share a name, or says why it cannot.
  function property(name, members) {
    var first = members[0], k = kind(first), notes = [], p;
    var same = members.every(function (m) { return kind(m) === k; });
    if (!same || (members.length > 1 && k !== "radio" && k !== "checkbox")) {
      return { refused: "two controls are named " + JSON.stringify(name) + "; a tool parameter needs one" };
    }
    if (k === "radio" || k === "select" || k === "select-multiple" || (k === "checkbox" && members.length > 1)) {
      var opts = k.indexOf("select") === 0 ? Array.prototype.filter.call(first.options, function (o) { return !o.disabled; }) : members;
      var values = opts.map(function (o) { return o.value; });
      var item = { type: "string", enum: values };
      var c = choices(values, opts.map(choiceTitle));
      if (c) notes.push(c);
      if (k === "radio" || k === "select") p = item;
      else { p = { type: "array", items: item }; notes.push("Each choice at most once."); }
    } else if (k === "checkbox") {
      p = { type: "boolean" };
    } else if (k === "number" || k === "range") {
      var min = num(first.getAttribute("min")), max = num(first.getAttribute("max"));
      var stepAttr = (first.getAttribute("step") || "").trim().toLowerCase();
      var step = stepAttr === "any" ? undefined : (num(stepAttr) > 0 ? num(stepAttr) : 1);
      p = { type: step !== undefined && whole(step) && whole(min) ? "integer" : "number" };
      if (min !== undefined) p.minimum = min;
      if (max !== undefined) p.maximum = max;
      if (step !== undefined && step !== 1) notes.push("In steps of " + step + (min !== undefined ? " from " + min : "") + ".");
    } else {
      p = { type: "string" };
      if (TEXT[k] || !FORMATS[k]) {
        var minL = num(first.getAttribute("minlength")), maxL = num(first.getAttribute("maxlength"));
        if (minL !== undefined && minL >= 0 && whole(minL)) p.minLength = minL;
        if (maxL !== undefined && maxL >= 0 && whole(maxL)) p.maxLength = maxL;
      }
      if (FORMATS[k]) notes.push("Give " + FORMATS[k] + ".");
      var lo = first.getAttribute("min"), hi = first.getAttribute("max");
      if (FORMATS[k] && (lo || hi)) notes.push("From " + (lo || "any") + " to " + (hi || "any") + ".");
      var pattern = first.getAttribute("pattern");
      if (pattern && k !== "textarea") notes.push("Must match the pattern " + clip(pattern) + ".");
    }
    var desc = describe(members, k === "radio" || members.length > 1);
    if (notes.length) desc = (desc ? desc + " " : "") + notes.join(" ");
    if (desc) p.description = desc;
    var title = attr(first, "toolparamtitle");
    if (title) p.title = title;
    return { schema: p, required: members.some(function (m) { return m.required; }) };
  }

  // declaration turns a form into {decl, refused?}: the tool it declares, or why the contract must refuse it.
  function declaration(form) {
    var groups = new Map(), order = [];
    var els = form.elements;
    for (var i = 0; i < els.length; i++) {
      var el = els[i], k = kind(el);
      if (!k || SKIP[k] || !el.name || el.disabled) continue;
      if (!groups.has(el.name)) { groups.set(el.name, []); order.push(el.name); }
      groups.get(el.name).push(el);
    }
    // A null prototype keeps a control named __proto__ a property (which the contract then refuses, visibly).
    var schema = { type: "object", properties: Object.create(null) }, required = [], refused = null;
    order.forEach(function (name) {
      var r = property(name, groups.get(name));
      if (r.refused) { if (!refused) refused = { path: "/properties/" + name.replace(/~/g, "~0").replace(/\//g, "~1"), message: r.refused }; return; }
      schema.properties[name] = r.schema;
      if (r.required) required.push(name);
    });
    if (required.length) schema.required = required;
    var decl = { name: form.getAttribute("toolname"), description: form.getAttribute("tooldescription"), inputSchema: schema };
    var title = attr(form, "tooltitle");
    if (title) decl.title = title;
    return { decl: decl, refused: refused, controls: groups };
  }

  // ---- a call ----
  var setValue = function (el, v) {
    // Through the prototype's setter, so frameworks that track the value (React) see the change.
    var proto = el.localName === "textarea" ? HTMLTextAreaElement.prototype : el.localName === "select" ? HTMLSelectElement.prototype : HTMLInputElement.prototype;
    Object.getOwnPropertyDescriptor(proto, "value").set.call(el, v);
    el.dispatchEvent(new Event("input", { bubbles: true }));
    el.dispatchEvent(new Event("change", { bubbles: true }));
  };
  function check(el, on) { if (el.checked !== on) el.click(); }
  // fill sets the controls named in args and returns what the controls would not take (a date input drops
  // a value that is not a date, a number input one that is not a number).
  function fill(groups, args) {
    var bad = [];
    Object.keys(args).forEach(function (name) {
      var members = groups.get(name), v = args[name];
      if (!members) return;
      var first = members[0], k = kind(first);
      if (k === "checkbox" && members.length === 1) check(first, v === true);
      else if (k === "checkbox" || k === "radio") members.forEach(function (m) { check(m, Array.isArray(v) ? v.indexOf(m.value) >= 0 : m.value === v); });
      else if (k === "select-multiple") {
        Array.prototype.forEach.call(first.options, function (o) { o.selected = Array.isArray(v) && v.indexOf(o.value) >= 0; });
        first.dispatchEvent(new Event("input", { bubbles: true }));
        first.dispatchEvent(new Event("change", { bubbles: true }));
      } else {
        setValue(first, String(v));
        if (String(v) !== "" && first.value === "") bad.push(name + ": " + JSON.stringify(v) + " is not a value this field takes");
      }
    });
    return bad;
  }
  // problems adds the form's constraint validation messages (the browser's own words) to out, one per name.
  function problems(form, groups, out) {
    if (form.noValidate) return out;
    groups.forEach(function (members, name) {
      if (out.some(function (m) { return m.indexOf(name + ": ") === 0; })) return;
      for (var i = 0; i < members.length; i++) {
        if (!members[i].validity.valid) { out.push(name + ": " + members[i].validationMessage); break; }
      }
    });
    return out;
  }

  // The submit event of an agent's call says so: agentInvoked, and respondWith(promise) after
  // preventDefault(), as the browser's SubmitEvent does. Our listener runs first (window, capture, added at
  // document start).
  var agentSubmit = null; // {form, response, dispatching} while an agent's submit is being dispatched
  window.addEventListener("submit", function (e) {
    var mine = agentSubmit && agentSubmit.form === e.target && agentSubmit.dispatching ? agentSubmit : null;
    try {
      Object.defineProperty(e, "agentInvoked", { value: !!mine, configurable: true });
      Object.defineProperty(e, "respondWith", { configurable: true, value: function (p) {
        if (!mine || !mine.dispatching || !e.defaultPrevented) throw new DOMException("respondWith() needs an agent's submit event, during its dispatch, after preventDefault()", "InvalidStateError");
        mine.response = Promise.resolve(p);
      } });
    } catch (err) { /* an engine whose events refuse own properties: the page sees the plain event */ }
  }, true);

  function execute(form) {
    return function (args) {
      var d = tools.get(form);
      if (!d || !form.isConnected) throw new Error("the form of this tool is gone");
      var groups = declaration(form).controls;
      var bad = problems(form, groups, fill(groups, args || {}));
      if (bad.length) throw new Error("form validation failed: " + bad.join("; "));
      if (!form.hasAttribute("toolautosubmit")) {
        var button = form.querySelector("button:not([type]), button[type=submit], input[type=submit], input[type=image]");
        try { (button || form).focus(); } catch (err) { /* not focusable */ }
        sdk.notice("form", d.name);
        return "The form " + JSON.stringify(d.name) + " is filled in and waiting for the person to check and submit it.";
      }
      agentSubmit = { form: form, response: null, dispatching: true };
      var fired = false, prevented = false, own = agentSubmit;
      var seen = function (e) { if (e.target === form) { fired = true; prevented = e.defaultPrevented; } };
      window.addEventListener("submit", seen); // bubbling, after the page's own listeners
      try { form.requestSubmit(); } finally { own.dispatching = false; agentSubmit = null; window.removeEventListener("submit", seen); }
      if (own.response) return own.response;
      if (!fired) throw new Error("the form did not submit");
      if (prevented) throw new Error("the page cancelled the submission without a response");
      return "The form " + JSON.stringify(d.name) + " was submitted.";
    };
  }

  // ---- the tools follow the forms ----
  function sync() {
    var seen = new Set();
    var forms = document.querySelectorAll("form[toolname][tooldescription]");
    for (var i = 0; i < forms.length; i++) {
      var form = forms[i], r = declaration(form), key = JSON.stringify([r.decl, r.refused]);
      seen.add(form);
      var had = tools.get(form);
      if (had && had.key === key) continue;
      if (had) sdk.unregister(had.name);
      var d = sdk.declare(r.decl, execute(form), r.refused);
      tools.set(form, { name: d.name, key: key });
    }
    tools.forEach(function (t, form) { if (!seen.has(form)) { tools.delete(form); sdk.unregister(t.name); } });
  }
  var queued = false;
  function schedule() { if (!queued) { queued = true; Promise.resolve().then(function () { queued = false; sync(); }); } }
  var observer = new MutationObserver(function () { if (tools.size || document.querySelector("form[toolname]")) schedule(); });
  observer.observe(document, {
    subtree: true, childList: true, attributes: true,
    attributeFilter: ["toolname", "tooldescription", "toolautosubmit", "tooltitle", "toolparamdescription", "toolparamtitle",
      "name", "type", "required", "disabled", "multiple", "min", "max", "step", "minlength", "maxlength", "pattern", "value", "for", "aria-description"]
  });
  schedule();
}
