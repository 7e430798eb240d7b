/// The admin console's page (`GET /admin`) and style sheet (`GET /admin/console.css`): a shell the script fills.
/// Its links are relative (to `/admin`), so it also works behind a reverse proxy under a sub-path.
enum AdminConsolePage {
    static let html = #"""
<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>outpost-server admin console</title>
<link rel="stylesheet" href="admin/console.css">
<script src="admin/console.js" defer></script>
</head>
<body>
<noscript>The admin console needs JavaScript. The admin API (/api/admin/v1, header X-Admin-Key) works without it.</noscript>
</body>
</html>
"""#

    static let css = #"""
:root { color-scheme: light dark; --accent: #2f6fdb; --danger: #c0392b; --line: #8884; }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; margin: 0 auto; max-width: 72rem; padding: 1rem 1.5rem; }
header { display: flex; flex-wrap: wrap; align-items: baseline; gap: 1rem; border-bottom: 1px solid var(--line); padding-bottom: .5rem; }
header h1 { font-size: 1.2rem; margin: 0; }
#app-id { opacity: .7; }
nav { margin-left: auto; display: flex; gap: .25rem; }
button { font: inherit; padding: .3rem .7rem; border: 1px solid var(--line); border-radius: 4px; background: transparent; color: inherit; cursor: pointer; }
button.active { background: var(--accent); color: #fff; border-color: var(--accent); }
button.danger { color: var(--danger); border-color: var(--danger); }
button.link { border: none; padding: 0; color: var(--accent); text-decoration: underline; }
table { border-collapse: collapse; width: 100%; margin: .5rem 0; }
th, td { text-align: left; padding: .3rem .5rem; border-bottom: 1px solid var(--line); vertical-align: top; word-break: break-word; }
pre.document { background: #8881; padding: .5rem; border-radius: 4px; overflow-x: auto; }
.controls { display: flex; gap: .5rem; align-items: center; flex-wrap: wrap; }
.controls input:not([type=checkbox]) { min-width: 18rem; }
input, select { font: inherit; padding: .3rem; }
.status { min-height: 1.2em; opacity: .8; }
.status.error { color: var(--danger); opacity: 1; }
form#sign-in { max-width: 24rem; margin: 4rem auto; display: grid; gap: .6rem; }
"""#
}
