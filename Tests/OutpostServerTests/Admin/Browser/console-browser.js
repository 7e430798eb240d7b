#!/usr/bin/env node
"use strict";
// Drives the admin console in a real, headless Chromium over the Chrome DevTools Protocol (CDP), through
// --remote-debugging-pipe (cdp.js beside it: NUL-terminated JSON on Chromium's fds 3 and 4; no WebSocket and no
// library, Node.js 18 or later).
//
//   node console-browser.js --chromium /usr/bin/chromium --origin http://127.0.0.1:PORT/ --key <admin key>
//        --screenshots <dir> --scenario <file.json> [--only step,step…] [--timeout <seconds>]
//
// The scenario (written by the test that started the server with known data) says what to expect; a part left out
// is not run, and --only runs only the named steps (and the sign-in they need):
//   {
//     "wrongKey": "nope",                 a key the server refuses (default: the key + "-wrong")
//     "userId": "…",                      a user the Users tab lists
//     "collection": "Item",               a collection the Data tab lists, with documents
//     "stats": true | false,              whether the Overview shows statistics (false: an older server, no tiles)
//     "function": {"name": "sum", "arguments": "[…]" (Extended JSON), "userId": "…" (optional),
//                  "expectedResult": "3" (the result's text, or its number)},
//     "audit": {"user": "…", "userEventIds": […],          the events a search by user lists, exactly
//               "class": "Item", "pk": "…", "objectEventIds": […],   the events of one object, exactly
//               "showEventId": "…" (the row opened for audit.png), "exportFormat": "csv" | "jsonl",
//               "chain": "ok" (what Verify shows)}
//   }
// Steps: refusedKey, signIn, overview, users, data, logs, functions, audit.user, audit.object, audit.timeline,
// audit.export, audit.verify. Screenshots: overview.png, users.png, data.png, logs.png, functions.png, audit.png,
// timeline.png (failure.png when a step fails).
//
// Prints one JSON line, {"ok": true, "steps": [names], "durations_ms": {step: ms}, "total_ms", "pageErrors": […]}
// or {"ok": false, "step", "error", "pageText", "pageErrors": […]} (also on standard error), and exits 0 or 1.
// Chromium is stopped at the end, on a failure, on SIGTERM/SIGINT and when the overall timeout (default 150 s) ends.
const fs = require("fs");
const os = require("os");
const path = require("path");
const { Page, startChromium, stopChromium, waitUntil } = require("./cdp.js");

const allSteps = [
  "refusedKey", "signIn", "overview", "users", "data", "logs", "functions",
  "audit.user", "audit.object", "audit.timeline", "audit.export", "audit.verify",
];

function parseArguments(argv) {
  const options = { timeout: 150, only: null };
  for (let i = 0; i < argv.length; i++) {
    const name = argv[i];
    const value = () => {
      if (i + 1 >= argv.length) throw new Error(name + " needs a value");
      return argv[++i];
    };
    if (name === "--chromium") options.chromium = value();
    else if (name === "--origin") options.origin = value();
    else if (name === "--key") options.key = value();
    else if (name === "--screenshots") options.screenshots = value();
    else if (name === "--scenario") options.scenario = value();
    else if (name === "--timeout") options.timeout = Number(value());
    else if (name === "--only") options.only = value().split(",").map((s) => s.trim()).filter(Boolean);
    else throw new Error("unknown argument " + name);
  }
  for (const required of ["chromium", "origin", "key", "screenshots", "scenario"]) {
    if (!options[required]) throw new Error("--" + required + " is required");
  }
  if (!options.origin.endsWith("/")) options.origin += "/";
  if (!(options.timeout > 0)) throw new Error("--timeout must be a positive number of seconds");
  for (const step of options.only || []) {
    if (!allSteps.includes(step) && !allSteps.some((s) => s.startsWith(step + "."))) throw new Error("--only: no step " + step);
  }
  return options;
}

// --- Checks ------------------------------------------------------------------------------------------------------

function sameIds(found, expected, what) {
  const missing = expected.filter((id) => !found.includes(id));
  const extra = found.filter((id) => !expected.includes(id));
  const repeated = found.filter((id, i) => found.indexOf(id) !== i);
  if (missing.length || extra.length || repeated.length) {
    throw new Error(what + ": expected exactly " + JSON.stringify(expected) + ", found " + JSON.stringify(found)
      + (missing.length ? "; missing " + JSON.stringify(missing) : "") + (extra.length ? "; not expected " + JSON.stringify(extra) : "")
      + (repeated.length ? "; listed twice " + JSON.stringify(repeated) : ""));
  }
}

