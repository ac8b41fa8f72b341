/* Voicebox tool contract: the JavaScript twin of backend/toolcontract (Go).
 * A dependency-free classic script for the sandbox bridge page and Node.
 * The Go host is the authority; this repeats the same checks as a second
 * wall, with the same codes, paths and order (see toolcontract.go, args.go,
 * schema.go for the documented rules; testdata/vectors.json drives both).
 * Defines globalThis.VoiceboxToolContract. */
(function (root) {
  "use strict";

  var LIMITS = Object.freeze({
    maxTools: 16, maxArgsBytes: 65536, maxArgsDepth: 32, maxArgsNodes: 2048,
    maxSchemaDepth: 16, maxSchemaNodes: 512, maxOutputBytes: 65536,
    callTimeoutMs: 5000, maxNameLength: 64, maxDescription: 1024
  });
  var hasOwn = Function.prototype.call.bind(Object.prototype.hasOwnProperty);

  function Refusal(code, path, message) { this.refused = code; this.path = path; this.message = message; }
  function refusal(code, path, message) { return { ok: false, refused: code, path: path, message: message }; }
  function asResult(e) { if (e instanceof Refusal) return refusal(e.refused, e.path, e.message); throw e; }
  function bad(path, message) { return new Refusal("invalid-tool-parameters", path, message); }
  function ptr(base, tok) { return base + "/" + String(tok).replace(/~/g, "~0").replace(/\//g, "~1"); }

  function kindOf(v) {
    if (v === null) return "null";
    if (Array.isArray(v)) return "array";
    return typeof v; // "object", "number", "string", "boolean", or non-JSON
  }
  function isPair(s, i) { // a high surrogate at i followed by a low one
    var c = s.charCodeAt(i), d = s.charCodeAt(i + 1);
    return c >= 0xd800 && c <= 0xdbff && d >= 0xdc00 && d <= 0xdfff;
  }
  function cpCount(s) {
    var n = 0;
    for (var i = 0; i < s.length; i++, n++) if (isPair(s, i)) i++;
    return n;
  }
  function utf8Length(s) {
    var n = 0;
    for (var i = 0; i < s.length; i++) {
      var c = s.charCodeAt(i);
      if (c < 0x80) n += 1;
      else if (c < 0x800) n += 2;
      else if (isPair(s, i)) { n += 4; i++; }
      else n += 3;
    }
    return n;
  }
  // Unicode code point order, the key visiting order shared with Go.
  function cmpCP(a, b) {
    var i = 0, j = 0;
    while (i < a.length && j < b.length) {
      var x = a.codePointAt(i), y = b.codePointAt(j);
      if (x !== y) return x < y ? -1 : 1;
      i += x > 0xffff ? 2 : 1; j += y > 0xffff ? 2 : 1;
    }
    return i < a.length ? 1 : j < b.length ? -1 : 0;
  }
  function sortedKeys(o) { return Object.keys(o).sort(cmpCP); }

  // ---- exact decimals (see decimal.go) ----
  function parseNum(t) {
    var m = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(t);
    var digits = m[2] + (m[3] || ""), e = m[4] ? Number(m[4]) : 0;
    e = Math.max(-1e12, Math.min(1e12, e));
    var s0 = 0, s1 = digits.length;
    while (s0 < s1 && digits[s0] === "0") s0++;
    while (s1 > s0 && digits[s1 - 1] === "0") s1--;
    if (s0 >= s1) return { neg: false, zero: true, exp: 0, d: "" };
    return { neg: m[1] === "-", zero: false, exp: m[2].length - s0 + e, d: digits.slice(s0, s1) };
  }
  function numOf(x) { return parseNum(x === 0 ? "0" : String(x)); } // double → its shortest text
  function isInt(n) { return n.zero || n.d.length <= n.exp; }
  function cmpNum(a, b) {
    if (a.zero || b.zero) {
      if (a.zero && b.zero) return 0;
      if (a.zero) return b.neg ? 1 : -1;
      return a.neg ? -1 : 1;
    }
    if (a.neg !== b.neg) return a.neg ? -1 : 1;
    var c = 0;
    if (a.exp !== b.exp) c = a.exp < b.exp ? -1 : 1;
    else {
      for (var j = 0; j < a.d.length || j < b.d.length; j++) {
        var x = a.d[j] || "0", y = b.d[j] || "0";
        if (x !== y) { c = x < y ? -1 : 1; break; }
      }
    }
    return a.neg ? -c : c;
  }

  // ---- declarations (see ValidateTool, checkSchema) ----
  var TYPES = ["string", "number", "integer", "boolean", "array", "object"];
  var ALLOWED = {
    string: ["minLength", "maxLength", "enum"], number: ["minimum", "maximum", "enum"],
    integer: ["minimum", "maximum", "enum"], boolean: [], array: ["items"],
    object: ["properties", "required", "additionalProperties"]
  };
  function keywordAllowed(t, ctx, key) {
    if (key === "type" || key === "description" || key === "title") return true;
    if (ctx === "items") return key === "enum" && t !== "boolean";
    return ALLOWED[t].indexOf(key) >= 0;
  }
  function treeBounds(v, maxDepth, maxNodes) {
    var nodes = 0, over = null;
    (function walk(v, depth) {
      if (++nodes > maxNodes) { over = "nodes"; return false; }
      var k = kindOf(v);
      if (k !== "array" && k !== "object") return true;
      if (depth + 1 > maxDepth) { over = "depth"; return false; }
      var kids = k === "array" ? v : Object.keys(v).map(function (key) { return v[key]; });
      for (var i = 0; i < kids.length; i++) if (!walk(kids[i], depth + 1)) return false;
      return true;
    })(v, 0);
    if (over === "nodes") return bad("", "schema has more than " + maxNodes + " nodes");
    if (over === "depth") return bad("", "schema is nested deeper than " + maxDepth + " levels");
    return null;
  }
  function jsonEqual(a, b) {
    var k = kindOf(a);
    if (k !== kindOf(b)) return false;
    if (k === "array") {
      if (a.length !== b.length) return false;
      for (var i = 0; i < a.length; i++) if (!jsonEqual(a[i], b[i])) return false;
      return true;
    }
    if (k !== "object") return a === b;
    var ka = Object.keys(a);
    if (ka.length !== Object.keys(b).length) return false;
    return ka.every(function (key) { return hasOwn(b, key) && jsonEqual(a[key], b[key]); });
  }
  function copyJSON(v) {
    var k = kindOf(v);
    if (k === "array") return v.map(copyJSON);
    if (k !== "object") return v === 0 ? 0 : v;
    var o = {};
    Object.keys(v).forEach(function (key) { o[key] = copyJSON(v[key]); });
    return o;
  }
  function nonNegInt(x) {
    if (typeof x !== "number" || !isFinite(x) || x < 0 || x !== Math.trunc(x)) return -1;
    return Math.min(x, 2147483648);
  }

  function checkSchema(v, path, ctx) {
    if (kindOf(v) !== "object") throw bad(path, "schema must be an object, got " + kindOf(v));
    if (!hasOwn(v, "type")) throw bad(ptr(path, "type"), "type is required");
    var t = v.type;
    if (typeof t !== "string") throw bad(ptr(path, "type"), "type must be a single string");
    if (TYPES.indexOf(t) < 0) throw bad(ptr(path, "type"), "unsupported type " + JSON.stringify(t));
    if (ctx === "root" && t !== "object") throw bad(ptr(path, "type"), 'parameters must have type "object"');
    if (ctx === "items" && (t === "array" || t === "object")) throw bad(ptr(path, "type"), "array items must have a primitive type");
    sortedKeys(v).forEach(function (key) {
      if (!keywordAllowed(t, ctx, key)) throw bad(ptr(path, key), "unsupported keyword " + JSON.stringify(key) + " for " + (ctx === "items" ? "array items" : "type " + t));
    });
    ["description", "title"].forEach(function (a) {
      if (hasOwn(v, a) && typeof v[a] !== "string") throw bad(ptr(path, a), a + " must be a string");
    });
    var n = { type: t, minLen: -1, maxLen: -1, min: null, max: null, enumStr: null, enumNum: null };
    ["minLength", "maxLength"].forEach(function (a) {
      if (!hasOwn(v, a)) return;
      var l = nonNegInt(v[a]);
      if (l < 0) throw bad(ptr(path, a), a + " must be a non-negative integer");
      if (a === "minLength") n.minLen = l; else n.maxLen = l;
    });
    if (n.minLen >= 0 && n.maxLen >= 0 && n.minLen > n.maxLen) throw bad(ptr(path, "minLength"), "minLength is greater than maxLength (unsatisfiable)");
    ["minimum", "maximum"].forEach(function (a) {
      if (!hasOwn(v, a)) return;
      if (typeof v[a] !== "number") throw bad(ptr(path, a), a + " must be a number");
      if (!isFinite(v[a])) throw bad(ptr(path, a), a + " must be a finite number");
      if (a === "minimum") n.min = numOf(v[a]); else n.max = numOf(v[a]);
    });
    if (n.min && n.max && v.minimum > v.maximum) throw bad(ptr(path, "minimum"), "minimum is greater than maximum (unsatisfiable)");
    if (n.min && n.max && t === "integer" && Math.ceil(v.minimum) > Math.floor(v.maximum)) throw bad(ptr(path, "minimum"), "no integer lies between minimum and maximum (unsatisfiable)");
    if (hasOwn(v, "enum")) checkEnum(v.enum, n, ptr(path, "enum"));
    if (t === "array" && !hasOwn(v, "items")) throw bad(ptr(path, "items"), "array requires items with a primitive type");
    if (t === "array") n.items = checkSchema(v.items, ptr(path, "items"), "items");
    if (t === "object") checkObject(v, n, path);
    return n;
  }
  function checkEnum(e, n, p) {
    if (kindOf(e) !== "array" || e.length === 0) throw bad(p, "enum must be a non-empty array");
    var ok = false;
    n.enumStr = []; n.enumNum = [];
    for (var i = 0; i < e.length; i++) {
      var m = e[i], mp = p + "/" + i;
      if (n.type === "string") {
        if (typeof m !== "string") throw bad(mp, "enum member must be a string");
        n.enumStr.push(m);
        var l = cpCount(m);
        if ((n.minLen < 0 || l >= n.minLen) && (n.maxLen < 0 || l <= n.maxLen)) ok = true;
      } else {
        if (typeof m !== "number") throw bad(mp, "enum member must be a " + n.type);
        if (!isFinite(m)) throw bad(mp, "enum member must be a finite number");
        var d = numOf(m);
        if (n.type === "integer" && !isInt(d)) throw bad(mp, "enum member must be an integer");
        n.enumNum.push(d);
        if ((!n.min || cmpNum(d, n.min) >= 0) && (!n.max || cmpNum(d, n.max) <= 0)) ok = true;
      }
    }
    if (!ok) throw bad(p, "no enum member satisfies the declared bounds (unsatisfiable)");
  }
  function checkObject(v, n, path) {
    n.props = new Map(); n.required = []; n.closed = false;
    if (hasOwn(v, "properties")) {
      var ps = v.properties, pp = ptr(path, "properties");
      if (kindOf(ps) !== "object") throw bad(pp, "properties must be an object");
      if (hasOwn(ps, "__proto__")) throw bad(ptr(pp, "__proto__"), 'property name "__proto__" is not allowed');
      sortedKeys(ps).forEach(function (name) { n.props.set(name, checkSchema(ps[name], ptr(pp, name), "property")); });
    }
    if (hasOwn(v, "required")) {
      var rq = v.required, rp = ptr(path, "required"), seen = new Set();
      if (kindOf(rq) !== "array") throw bad(rp, "required must be an array of property names");
      for (var i = 0; i < rq.length; i++) {
        var x = rq[i], ip = rp + "/" + i;
        if (typeof x !== "string") throw bad(ip, "required entries must be strings");
        if (x === "__proto__") throw bad(ip, '"__proto__" cannot be required');
        if (seen.has(x)) throw bad(ip, JSON.stringify(x) + " is listed twice in required");
        seen.add(x);
        if (!n.props.has(x)) throw bad(ip, "required names " + JSON.stringify(x) + ", which is not in properties");
        n.required.push(x);
      }
    }
    if (hasOwn(v, "additionalProperties")) {
      if (typeof v.additionalProperties !== "boolean") throw bad(ptr(path, "additionalProperties"), "additionalProperties must be a boolean");
      n.closed = !v.additionalProperties;
    }
  }

  var compiled = new WeakMap(); // normalized tool → enforced schema

  // validateTool(decl) → {ok:true, tool:{name, description, parameters}} or a refusal.
  function validateTool(decl) {
    try {
      if (kindOf(decl) !== "object") throw new Refusal("invalid-tool-name", "", "tool declaration must be a JSON object");
      var name = hasOwn(decl, "name") ? decl.name : undefined, desc = hasOwn(decl, "description") ? decl.description : undefined;
      if (typeof name !== "string" || !/^[a-zA-Z0-9_-]{1,64}$/.test(name)) throw new Refusal("invalid-tool-name", "/name", "name must be a string matching ^[a-zA-Z0-9_-]{1,64}$");
      if (typeof desc !== "string") throw new Refusal("invalid-tool-description", "/description", "description must be a string");
      var dl = cpCount(desc);
      if (dl > LIMITS.maxDescription) throw new Refusal("invalid-tool-description", "/description", "description is " + dl + " characters, max " + LIMITS.maxDescription);
      var hasP = hasOwn(decl, "parameters") && decl.parameters !== undefined;
      var hasI = hasOwn(decl, "inputSchema") && decl.inputSchema !== undefined;
      if (!hasP && !hasI) throw bad("", "parameters (or inputSchema) is required");
      var params = hasP ? decl.parameters : decl.inputSchema;
      [hasP && decl.parameters, hasI && decl.inputSchema].forEach(function (s, i) {
        var r = (i === 0 ? hasP : hasI) && treeBounds(s, LIMITS.maxSchemaDepth, LIMITS.maxSchemaNodes);
        if (r) throw r;
      });
      if (hasP && hasI && !jsonEqual(decl.parameters, decl.inputSchema)) throw bad("", "parameters and inputSchema are both present and differ");
      var node = checkSchema(params, "", "root");
      var tool = { name: name, description: desc, parameters: copyJSON(params) };
      var ann = annotationsOf(hasOwn(decl, "annotations") ? decl.annotations : undefined);
      if (ann) tool.annotations = ann;
      compiled.set(tool, node);
      return { ok: true, tool: tool };
    } catch (e) { return asResult(e); }
  }

  // annotationsOf keeps a declaration's known hints as booleans (see Annotations in annotations.go).
  var HINTS = ["readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint", "untrustedContentHint"];
  function annotationsOf(a) {
    if (kindOf(a) !== "object") return null;
    var out = null;
    HINTS.forEach(function (h) { if (hasOwn(a, h)) { out = out || {}; out[h] = !!a[h]; } });
    return out;
  }

  // registerAll(decls) → {accepted:[tool…], verdicts:[{name, ok, refused?, path?, message?}…]}
  function registerAll(decls) {
    var accepted = [], verdicts = [], seen = new Set();
    (decls || []).forEach(function (d) {
      var r = validateTool(d), name = r.ok ? r.tool.name : (d && typeof d.name === "string" ? d.name : "");
      if (r.ok && seen.has(name)) r = refusal("duplicate-tool", "/name", "tool " + JSON.stringify(name) + " is already registered by this app");
      else if (r.ok && accepted.length >= LIMITS.maxTools) r = refusal("too-many-tools", "", "an app may register at most " + LIMITS.maxTools + " tools");
      if (!r.ok) { verdicts.push({ name: name, ok: false, refused: r.refused, path: r.path, message: r.message }); return; }
      seen.add(name); accepted.push(r.tool); verdicts.push({ name: name, ok: true });
    });
    return { accepted: accepted, verdicts: verdicts };
  }

  // ---- arguments (see ValidateArgs and prescan in args.go) ----
  function isSpace(c) { return c === " " || c === "\t" || c === "\n" || c === "\r"; }
  var DELIMS = ",]}:\"{[ \t\n\r";
  function prescan(s) {
    var depth = 0, nodes = 0, i = 0;
    function node() {
      if (++nodes > LIMITS.maxArgsNodes) throw new Refusal("invalid-argument-bounds", "", "arguments have more than " + LIMITS.maxArgsNodes + " nodes");
    }
    while (i < s.length) {
      var c = s[i];
      if (c === "{" || c === "[") {
        if (++depth > LIMITS.maxArgsDepth) throw new Refusal("invalid-argument-bounds", "", "arguments are nested deeper than " + LIMITS.maxArgsDepth + " levels");
        node(); i++;
      } else if (c === "}" || c === "]") { depth--; i++; }
      else if (c === '"') {
        i++;
        while (i < s.length && s[i] !== '"') i += s[i] === "\\" ? 2 : 1;
        i++;
        var k = i;
        while (k < s.length && isSpace(s[k])) k++;
        if (!(k < s.length && s[k] === ":")) node();
      } else if ("-0123456789tfn".indexOf(c) >= 0) {
        node(); i++;
        while (i < s.length && DELIMS.indexOf(s[i]) < 0) i++;
      } else i++;
    }
  }

  function Walker(text) { this.s = text; this.i = 0; this.soft = null; this.path = []; }
  Walker.prototype.hard = function (msg, path) { return new Refusal("invalid-tool-arguments", path || "", msg); };
  Walker.prototype.ws = function () { while (this.i < this.s.length && isSpace(this.s[this.i])) this.i++; };
  Walker.prototype.pathString = function (extra) {
    var p = this.path.reduce(function (acc, seg) { return ptr(acc, seg); }, "");
    return extra === undefined ? p : ptr(p, extra);
  };
  Walker.prototype.note = function (code, extra, msg) { if (!this.soft) this.soft = refusal(code, this.pathString(extra), msg); };
  Walker.prototype.typeErr = function (n, got) { this.note("invalid-argument-type", undefined, "expected " + n.type + ", got " + got); };
  Walker.prototype.value = function (n) {
    this.ws();
    var s = this.s, c = s[this.i];
    if (c === undefined) throw this.hard("invalid JSON: unexpected end of input");
    if (c === "{" || c === "[") {
      var want = c === "{" ? "object" : "array";
      if (n && n.type !== want) { this.typeErr(n, want); n = null; }
      return c === "{" ? this.object(n) : this.array(n);
    }
    if (c === '"') {
      var str = this.string();
      if (n && !this.soft) this.checkString(n, str.value, str.runes);
      return str.value;
    }
    if (c === "t" || c === "f" || c === "n") {
      var lit = c === "t" ? "true" : c === "f" ? "false" : "null";
      if (s.substr(this.i, lit.length) !== lit) throw this.hard("invalid JSON: unexpected " + JSON.stringify(c));
      this.i += lit.length;
      if (n && (c === "n" || n.type !== "boolean")) this.typeErr(n, c === "n" ? "null" : "boolean");
      return c === "t" ? true : c === "f" ? false : null;
    }
    if (c === "-" || (c >= "0" && c <= "9")) {
      var re = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
      re.lastIndex = this.i;
      var m = re.exec(s);
      if (!m || /[.eE]/.test(s[this.i + m[0].length] || "")) throw this.hard("invalid JSON: bad number");
      this.i += m[0].length;
      if (n && !this.soft) this.checkNumber(n, m[0]);
      return Number(m[0]);
    }
    throw this.hard("invalid JSON: unexpected " + JSON.stringify(c));
  };
  Walker.prototype.object = function (n) {
    var s = this.s, out = Object.create(null), keys = new Set(), seen = new Set();
    this.i++; this.ws();
    if (s[this.i] === "}") this.i++;
    else for (;;) {
      this.ws();
      if (s[this.i] !== '"') throw this.hard("invalid JSON: expected an object key");
      var key = this.string().value;
      if (keys.has(key)) { this.path.push(key); throw this.hard("duplicate key", this.pathString()); }
      keys.add(key);
      this.ws();
      if (s[this.i] !== ":") throw this.hard("invalid JSON: expected ':'");
      this.i++;
      this.path.push(key);
      var child = null;
      if (key === "__proto__") this.note("invalid-argument", undefined, 'own "__proto__" key is not allowed');
      else if (n) {
        if (n.props.has(key)) { seen.add(key); child = n.props.get(key); }
        else if (n.closed) this.note("invalid-argument", undefined, "property is not declared and additionalProperties is false");
      }
      var val = this.value(child);
      if (key !== "__proto__") out[key] = val;
      this.path.pop(); this.ws();
      if (s[this.i] === ",") { this.i++; continue; }
      if (s[this.i] === "}") { this.i++; break; }
      throw this.hard("invalid JSON: expected ',' or '}'");
    }
    var missing = n ? n.required.filter(function (r) { return !seen.has(r); })[0] : undefined;
    if (missing !== undefined) this.note("missing-argument", missing, "missing required argument " + JSON.stringify(missing));
    return out;
  };
  Walker.prototype.array = function (n) {
    var s = this.s, out = [], items = n ? n.items : null;
    this.i++; this.ws();
    if (s[this.i] === "]") { this.i++; return out; }
    for (var idx = 0; ; idx++) {
      this.path.push(idx); out.push(this.value(items)); this.path.pop(); this.ws();
      if (s[this.i] === ",") { this.i++; continue; }
      if (s[this.i] === "]") { this.i++; return out; }
      throw this.hard("invalid JSON: expected ',' or ']'");
    }
  };
  var ESC = { '"': '"', "\\": "\\", "/": "/", b: "\b", f: "\f", n: "\n", r: "\r", t: "\t" };
  Walker.prototype.string = function () {
    var s = this.s, i = this.i + 1, out = "", runes = 0;
    for (;;) {
      if (i >= s.length) throw this.hard("invalid JSON: unterminated string");
      var c = s.charCodeAt(i);
      if (c === 34) break;
      if (c < 0x20) throw this.hard("invalid JSON: control character in string");
      runes++;
      if (c === 92) {
        var e = s[i + 1];
        if (e === undefined) throw this.hard("invalid JSON: unterminated string");
        if (hasOwn(ESC, e)) { out += ESC[e]; i += 2; continue; }
        if (e !== "u") throw this.hard("invalid JSON: bad escape");
        var h = s.substr(i + 2, 4);
        if (!/^[0-9a-fA-F]{4}$/.test(h)) throw this.hard("invalid JSON: bad \\u escape");
        var u = parseInt(h, 16);
        i += 6;
        if (u >= 0xdc00 && u <= 0xdfff) throw this.hard("invalid Unicode: unpaired surrogate");
        if (u >= 0xd800 && u <= 0xdbff) {
          var lo = s.substr(i, 6);
          if (!/^\\u[dD][c-fC-F][0-9a-fA-F]{2}$/.test(lo)) throw this.hard("invalid Unicode: unpaired surrogate");
          out += String.fromCharCode(u, parseInt(lo.slice(2), 16));
          i += 6;
          continue;
        }
        out += String.fromCharCode(u);
        continue;
      }
      var w = isPair(s, i) ? 2 : 1;
      if (w === 1 && c >= 0xd800 && c <= 0xdfff) throw this.hard("invalid Unicode: unpaired surrogate");
      out += s.substr(i, w);
      i += w;
    }
    this.i = i + 1;
    return { value: out, runes: runes };
  };
  Walker.prototype.checkString = function (n, str, runes) {
    if (n.type !== "string") return this.typeErr(n, "string");
    if (n.enumStr && n.enumStr.indexOf(str) < 0) return this.note("invalid-argument-enum", undefined, "value is not one of the allowed values");
    if ((n.minLen >= 0 && runes < n.minLen) || (n.maxLen >= 0 && runes > n.maxLen)) {
      this.note("invalid-argument-length", undefined, "string length " + runes + " is outside [" +
        (n.minLen >= 0 ? n.minLen : 0) + ", " + (n.maxLen >= 0 ? n.maxLen : "∞") + "] code points");
    }
  };
  Walker.prototype.checkNumber = function (n, text) {
    if (n.type !== "number" && n.type !== "integer") return this.typeErr(n, "number");
    var d = parseNum(text);
    if (n.type === "integer" && !isInt(d)) return this.typeErr(n, "a number with a fraction");
    if (n.enumNum && !n.enumNum.some(function (m) { return cmpNum(d, m) === 0; })) {
      return this.note("invalid-argument-enum", undefined, "value is not one of the allowed values");
    }
    if (!isFinite(Number(text))) this.note("invalid-argument-range", undefined, "number is too large for a double");
    else if (n.min && cmpNum(d, n.min) < 0) this.note("invalid-argument-range", undefined, "number is below the minimum");
    else if (n.max && cmpNum(d, n.max) > 0) this.note("invalid-argument-range", undefined, "number is above the maximum");
  };

  // Objects handed over directly (not as JSON text) must be plain data.
  function plainToText(v) {
    var path = [];
    function fail(code, msg) { throw new Refusal(code, path.reduce(ptr, ""), msg); }
    (function walk(v, depth) {
      var k = kindOf(v);
      if (k === "number" && !isFinite(v)) fail("invalid-tool-arguments", "number is not finite");
      if (k === "null" || k === "boolean" || k === "number" || k === "string") return;
      if (k !== "array" && k !== "object") fail("invalid-tool-arguments", "value is not JSON data (" + k + ")");
      if (depth >= LIMITS.maxArgsDepth) fail("invalid-argument-bounds", "arguments are nested deeper than " + LIMITS.maxArgsDepth + " levels");
      var proto = Object.getPrototypeOf(v);
      if (k === "object" && proto !== Object.prototype && proto !== null) fail("invalid-tool-arguments", "not a plain object (inherited properties are not arguments)");
      if (Object.getOwnPropertySymbols(v).length) fail("invalid-tool-arguments", "symbol keys are not JSON data");
      var names = Object.getOwnPropertyNames(v);
      for (var i = 0; i < names.length; i++) {
        var key = names[i], desc = Object.getOwnPropertyDescriptor(v, key);
        if (k === "array" && key === "length") continue;
        path.push(key);
        if (key === "__proto__") fail("invalid-argument", 'own "__proto__" key is not allowed');
        if (k === "array" && !(String(key >>> 0) === key && (key >>> 0) < v.length)) fail("invalid-argument", "non-index array metadata is not allowed");
        if (!("value" in desc) || !desc.enumerable) fail("invalid-tool-arguments", "accessor or hidden property");
        walk(desc.value, depth + 1);
        path.pop();
      }
      if (k === "array" && names.length - 1 !== v.length) fail("invalid-tool-arguments", "sparse arrays are not JSON data");
    })(v, 0);
    return JSON.stringify(v);
  }

  // validateArgs(tool, args): args is the JSON text (as the host sends it) or
  // plain data. → {ok:true, args} (a null-prototype snapshot) or a refusal.
  function validateArgs(tool, args) {
    try {
      if (tool === null || tool === undefined) throw new Refusal("unknown-tool", "", "unknown tool");
      var node = compiled.get(tool);
      if (!node) {
        var r = validateTool(tool);
        if (!r.ok) return r;
        node = compiled.get(r.tool);
      }
      var text = typeof args === "string" ? args : plainToText(args);
      var bytes = utf8Length(text);
      if (bytes > LIMITS.maxArgsBytes) throw new Refusal("invalid-tool-arguments", "", "arguments are " + bytes + " bytes, max " + LIMITS.maxArgsBytes);
      prescan(text);
      var w = new Walker(text);
      w.ws();
      if (text[w.i] !== "{") throw new Refusal("invalid-tool-arguments", "", "arguments must be a JSON object");
      var out = w.object(node);
      w.ws();
      if (w.i !== text.length) throw w.hard("invalid JSON: data after the arguments object");
      return w.soft || { ok: true, args: out };
    } catch (e) { return asResult(e); }
  }

  // validateCall(tools, name, args): look name up among accepted tools (fail closed).
  function validateCall(tools, name, args) {
    var tool = (tools || []).filter(function (t) { return t && t.name === name; })[0];
    if (!tool) return refusal("unknown-tool", "", "unknown tool " + JSON.stringify(String(name)));
    return validateArgs(tool, args);
  }
  function checkOutput(text) {
    var s = typeof text === "string" ? text : JSON.stringify(text === undefined ? null : text);
    return utf8Length(s) > LIMITS.maxOutputBytes ? refusal("output-over-budget", "", "output over budget (max 64KB)") : { ok: true };
  }
  function timeoutRefusal() { return refusal("tool-timeout", "", "tool execution timed out after " + LIMITS.callTimeoutMs + "ms"); }

  var api = Object.freeze({
    limits: LIMITS, validateTool: validateTool, validateArgs: validateArgs, registerAll: registerAll,
    validateCall: validateCall, checkOutput: checkOutput, timeoutRefusal: timeoutRefusal,
    utf8Length: utf8Length,
    validateWebMcpTool: validateTool, validateMiniAppToolArgs: validateArgs // the names the Go doc comments give them
  });
  root.VoiceboxToolContract = api;
  if (typeof module === "object" && module.exports) module.exports = api;
})(typeof globalThis !== "undefined" ? globalThis : this);
