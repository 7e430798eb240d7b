"use strict";
// One audit event shown readably (the Audit tab's detail pane): its fields and metadata, then its payload — for a
// read, the objects read as a table of their fields; for a write, per class, the insertions, the deletions, and the
// modifications as field | old → new with the changed fields marked (class `changed`); for a custom event, its data
// as JSON. Objects (class, primary key) are buttons that open that object's timeline.
// The shapes follow the Event Library's payloads: read `{"type": "Item", "value": [{…}]}`, write
// `{"Item": {"insertions": [{…}], "deletions": [{…}], "modifications": [{"oldValue": {…}, "newValue": {…}}]}}`, where
// `newValue` holds only the fields whose value changed.
((Console) => {
  const { el, table, json } = Console.ui;

  function isObject(value) {
    return value !== null && typeof value === "object" && !Array.isArray(value);
  }

  // A field's value as one line of text: strings as they are, everything else as compact JSON.
  function text(value) {
    if (typeof value === "string") return value;
    if (value === undefined) return "";
    return JSON.stringify(value);
  }

  // A primary key that can name an object in a search (`pk`): a string or a number.
  function keyText(value) {
    return typeof value === "string" || typeof value === "number" ? String(value) : null;
  }

  // `open(className, pk)` opens a timeline; the button carries the object in data attributes.
  function objectButton(className, pk, open, label) {
    return el("button", {
      class: "link object", "data-object-class": className, "data-object-pk": pk,
      title: "Every read and write of " + className + " " + pk,
      onclick: (event) => { if (event && event.stopPropagation) event.stopPropagation(); return open(className, pk); },
    }, label || className + " " + pk);
  }

  // The objects of one class as a table: a column per field (`_id` first), a row per object.
  function objectsTable(className, objects, open) {
    const fields = [];
    for (const object of objects) {
      for (const name of Object.keys(isObject(object) ? object : {})) if (!fields.includes(name)) fields.push(name);
    }
    fields.sort((a, b) => (a === "_id" ? -1 : b === "_id" ? 1 : 0));
    const rows = objects.map((object) => fields.map((name) => {
      const value = isObject(object) ? object[name] : undefined;
      const pk = name === "_id" ? keyText(value) : null;
      return pk !== null ? objectButton(className, pk, open, pk) : text(value);
    }));
    return el("div", { class: "scroll" }, table(fields, rows));
  }

  function readPayload(data, open) {
    const className = String(data.type);
    return [
      el("h4", {}, "Read " + data.value.length + " " + className + (data.value.length === 1 ? " object" : " objects")),
      objectsTable(className, data.value, open),
    ];
  }

  // One modification: every field of the old object, and any new field, as field | value or field | old → new.
  function modification(className, change, open) {
    const oldValue = isObject(change.oldValue) ? change.oldValue : {};
    const newValue = isObject(change.newValue) ? change.newValue : {};
    const fields = Object.keys(oldValue);
    for (const name of Object.keys(newValue)) if (!fields.includes(name)) fields.push(name);
    const pk = keyText(oldValue._id);
    const rows = fields.map((name) => {
      const changed = Object.prototype.hasOwnProperty.call(newValue, name);
      const value = changed
        ? el("span", {}, el("span", { class: "old" }, name in oldValue ? text(oldValue[name]) : "(none)"), " → ",
          el("span", { class: "new" }, text(newValue[name])))
        : text(oldValue[name]);
      return el("tr", changed ? { class: "changed", "data-field": name } : { "data-field": name },
        el("td", {}, name), el("td", {}, value));
    });
    return el("div", { class: "modification" },
      el("p", {}, pk !== null ? objectButton(className, pk, open) : className + " (no primary key)",
        " — " + Object.keys(newValue).length + " changed"),
      el("table", { class: "changes" }, el("thead", {}, el("tr", {}, el("th", {}, "Field"), el("th", {}, "Old → new"))),
        el("tbody", {}, ...rows)));
  }

  function writePayload(data, open) {
    const parts = [];
    for (const className of Object.keys(data).sort()) {
      const changes = isObject(data[className]) ? data[className] : {};
      const insertions = Array.isArray(changes.insertions) ? changes.insertions : [];
      const deletions = Array.isArray(changes.deletions) ? changes.deletions : [];
      const modifications = Array.isArray(changes.modifications) ? changes.modifications : [];
      parts.push(el("h4", {}, "Wrote " + className));
      if (insertions.length) {
        parts.push(el("h5", {}, "Inserted (" + insertions.length + ")"), objectsTable(className, insertions, open));
      }
      if (deletions.length) {
        parts.push(el("h5", {}, "Deleted (" + deletions.length + ")"), objectsTable(className, deletions, open));
      }
      if (modifications.length) {
        parts.push(el("h5", {}, "Modified (" + modifications.length + ")"),
          ...modifications.map((change) => modification(className, isObject(change) ? change : {}, open)));
      }
      if (!insertions.length && !deletions.length && !modifications.length) parts.push(el("p", {}, "No changes listed."));
    }
    return parts.length ? parts : [el("p", {}, "The write lists no classes.")];
  }

  function dataBlock(data) {
    if (data === null || data === undefined) return el("p", {}, "No data.");
    return el("pre", { class: "document" }, typeof data === "string" ? data : json(data));
  }

  function payload(event, open) {
    const data = event.data;
    if (event.type === "read" && isObject(data) && typeof data.type === "string" && Array.isArray(data.value)) {
      return readPayload(data, open);
    }
    if (event.type === "write" && isObject(data)) return writePayload(data, open);
    return [el("h4", {}, "Data"), dataBlock(data)];
  }

  // The nodes that show `event`; `open(className, pk)` opens an object's timeline.
  function render(event, open) {
    const objects = Array.isArray(event.objects) ? event.objects : [];
    const metadata = isObject(event.metadata) ? event.metadata : {};
    const names = Object.keys(metadata).sort();
    return [
      el("h3", {}, "Event " + event.id),
      table(null, [
        ["Time", text(event.timestamp)],
        ["User", event.user === null || event.user === undefined ? "(unknown)" : String(event.user)],
        ["Activity", text(event.activity)],
        ["Type", event.type === null || event.type === undefined ? "(none)" : String(event.type)],
        ["Objects", objects.length
          ? el("span", { class: "objects" }, ...objects.map((o) => objectButton(String(o.class), String(o.pk), open)))
          : "none"],
      ]),
      names.length ? el("h4", {}, "Metadata") : null,
      names.length ? table(["Key", "Value"], names.map((name) => [name, text(metadata[name])])) : null,
      ...payload(event, open),
    ].filter((node) => node !== null);
  }

  Console.auditEvent = { render, objectButton };
})(typeof OutpostConsole !== "undefined" ? OutpostConsole : require("./console.js"));