// Whether a result shown as (pretty) Extended JSON is `expected`: the same text, the same JSON, or the same number
// (`{"$numberInt": "3"}` is 3).
function resultMatches(shown, expected) {
  const text = shown.trim();
  if (text === String(expected).trim()) return true;
  let value;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return false;
  }
  try {
    if (JSON.stringify(value) === JSON.stringify(JSON.parse(expected))) return true;
  } catch (error) {
    // `expected` is not JSON: compare as a number below
  }
  if (value && typeof value === "object") {
    const names = Object.keys(value);
    if (names.length === 1 && ["$numberInt", "$numberLong", "$numberDouble", "$numberDecimal"].includes(names[0])) value = value[names[0]];
  }
  return String(value) === String(expected).trim() || (Number(value) === Number(expected) && !Number.isNaN(Number(value)));
}

// The ids of an export: JSON Lines (each line's `id`) or CSV (the `id` column of the header row).
function exportedIds(text, format) {
  if (format === "jsonl") {
    return text.split(/\r?\n/).filter((line) => line.trim()).map((line) => {
      const record = JSON.parse(line);
      const id = record.id !== undefined ? record.id : record._id;
      return id && typeof id === "object" && id.$oid ? id.$oid : String(id);
    });
  }
  const rows = parseCSV(text).filter((row) => row.length > 1 || (row.length === 1 && row[0] !== ""));
  if (!rows.length) return [];
  const column = rows[0].findIndex((name) => name.trim() === "id" || name.trim() === "_id");
  if (column === -1) throw new Error("the CSV has no id column: " + JSON.stringify(rows[0]));
  return rows.slice(1).map((row) => row[column]);
}

// RFC 4180: fields separated by commas, quoted with "…" (doubled inside), rows ended by CRLF or LF.
function parseCSV(text) {
  const rows = [];
  let row = [];
  let field = "";
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === "\"" && text[i + 1] === "\"") {
        field += "\"";
        i++;
      } else if (c === "\"") {
        quoted = false;
      } else {
        field += c;
      }
    } else if (c === "\"") {
      quoted = true;
    } else if (c === ",") {
      row.push(field);
      field = "";
    } else if (c === "\n" || c === "\r") {
      if (c === "\r" && text[i + 1] === "\n") i++;
      row.push(field);
      rows.push(row);
      row = [];
      field = "";
    } else {
      field += c;
    }
  }
  if (field !== "" || row.length) {
    row.push(field);
    rows.push(row);
  }
  return rows;
}

// --- The run -----------------------------------------------------------------------------------------------------

