// routebench report: renders the case table from the embedded JSON and
// switches metric groups. Hand-written, no libraries, no network. Text
// from cases and models is only ever set with textContent, never parsed
// as HTML.
(function () {
  "use strict";
  var PAGE = 200;
  var data = JSON.parse(document.getElementById("case-data").textContent);
  var S = data.s;
  var versions = data.v.map(function (i) { return S[i]; });
  var rows = [];
  var cases = data.c;

  // One row per (case, version) that ran; haystack is what search matches.
  cases.forEach(function (c, ci) {
    c.hay = (c.id + "\n" + (c.in || "") + "\n" + S[c.x.k || 0]).toLowerCase();
    c.r.forEach(function (r, vi) {
      if (r) rows.push({ ci: ci, vi: vi, sv: r.sv || 9, hay: r.in ? (" " + r.in.toLowerCase()) : "" });
    });
  });
  // Failures first, worst first (policy violations, wrong executions,
  // the rest), then passes; ties keep case order. sv comes from the report.
  rows.sort(function (a, b) { return a.sv - b.sv || a.ci - b.ci || a.vi - b.vi; });

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }
  function str(i) { return S[i || 0]; }
  function num(n) { return n.toLocaleString("en-US"); }
  function addOptions(select, values) {
    values.forEach(function (v) {
      var o = el("option", null, v);
      o.value = v;
      select.appendChild(o);
    });
  }
  function uniqueSorted(fn) {
    var seen = {};
    cases.forEach(function (c) { fn(c).forEach(function (v) { if (v) seen[v] = true; }); });
    return Object.keys(seen).sort();
  }

  var fVersion = document.getElementById("f-version");
  var fSuite = document.getElementById("f-suite");
  var fStatus = document.getElementById("f-status");
  var fFailure = document.getElementById("f-failure");
  var fTag = document.getElementById("f-tag");
  var fSearch = document.getElementById("f-search");
  var tbody = document.getElementById("case-rows");
  var countLine = document.getElementById("case-count");
  var more = document.getElementById("more");

  addOptions(fVersion, versions);
  addOptions(fSuite, uniqueSorted(function (c) { return [str(c.su)]; }));
  addOptions(fFailure, uniqueSorted(function (c) {
    return c.r.map(function (r) { return r ? str(r.f) : ""; });
  }));
  addOptions(fTag, uniqueSorted(function (c) { return (c.t || []).map(str); }));

  var matched = [];
  var shown = 0;

  function matches(row, f) {
    var c = cases[row.ci], r = c.r[row.vi];
    if (f.version !== "" && versions[row.vi] !== f.version) return false;
    if (f.suite !== "" && str(c.su) !== f.suite) return false;
    if (f.failure !== "" && str(r.f) !== f.failure) return false;
    if (f.status === "pass" && !r.p) return false;
    if (f.status === "fail" && r.p) return false;
    if (f.status === "broken" || f.status === "fixed") {
      var base = c.r[0];
      if (row.vi === 0 || !base) return false;
      if (f.status === "broken" && !(base.p && !r.p)) return false;
      if (f.status === "fixed" && !(!base.p && r.p)) return false;
    }
    if (f.tag !== "" && (c.t || []).map(str).indexOf(f.tag) < 0) return false;
    if (f.q !== "") {
      var hay = c.hay + row.hay + "\n" + str(r.k).toLowerCase();
      var terms = f.q.split(/\s+/);
      for (var i = 0; i < terms.length; i++) {
        if (terms[i] && hay.indexOf(terms[i]) < 0) return false;
      }
    }
    return true;
  }

  function apply() {
    var f = { version: fVersion.value, suite: fSuite.value, status: fStatus.value,
      failure: fFailure.value, tag: fTag.value, q: fSearch.value.trim().toLowerCase() };
    matched = rows.filter(function (row) { return matches(row, f); });
    tbody.textContent = "";
    shown = 0;
    showMore();
  }

  function showMore() {
    var end = Math.min(matched.length, shown + PAGE);
    var frag = document.createDocumentFragment();
    for (var i = shown; i < end; i++) frag.appendChild(rowElement(matched[i]));
    tbody.appendChild(frag);
    shown = end;
    countLine.textContent = "showing " + num(shown) + " of " + num(matched.length) + " matching results (" +
      num(rows.length) + " in all); click a row for its expectation, decision and stage trace";
    more.hidden = shown >= matched.length;
  }

  function actionSkill(action, skill) {
    var a = str(action), k = str(skill);
    return k ? a + " " + k : a;
  }

  function rowElement(row) {
    var c = cases[row.ci], r = c.r[row.vi];
    var tr = el("tr", "case-row " + (r.p ? "pass" : "fail"));
    tr.dataset.case = c.id;
    tr.appendChild(el("td", "mono", c.id));
    tr.appendChild(el("td", null, versions[row.vi]));
    tr.appendChild(el("td", null, str(c.su)));
    tr.appendChild(el("td", "outcome", r.p ? "pass" : (str(r.f) || "fail")));
    tr.appendChild(el("td", null, actionSkill(c.x.a, c.x.k)));
    tr.appendChild(el("td", null, actionSkill(r.a, r.k)));
    tr.appendChild(el("td", null, r.c === undefined ? "0.000" : r.c.toFixed(3)));
    var input = el("td", "input", r.in || c.in || "");
    input.title = r.in || c.in || "";
    tr.appendChild(input);
    tr.addEventListener("click", function () { toggleDetail(tr, c, r, row.vi); });
    return tr;
  }

  function field(dl, name, value) {
    if (value === undefined || value === null || value === "" ||
        (Array.isArray(value) && value.length === 0)) return;
    dl.appendChild(el("dt", null, name));
    if (value instanceof Node) {
      var dd = el("dd");
      dd.appendChild(value);
      dl.appendChild(dd);
    } else {
      dl.appendChild(el("dd", null, typeof value === "string" ? value : JSON.stringify(value)));
    }
  }

  // traceText formats one stage's record: an interned line, or
  // [stage, words, [skill, score, ...], confidence, [errors]] (casedata.go).
  function traceText(t) {
    if (typeof t === "number") return str(t);
    var parts = [];
    if (t[1]) parts.push(str(t[1]));
    var sc = t[2] || [];
    if (sc.length) {
      var ranked = [];
      for (var i = 0; i < sc.length; i += 2) {
        ranked.push(str(sc[i]) + (sc[i + 1] === null ? "" : " " + Number(sc[i + 1]).toFixed(3)));
      }
      parts.push("ranked " + ranked.join(", "));
    }
    if (t[3] !== undefined && t[3] !== null) parts.push("confidence " + Number(t[3]).toFixed(3));
    (t[4] || []).forEach(function (e) { parts.push("error " + e); });
    return str(t[0]) + ": " + parts.join("; ");
  }

  function list(items) {
    var ol = el("ol");
    items.forEach(function (t) { ol.appendChild(el("li", null, t)); });
    return ol;
  }

  // decisionFields lists one decision against its expectation: a single
  // case's, or one turn of a conversation.
  function decisionFields(dl, x, r) {
    field(dl, "expected", actionSkill(x.a, x.k) + (x.g ? " (gate " + str(x.g) + ")" : ""));
    field(dl, "expected params", x.p);
    field(dl, "must offer", (x.cd || []).map(str).join(", "));
    field(dl, "must never act", (x.n || []).map(str).join(", "));
    field(dl, "outcome", r.p ? "pass" : "fail: " + (str(r.f) || "uncategorised"));
    field(dl, "decided", actionSkill(r.a, r.k) + (r.g ? " (gate " + str(r.g) + ")" : "") +
      " by stage " + (str(r.st) || "?") + ", confidence " + (r.c || 0).toFixed(3));
    field(dl, "params", str(r.pa));
    field(dl, "candidates", (r.cd || []).map(function (p) { return str(p[0]) + " " + Number(p[1]).toFixed(3); }).join(", "));
    field(dl, "message", r.m);
    if (r.e) field(dl, "errors", list(r.e));
    if (r.tr) field(dl, "trace", list(r.tr.map(traceText)));
    field(dl, "raw model output", r.raw);
    field(dl, "latency", r.l ? (r.l / 1000).toFixed(2) + " ms" : "");
  }

  function toggleDetail(tr, c, r, vi) {
    var next = tr.nextSibling;
    if (next && next.classList && next.classList.contains("detail")) {
      next.remove();
      return;
    }
    var d = el("tr", "detail");
    var td = el("td");
    td.colSpan = 8;
    var dl = el("dl", "detail-grid");
    field(dl, "case", c.id + " (" + str(c.su) + ")");
    field(dl, "version", versions[vi]);
    var conversation = c.tu && r.tu;
    if (!conversation) field(dl, "input", r.in || c.in);
    field(dl, "tags", (c.t || []).map(str).join(", "));
    td.appendChild(dl);
    if (conversation) {
      // A conversation: its turns in order, each with its own decision.
      field(dl, "outcome", r.p ? "pass: every turn passed" :
        "fail: " + (str(r.f) || "uncategorised") + (r.ft ? " at turn " + r.ft + " of " + c.tu.length : ""));
      c.tu.forEach(function (t, i) {
        var tr2 = r.tu[i];
        if (!tr2) return;
        td.appendChild(el("h4", "turn-title " + (tr2.p ? "pass" : "fail"), "turn " + (i + 1) + " of " + c.tu.length));
        var tdl = el("dl", "detail-grid");
        field(tdl, "input", t.in ? t.in : "(the user said nothing)");
        decisionFields(tdl, t.x, tr2);
        td.appendChild(tdl);
      });
    } else {
      decisionFields(dl, c.x, r);
    }
    d.appendChild(td);
    tr.parentNode.insertBefore(d, tr.nextSibling);
  }

  var timer = null;
  fSearch.addEventListener("input", function () {
    clearTimeout(timer);
    timer = setTimeout(apply, 120);
  });
  [fVersion, fSuite, fStatus, fFailure, fTag].forEach(function (s) { s.addEventListener("change", apply); });
  more.addEventListener("click", showMore);

  function reset() {
    fVersion.value = ""; fSuite.value = ""; fStatus.value = ""; fFailure.value = ""; fTag.value = ""; fSearch.value = "";
  }
  Array.prototype.forEach.call(document.querySelectorAll(".filter-link"), function (a) {
    a.addEventListener("click", function () {
      reset();
      fVersion.value = a.dataset.version;
      fFailure.value = a.dataset.failure;
      apply();
    });
  });
  Array.prototype.forEach.call(document.querySelectorAll(".case-link"), function (a) {
    a.addEventListener("click", function () {
      reset();
      fSearch.value = a.dataset.case;
      apply();
    });
  });

  var groupSelect = document.getElementById("group-select");
  if (groupSelect) {
    groupSelect.addEventListener("change", function () {
      Array.prototype.forEach.call(document.querySelectorAll("table.metrics"), function (t) {
        t.hidden = t.dataset.group !== groupSelect.value;
      });
    });
  }

  // Side by side: one row per case, one column per version; "only
  // differences" keeps the cases the versions disagree on (df, from the
  // report).
  var sbsBody = document.getElementById("sbs-rows");
  if (sbsBody) {
    var sbsOnly = document.getElementById("sbs-diff");
    var sbsCount = document.getElementById("sbs-count");
    var sbsMore = document.getElementById("sbs-more");
    var head = el("tr");
    ["case", "suite", "expected"].concat(versions).forEach(function (h) { head.appendChild(el("th", null, h)); });
    document.getElementById("sbs-head").appendChild(head);
    var sbsMatched = [];
    var sbsShown = 0;
    var sbsShowMore = function () {
      var end = Math.min(sbsMatched.length, sbsShown + PAGE);
      var frag = document.createDocumentFragment();
      for (var i = sbsShown; i < end; i++) {
        var c = cases[sbsMatched[i]];
        var tr = el("tr", "sbs-row");
        tr.dataset.case = c.id;
        tr.appendChild(el("td", "mono", c.id));
        tr.appendChild(el("td", null, str(c.su)));
        tr.appendChild(el("td", null, actionSkill(c.x.a, c.x.k)));
        c.r.forEach(function (r) {
          if (!r) { tr.appendChild(el("td", "muted", "not run")); return; }
          var td = el("td", r.p ? "pass" : "fail");
          td.appendChild(el("span", "outcome", r.p ? "pass" : (str(r.f) || "fail")));
          td.appendChild(el("div", "muted", actionSkill(r.a, r.k)));
          tr.appendChild(td);
        });
        frag.appendChild(tr);
      }
      sbsBody.appendChild(frag);
      sbsShown = end;
      sbsCount.textContent = "showing " + num(sbsShown) + " of " + num(sbsMatched.length) +
        (sbsOnly.checked ? " cases the versions disagree on (" + num(cases.length) + " in all)" : " cases");
      sbsMore.hidden = sbsShown >= sbsMatched.length;
    };
    var sbsApply = function () {
      sbsMatched = [];
      cases.forEach(function (c, ci) { if (!sbsOnly.checked || c.df) sbsMatched.push(ci); });
      sbsBody.textContent = "";
      sbsShown = 0;
      sbsShowMore();
    };
    sbsOnly.addEventListener("change", sbsApply);
    sbsMore.addEventListener("click", sbsShowMore);
    sbsApply();
  }

  apply();
})();
