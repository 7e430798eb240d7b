"use strict";
// The Overview's activity (GET api/admin/v1/stats): number tiles and two inline SVG charts, documents per
// collection and events ingested per hour over the last 24 hours. Built with createElementNS and text nodes only.
// A server without the stats route (404) shows the Overview as before.
((Console) => {
  const svgNamespace = "http://www.w3.org/2000/svg";
  const { el } = Console.ui;

  function svg(tag, attributes, ...children) {
    const node = Console.environment().document.createElementNS(svgNamespace, tag);
    for (const [name, value] of Object.entries(attributes || {})) node.setAttribute(name, String(value));
    for (const child of children) {
      if (child === null || child === undefined) continue;
      node.append(typeof child === "string" ? Console.environment().document.createTextNode(child) : child);
    }
    return node;
  }

  function count(value) {
    return typeof value === "number" && Number.isFinite(value) ? value : 0;
  }

  function plural(n, one, many) {
    return n.toLocaleString("en") + " " + (n === 1 ? one : many);
  }

  function tile(name, label, value) {
    return el("div", { class: "tile", "data-stat": name },
      el("span", { class: "tile-value" }, count(value).toLocaleString("en")), el("span", { class: "tile-label" }, label));
  }

  // A "round" upper end for an axis: 1, 2 or 5 times a power of ten, at least `max`.
  function axisMax(max) {
    if (max <= 0) return 1;
    const power = Math.pow(10, Math.floor(Math.log10(max)));
    for (const step of [1, 2, 5, 10]) if (step * power >= max) return step * power;
    return 10 * power;
  }

  // Horizontal bars: one row per collection, its name at the left and its count after the bar.
  function documentsChart(collections) {
    const rowHeight = 24, labelWidth = 150, barSpace = 380, top = 8, width = labelWidth + barSpace + 80;
    const max = axisMax(Math.max(0, ...collections.map((c) => count(c.documents))));
    const height = top + collections.length * rowHeight + 34;
    const rows = collections.map((c, i) => {
      const n = count(c.documents);
      const y = top + i * rowHeight;
      const barWidth = n > 0 ? Math.max(1, (n / max) * barSpace) : 0;
      return svg("g", { class: "row", "data-collection": c.name },
        svg("title", {}, c.name + ": " + plural(n, "document", "documents")),
        svg("text", { x: labelWidth - 8, y: y + 16, "text-anchor": "end" }, c.name),
        svg("rect", { class: "bar", x: labelWidth, y: y + 4, width: barWidth.toFixed(1), height: rowHeight - 8 }),
        svg("text", { class: "value", x: (labelWidth + barWidth + 6).toFixed(1), y: y + 16 }, n.toLocaleString("en")));
    });
    const axisY = top + collections.length * rowHeight + 2;
    return svg("svg", {
      class: "chart", id: "chart-documents", viewBox: "0 0 " + width + " " + height, role: "img",
      "aria-label": "Documents per collection",
    },
      svg("title", {}, "Documents per collection"),
      ...rows,
      svg("line", { class: "axis", x1: labelWidth, y1: top, x2: labelWidth, y2: axisY }),
      svg("line", { class: "axis", x1: labelWidth, y1: axisY, x2: labelWidth + barSpace, y2: axisY }),
      svg("text", { class: "tick", x: labelWidth, y: axisY + 14, "text-anchor": "middle" }, "0"),
      svg("text", { class: "tick", x: labelWidth + barSpace, y: axisY + 14, "text-anchor": "middle" },
        max.toLocaleString("en")),
      svg("text", { class: "axis-label", x: labelWidth + barSpace / 2, y: axisY + 28, "text-anchor": "middle" }, "documents"));
  }

  function hourLabel(iso) {
    const date = new Date(iso);
    return Number.isNaN(date.getTime()) ? String(iso) : String(date.getHours()).padStart(2, "0") + ":00";
  }

  // Columns: one per hour, oldest at the left; every sixth hour is labelled on the time axis.
  function eventsChart(buckets) {
    const left = 48, top = 10, plotWidth = 576, plotHeight = 150, width = left + plotWidth + 12;
    const height = top + plotHeight + 44;
    const max = axisMax(Math.max(0, ...buckets.map((b) => count(b.count))));
    const step = plotWidth / Math.max(1, buckets.length);
    const bottom = top + plotHeight;
    const columns = buckets.map((b, i) => {
      const n = count(b.count);
      const h = n > 0 ? Math.max(1, (n / max) * plotHeight) : 0;
      const x = left + i * step;
      return svg("g", { class: "column", "data-hour": String(b.hour) },
        svg("title", {}, hourLabel(b.hour) + " (" + b.hour + "): " + plural(n, "event", "events")),
        svg("rect", {
          class: "bar", x: (x + 2).toFixed(1), y: (bottom - h).toFixed(1), width: (step - 4).toFixed(1), height: h.toFixed(1),
        }));
    });
    const labels = buckets.map((b, i) => i % 6 === 0 || i === buckets.length - 1
      ? svg("text", { class: "tick", x: (left + i * step + step / 2).toFixed(1), y: bottom + 14, "text-anchor": "middle" },
        hourLabel(b.hour))
      : null);
    return svg("svg", {
      class: "chart", id: "chart-events", viewBox: "0 0 " + width + " " + height, role: "img",
      "aria-label": "Events ingested per hour, last 24 hours",
    },
      svg("title", {}, "Events ingested per hour, last 24 hours"),
      ...columns,
      svg("line", { class: "axis", x1: left, y1: top, x2: left, y2: bottom }),
      svg("line", { class: "axis", x1: left, y1: bottom, x2: left + plotWidth, y2: bottom }),
      svg("text", { class: "tick", x: left - 6, y: bottom + 4, "text-anchor": "end" }, "0"),
      svg("text", { class: "tick", x: left - 6, y: top + 8, "text-anchor": "end" }, max.toLocaleString("en")),
      ...labels,
      svg("text", { class: "axis-label", x: left + plotWidth / 2, y: bottom + 34, "text-anchor": "middle" },
        "hour (local time) — events ingested"));
  }

  async function loadStats() {
    let stats;
    try {
      stats = await Console.request("/stats");
    } catch (error) {
      if (error.status === 404) return [];  // an older server: the Overview as before
      if (error.status === 403) throw error;
      return [el("p", { class: "status error", id: "stats-error" }, "Statistics are unavailable: " + error.message)];
    }
    const lastHour = stats.last_hour || {};
    const collections = Array.isArray(stats.collections) ? stats.collections : [];
    const buckets = Array.isArray(stats.events_per_hour) ? stats.events_per_hour : [];
    return [
      el("h3", {}, "Activity"),
      el("div", { class: "tiles", id: "stats-tiles" },
        tile("users", "users", stats.users),
        tile("connections", "live connections", stats.connections),
        tile("compensating_writes", "compensating writes, last hour", lastHour.compensating_writes),
        tile("errors", "errors, last hour", lastHour.errors)),
      el("h3", {}, "Documents per collection"),
      collections.length ? documentsChart(collections) : el("p", {}, "No documents yet."),
      el("h3", {}, "Events ingested per hour"),
      buckets.length ? eventsChart(buckets) : el("p", {}, "No event counts."),
    ];
  }

  Console.addOverviewSection(loadStats);
})(typeof OutpostConsole !== "undefined" ? OutpostConsole : require("./console.js"));