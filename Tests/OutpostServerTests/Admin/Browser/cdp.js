"use strict";
// A small Chrome DevTools Protocol (CDP) client over --remote-debugging-pipe, for console-browser.js: Chromium reads
// CDP messages (JSON, each ended by a NUL byte) from its fd 3 and writes answers and events the same way to its fd 4,
// so no WebSocket and no library are needed (Node.js 18 or later).
//
//   const browser = startChromium("/usr/bin/chromium");       // headless, its own profile, the pipe
//   const { targetId } = await browser.connection.send("Target.createTarget", { url: "about:blank" });
//   const { sessionId } = await browser.connection.send("Target.attachToTarget", { targetId, flatten: true });
//   const page = new Page(browser.connection, sessionId, 60000);   // navigate, call, waitFor, fill, click, screenshot
//   …
//   await stopChromium(browser);                             // also kills its helper processes, removes the profile
const { spawn } = require("child_process");
const fs = require("fs");
const os = require("os");
const path = require("path");

// --- The CDP connection over the two pipes ----------------------------------------------------------------------

class CDPConnection {
  constructor(toBrowser, fromBrowser) {
    this.toBrowser = toBrowser;
    this.nextId = 1;
    this.pending = new Map();
    this.listeners = new Set();
    this.chunks = [];
    this.closedError = null;
    fromBrowser.on("data", (chunk) => this.receive(chunk));
    fromBrowser.on("close", () => this.close(new Error("Chromium closed the DevTools pipe")));
    fromBrowser.on("error", (error) => this.close(error));
    toBrowser.on("error", (error) => this.close(error));
  }

  // Messages end with a NUL byte; a chunk may hold several, or part of one (split anywhere, even inside UTF-8).
  receive(chunk) {
    let start = 0;
    let end = chunk.indexOf(0);
    while (end !== -1) {
      this.chunks.push(chunk.subarray(start, end));
      const text = Buffer.concat(this.chunks).toString("utf8");
      this.chunks = [];
      this.dispatch(JSON.parse(text));
      start = end + 1;
      end = chunk.indexOf(0, start);
    }
    if (start < chunk.length) this.chunks.push(chunk.subarray(start));
  }

  dispatch(message) {
    if (message.id !== undefined) {
      const waiting = this.pending.get(message.id);
      if (!waiting) return;
      this.pending.delete(message.id);
      if (message.error) waiting.reject(new Error(waiting.method + ": " + message.error.message + (message.error.data ? " (" + message.error.data + ")" : "")));
      else waiting.resolve(message.result || {});
      return;
    }
    for (const listener of [...this.listeners]) listener(message);
  }

  close(error) {
    if (this.closedError) return;
    this.closedError = error;
    for (const waiting of this.pending.values()) waiting.reject(error);
    this.pending.clear();
  }

  send(method, params, sessionId) {
    if (this.closedError) return Promise.reject(this.closedError);
    const id = this.nextId++;
    const message = { id, method, params: params || {} };
    if (sessionId) message.sessionId = sessionId;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject, method });
      this.toBrowser.write(JSON.stringify(message) + "\0");
    });
  }

  // The next event `method` (of `sessionId`, when given) whose params satisfy `accept`.
  waitForEvent(method, accept, sessionId, timeoutMs, description) {
    return new Promise((resolve, reject) => {
      const listener = (message) => {
        if (message.method !== method || (sessionId && message.sessionId !== sessionId)) return;
        if (accept && !accept(message.params || {})) return;
        this.listeners.delete(listener);
        clearTimeout(timer);
        resolve(message.params || {});
      };
      const timer = setTimeout(() => {
        this.listeners.delete(listener);
        reject(new Error("timed out after " + timeoutMs / 1000 + " s waiting for " + (description || method)));
      }, timeoutMs);
      this.listeners.add(listener);
    });
  }

  onEvent(listener) {
    this.listeners.add(listener);
  }
}

// --- A page (one tab, one flattened session) -------------------------------------------------------------------

class Page {
  constructor(connection, sessionId, waitTimeoutMs) {
    this.connection = connection;
    this.sessionId = sessionId;
    this.waitTimeoutMs = waitTimeoutMs;
  }

  send(method, params) {
    return this.connection.send(method, params, this.sessionId);
  }

  async evaluate(expression) {
    const answer = await this.send("Runtime.evaluate", { expression, awaitPromise: true, returnByValue: true, userGesture: true });
    if (answer.exceptionDetails) {
      const details = answer.exceptionDetails;
      throw new Error("in the page: " + ((details.exception && details.exception.description) || details.text));
    }
    return answer.result ? answer.result.value : undefined;
  }

  // Runs `fn` (a function without free variables) in the page with JSON arguments; answers its value.
  call(fn, ...args) {
    return this.evaluate("(" + fn.toString() + ")(..." + JSON.stringify(args) + ")");
  }

