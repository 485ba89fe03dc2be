/** The report page's own style sheet and drawing script, inlined into every page. */

export const CSS = `
:root { --fg: #111827; --muted: #6b7280; --line: #e5e7eb; --bg-alt: #f9fafb; }
* { box-sizing: border-box; }
body { margin: 0; font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", Arial, sans-serif; color: var(--fg); background: #fff; }
main { max-width: 1180px; margin: 0 auto; padding: 24px 28px 64px; }
header h1 { margin: 0 0 4px; font-size: 26px; }
header p { margin: 0; color: var(--muted); }
nav { margin: 16px 0 8px; display: flex; flex-wrap: wrap; gap: 6px 14px; font-size: 14px; }
nav a { color: #1d4ed8; text-decoration: none; }
section { margin-top: 36px; }
h2 { font-size: 21px; border-bottom: 2px solid var(--line); padding-bottom: 4px; }
h3 { font-size: 16px; margin: 22px 0 8px; }
h4 { font-size: 14.5px; margin: 16px 0 6px; }
.table-wrap { overflow-x: auto; margin: 8px 0 16px; }
table { border-collapse: collapse; font-size: 13.5px; min-width: 40%; }
caption { text-align: left; color: var(--muted); padding: 4px 0; }
th, td { padding: 5px 10px; border-bottom: 1px solid var(--line); text-align: left; vertical-align: top; }
th { background: #f3f4f6; font-weight: 600; white-space: nowrap; }
tbody tr:nth-child(even) { background: var(--bg-alt); }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
td.name { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 12.5px; white-space: nowrap; }
td.ids span.id { white-space: nowrap; }
td.ids { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 12px; max-width: 420px; }
td.reason, span.reason { color: #374151; font-size: 12.5px; max-width: 520px; overflow-wrap: anywhere; }
td.setup { color: #374151; font-size: 12px; overflow-wrap: anywhere; }
table.kv td:first-child { color: var(--muted); white-space: nowrap; }
table.kv td:last-child { overflow-wrap: anywhere; }
.sd { color: var(--muted); font-size: 12px; }
.diff, .delta { padding: 1px 6px; border-radius: 4px; }
.diff.close, .delta.gain { background: #dcfce7; color: #166534; }
.diff.near { background: #fef3c7; color: #92400e; }
.diff.far, .delta.loss { background: #fee2e2; color: #991b1b; }
.delta.ns { background: #f3f4f6; color: #4b5563; }
td.name.marked { white-space: normal; min-width: 14em; }
.badge { display: inline-block; white-space: nowrap; font-family: system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", Arial, sans-serif; font-size: 11px; line-height: 1.5; padding: 0 6px; margin: 1px 0; border-radius: 9px; border: 1px solid; }
.badge.oracle { background: #fef3c7; color: #92400e; border-color: #f59e0b; }
.badge.tuned { background: #ccfbf1; color: #115e59; border-color: #14b8a6; }
.badge.stand-in { background: #e5e7eb; color: #111827; border-color: #4b5563; font-weight: 600; text-transform: uppercase; letter-spacing: 0.03em; }
.badge.beyond { background: #ede9fe; color: #4c1d95; border-color: #8b5cf6; }
tr.stand-in td { color: #6b7280; background-image: repeating-linear-gradient(135deg, transparent 0 7px, rgba(107, 114, 128, 0.10) 7px 9px); }
.banner { margin: 14px 0 6px; padding: 12px 16px; border: 2px solid #b91c1c; border-left-width: 8px; background: #fef2f2; color: #7f1d1d; border-radius: 4px; }
.banner strong { font-size: 17px; display: block; }
.banner p { margin: 4px 0 0; color: #7f1d1d; }
td.status-ok { color: #166534; }
td.status-skipped { color: var(--muted); }
td.status-failed { color: #b91c1c; font-weight: 600; }
details summary { cursor: pointer; }
.note { color: #374151; background: #f3f4f6; border-left: 4px solid #9ca3af; padding: 8px 12px; margin: 8px 0 12px; }
.warning { background: #fef3c7; border-left: 4px solid #d97706; padding: 8px 12px; }
code { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 0.92em; background: #f3f4f6; padding: 0 3px; border-radius: 3px; }
figure.plot { margin: 12px 0 20px; border: 1px solid var(--line); border-radius: 6px; padding: 4px; }
.figure { width: 100%; min-height: 300px; }
.fig-caption { color: var(--muted); font-size: 13px; margin: 4px 8px 4px; }
.fig-error { color: #b91c1c; padding: 12px; }
footer { margin-top: 48px; color: var(--muted); font-size: 13px; }
`;

/** Draws every figure from its JSON block; sets <body data-figures> to "drawn" or "error" for tests to wait on. */
export const DRAW = `
(function () {
  var divs = Array.prototype.slice.call(document.querySelectorAll("div.figure[data-spec]"));
  function fail(div, err) {
    console.error("figure " + div.id + " failed: " + (err && err.message ? err.message : err));
    div.innerHTML = "";
    var p = document.createElement("p");
    p.className = "fig-error";
    p.textContent = "This figure could not be drawn: " + (err && err.message ? err.message : err);
    div.appendChild(p);
  }
  var jobs = divs.map(function (div) {
    try {
      if (typeof Plotly === "undefined") throw new Error("plotly.js did not load");
      var spec = JSON.parse(document.getElementById(div.getAttribute("data-spec")).textContent);
      // The camera button downloads a vector SVG named after the figure, as gbr figures names its files.
      var name = div.getAttribute("data-name") || div.id;
      var config = { responsive: true, displaylogo: false, showLink: false, showSendToCloud: false, toImageButtonOptions: { format: "svg", filename: name } };
      return Promise.resolve(Plotly.newPlot(div, spec.data, spec.layout, config))
        .then(function () { return true; }, function (err) { fail(div, err); return false; });
    } catch (err) { fail(div, err); return Promise.resolve(false); }
  });
  Promise.all(jobs).then(function (ok) {
    document.body.setAttribute("data-figures", ok.every(Boolean) ? "drawn" : "error");
  });
})();
`;