async function main(options, browser) {
  const scenario = JSON.parse(fs.readFileSync(options.scenario, "utf8"));
  const wanted = (step) => !options.only || options.only.includes(step) || options.only.includes(step.split(".")[0]);
  fs.mkdirSync(options.screenshots, { recursive: true });
  const downloads = fs.mkdtempSync(path.join(os.tmpdir(), "console-browser-downloads-"));
  browser.cleanups.push(() => fs.rmSync(downloads, { recursive: true, force: true }));
  const connection = browser.connection;
  const run = browser.run;

  const { targetId } = await connection.send("Target.createTarget", { url: "about:blank" });
  const { sessionId } = await connection.send("Target.attachToTarget", { targetId, flatten: true });
  const page = new Page(connection, sessionId, 60000);
  browser.page = page;
  connection.onEvent((message) => {
    if (message.sessionId !== sessionId) return;
    if (message.method === "Runtime.exceptionThrown") {
      const details = message.params.exceptionDetails || {};
      run.pageErrors.push("exception: " + ((details.exception && details.exception.description) || details.text));
    } else if (message.method === "Log.entryAdded" && message.params.entry.level === "error") {
      const entry = message.params.entry;
      if (!/favicon/.test(entry.url || "")) run.pageErrors.push(entry.source + ": " + entry.text + (entry.url ? " (" + entry.url + ")" : ""));
    } else if (message.method === "Page.javascriptDialogOpening") {
      page.send("Page.handleJavaScriptDialog", { accept: true }).catch(() => {});
    }
  });
  // Downloads, recorded as their events come (a small file's "completed" can come in the same read as its start).
  const downloadsSeen = [];
  const downloadStates = new Map();
  connection.onEvent((message) => {
    if (message.method === "Browser.downloadWillBegin") downloadsSeen.push(message.params);
    else if (message.method === "Browser.downloadProgress") downloadStates.set(message.params.guid, message.params.state);
  });
  await page.send("Page.enable");
  await page.send("Runtime.enable");
  await page.send("Log.enable");
  await page.send("Emulation.setDeviceMetricsOverride", { width: 1280, height: 900, deviceScaleFactor: 1, mobile: false });
  try {
    await connection.send("Browser.setDownloadBehavior", { behavior: "allow", downloadPath: downloads, eventsEnabled: true });
  } catch (error) {
    await page.send("Page.setDownloadBehavior", { behavior: "allow", downloadPath: downloads });
  }

  const step = async (name, body) => {
    if (!wanted(name)) return;
    run.step = name;
    const started = Date.now();
    await body();
    run.steps.push(name);
    run.durations[name] = Date.now() - started;
  };
  // Each screenshot's page is also checked for a stray value: a text "null" or "undefined" outside a table cell or a
  // value's span (where it may be data).
  const shot = async (name) => {
    const stray = await page.call(() => {
      const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        const text = node.textContent.trim();
        const parent = node.parentElement ? node.parentElement.tagName : "";
        if ((text === "null" || text === "undefined") && !["TD", "SPAN", "PRE", "CODE"].includes(parent)) {
          return parent + " holds the text " + text;
        }
      }
      return null;
    });
    if (stray) throw new Error("a stray value on the page: " + stray);
    await page.screenshot(path.join(options.screenshots, name));
  };
  // The current view has finished loading: the status line no longer says so.
  const settled = () => page.waitFor("the view to finish loading", () => {
    const status = document.getElementById("status");
    return status && !/Loading|Searching|Exporting/.test(status.textContent) && document.getElementById("view") !== null;
  });
  const failIfStatusError = async () => {
    const error = await page.call(() => {
      const status = document.getElementById("status");
      return status && status.classList.contains("error") ? status.textContent : null;
    });
    if (error) throw new Error("the page shows an error: " + error);
  };
  const openTab = async (tab) => {
    await page.click("#tab-" + tab);
    await page.waitFor("the " + tab + " tab to be chosen", (t) => {
      const button = document.getElementById("tab-" + t);
      return button && button.classList.contains("active");
    }, [tab]);
    await settled();
  };

  // Sign-in: a refused key, then the right one. A fresh tab has no key in its session storage.
  await page.navigate(options.origin + "admin");
  await page.waitFor("the sign-in form", () => document.getElementById("admin-key") !== null);
  await step("refusedKey", async () => {
    await page.fill("#admin-key", scenario.wrongKey || options.key + "-wrong");
    await page.click("#sign-in button[type=submit]");
    await page.waitFor("the refusal message", () => {
      const status = document.getElementById("status");
      return status && status.textContent === "The server refused this admin key.";
    });
  });
  run.step = "signIn";
  await page.fill("#admin-key", options.key);
  await page.click("#sign-in button[type=submit]");
  await page.waitFor("the overview after signing in", () => {
    const view = document.getElementById("view");
    return view && /App id/.test(view.textContent);
  });
  const stored = await page.call(() => sessionStorage.getItem("outpostAdminKey"));
  if (stored !== options.key) throw new Error("the key is not kept in the tab's session storage");
  if (wanted("signIn")) run.steps.push("signIn");

  await step("overview", async () => {
    await settled();
    await failIfStatusError();
    await page.waitFor("the overview's sync connections", () => /Live sync connections/.test(document.getElementById("view").textContent));
    if (scenario.stats === true) {
      await page.waitFor("the statistics tiles and both charts", () =>
        document.querySelectorAll("#stats-tiles .tile").length === 4
        && document.querySelector("svg#chart-documents") !== null && document.querySelector("svg#chart-events") !== null);
      if (scenario.collection) {
        const bar = await page.call((name) => {
          const row = document.querySelector("svg#chart-documents g[data-collection=\"" + CSS.escape(name) + "\"] title");
          return row ? row.textContent : null;
        }, scenario.collection);
        if (!bar) throw new Error("the documents chart has no bar for " + scenario.collection);
      }
      const columns = await page.call(() => document.querySelectorAll("svg#chart-events g.column").length);
      if (columns !== 24) throw new Error("the events chart has " + columns + " columns, not 24");
    } else if (scenario.stats === false) {
      if (await page.exists("#stats-tiles")) throw new Error("statistics are shown, but the scenario says the server has none");
    }
    await shot("overview.png");
  });

  await step("users", async () => {
    await openTab("users");
    await failIfStatusError();
    await page.waitFor("the users list" + (scenario.userId ? " with " + scenario.userId : ""), (id) => {
      const view = document.getElementById("view");
      return view && /^Users \(/.test(view.textContent) && (!id || view.textContent.includes(id));
    }, [scenario.userId || ""]);
    await shot("users.png");
  });

  await step("data", async () => {
    await openTab("data");
    await failIfStatusError();
    if (scenario.collection) {
      const selector = "[data-collection=\"" + scenario.collection + "\"]";
      await page.waitFor("the collection " + scenario.collection, (s) => document.querySelector(s) !== null, [selector]);
      await page.click(selector);
      await page.waitFor("the documents of " + scenario.collection, (name) => {
        const heading = document.querySelector("#view h2");
        return heading && heading.textContent.startsWith(name + " (") && document.querySelectorAll("pre.document").length > 0;
      }, [scenario.collection]);
      await settled();
    }
    await shot("data.png");
  });

  await step("logs", async () => {
    await openTab("logs");
    await failIfStatusError();
    await page.waitFor("the log records", () => {
      const records = document.getElementById("log-records");
      return records && records.childNodes.length > 0;
    });
    await shot("logs.png");
  });

  if (scenario.function) {
    const fn = scenario.function;
    await step("functions", async () => {
      await openTab("functions");
      await failIfStatusError();
      const available = await page.waitFor("the runtime status", () => {
        const line = document.getElementById("fn-runtime");
        return line ? line.getAttribute("data-available") : null;
      });
      const expectRuntime = fn.runtime !== false;
      if (available !== (expectRuntime ? "true" : "false")) {
        throw new Error("the runtime is " + (available === "true" ? "available" : "not available") + ": "
          + (await page.call(() => document.getElementById("fn-runtime").textContent)));
      }
      await page.click("[data-function=\"" + fn.name + "\"]");
      await page.waitFor("the source of " + fn.name, (name) => {
        const title = document.getElementById("fn-name");
        return title && title.textContent === name && document.getElementById("fn-source") !== null;
      }, [fn.name]);
      if (!expectRuntime) {
        // Without a runtime the Run button is off.
        if (!(await page.call(() => document.getElementById("fn-run").disabled))) throw new Error("Run is enabled without a runtime");
        await shot("functions.png");
        return;
      }
      // Arguments that are not JSON are refused before anything is sent.
      await page.fill("#fn-arguments", "[1, 2");
      await page.click("#fn-run");
      await page.waitFor("the message about invalid arguments", () => {
        const message = document.getElementById("fn-invalid");
        return message && /not valid JSON/.test(message.textContent);
      });
      await page.fill("#fn-user", fn.userId || "");
      await page.fill("#fn-arguments", fn.arguments || "[]");
      await page.click("#fn-run");
      const outcome = await page.waitFor("the result of " + fn.name, () => {
        const result = document.getElementById("fn-result");
        const error = document.getElementById("fn-error");
        if (result) return { result: result.textContent };
        if (error) return { error: error.textContent };
        return null;
      });
      if (outcome.error) throw new Error(fn.name + " failed: " + outcome.error);
      if (fn.expectedResult !== undefined && !resultMatches(outcome.result, String(fn.expectedResult))) {
        throw new Error(fn.name + " answered " + outcome.result + ", expected " + fn.expectedResult);
      }
      await page.waitFor("the run's log lines", () => document.getElementById("fn-logs") !== null);
      await shot("functions.png");
    });
  }

  if (scenario.audit) {
    const audit = scenario.audit;
    // Submits the search form (or presses More) and waits for the list to be drawn again: the old count line is
    // marked, and a new one replaces it.
    const refreshList = async (countSelector, action) => {
      await page.call((s) => {
        const count = document.querySelector(s);
        if (count) count.setAttribute("data-stale", "true");
      }, countSelector);
      await action();
      await page.waitFor("the list to be drawn again", (s) => {
        const count = document.querySelector(s);
        return count !== null && !count.hasAttribute("data-stale");
      }, [countSelector]);
      await failIfStatusError();
    };
    // Every page of a list: More until there is none.
    const allRows = async (container, countSelector, moreSelector) => {
      for (let pages = 0; pages < 100 && (await page.exists(moreSelector)); pages++) {
        await refreshList(countSelector, () => page.click(moreSelector));
      }
      const ids = await page.call((c) => [...document.querySelectorAll(c + " [data-event-id]")].map((n) => n.getAttribute("data-event-id")), container);
      const count = await page.call((s) => document.querySelector(s).textContent, countSelector);
      const match = /^(\d+) of (\d+)/.exec(count);
      if (!match || Number(match[1]) !== ids.length || Number(match[2]) !== ids.length) {
        throw new Error("the count line says '" + count + "' with " + ids.length + " rows listed");
      }
      return ids;
    };
    const search = async (filters) => {
      for (const [field, value] of Object.entries(filters)) await page.fill("#audit-" + field, value);
      await refreshList("#audit-count", () => page.click("#audit-search"));
      return allRows("#audit-results", "#audit-count", "#audit-more");
    };
    const emptyFilters = { user: "", activity: "", type: "", since: "", until: "", class: "", pk: "" };
    let searched = false;
    const openAudit = async () => {
      await openTab("audit");
      await failIfStatusError();
      await page.waitFor("the audit search", () => document.getElementById("audit-form") !== null && document.getElementById("audit-count") !== null);
    };

    if (audit.user !== undefined && audit.userEventIds) {
      await step("audit.user", async () => {
        await openAudit();
        const ids = await search({ ...emptyFilters, user: audit.user });
        sameIds(ids, audit.userEventIds, "the events of user " + audit.user);
        const shown = audit.showEventId && audit.userEventIds.includes(audit.showEventId) ? audit.showEventId : ids[0];
        if (shown) {
          await page.click("#audit-results tr[data-event-id=\"" + shown + "\"]");
          await page.waitFor("the payload of event " + shown, (id) => {
            const detail = document.getElementById("audit-detail");
            return detail && detail.textContent.includes("Event " + id);
          }, [shown]);
        }
        await shot("audit.png");
        searched = true;
      });
    }
    if (audit.class && audit.pk !== undefined && audit.objectEventIds) {
      await step("audit.object", async () => {
        if (!searched) await openAudit();
        const ids = await search({ ...emptyFilters, class: audit.class, pk: audit.pk });
        sameIds(ids, audit.objectEventIds, "the events of " + audit.class + " " + audit.pk);
        searched = true;
      });
      await step("audit.timeline", async () => {
        if (!searched) {
          await openAudit();
          await search({ ...emptyFilters, class: audit.class, pk: audit.pk });
        }
        const button = "#audit-results [data-object-class=\"" + audit.class + "\"][data-object-pk=\"" + audit.pk + "\"]";
        await page.click(button);
        await page.waitFor("the timeline of " + audit.class + " " + audit.pk, (pk) => {
          const title = document.getElementById("audit-timeline-title");
          return title && title.textContent.includes(pk) && document.getElementById("audit-timeline-count") !== null;
        }, [audit.pk]);
        await settled();
        const ids = await allRows("#audit-timeline-list", "#audit-timeline-count", "#audit-timeline-more");
        sameIds(ids, audit.objectEventIds, "the timeline of " + audit.class + " " + audit.pk);
        if (ids.length) {
          await page.click("#audit-timeline li[data-event-id=\"" + ids[0] + "\"]");
          await page.waitFor("the event under the timeline", (id) => {
            const detail = document.getElementById("audit-detail");
            return detail && detail.textContent.includes("Event " + id);
          }, [ids[0]]);
          await page.call(() => window.scrollTo(0, 0));
        }
        await shot("timeline.png");
        // Back to the search, which keeps its filters.
        await page.click("#audit-back");
        await page.waitFor("the audit search again", () => document.getElementById("audit-form") !== null && document.getElementById("audit-count") !== null);
        await settled();
      });
    }
    if (audit.exportFormat) {
      await step("audit.export", async () => {
        if (!searched) await openAudit();
        const format = audit.exportFormat;
        const expected = audit.objectEventIds && audit.class ? audit.objectEventIds : audit.userEventIds;
        if (!expected) throw new Error("the scenario gives no event ids to find in the export");
        // The export is of the list shown, whose filters are the last search's.
        const shown = await page.call(() => [...document.querySelectorAll("#audit-results [data-event-id]")].length);
        if (!shown && expected.length) throw new Error("no search results to export");
        const before = downloadsSeen.length;
        await page.click("#audit-export-" + format);
        const download = await waitUntil("the export download to begin", () => downloadsSeen[before], 60000);
        const state = await waitUntil("the export download to finish", () => {
          const now = downloadStates.get(download.guid);
          return now === "completed" || now === "canceled" ? now : null;
        }, 60000);
        if (state !== "completed") throw new Error("the export download was " + state);
        const file = path.join(downloads, download.suggestedFilename);
        if (!fs.existsSync(file)) throw new Error("the export " + download.suggestedFilename + " is not in the download folder: " + fs.readdirSync(downloads).join(", "));
        if (!download.suggestedFilename.endsWith("." + format)) throw new Error("the export is named " + download.suggestedFilename);
        const ids = exportedIds(fs.readFileSync(file, "utf8"), format);
        sameIds(ids, expected, "the events in " + download.suggestedFilename);
        await page.waitFor("the saved-file message", () => /^Saved /.test(document.getElementById("status").textContent));
      });
    }
    await step("audit.verify", async () => {
      if (!searched) await openAudit();
      await page.click("#audit-verify");
      const status = await page.waitFor("the chain's verification", () => {
        const badge = document.getElementById("audit-chain");
        const state = badge && badge.getAttribute("data-verify");
        return state && state !== "running" && state !== "unknown" ? { state, text: badge.textContent } : null;
      });
      const expected = audit.chain || "ok";
      if (status.state !== expected) throw new Error("the chain badge shows " + status.state + " (" + status.text + "), expected " + expected);
    });
  }
  return page;
}

