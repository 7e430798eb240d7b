"use strict";
// The Audit tab: a search over the audit events (GET api/admin/v1/audit/events, 50 at a time with "More"), an
// event's payload (console-audit-event.js), an object's timeline (every read and write of one class + primary key),
// exports of the current search (GET …/audit/export, saved from a Blob as the key travels in a header, not a
// cookie) and the state of the events' hash chain (GET …/audit/verify).
((Console) => {
  const { el, byId, fill, prevent, showStatus } = Console.ui;
  const pageSize = 50;
  const emptyFilters = { user: "", activity: "", type: "", customType: "", since: "", until: "", class: "", pk: "" };
  // `form`: what the search form holds; `applied`: the query of the list shown (exports use it); `list`: the search's
  // events; `timeline`: the object whose timeline is shown, with its events; `selected`: the event in the detail pane.
  const local = {
    form: { ...emptyFilters }, applied: null, list: null, timeline: null, selected: null,
    verify: { token: 0, answer: null, running: false, started: 0, timer: null },
  };

  function environment() {
    return Console.environment();
  }

  // datetime-local text ("2024-05-01T12:00", the browser's time zone) as ISO 8601 in UTC, or an error message.
  function isoTime(text, label) {
    if (!text) return { value: "" };
    const date = new Date(text);
    if (Number.isNaN(date.getTime())) return { error: "'" + label + "' is not a date and time: " + text };
    return { value: date.toISOString() };
  }

  // The query parameters of the search form (empty ones left out), or an error message.
  function searchQuery(form) {
    const since = isoTime(form.since, "since");
    const until = isoTime(form.until, "until");
    if (since.error || until.error) return { error: since.error || until.error };
    let type = form.type;
    if (type === "custom") {
      type = form.customType.trim();
      if (!type) return { error: "Enter the custom event type, or choose another type." };
    }
    if (form.pk.trim() && !form.class.trim()) return { error: "A primary key needs its class." };
    const params = {
      user: form.user.trim(), activity: form.activity.trim(), type, since: since.value, until: until.value,
      class: form.class.trim(), pk: form.pk.trim(),
    };
    return { params };
  }

  function queryString(params, extra) {
    const pairs = Object.entries({ ...params, ...(extra || {}) })
      .filter(([, value]) => value !== "" && value !== null && value !== undefined)
      .map(([name, value]) => encodeURIComponent(name) + "=" + encodeURIComponent(String(value)));
    return pairs.length ? "?" + pairs.join("&") : "";
  }

  function readForm() {
    const value = (id) => (byId(id) ? byId(id).value : "");
    local.form = {
      user: value("audit-user"), activity: value("audit-activity"), type: value("audit-type"),
      customType: value("audit-custom-type"), since: value("audit-since"), until: value("audit-until"),
      class: value("audit-class"), pk: value("audit-pk"),
    };
  }

  function field(id, label, attributes) {
    return el("label", { class: "field" }, label, el("input", { id, value: local.form[attributes.key], ...attributes.input }));
  }

  function searchForm() {
    const typeSelect = el("select", { id: "audit-type", onchange: () => { readForm(); updateCustomType(); } },
      ...[["", "any"], ["read", "read"], ["write", "write"], ["custom", "custom…"]].map(([value, label]) => {
        const option = el("option", { value }, label);
        if (value === local.form.type) option.setAttribute("selected", "selected");
        return option;
      }));
    // What is typed is kept (`local.form`) as it is typed, so a visit to another tab does not lose it.
    return el("form", {
      id: "audit-form", class: "filters", oninput: readForm,
      onsubmit: (event) => { prevent(event); readForm(); return search(); },
    },
      field("audit-user", "User", { key: "user", input: { placeholder: "user id", autocomplete: "off" } }),
      field("audit-activity", "Activity", { key: "activity", input: { placeholder: "activity", autocomplete: "off" } }),
      el("label", { class: "field" }, "Type", typeSelect,
        el("input", {
          id: "audit-custom-type", placeholder: "custom type", value: local.form.customType, autocomplete: "off",
        })),
      field("audit-since", "Since", { key: "since", input: { type: "datetime-local", step: "1" } }),
      field("audit-until", "Until", { key: "until", input: { type: "datetime-local", step: "1" } }),
      field("audit-class", "Class", { key: "class", input: { placeholder: "e.g. Item", autocomplete: "off" } }),
      field("audit-pk", "Primary key", { key: "pk", input: { placeholder: "primary key", autocomplete: "off" } }),
      el("div", { class: "controls" },
        el("button", { id: "audit-search", type: "submit" }, "Search"),
        el("button", { id: "audit-clear", type: "button", onclick: clear }, "Clear"),
        el("span", { class: "spacer" }),
        el("button", { id: "audit-export-jsonl", type: "button", onclick: () => exportEvents("jsonl") }, "Export JSONL"),
        el("button", { id: "audit-export-csv", type: "button", onclick: () => exportEvents("csv") }, "Export CSV")));
  }

  function clear() {
    local.form = { ...emptyFilters };
    return showSearch();
  }

  function optional(value) {
    return value === null || value === undefined ? "" : String(value);
  }

  function updateCustomType() {
    const custom = byId("audit-custom-type");
    if (custom) custom.setAttribute("class", local.form.type === "custom" ? "" : "hidden");
  }

  // The table of a list of events: a row per event (`data-event-id`), its objects as timeline buttons.
  function eventsTable(events) {
    const rows = events.map((event) => {
      const objects = Array.isArray(event.objects) ? event.objects : [];
      return el("tr", {
        class: "event-row" + (local.selected === event ? " selected" : ""), "data-event-id": event.id, tabindex: "0",
        onclick: () => select(event), onkeydown: (key) => { if (key.key === "Enter") select(event); },
      },
        el("td", {}, String(event.timestamp)), el("td", {}, optional(event.user)),
        el("td", {}, String(event.activity)), el("td", {}, optional(event.type)),
        el("td", {}, ...objects.map((o) => Console.auditEvent.objectButton(String(o.class), String(o.pk), openTimeline))));
    });
    return el("table", { class: "events" },
      el("thead", {}, el("tr", {}, ...["Time", "User", "Activity", "Type", "Objects"].map((h) => el("th", {}, h)))),
      el("tbody", {}, ...rows));
  }

  function countLine(list, id) {
    const noun = list.total === 1 ? " event" : " events";
    return el("p", { id, class: "count" }, list.events.length + " of " + list.total + noun);
  }

  // The list's part of the page: count, table, "More".
  function renderList(list, container, countId, moreId, more) {
    if (!container) return;
    fill(container,
      countLine(list, countId),
      list.events.length ? eventsTable(list.events) : el("p", {}, "No events match."),
      list.nextCursor ? el("button", { id: moreId, type: "button", onclick: more }, "More") : null);
  }

  function select(event) {
    local.selected = event;
    for (const row of [...environment().document.querySelectorAll("tr.event-row")]) {
      row.setAttribute("class", "event-row" + (row.getAttribute("data-event-id") === event.id ? " selected" : ""));
    }
    const detail = byId("audit-detail");
    if (detail) detail.replaceChildren(...Console.auditEvent.render(event, openTimeline));
    if (detail && detail.scrollIntoView) detail.scrollIntoView({ block: "nearest" });
  }

  async function fetchPage(params, cursor) {
    const answer = await Console.request("/audit/events" + queryString(params, { cursor: cursor || "", limit: pageSize }));
    return {
      events: Array.isArray(answer.events) ? answer.events : [],
      total: typeof answer.total === "number" ? answer.total : 0,
      nextCursor: answer.next_cursor || null,
    };
  }

  // The search view: form, chain badge, results, detail. The form is kept as typed while the tab is revisited.
  async function renderSearch(generation) {
    const query = searchQuery(local.form);
    byId("view").replaceChildren(
      el("h2", {}, "Audit events"),
      searchForm(),
      chainBadge(),
      el("div", { id: "audit-results" }),
      el("div", { id: "audit-detail", class: "detail" }));
    updateCustomType();
    if (query.error) throw new Error(query.error);
    const list = await fetchPage(query.params);
    if (!Console.isCurrent(generation)) return;
    local.applied = query.params;
    local.list = list;
    local.selected = null;
    renderList(list, byId("audit-results"), "audit-count", "audit-more", moreResults);
  }

  async function search() {
    const query = searchQuery(local.form);
    if (query.error) {
      showStatus(query.error, true);
      return;
    }
    const generation = Console.begin();
    showStatus("Searching…");
    try {
      const list = await fetchPage(query.params);
      if (!Console.isCurrent(generation)) return;
      local.applied = query.params;
      local.list = list;
      local.selected = null;
      renderList(list, byId("audit-results"), "audit-count", "audit-more", moreResults);
      if (byId("audit-detail")) byId("audit-detail").replaceChildren();
      showStatus("");
    } catch (error) {
      Console.fail(error, generation);
    }
  }

  async function moreResults() {
    await more(local.list, local.applied,
      () => renderList(local.list, byId("audit-results"), "audit-count", "audit-more", moreResults));
  }

  // The next page of `list` (the search's or the timeline's), appended.
  async function more(list, params, rerender) {
    if (!list || !list.nextCursor) return;
    const generation = Console.begin();
    showStatus("Loading more…");
    try {
      const page = await fetchPage(params, list.nextCursor);
      if (!Console.isCurrent(generation)) return;
      list.events = list.events.concat(page.events);
      list.total = page.total;
      list.nextCursor = page.nextCursor;
      rerender();
      showStatus("");
    } catch (error) {
      Console.fail(error, generation);
    }
  }

  // Every read and write of one object, as a vertical list.
  function openTimeline(className, pk) {
    local.timeline = { class: className, pk, list: null };
    local.selected = null;
    return Console.showTab("audit");
  }

  async function renderTimeline(generation) {
    const target = local.timeline;
    const params = { class: target.class, pk: target.pk };
    const list = await fetchPage(params);
    if (!Console.isCurrent(generation)) return;
    target.list = list;
    byId("view").replaceChildren(
      el("button", { id: "audit-back", type: "button", onclick: showSearch }, "← Audit search"),
      el("h2", { id: "audit-timeline-title" }, "Every read and write of " + target.class + " " + target.pk),
      el("div", { id: "audit-timeline-list" }),
      el("div", { id: "audit-detail", class: "detail" }));
    renderTimelineList(target);
  }

  function renderTimelineList(target) {
    const container = byId("audit-timeline-list");
    if (!container || !target.list) return;
    const list = target.list;
    const entries = list.events.map((event) => el("li", {
      class: "timeline-entry" + (event.type === "write" ? " write" : event.type === "read" ? " read" : ""),
      "data-event-id": event.id, tabindex: "0",
      onclick: () => selectInTimeline(event), onkeydown: (key) => { if (key.key === "Enter") selectInTimeline(event); },
    },
      el("span", { class: "when" }, String(event.timestamp)),
      el("span", { class: "kind" }, event.type === null || event.type === undefined ? "(custom)" : String(event.type)),
      el("span", { class: "who" }, event.user === null || event.user === undefined ? "(unknown user)" : "by " + event.user),
      el("span", { class: "activity" }, String(event.activity))));
    const moreOfTimeline = () => more(list, { class: target.class, pk: target.pk }, () => renderTimelineList(target));
    fill(container,
      countLine(list, "audit-timeline-count"),
      entries.length
        ? el("ol", { id: "audit-timeline", class: "timeline" }, ...entries)
        : el("p", {}, "No reads or writes of this object."),
      list.nextCursor ? el("button", { id: "audit-timeline-more", type: "button", onclick: moreOfTimeline }, "More") : null);
  }

  function selectInTimeline(event) {
    for (const entry of [...environment().document.querySelectorAll("li.timeline-entry")]) {
      const base = entry.getAttribute("class").replace(/ selected$/, "");
      entry.setAttribute("class", base + (entry.getAttribute("data-event-id") === event.id ? " selected" : ""));
    }
    const detail = byId("audit-detail");
    if (detail) detail.replaceChildren(...Console.auditEvent.render(event, openTimeline));
  }

  function showSearch() {
    local.timeline = null;
    return Console.showTab("audit");
  }

  // Exports the applied search (or, before any, the form's) as a file: fetched with the key, saved from a Blob.
  async function exportEvents(format) {
    const query = local.applied ? { params: local.applied } : searchQuery(local.form);
    if (query.error) {
      showStatus(query.error, true);
      return;
    }
    showStatus("Exporting " + format.toUpperCase() + "…");
    try {
      const path = "/audit/export" + queryString({ format, ...query.params });
      const file = await Console.requestFile(path, "audit-events." + format);
      save(file.blob, file.name);
      showStatus("Saved " + file.name + " (" + file.blob.size.toLocaleString("en") + " bytes).");
    } catch (error) {
      Console.fail(error);
    }
  }

  function save(blob, name) {
    const env = environment();
    const url = env.URL.createObjectURL(blob);
    const link = el("a", { href: url, download: name, class: "hidden" }, name);
    env.document.body.append(link);
    link.click();
    link.remove();
    env.setTimeout(() => env.URL.revokeObjectURL(url), 60000);
  }

  // The chain badge: the last verification's answer, kept while the tab is revisited.
  function chainBadge() {
    return el("div", { class: "chain" },
      el("span", { id: "audit-chain" }),
      el("button", { id: "audit-verify", type: "button", onclick: verify }, "Verify"));
  }

  function updateBadge() {
    const badge = byId("audit-chain");
    if (!badge) return;
    const { answer, running, started } = local.verify;
    let text;
    let status;
    if (running) {
      status = "running";
      text = "Verifying the event chain… " + Math.round((Date.now() - started) / 1000) + " s";
    } else if (!answer) {
      status = "unknown";
      text = "Event chain not verified yet.";
    } else if (answer.error) {
      status = "error";
      text = "Verification failed: " + answer.error;
    } else if (answer.ok) {
      status = "ok";
      text = "✓ Chain verified: " + answer.batches + (answer.batches === 1 ? " batch, " : " batches, ") + answer.events
        + (answer.events === 1 ? " event." : " events.");
    } else {
      status = "mismatch";
      const mismatch = answer.first_mismatch || {};
      text = "✗ First mismatch at batch " + mismatch.batch
        + (mismatch.ingested_at ? " (ingested " + mismatch.ingested_at + ")" : "")
        + ": " + (mismatch.reason || "the chain does not match") + ". "
        + answer.batches + " batches, " + answer.events + " events checked.";
    }
    badge.setAttribute("class", "badge " + status);
    badge.setAttribute("data-verify", status);
    badge.replaceChildren(text);
    const button = byId("audit-verify");
    if (button) {
      if (running) button.setAttribute("disabled", "disabled");
      else if (button.removeAttribute) button.removeAttribute("disabled");
    }
  }

  function tick() {
    const env = environment();
    if (local.verify.timer !== null) env.clearTimeout(local.verify.timer);
    local.verify.timer = null;
    if (!local.verify.running) return;
    updateBadge();
    local.verify.timer = env.setTimeout(tick, 1000);
  }

  async function verify() {
    const token = ++local.verify.token;
    local.verify.running = true;
    local.verify.started = Date.now();
    tick();
    let answer;
    try {
      answer = await Console.request("/audit/verify");
    } catch (error) {
      if (token !== local.verify.token) return;
      local.verify.running = false;
      tick();
      if (error.status === 403) return Console.fail(error);
      answer = { error: error.message };
    }
    if (token !== local.verify.token) return;
    local.verify.running = false;
    local.verify.answer = answer;
    tick();
    updateBadge();
  }

  async function render(generation) {
    if (local.timeline) await renderTimeline(generation);
    else await renderSearch(generation);
    updateBadge();
  }

  // The tab chosen again starts at the search; signing out also forgets the filters and the chain's state.
  function reset(options) {
    local.timeline = null;
    local.selected = null;
    if (options && options.signedOut) {
      local.form = { ...emptyFilters };
      local.applied = null;
      local.list = null;
      local.verify.token += 1;
      local.verify.running = false;
      local.verify.answer = null;
      tick();
    }
  }

  Console.registerTab("audit", "Audit", { render, reset });
})(typeof OutpostConsole !== "undefined" ? OutpostConsole : require("./console.js"));