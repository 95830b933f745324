/* kindex-site: sortable tables, filter boxes and the nav search. Every page is complete without it;
   this only adds. No framework, no inline handlers (CSP-friendly). */
(function () {
  "use strict";
  var doc = document, n = 0;
  var collator = new Intl.Collator(undefined, {numeric: true, sensitivity: "base"});
  function each(list, f) { Array.prototype.forEach.call(list, f); }
  function text(el) { return (el.textContent || "").replace(/\s+/g, " ").trim(); }
  function make(tag, attrs, content) {
    var el = doc.createElement(tag);
    for (var k in attrs) el.setAttribute(k, attrs[k]);
    if (content) el.textContent = content;
    return el;
  }

  /* Sorting: a button in each column header of table.sortable. A column is numeric when every
     cell starts with a number ("=2", "0.0430–0.0458" and "1 no CI" sort by it) or is "—", or its
     header is th.num; data-sort-value overrides a cell's text. "—" goes last either way.
     aria-sort names the one sorted column. */
  var NUMBER = /^=?(-?\d{1,3}(?:,\d{3})+(?:\.\d+)?|-?\d+(?:\.\d+)?(?:e[-+]?\d+)?)/i;  // 33,200 is one number
  function sortKey(cell, numeric) {
    if (!cell) return null;
    var v = cell.getAttribute("data-sort-value");
    if (v === null) v = text(cell);
    if (v === "—" || v === "") return null;
    if (!numeric) return v;
    var m = NUMBER.exec(v);
    return m ? Number(m[1].replace(/,/g, "")) : null;
  }
  function numericColumn(table, th) {
    if (th.classList.contains("num")) return true;
    return Array.prototype.every.call(table.tBodies[0].rows, function (row) {
      var c = row.cells[th.cellIndex], v = c ? (c.getAttribute("data-sort-value") || text(c)) : "—";
      return v === "—" || NUMBER.test(v);
    });
  }
  function sortTable(table, th) {
    var col = th.cellIndex, numeric = numericColumn(table, th);
    var dir = th.getAttribute("aria-sort") === "ascending" ? "descending" : "ascending";
    var sign = dir === "ascending" ? 1 : -1, body = table.tBodies[0];
    var rows = Array.prototype.map.call(body.rows, function (row, i) {
      return {row: row, i: i, k: sortKey(row.cells[col], numeric)};
    });
    rows.sort(function (a, b) {
      if (a.k === null || b.k === null) return a.k === b.k ? a.i - b.i : (a.k === null ? 1 : -1);
      var c = numeric ? a.k - b.k : collator.compare(a.k, b.k);
      return c ? c * sign : a.i - b.i;
    });
    each(rows, function (r) { body.appendChild(r.row); });
    each(th.parentNode.cells, function (h) { h.removeAttribute("aria-sort"); });
    th.setAttribute("aria-sort", dir);
  }
  each(doc.querySelectorAll("table.sortable"), function (table) {
    if (!table.tHead || !table.tBodies[0] || table.tBodies[0].rows.length < 2) return;
    var head = table.tHead.rows[table.tHead.rows.length - 1];
    each(head.cells, function (th) {
      if (th.hasAttribute("data-nosort")) return;
      var button;
      if (th.querySelector("a")) {  // a header that is a link keeps it; the button sits beside it
        button = make("button", {type: "button", class: "sort", "aria-label": "Sort by " + text(th)});
      } else {
        button = make("button", {type: "button", class: "sort"});
        while (th.firstChild) button.appendChild(th.firstChild);
      }
      button.appendChild(make("span", {class: "arrow", "aria-hidden": "true"}));
      th.appendChild(button);
      button.addEventListener("click", function () { sortTable(table, th); });
    });
  });

  /* Filter boxes: tables with data-filter="group" share one box, placed before the first of them.
     Every word typed must occur in a row's text. data-filter-query="q" fills it from ?q=. */
  var groups = {};
  each(doc.querySelectorAll("table[data-filter]"), function (table) {
    var g = table.getAttribute("data-filter");
    (groups[g] = groups[g] || []).push(table);
  });
  Object.keys(groups).forEach(function (g) {
    var tables = groups[g], first = tables[0], rows = [];
    each(tables, function (t) { each(t.tBodies[0].rows, function (r) { rows.push(r); }); });
    if (rows.length < 2) return;
    var id = "filter-" + (++n);
    var box = make("div", {class: "filter"});
    box.appendChild(make("label", {for: id}, tables.length > 1 ? "Filter these tables" : "Filter this table"));
    var input = make("input", {type: "search", id: id, autocomplete: "off", spellcheck: "false"});
    var status = make("span", {role: "status"});
    box.appendChild(input);
    box.appendChild(status);
    var wrap = first.closest(".table-scroll") || first;
    var before = tables.length > 1 && first.closest("section") || wrap;
    before.parentNode.insertBefore(box, before);
    var texts = null;
    function apply() {
      if (!texts) texts = rows.map(function (r) { return text(r).toLowerCase(); });
      var words = input.value.toLowerCase().split(/\s+/).filter(Boolean), shown = 0;
      rows.forEach(function (r, i) {
        var ok = words.every(function (w) { return texts[i].indexOf(w) >= 0; });
        r.hidden = !ok;
        if (ok) shown++;
      });
      each(tables, function (t) {
        var section = tables.length > 1 && t.closest("section");
        if (section) section.hidden = !Array.prototype.some.call(t.tBodies[0].rows, function (r) { return !r.hidden; });
      });
      status.textContent = words.length ? shown + " of " + rows.length + " rows shown" : "";
    }
    input.addEventListener("input", apply);
    var param = first.getAttribute("data-filter-query");
    var given = param && new URLSearchParams(location.search).get(param);
    if (given) { input.value = given; apply(); }
  });

  /* Search: the nav box loads search/index.json on first use and lists matching names in a listbox
     (arrow keys move, Enter opens, Escape closes). Enter with nothing chosen submits to /search/. */
  var form = doc.querySelector("form.search[data-index]");
  if (!form || !window.fetch) return;
  var input = form.querySelector("input[name=q]");
  var list = make("ul", {id: "search-results", role: "listbox", class: "results", "aria-label": "Search results"});
  var live = make("span", {class: "vh", role: "status"});
  list.hidden = true;
  form.appendChild(list);
  form.appendChild(live);
  input.setAttribute("role", "combobox");
  input.setAttribute("aria-autocomplete", "list");
  input.setAttribute("aria-expanded", "false");
  input.setAttribute("aria-controls", list.id);
  var items = null, loading = null, shown = [], active = -1;
  function load() {
    if (!loading) {
      loading = fetch(form.getAttribute("data-index")).then(function (r) {
        if (!r.ok) throw new Error(r.status);
        return r.json();
      }).then(function (d) {
        items = d.items.map(function (it) {
          return {title: it[0], kind: d.kinds[it[1]], url: it[2], detail: it[3],
                  hay: (it[0] + " " + it[3]).toLowerCase()};
        });
      }).catch(function () { items = []; });
    }
    return loading;
  }
  function close() {
    list.hidden = true;
    input.setAttribute("aria-expanded", "false");
    input.removeAttribute("aria-activedescendant");
    active = -1;
  }
  function choose(i) {
    active = i;
    each(list.children, function (li, j) { li.setAttribute("aria-selected", j === i ? "true" : "false"); });
    if (i >= 0) {
      input.setAttribute("aria-activedescendant", list.children[i].id);
      list.children[i].scrollIntoView({block: "nearest"});
    } else input.removeAttribute("aria-activedescendant");
  }
  function update() {
    var q = input.value.toLowerCase().trim(), words = q.split(/\s+/).filter(Boolean);
    list.textContent = "";
    if (!words.length || !items) { close(); live.textContent = ""; return; }
    shown = items.filter(function (it) {
      return words.every(function (w) { return it.hay.indexOf(w) >= 0; });
    });
    shown.sort(function (a, b) {  // names that start with what was typed first; otherwise page order
      return (b.title.toLowerCase().indexOf(q) === 0) - (a.title.toLowerCase().indexOf(q) === 0);
    });
    var total = shown.length;
    shown = shown.slice(0, 12);
    shown.forEach(function (it, i) {
      var li = make("li", {id: "search-result-" + i, role: "option", "aria-selected": "false"}, it.title);
      li.appendChild(make("small", {}, it.kind + " · " + it.detail));
      li.addEventListener("mousedown", function (e) { e.preventDefault(); });  // keep focus in the box
      li.addEventListener("click", function () { location.href = it.url; });
      list.appendChild(li);
    });
    if (!total) list.appendChild(make("li", {class: "none", role: "option", "aria-disabled": "true", id: "search-result-none"},
                                        "No name matches; press Enter to see every problem, host and implementation"));
    list.hidden = false;
    input.setAttribute("aria-expanded", "true");
    active = -1;
    live.textContent = total ? total + (total === 1 ? " result" : " results") + (total > 12 ? ", first 12 shown" : "") : "No results";
  }
  input.addEventListener("focus", load);
  input.addEventListener("input", function () { load().then(update); });
  input.addEventListener("keydown", function (e) {
    var count = shown.length;
    if (e.key === "ArrowDown" || e.key === "ArrowUp") {
      if (list.hidden) { load().then(update); return; }
      if (!count) return;
      e.preventDefault();
      choose(e.key === "ArrowDown" ? (active + 1) % count : (active <= 0 ? count - 1 : active - 1));
    } else if (e.key === "Enter" && !list.hidden && active >= 0) {
      e.preventDefault();
      location.href = shown[active].url;
    } else if (e.key === "Escape" && !list.hidden) {
      e.preventDefault();
      close();
    }
  });
  input.addEventListener("blur", close);
})();