// --- Report ----------------------------------------------------------------------------------------------------

let finished = false;
async function finish(browser, report, options) {
  if (finished) return;
  finished = true;
  if (!report.ok && browser && browser.page && !browser.exited) {
    const page = browser.page;
    const grab = async () => {
      report.pageText = String(await page.text()).slice(0, 4000);
      if (options && options.screenshots) await page.screenshot(path.join(options.screenshots, "failure.png"));
    };
    await Promise.race([grab().catch(() => {}), new Promise((r) => setTimeout(r, 5000))]);
  }
  if (!report.ok && browser && browser.exited) report.chromiumLog = browser.log.join("").slice(-2000);
  if (report.pageText === undefined && !report.ok) report.pageText = "";
  await stopChromium(browser);
  const line = JSON.stringify(report) + "\n";
  process.stdout.write(line);
  if (!report.ok) process.stderr.write(line);
  process.exitCode = report.ok ? 0 : 1;
  setTimeout(() => process.exit(process.exitCode), 100).unref();
}

async function runFromCommandLine() {
  let options;
  try {
    options = parseArguments(process.argv.slice(2));
  } catch (error) {
    process.stderr.write("console-browser.js: " + error.message + "\n");
    process.stdout.write(JSON.stringify({ ok: false, step: "arguments", error: error.message, pageText: "" }) + "\n");
    process.exit(2);
  }
  const started = Date.now();
  const browser = startChromium(options.chromium);
  browser.run = { step: "start", steps: [], durations: {}, pageErrors: [] };
  const failed = (error) => finish(browser, {
    ok: false, step: browser.run.step, error: error && error.message ? error.message : String(error),
    steps: browser.run.steps, pageErrors: browser.run.pageErrors,
  }, options);
  const timer = setTimeout(() => failed(new Error("the whole run took longer than " + options.timeout + " s")), options.timeout * 1000);
  for (const signal of ["SIGTERM", "SIGINT"]) process.on(signal, () => failed(new Error("stopped by " + signal)));
  try {
    await main(options, browser);
    const exceptions = browser.run.pageErrors.filter((e) => e.startsWith("exception:"));
    if (exceptions.length) throw new Error("the page threw: " + exceptions.join("; "));
    clearTimeout(timer);
    await finish(browser, {
      ok: true, steps: browser.run.steps, durations_ms: browser.run.durations, total_ms: Date.now() - started,
      pageErrors: browser.run.pageErrors,
    }, options);
  } catch (error) {
    clearTimeout(timer);
    await failed(error);
  }
}

if (require.main === module) {
  runFromCommandLine();
} else {
  // For other drivers of the console (and for trying the parts out): the checks. The CDP client is cdp.js.
  module.exports = { sameIds, resultMatches, exportedIds, parseCSV };
}