  // Polls `fn` in the page until it answers a truthy value (which is answered), at most `timeoutMs`.
  async waitFor(description, fn, args, timeoutMs) {
    const limit = Date.now() + (timeoutMs || this.waitTimeoutMs);
    let last;
    for (;;) {
      try {
        const value = await this.call(fn, ...(args || []));
        if (value) return value;
        last = null;
      } catch (error) {
        last = error;  // the page may be between documents
      }
      if (Date.now() > limit) {
        throw new Error("timed out after " + Math.round((timeoutMs || this.waitTimeoutMs) / 1000) + " s waiting for " + description
          + (last ? " (last error: " + last.message + ")" : ""));
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  async navigate(url) {
    const loaded = this.connection.waitForEvent("Page.loadEventFired", null, this.sessionId, this.waitTimeoutMs, "the page to load");
    const answer = await this.send("Page.navigate", { url });
    if (answer.errorText) throw new Error("cannot open " + url + ": " + answer.errorText);
    await loaded;
  }

  text() {
    return this.call(() => (document.body ? document.body.innerText : ""));
  }

  async exists(selector) {
    return this.call((s) => document.querySelector(s) !== null, selector);
  }

  async click(selector) {
    const found = await this.call((s) => {
      const node = document.querySelector(s);
      if (!node) return false;
      if (node.scrollIntoView) node.scrollIntoView({ block: "center" });
      node.click();
      return true;
    }, selector);
    if (!found) throw new Error("nothing to click at " + selector);
  }

  // Types into an input, textarea or select as a user would: the value, then `input` and `change` events.
  async fill(selector, value) {
    const found = await this.call((s, v) => {
      const node = document.querySelector(s);
      if (!node) return false;
      node.focus();
      node.value = v;
      node.dispatchEvent(new Event("input", { bubbles: true }));
      node.dispatchEvent(new Event("change", { bubbles: true }));
      return true;
    }, selector, value);
    if (!found) throw new Error("no field " + selector);
  }

  async screenshot(file) {
    const metrics = await this.send("Page.getLayoutMetrics");
    const size = metrics.cssContentSize || metrics.contentSize;
    const clip = { x: 0, y: 0, width: Math.ceil(size.width), height: Math.min(Math.ceil(size.height), 8000), scale: 1 };
    const { data } = await this.send("Page.captureScreenshot", { format: "png", captureBeyondViewport: true, clip });
    fs.writeFileSync(file, Buffer.from(data, "base64"));
  }
}

// Polls `condition` (in this process) until it answers a truthy value, which is answered; at most `timeoutMs`.
async function waitUntil(description, condition, timeoutMs) {
  const limit = Date.now() + timeoutMs;
  for (;;) {
    const value = condition();
    if (value) return value;
    if (Date.now() > limit) throw new Error("timed out after " + Math.round(timeoutMs / 1000) + " s waiting for " + description);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

// --- Start and stop ---------------------------------------------------------------------------------------------

// Starts headless Chromium with a fresh profile and the DevTools pipe. `browser.connection` talks to it; functions
// in `browser.cleanups` run when it is stopped; `browser.log` keeps the end of its output.
function startChromium(executable) {
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), "console-browser-profile-"));
  const child = spawn(executable, [
    "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
    "--no-default-browser-check", "--disable-extensions", "--disable-background-networking", "--disable-sync",
    "--metrics-recording-only", "--mute-audio", "--window-size=1280,900", "--user-data-dir=" + profile,
    "--remote-debugging-pipe", "about:blank",
  ], { stdio: ["ignore", "pipe", "pipe", "pipe", "pipe"], detached: true });
  const log = [];
  const keep = (chunk) => {
    log.push(chunk.toString("utf8"));
    while (log.join("").length > 8000) log.shift();
  };
  child.stdout.on("data", keep);
  child.stderr.on("data", keep);
  const browser = {
    child, profile, log, exited: false, cleanups: [],
    connection: new CDPConnection(child.stdio[3], child.stdio[4]),
  };
  child.on("exit", () => { browser.exited = true; });
  child.on("error", (error) => {
    browser.exited = true;
    browser.connection.close(new Error("cannot start " + executable + ": " + error.message));
  });
  return browser;
}

// Closes the browser (Browser.close, then SIGKILL to its process group after 3 s) and removes its profile.
async function stopChromium(browser) {
  if (!browser) return;
  if (!browser.exited) {
    await Promise.race([browser.connection.send("Browser.close").catch(() => {}), new Promise((r) => setTimeout(r, 3000))]);
    const limit = Date.now() + 3000;
    while (!browser.exited && Date.now() < limit) await new Promise((r) => setTimeout(r, 50));
  }
  // Its helper processes share its process group.
  try {
    process.kill(-browser.child.pid, "SIGKILL");
  } catch (error) {
    // already gone
  }
  for (const cleanup of browser.cleanups) {
    try {
      cleanup();
    } catch (error) {
      // best effort
    }
  }
  fs.rmSync(browser.profile, { recursive: true, force: true, maxRetries: 3 });
}

module.exports = { CDPConnection, Page, startChromium, stopChromium, waitUntil };
