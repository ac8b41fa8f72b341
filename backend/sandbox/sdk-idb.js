/* SDK section: an in-memory IndexedDB that forgets (docs/webmcp.md), like the storage shim: the sandbox's
 * opaque origin has no IndexedDB of its own, and a page that keeps its data there should still run. The
 * server adds this section only to documents that mention IndexedDB. It covers what pages use: databases
 * with versions and upgrades, object stores (key paths, key generators), indexes (unique, multiEntry),
 * transactions that commit when idle and roll back on abort, requests, cursors and key ranges. Each
 * request's event fires in a task of its own, so promise wrappers (idb, Dexie) work as in a browser. */
function (sdk) {
  "use strict";
  var queue = [], channel = new MessageChannel();
  channel.port1.onmessage = function () { var fn = queue.shift(); if (fn) fn(); };
  function later(fn) { queue.push(fn); channel.port2.postMessage(0); }
  function error(name, msg) { return new DOMException(msg || name, name); }
  function handlers(cls, types) {
    types.forEach(function (t) {
      var key = "_on" + t;
      Object.defineProperty(cls.prototype, "on" + t, {
        get: function () { return this[key] || null; },
        set: function (fn) { if (this[key]) this.removeEventListener(t, this[key]); this[key] = typeof fn === "function" ? fn : null; if (this[key]) this.addEventListener(t, this[key]); }
      });
    });
  }
  function event(type, props) { var e = new Event(type, { bubbles: false, cancelable: type === "error" }); for (var k in props) Object.defineProperty(e, k, { value: props[k] }); return e; }

  // ---- keys ----
  function tag(k) {
    if (typeof k === "number") return k === k ? 1 : 0;
    if (k instanceof Date) return isNaN(k.getTime()) ? 0 : 2;
    if (typeof k === "string") return 3;
    if (k instanceof ArrayBuffer || ArrayBuffer.isView(k)) return 4;
    if (Array.isArray(k)) return k.every(function (x) { return tag(x) > 0; }) ? 5 : 0;
    return 0;
  }
  function bytes(k) { return k instanceof ArrayBuffer ? new Uint8Array(k) : new Uint8Array(k.buffer, k.byteOffset, k.byteLength); }
  function cmp(a, b) {
    var ta = tag(a), tb = tag(b);
    if (!ta || !tb) throw error("DataError", "not a valid key");
    if (ta !== tb) return ta < tb ? -1 : 1;
    if (ta === 2) { a = a.getTime(); b = b.getTime(); }
    if (ta === 4) {
      var x = bytes(a), y = bytes(b);
      for (var i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i] < y[i] ? -1 : 1;
      return x.length === y.length ? 0 : x.length < y.length ? -1 : 1;
    }
    if (ta === 5) {
      for (var j = 0; j < Math.min(a.length, b.length); j++) { var c = cmp(a[j], b[j]); if (c) return c; }
      return a.length === b.length ? 0 : a.length < b.length ? -1 : 1;
    }
    return a === b ? 0 : a < b ? -1 : 1;
  }
  function key(k) { if (!tag(k)) throw error("DataError", "not a valid key"); return k instanceof Date ? new Date(k.getTime()) : Array.isArray(k) ? k.map(key) : k; }

  class KeyRange {
    constructor(lower, upper, lowerOpen, upperOpen) { this.lower = lower; this.upper = upper; this.lowerOpen = !!lowerOpen; this.upperOpen = !!upperOpen; }
    includes(k) {
      if (this.lower !== undefined) { var c = cmp(k, this.lower); if (c < 0 || (c === 0 && this.lowerOpen)) return false; }
      if (this.upper !== undefined) { var d = cmp(k, this.upper); if (d > 0 || (d === 0 && this.upperOpen)) return false; }
      return true;
    }
    static only(k) { k = key(k); return new KeyRange(k, k); }
    static lowerBound(k, open) { return new KeyRange(key(k), undefined, open); }
    static upperBound(k, open) { return new KeyRange(undefined, key(k), false, open); }
    static bound(l, u, lo, uo) { if (cmp(l, u) > 0) throw error("DataError", "lower is above upper"); return new KeyRange(key(l), key(u), lo, uo); }
  }
  function range(q) { return q === undefined || q === null ? new KeyRange() : q instanceof KeyRange ? q : KeyRange.only(q); }

  // ---- values and key paths ----
  function path(value, p) {
    if (Array.isArray(p)) return p.map(function (x) { return path(value, x); });
    if (p === "") return value;
    var parts = p.split("."), v = value;
    for (var i = 0; i < parts.length; i++) { if (v === null || typeof v !== "object" && typeof v !== "string" || !(parts[i] in Object(v))) return undefined; v = v[parts[i]]; }
    return v;
  }
  function setPath(value, p, k) {
    var parts = p.split("."), v = value;
    for (var i = 0; i < parts.length - 1; i++) { if (!(parts[i] in v)) v[parts[i]] = {}; v = v[parts[i]]; }
    v[parts[parts.length - 1]] = k;
  }
  function names(list) { var a = list.slice().sort(); a.contains = function (n) { return a.indexOf(n) >= 0; }; a.item = function (i) { return a[i] === undefined ? null : a[i]; }; return a; }

  // ---- the data: databases → stores → sorted records ----
  var databases = new Map(); // name → {name, version, stores: Map(name → store data), connections: Set}
  function storeData(keyPath, autoIncrement) { return { keyPath: keyPath, autoIncrement: autoIncrement, next: 1, records: [], indexes: new Map() }; }
  function find(records, k) { // binary search: {i, found}
    var lo = 0, hi = records.length;
    while (lo < hi) { var mid = (lo + hi) >> 1, c = cmp(records[mid].key, k); if (c === 0) return { i: mid, found: true }; if (c < 0) lo = mid + 1; else hi = mid; }
    return { i: lo, found: false };
  }
  function indexEntries(s, ix) { // [{key: index key, primary, value}] sorted by (key, primary)
    var out = [];
    s.records.forEach(function (r) {
      var k = path(r.value, ix.keyPath);
      if (ix.multiEntry && Array.isArray(k)) k.forEach(function (x, n) { if (tag(x) && k.findIndex(function (y) { return !cmp(x, y); }) === n) out.push({ key: x, primary: r.key, value: r.value }); });
      else if (tag(k)) out.push({ key: k, primary: r.key, value: r.value });
    });
    return out.sort(function (a, b) { return cmp(a.key, b.key) || cmp(a.primary, b.primary); });
  }

  // ---- requests and transactions ----
  class Request extends EventTarget {
    constructor(source, tx) { super(); this.source = source; this.transaction = tx; this.readyState = "pending"; this._result = undefined; this._error = null; }
    get result() { if (this.readyState !== "done") throw error("InvalidStateError"); return this._result; }
    get error() { if (this.readyState !== "done") throw error("InvalidStateError"); return this._error; }
  }
  handlers(Request, ["success", "error"]);
  class OpenRequest extends Request {}
  handlers(OpenRequest, ["upgradeneeded", "blocked"]);

  class Transaction extends EventTarget {
    constructor(db, scope, mode) {
      super(); this.db = db; this.mode = mode; this._scope = scope; this.objectStoreNames = names(scope); this.error = null;
      this._pending = []; this._done = false; this._saved = new Map(); this._started = false;
      var tx = this;
      later(function () { tx._started = true; tx._step(); });
    }
    objectStore(name) {
      if (this._scope.indexOf(name) < 0 || !this.db._data.stores.has(name)) throw error("NotFoundError", "no object store " + name);
      return new ObjectStore(this, name);
    }
    abort() { if (this._done) throw error("InvalidStateError"); this._finish(error("AbortError", "the transaction was aborted")); }
    commit() { if (!this._done && !this._pending.length) this._finish(null); }
    _request(source, op) {
      if (this._done) throw error("TransactionInactiveError", "the transaction has finished");
      var req = new Request(source, this);
      this._pending.push({ req: req, op: op });
      return req;
    }
    _writable() { if (this.mode === "readonly") throw error("ReadOnlyError", "the transaction is read-only"); }
    _write(name) { // keep the store as it was, for a rollback
      this._writable();
      var s = this.db._data.stores.get(name);
      if (!this._saved.has(name)) this._saved.set(name, { next: s.next, records: s.records.slice() });
      return s;
    }
    _step() { // one request per task, so a callback's promise reactions may add the next one
      if (this._done || !this._started) return;
      var p = this._pending.shift(), tx = this;
      if (!p) { later(function () { if (!tx._done && !tx._pending.length) tx._finish(null); else tx._step(); }); return; }
      var req = p.req;
      try { req._result = p.op(); req.readyState = "done"; req.dispatchEvent(event("success")); }
      catch (e) {
        req._error = e; req.readyState = "done"; req._result = undefined;
        var ev = event("error");
        req.dispatchEvent(ev);
        if (!ev.defaultPrevented) { var te = event("error"); this.dispatchEvent(te); if (!this._done) this._finish(e); return; }
      }
      later(function () { tx._step(); });
    }
    _finish(err) {
      if (this._done) return;
      this._done = true;
      var stores = this.db._data.stores;
      if (err) this._saved.forEach(function (saved, name) { var s = stores.get(name); if (s) { s.next = saved.next; s.records = saved.records; } });
      if (err && this._restore) this._restore();
      this.error = err;
      var pending = this._pending; this._pending = [];
      pending.forEach(function (p) { p.req.readyState = "done"; p.req._error = error("AbortError"); p.req.dispatchEvent(event("error")); });
      var tx = this;
      later(function () { tx.dispatchEvent(event(err ? "abort" : "complete")); if (tx._then) tx._then(err); });
    }
  }
  handlers(Transaction, ["complete", "error", "abort"]);

  function getAll(entries, q, count, pick) {
    var r = range(q), out = [];
    for (var i = 0; i < entries.length && (!count || out.length < count); i++) if (r.includes(entries[i].key)) out.push(pick(entries[i]));
    return out;
  }
  function clone(v) { return structuredClone(v); }

  class ObjectStore {
    constructor(tx, name) { this.transaction = tx; this.name = name; var s = tx.db._data.stores.get(name); this.keyPath = s.keyPath; this.autoIncrement = s.autoIncrement; }
    get _s() { return this.transaction.db._data.stores.get(this.name); }
    get indexNames() { return names(Array.from(this._s.indexes.keys())); }
    _put(value, k, noOverwrite) {
      var tx = this.transaction, name = this.name;
      var s = this._s;
      tx._writable();
      if (s.keyPath !== null && k !== undefined) throw error("DataError", "the store has a key path: give no key");
      value = clone(value);
      return tx._request(this, function () {
        var st = tx._write(name), kk = k;
        if (st.keyPath !== null) kk = path(value, st.keyPath);
        if (kk === undefined && st.autoIncrement) { kk = st.next; if (st.keyPath !== null) setPath(value, st.keyPath, kk); }
        kk = key(kk);
        if (typeof kk === "number" && st.autoIncrement && kk >= st.next) st.next = Math.floor(kk) + 1;
        var at = find(st.records, kk);
        if (at.found && noOverwrite) throw error("ConstraintError", "a record with this key exists");
        st.indexes.forEach(function (ix, ixName) {
          if (!ix.unique) return;
          var nk = path(value, ix.keyPath);
          if (!tag(nk)) return;
          var clash = indexEntries(st, ix).some(function (e) { return !cmp(e.key, nk) && cmp(e.primary, kk); });
          if (clash) throw error("ConstraintError", "index " + ixName + " is unique");
        });
        if (at.found) st.records[at.i] = { key: kk, value: value }; else st.records.splice(at.i, 0, { key: kk, value: value });
        return kk;
      });
    }
    put(value, k) { return this._put(value, k, false); }
    add(value, k) { return this._put(value, k, true); }
    get(q) { var s = this; return this.transaction._request(this, function () { var v = getAll(s._s.records, q, 1, function (r) { return r.value; })[0]; return v === undefined ? undefined : clone(v); }); }
    getKey(q) { var s = this; return this.transaction._request(this, function () { return getAll(s._s.records, q, 1, function (r) { return r.key; })[0]; }); }
    getAll(q, n) { var s = this; return this.transaction._request(this, function () { return getAll(s._s.records, q, n, function (r) { return clone(r.value); }); }); }
    getAllKeys(q, n) { var s = this; return this.transaction._request(this, function () { return getAll(s._s.records, q, n, function (r) { return r.key; }); }); }
    count(q) { var s = this; return this.transaction._request(this, function () { return getAll(s._s.records, q, 0, function () { return 1; }).length; }); }
    delete(q) {
      var tx = this.transaction, name = this.name;
      tx._writable();
      return tx._request(this, function () { var st = tx._write(name), r = range(q); st.records = st.records.filter(function (x) { return !r.includes(x.key); }); return undefined; });
    }
    clear() { var tx = this.transaction, name = this.name; tx._writable(); return tx._request(this, function () { tx._write(name).records = []; return undefined; }); }
    openCursor(q, dir) { return openCursor(this, function (s) { return s.records.map(function (r) { return { key: r.key, primary: r.key, value: r.value }; }); }, q, dir, true); }
    openKeyCursor(q, dir) { return openCursor(this, function (s) { return s.records.map(function (r) { return { key: r.key, primary: r.key }; }); }, q, dir, false); }
    index(n) { if (!this._s.indexes.has(n)) throw error("NotFoundError", "no index " + n); return new Index(this, n); }
    createIndex(n, keyPath, opts) {
      if (this.transaction.mode !== "versionchange") throw error("InvalidStateError", "indexes are made in an upgrade");
      if (this._s.indexes.has(n)) throw error("ConstraintError", "index " + n + " exists");
      this._s.indexes.set(n, { keyPath: keyPath, unique: !!(opts && opts.unique), multiEntry: !!(opts && opts.multiEntry) });
      return new Index(this, n);
    }
    deleteIndex(n) { if (this.transaction.mode !== "versionchange") throw error("InvalidStateError"); this._s.indexes.delete(n); }
  }

  class Index {
    constructor(store, name) { this.objectStore = store; this.name = name; var ix = store._s.indexes.get(name); this.keyPath = ix.keyPath; this.unique = ix.unique; this.multiEntry = ix.multiEntry; }
    _entries() { var s = this.objectStore._s; return indexEntries(s, s.indexes.get(this.name)); }
    _req(fn) { var self = this; return this.objectStore.transaction._request(this, function () { return fn(self._entries()); }); }
    get(q) { return this._req(function (e) { var v = getAll(e, q, 1, function (x) { return x.value; })[0]; return v === undefined ? undefined : clone(v); }); }
    getKey(q) { return this._req(function (e) { return getAll(e, q, 1, function (x) { return x.primary; })[0]; }); }
    getAll(q, n) { return this._req(function (e) { return getAll(e, q, n, function (x) { return clone(x.value); }); }); }
    getAllKeys(q, n) { return this._req(function (e) { return getAll(e, q, n, function (x) { return x.primary; }); }); }
    count(q) { return this._req(function (e) { return getAll(e, q, 0, function () { return 1; }).length; }); }
    openCursor(q, dir) { var self = this; return openCursor(this, function () { return self._entries(); }, q, dir, true); }
    openKeyCursor(q, dir) { var self = this; return openCursor(this, function () { return self._entries(); }, q, dir, false); }
  }

  // A cursor walks a snapshot of (key, primary key) positions and reads the current value when it moves.
  class Cursor {
    constructor(source, req, dir) { this.source = source; this.request = req; this.direction = dir || "next"; this.key = undefined; this.primaryKey = undefined; }
    continue(k) { this._move(function (e) { return k === undefined || cmp(e.key, k) * (this._back ? -1 : 1) >= 0; }, 1); }
    advance(n) { this._move(null, n); }
    continuePrimaryKey(k, p) { this._move(function (e) { var c = cmp(e.key, k) || cmp(e.primary, p); return (this._back ? -c : c) >= 0; }, 1); }
    update(v) { var store = this.source instanceof Index ? this.source.objectStore : this.source; var s = store._s; return s.keyPath !== null ? store.put(v) : store.put(v, this.primaryKey); }
    delete() { var store = this.source instanceof Index ? this.source.objectStore : this.source; return store.delete(this.primaryKey); }
  }
  class CursorWithValue extends Cursor {}
  function openCursor(source, list, q, dir, withValue) {
    var store = source instanceof Index ? source.objectStore : source, tx = store.transaction;
    var r = range(q), back = dir === "prev" || dir === "prevunique", unique = dir === "nextunique" || dir === "prevunique";
    var cursor = new (withValue ? CursorWithValue : Cursor)(source, null, dir);
    cursor._back = back;
    var pos = -1, seen = null;
    function entries() { var e = list(store._s).filter(function (x) { return r.includes(x.key); }); return back ? e.reverse() : e; }
    function step(test, n) {
      var e = entries(), i = pos;
      while (n > 0) {
        i++;
        if (i >= e.length) break;
        if (seen && cmp(e[i].key, seen.key) === 0 && cmp(e[i].primary, seen.primary) * (back ? -1 : 1) <= 0) continue;
        if (unique && seen && cmp(e[i].key, seen.key) === 0) continue;
        if (test && !test.call(cursor, e[i])) continue;
        n--;
      }
      pos = i;
      if (i >= e.length) { seen = null; return null; }
      seen = e[i];
      cursor.key = e[i].key; cursor.primaryKey = e[i].primary;
      if (withValue) { var at = find(store._s.records, e[i].primary); cursor.value = at.found ? clone(store._s.records[at.i].value) : undefined; }
      return cursor;
    }
    var req = tx._request(source, function () { return step(null, 1); });
    cursor.request = req;
    cursor._move = function (test, n) {
      if (tx._done) throw error("TransactionInactiveError", "the transaction has finished");
      tx._pending.push({ req: req, op: function () { pos = entries().findIndex(function (x) { return seen && !cmp(x.key, seen.key) && !cmp(x.primary, seen.primary); }); if (pos < 0) pos = -1; return step(test, n); } });
      req.readyState = "pending";
    };
    return req;
  }

  // ---- databases ----
  class Database extends EventTarget {
    constructor(data) { super(); this._data = data; this.name = data.name; this.version = data.version; this._closed = false; }
    get objectStoreNames() { return names(Array.from(this._data.stores.keys())); }
    transaction(scope, mode) {
      if (this._closed) throw error("InvalidStateError", "the database is closed");
      scope = typeof scope === "string" ? [scope] : Array.from(scope);
      scope.forEach(function (n) { if (!this._data.stores.has(n)) throw error("NotFoundError", "no object store " + n); }, this);
      return new Transaction(this, scope, mode === "readwrite" ? "readwrite" : "readonly");
    }
    createObjectStore(name, opts) {
      if (!this._upgrade) throw error("InvalidStateError", "object stores are made in an upgrade");
      if (this._data.stores.has(name)) throw error("ConstraintError", "object store " + name + " exists");
      var kp = opts && opts.keyPath !== undefined ? opts.keyPath : null;
      this._data.stores.set(name, storeData(kp, !!(opts && opts.autoIncrement)));
      this._upgrade._scope.push(name);
      return new ObjectStore(this._upgrade, name);
    }
    deleteObjectStore(name) { if (!this._upgrade) throw error("InvalidStateError"); this._data.stores.delete(name); }
    close() { this._closed = true; this._data.connections.delete(this); }
  }
  handlers(Database, ["versionchange", "close", "abort", "error"]);

  var factory = {
    open: function (name, version) {
      name = String(name);
      if (version !== undefined && !(version >= 1)) throw new TypeError("version must be a positive number");
      var req = new OpenRequest(null, null);
      later(function () {
        var data = databases.get(name);
        var fresh = !data;
        if (fresh) data = { name: name, version: 0, stores: new Map(), connections: new Set() };
        var want = version === undefined ? Math.max(data.version, 1) : Math.floor(version);
        var done = function (err) {
          req.readyState = "done";
          if (err) { req._error = err; req.dispatchEvent(event("error")); return; }
          req.dispatchEvent(event("success"));
        };
        if (want < data.version) return done(error("VersionError", "the database is at version " + data.version));
        if (fresh) databases.set(name, data);
        var db = new Database(data);
        if (want === data.version) { data.connections.add(db); req._result = db; return done(null); }
        data.connections.forEach(function (c) { c.dispatchEvent(event("versionchange", { oldVersion: data.version, newVersion: want })); });
        var old = data.version, saved = new Map(data.stores);
        data.version = want; db.version = want; data.connections.add(db);
        var tx = new Transaction(db, Array.from(data.stores.keys()), "versionchange");
        db._upgrade = tx;
        tx._restore = function () { data.version = old; data.stores = saved; db.version = old; if (fresh) databases.delete(name); };
        tx._then = function (err) { db._upgrade = null; req.transaction = null; if (err) { db.close(); req._result = undefined; done(error("AbortError", "the upgrade was aborted")); } else done(null); };
        req._result = db; req.transaction = tx; req.readyState = "done";
        req.dispatchEvent(event("upgradeneeded", { oldVersion: old, newVersion: want }));
      });
      return req;
    },
    deleteDatabase: function (name) {
      var req = new OpenRequest(null, null);
      later(function () {
        var data = databases.get(String(name)), old = data ? data.version : 0;
        if (data) data.connections.forEach(function (c) { c.dispatchEvent(event("versionchange", { oldVersion: old, newVersion: null })); });
        databases.delete(String(name));
        req.readyState = "done";
        req.dispatchEvent(event("success", { oldVersion: old, newVersion: null }));
      });
      return req;
    },
    databases: function () { return Promise.resolve(Array.from(databases.values(), function (d) { return { name: d.name, version: d.version }; })); },
    cmp: cmp
  };
  Object.setPrototypeOf(factory, Factory.prototype);
  function Factory() { throw new TypeError("Illegal constructor"); }

  var globals = {
    indexedDB: factory, IDBFactory: Factory, IDBKeyRange: KeyRange, IDBRequest: Request, IDBOpenDBRequest: OpenRequest,
    IDBDatabase: Database, IDBTransaction: Transaction, IDBObjectStore: ObjectStore, IDBIndex: Index,
    IDBCursor: Cursor, IDBCursorWithValue: CursorWithValue, IDBVersionChangeEvent: Event
  };
  Object.keys(globals).forEach(function (k) {
    if (k === "indexedDB") sdk.define(window, k, { enumerable: true, get: function () { return factory; } });
    else sdk.define(window, k, { writable: true, value: globals[k] });
  });
}
