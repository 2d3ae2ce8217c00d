// Polygon web app: fills each page from the same JSON API anyone can script (/api/...).
// Vanilla JS, shipped inside the package: no framework, no CDN, no external URL.
"use strict";

const main = document.getElementById("main");
const PAGE = document.body.dataset.page;
const ARGS = JSON.parse(document.body.dataset.args || "{}");

// -- helpers -----------------------------------------------------------------------------------

function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
    else if (k === "class") el.className = v;
    else el.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

class ApiError extends Error {
  constructor(status, detail) { super(detail); this.status = status; }
}

async function api(path, options) {
  const response = await fetch(path, Object.assign({ credentials: "same-origin", headers: { Accept: "application/json" } }, options || {}));
  const body = await response.json().catch(() => ({}));
  if (!response.ok) throw new ApiError(response.status, typeof body.detail === "string" ? body.detail : JSON.stringify(body.detail || body));
  return body;
}

const enc = encodeURIComponent;
const fmt = (x, digits = 1) => (x === null || x === undefined ? "—" : Number(x).toFixed(digits));
const pct = (x) => (x === null || x === undefined ? "—" : (100 * x).toFixed(0) + "%");

// Replace `el`'s children with `nodes` (nested lists flattened; null, undefined and false left out).
function fill(el, ...nodes) { el.replaceChildren(...nodes.flat(Infinity).filter((n) => n !== null && n !== undefined && n !== false)); }
function render(...nodes) { fill(main, ...nodes); }
function fail(err) { render(h("p", { class: "refused" }, err.message || String(err))); }

function verdicts(v) {
  v = v || {};
  return h("span", {}, h("span", { class: "pass" }, v.pass || 0), " / ", h("span", { class: "warn" }, v.warn || 0),
    " / ", h("span", { class: "fail" }, v.fail || 0));
}

// Tables scroll inside their own box: the page itself never scrolls sideways on a phone.
function table(headers, rows, attrs) {
  return h("div", { class: "scroll" }, h("table", attrs || {}, h("thead", {}, h("tr", {}, headers.map((x) => h("th", {}, x)))),
    h("tbody", {}, rows)));
}

function pager(page, onGo) {
  const { total, offset, limit } = page;
  const last = Math.max(0, Math.floor((total - 1) / limit) * limit);
  return h("div", { class: "pager" },
    h("button", { disabled: offset <= 0, onclick: () => onGo(Math.max(0, offset - limit)) }, "‹ previous"),
    h("span", { class: "muted" }, total ? `${offset + 1}–${Math.min(offset + limit, total)} of ${total}` : "none"),
    h("button", { disabled: offset + limit >= total, onclick: () => onGo(Math.min(last, offset + limit)) }, "next ›"));
}

// Text with marked spans ([{start, end, cls, title, inserted}]); overlapping spans are skipped.
function marked(text, spans) {
  const out = [];
  let at = 0;
  for (const s of [...spans].sort((a, b) => a.start - b.start || b.end - a.end)) {
    if (s.start < at) continue;
    out.push(text.slice(at, s.start));
    if (s.inserted) out.push(h("mark", { class: s.cls + " insert", title: s.title }, "+" + s.inserted + " "));
    if (s.end > s.start) out.push(h("mark", { class: s.cls, title: s.title, "data-criteria": s.criteria || null }, text.slice(s.start, s.end)));
    at = Math.max(at, s.end);
  }
  out.push(text.slice(at));
  return out;
}

function json(value) { return h("pre", { class: "json" }, JSON.stringify(value, null, 1)); }

// -- runs --------------------------------------------------------------------------------------

const runLink = (id) => h("a", { href: `/runs/${enc(id)}` }, id);

async function pageRuns() {
  const state = { offset: 0, limit: 50, sort: "-created_at", agent: "", rubric_version: "", status: "", q: "" };
  const chosen = new Set();
  const form = h("form", { class: "filters", onsubmit: (e) => { e.preventDefault(); state.offset = 0; load(); } });
  const field = (name, label, input) => { input.name = name; input.addEventListener("change", () => { state[name] = input.value; state.offset = 0; load(); }); return h("label", {}, label, input); };
  form.append(field("q", "search", h("input", { placeholder: "id, agent, suite" })),
    field("agent", "agent", h("input", { placeholder: "agent name" })),
    field("rubric_version", "rubric", h("input", { size: 4 })),
    field("status", "status", h("select", {}, ["", "running", "complete", "failed", "interrupted"].map((s) => h("option", { value: s }, s || "any")))),
    field("sort", "sort", h("select", {}, [["-created_at", "newest"], ["created_at", "oldest"], ["agent_name", "agent"],
      ["-mean_composite", "best composite"], ["mean_composite", "worst composite"], ["-conversations", "most conversations"],
      ["cost_usd", "cheapest"]].map(([v, l]) => h("option", { value: v }, l)))));
  const compareButton = h("button", { type: "button", onclick: () => { location.href = "/compare?" + [...chosen].map((r) => "runs=" + enc(r)).join("&"); } }, "Compare selected");
  const out = h("div", {});
  render(h("h1", {}, "Runs"), form, h("p", {}, compareButton, " ", h("span", { class: "muted" }, "choose two or more runs")), out);
  async function load() {
    const qs = new URLSearchParams(Object.entries(state).filter(([, v]) => v !== ""));
    let page;
    try { page = await api("/api/runs?" + qs); } catch (e) { out.replaceChildren(h("p", { class: "refused" }, e.message)); return; }
    if (!page.total) { out.replaceChildren(h("div", { class: "empty" }, "No runs stored yet: run `polygon demo` or `polygon run`.")); return; }
    const rows = page.items.map((r) => h("tr", { "data-run": r.id },
      h("td", {}, h("input", { type: "checkbox", checked: chosen.has(r.id), onchange: (e) => { e.target.checked ? chosen.add(r.id) : chosen.delete(r.id); } })),
      h("td", {}, runLink(r.id), h("div", { class: "small muted" }, (r.created_at || "").slice(0, 19).replace("T", " "))),
      h("td", {}, r.agent_name, r.source === "production" ? h("span", { class: "badge" }, "production") : null),
      h("td", {}, h("code", {}, r.agent_version)), h("td", {}, r.rubric_version),
      h("td", { class: "small" }, Object.entries(r.models || {}).map(([role, m]) => h("div", {}, role + ": " + m))),
      h("td", { class: "num" }, r.conversations ?? "—"),
      h("td", { class: "num" }, fmt(r.mean_composite), r.ci_low !== null && r.ci_low !== undefined ? h("div", { class: "small muted" }, `[${fmt(r.ci_low)}, ${fmt(r.ci_high)}]`) : null),
      h("td", {}, verdicts(r.verdicts)),
      h("td", {}, Object.entries(r.gates || {}).map(([g, n]) => h("span", { class: "badge gate" }, `${g} ×${n}`))),
      h("td", { class: "num" }, r.cost_usd === null || r.cost_usd === undefined ? "—" : "$" + Number(r.cost_usd).toFixed(4)),
      h("td", {}, r.status)));
    out.replaceChildren(table(["", "run", "agent", "version", "rubric", "models", "conv.", "composite", "pass / warn / fail", "gates", "cost", "status"], rows, { class: "runs" }),
      pager(page, (o) => { state.offset = o; load(); }));
  }
  await load();
}

// -- one run -----------------------------------------------------------------------------------

// calibrations: per card, the calibration its judge shows on its calls ({line}, usecases.shown_calibration), or undefined;
// warnings: per card, the warning of a fitted judge stored with --force that judged it (judge_warning), or null.
function scorecardTable(cards, calibrations, warnings) {
  const metric = (label, f) => h("tr", {}, h("th", {}, label), cards.map((c) => h("td", { class: "num" }, f(c))));
  const criteria = [...new Set(cards.flatMap((c) => Object.keys(c.criteria || {})))].sort();
  return table(["", ...cards.map((c) => c.label)], [
    metric("conversations (scored)", (c) => `${c.conversations} (${c.scored})`),
    metric("mean composite [95% CI]", (c) => `${fmt(c.mean_composite)} [${fmt(c.ci_low)}, ${fmt(c.ci_high)}]`),
    metric("pass / warn / fail", (c) => verdicts(c.verdicts)),
    metric("gates", (c) => Object.entries(c.gates || {}).map(([g, n]) => `${g} ×${n}`).join(", ") || "none"),
    metric("resolution", (c) => pct(c.resolution_rate)),
    metric("policy safety", (c) => pct(c.policy_safety_rate)),
    metric("pass^k", (c) => { const ks = Object.entries(c.pass_hat_k || {}).sort((x, y) => x[0] - y[0]);
      return ks.length ? (ks.length > 1 ? `k=1: ${fmt(ks[0][1], 2)} → k=${ks.at(-1)[0]}: ${fmt(ks.at(-1)[1], 2)}` : `k=1: ${fmt(ks[0][1], 2)}`) : "—"; }),
    metric("judge", (c) => c.judge_model),
    ...(calibrations ? [h("tr", { class: "calibration" }, h("th", {}, "judge calibration"),
      cards.map((c, i) => h("td", {}, (calibrations[i] || {}).line || "not calibrated")))] : []),
    ...((warnings || []).some((w) => w) ? [h("tr", { class: "judge-warning" }, h("th", {}, "judge warning"),
      cards.map((c, i) => h("td", {}, (warnings[i]) || "")))] : []),
    metric("broken calls / judge errors / probe errors", (c) => `${c.agent_failures || 0} / ${c.judge_errors || 0} / ${c.probe_errors || 0}`),
    metric("tokens", (c) => (c.tokens_estimated ? "~" : "") + c.tokens),
    metric("cost", (c) => (c.cost_usd === null || c.cost_usd === undefined ? "—" : "$" + Number(c.cost_usd).toFixed(4))),
    // Criterion means leave failed judgments out; the count shows when a mean is over fewer.
    ...(cards.some((c) => c.judge_errors) && criteria.length ? [metric("criterion means over", (c) => `${c.judged || 0} judgments`)] : []),
    ...criteria.map((k) => metric(k, (c) => {
      const n = (c.criteria_counts || {})[k];
      return fmt(c.criteria[k], 2) + (n === undefined || n === c.judged ? "" : ` (n=${n})`);
    })),
  ], { class: "cards" });
}

function probeTable(rates) {
  if (!rates.length) return h("p", { class: "muted" }, "No probe answers.");
  return table(["probe", "polarity", "wording", "conformance", "95% Wilson", "k / n"], rates.map((p) => h("tr", {},
    h("td", {}, p.probe_id), h("td", {}, p.polarity), h("td", {}, h("code", {}, p.wording_hash)),
    h("td", { class: "num" }, pct(p.rate)), h("td", { class: "num" }, p.low === null ? "—" : `[${fmt(p.low, 2)}, ${fmt(p.high, 2)}]`),
    h("td", { class: "num" }, `${p.k} / ${p.n}`))));
}

// A select of a facet's values ("any" first), each with its count.
function facetSelect(values, onPick) {
  return h("select", { onchange: (e) => onPick(e.target.value) }, h("option", { value: "" }, "any"),
    (values || []).map((f) => h("option", { value: f.value }, `${f.value} (${f.count})`)));
}

// What made a run (its provenance: Polygon's and its packages' versions, the formats it wrote), as
// `polygon show` says it; a run stored before Polygon recorded it says so.
function madeByNote(made) {
  if (!made) return h("p", { class: "made-by small muted" }, "Made by: not recorded (stored before Polygon recorded versions)");
  const packages = Object.entries(made.packages || {}).map(([n, v]) => `${n} ${v}`).join(", ");
  const formats = Object.entries(made.formats || {}).map(([k, v]) => `${k} ${v}`).join(", ");
  return h("p", { class: "made-by small muted" }, `Made by: Polygon ${made.polygon} (${packages}); formats: ${formats}`);
}

function calibrationNote(cal) {
  return h("p", { class: "calibration small" }, "Judge calibration: ", cal ? cal.line : "not calibrated");
}

// A fitted judge stored with --force says so wherever it is used (docs/calibration.md); nothing otherwise.
function judgeWarningNote(warning) {
  return warning ? h("p", { class: "judge-warning" }, warning) : null;
}

async function pageRun() {
  const id = ARGS.run_id;
  let run;
  try { run = await api(`/api/runs/${enc(id)}`); } catch (e) { return fail(e); }
  const [dist, facets] = await Promise.all([api(`/api/runs/${enc(run.id)}/distributions`), api(`/api/runs/${enc(run.id)}/facets`)]);
  const state = { offset: 0, limit: 50, sort: "conversation_id" };
  const out = h("div", { id: "conversations" });
  const pick = (name) => (value) => { state[name] = value; state.offset = 0; load(); };
  const field = (label, name, input) => h("label", { "data-filter": name }, label, input);
  const filters = h("form", { class: "filters", onsubmit: (e) => { e.preventDefault(); } },
    field("search", "q", h("input", { type: "search", placeholder: "conversation or scenario", onchange: (e) => pick("q")(e.target.value) })),
    field("verdict", "verdict", facetSelect(facets.verdict, pick("verdict"))),
    field("gate fired", "gate", facetSelect(facets.gate, pick("gate"))),
    field("scenario", "scenario", facetSelect(facets.scenario, pick("scenario"))),
    field("caller type", "caller_type", facetSelect(facets.caller_type, pick("caller_type"))),
    field("end reason", "end_reason", facetSelect(facets.end_reason, pick("end_reason"))),
    field("failed assertion", "assertion", facetSelect(facets.assertion, pick("assertion"))),
    field("sort", "sort", h("select", { onchange: (e) => { state.sort = e.target.value; load(); } },
      [["conversation_id", "id"], ["scenario_id", "scenario"], ["composite", "worst first"], ["-composite", "best first"], ["-turn_count", "longest"]]
        .map(([v, l]) => h("option", { value: v }, l)))));
  const card = run.scorecard;
  const judged = `judge ${dist.judge_model}, rubric ${dist.rubric_version}, ${dist.composites} of ${dist.judged} judged conversations scored`;
  render(h("h1", {}, `Run ${run.id}`),
    h("p", {}, `${run.agent_name} @ ${run.agent_version} · rubric ${run.rubric_version} · suite ${run.suite} · ${run.source} · ${run.status}`),
    h("p", { class: "small muted" }, Object.entries(run.models || {}).map(([r, m]) => `${r}: ${m}`).join(" · ")),
    madeByNote(run.provenance),
    h("p", { class: "headline" }, "Mean composite ", h("b", {}, fmt(card.mean_composite)), ` [${fmt(card.ci_low)}, ${fmt(card.ci_high)}] `,
      h("span", { class: "small muted" }, card.ci_method || ""), " · ", verdicts(card.verdicts)),
    calibrationNote(dist.calibration), judgeWarningNote(run.judge_warning),
    h("div", { class: "charts" },
      h("section", {}, h("h3", {}, "Composite distribution"), PolygonCharts.composite(dist.composite, judged)),
      h("section", {}, h("h3", {}, "Criterion scores"), PolygonCharts.criteria(dist.criteria, dist.method)),
      h("section", {}, h("h3", {}, "pass^k"), Object.keys(card.pass_hat_k || {}).length
        ? PolygonCharts.passK(card.pass_hat_k, "the chance a scenario passes on every one of k seeds") : h("p", { class: "muted" }, "Needs a scenario run on at least one seed with a verdict."))),
    h("h2", {}, "Scorecard"), scorecardTable([card], [run.calibration], [run.judge_warning]),
    h("h2", {}, "Probes"), probeTable(card.probes || []),
    h("h2", {}, "Conversations"), filters, out);
  let latest = 0; // a filter changed again before the answer came: only the newest answer is shown
  async function load() {
    const mine = ++latest;
    const qs = new URLSearchParams(Object.entries(state).filter(([, v]) => v !== ""));
    const page = await api(`/api/runs/${enc(run.id)}/conversations?` + qs);
    if (mine !== latest) return;
    out.dataset.total = page.total;
    out.replaceChildren(page.total ? table(["conversation", "scenario", "seed", "caller", "end", "turns", "composite", "verdict", "gates", "failed assertions"],
      page.items.map((c) => h("tr", { "data-conversation": c.conversation_id },
        h("td", {}, h("a", { href: `/runs/${enc(run.id)}/conversations/${enc(c.conversation_id)}` }, c.conversation_id),
          c.origin ? h("div", { class: "small muted origin" }, `${c.origin.source} call ${c.origin.external_id}`) : null),
        h("td", {}, c.scenario_id), h("td", { class: "num" }, c.seed), h("td", {}, `${c.caller_type} (d${c.difficulty})`),
        h("td", {}, c.end_reason), h("td", { class: "num" }, c.turn_count), h("td", { class: "num" }, fmt(c.composite)),
        h("td", { class: c.verdict || "" }, c.verdict || (c.status === "judge_error" ? "judge error" : "unjudged"), c.partial ? " (partial)" : "",
          c.status && c.status !== "judged" ? h("span", { class: "small muted", title: c.reason || "" }, ` (${c.status.replace("_", " ")})`) : ""),
        h("td", {}, c.gates.map((g) => h("span", { class: "badge gate" }, g))),
        h("td", {}, c.assertions_failed.map((a) => h("span", { class: "badge fail" }, a))))), { class: "conversations" })
      : h("div", { class: "empty" }, "No conversation matches these filters."),
    pager(page, (o) => { state.offset = o; load(); }));
  }
  await load();
}

// -- conversation viewer -----------------------------------------------------------------------

function toolCalls(calls) {
  if (!calls.length) return null;
  return h("table", { class: "tool" }, h("tbody", {}, calls.map((c) => h("tr", { class: c.valid ? "" : "invalid" },
    h("td", {}, h("b", {}, c.name), c.valid ? null : h("div", { class: "fail small" }, "invalid: " + (c.validation_error || "")),
      c.error ? h("div", { class: "fail small" }, "error: " + c.error) : null),
    h("td", {}, json(c.arguments)), h("td", {}, json(c.result)),
    h("td", { class: "num small" }, `${fmt(c.latency_ms, 0)} ms`, c.events.length ? h("div", {}, c.events.join(", ")) : null)))));
}

async function pageConversation() {
  let v;
  try { v = await api(`/api/runs/${enc(ARGS.run_id)}/conversations/${enc(ARGS.conversation_id)}`); } catch (e) { return fail(e); }
  const c = v.conversation;
  const call = c.channel === "voice" && c.voice ? c.voice : null;
  const primary = v.judgments.find((j) => j.primary);
  const turns = v.turns.map((t) => {
    // Several criteria often quote the same words: one mark, naming all of them.
    const byspan = new Map();
    for (const e of t.evidence) {
      const key = `${e.start}:${e.end}`;
      if (!byspan.has(key)) byspan.set(key, { start: e.start, end: e.end, cls: "evidence", items: [] });
      byspan.get(key).items.push(e);
    }
    const spans = [...byspan.values()].map((s) => Object.assign(s, { title: "evidence: " + s.items.map((e) => `${e.criterion} (${e.score})`).join(", "),
      criteria: s.items.map((e) => e.criterion).join(" ") }));
    const dist = t.distortions.map((d) => ({ start: d.start, end: d.end, cls: "distortion", inserted: d.inserted,
      title: d.inserted ? `${d.kind}: heard "${d.inserted}" added` : `${d.kind}: said "${d.original}", heard "${d.replacement || "(nothing)"}"` }));
    return h("div", { class: `turn ${t.speaker}${t.gates.length ? " has-gate" : ""}`, id: `turn-${t.index}` },
      h("span", { class: "who" }, `#${t.index} ${t.speaker}`),
      call && t.start_ms !== null ? h("span", { class: "at small muted" }, `${PolygonCall.clock(t.start_ms)}–${PolygonCall.clock(t.end_ms)} `) : null,
      t.interrupted ? h("span", { class: "badge" }, "cut short") : null,
      t.kind === "non_directed" ? h("span", { class: "badge" }, "not said to the agent") : null,
      t.gates.map((g) => h("span", { class: "badge gate", title: g.detail }, "gate: " + g.gate)),
      t.assertions.map((a) => h("span", { class: "badge fail" }, "assertion broke: " + a)),
      t.end ? h("span", { class: "badge" }, "end: " + t.end) : null,
      t.latency_ms ? h("span", { class: "small muted" }, ` ${fmt(t.latency_ms, 0)} ms`) : null,
      h("div", { class: "said" }, marked(t.text, [...spans, ...dist])),
      t.speaker === "caller" && t.heard !== null && t.heard !== t.text ? h("div", { class: "heard" }, "heard: ", t.heard) : null,
      // On a call, an agent turn's `heard` is what reached the caller before its audio stopped.
      call && t.speaker === "agent" && t.heard !== null && t.heard !== t.text ? h("div", { class: "heard" }, "the caller heard: ", t.heard) : null,
      toolCalls(t.tool_calls));
  });
  // A call: its player, timeline and metrics (static/call.js), wired to the turns above.
  const player = call ? await PolygonCall.section(`/api/runs/${enc(v.run.id)}/conversations/${enc(c.id)}`, call, v.turns, turns, api) : null;
  const criteria = primary ? table(["criterion", "score", "status", "evidence"], primary.criteria.map((k) => h("tr", {},
    h("td", {}, k.criterion), h("td", { class: "num" }, fmt(k.score, 1)), h("td", {}, k.status, k.unsupported_evidence ? " (unsupported)" : ""),
    h("td", {}, k.evidence ? (k.evidence_at ? h("a", { href: `#turn-${k.evidence_at.turn}` }, `turn ${k.evidence_at.turn}: “${k.evidence}”`)
      : h("span", { class: "muted" }, `“${k.evidence}” (not found in the transcript)`)) : "—")))) : h("p", { class: "muted" }, "Not judged under " + v.rubric_version + ".");
  render(h("h1", {}, c.id),
    v.origin ? h("p", { class: "origin" }, `Production call ${v.origin.external_id} from source ${v.origin.source}`) : null,
    h("p", {}, h("a", { href: `/runs/${enc(v.run.id)}` }, v.run.id), ` · scenario ${c.scenario_id} · seed ${c.seed} · ${c.caller_type} caller (difficulty ${c.difficulty}) · noise ${c.noise} · `,
      h("b", {}, "end: " + c.end_reason), c.end_detail ? ` (${c.end_detail})` : ""),
    primary ? h("p", {}, `rubric ${primary.rubric_version}, judge ${primary.judge_model}: composite ${fmt(primary.composite)} `,
      h("b", { class: primary.verdict || "" }, primary.verdict || "no verdict"), primary.partial ? ` (partial: ${primary.not_scored.join(", ")} not scored)` : "",
      primary.status && primary.status !== "judged" ? h("span", { class: "fail" }, ` — ${primary.status.replace("_", " ")}: ${primary.reason || ""}`) : "") : null,
    v.gates.length ? h("p", {}, "Gates: ", v.gates.map((g) => h("span", { class: "badge gate" }, g.gate + (g.turn !== null ? ` @ turn ${g.turn}` : "") + ": " + g.detail))) : null,
    player,
    h("h2", {}, "Assertions"), v.assertions.length ? table(["assertion", "expression", "status", "turn", "message"], v.assertions.map((a) => h("tr", {},
      h("td", {}, a.name), h("td", {}, h("code", {}, a.expression)), h("td", { class: a.status }, a.status),
      h("td", {}, a.turn === null ? "" : h("a", { href: `#turn-${a.turn}` }, a.turn)), h("td", {}, a.message || "")))) : h("p", { class: "muted" }, "none"),
    h("h2", {}, "Criteria and evidence"), criteria,
    v.judgments.length > 1 ? h("p", { class: "small muted" }, "Other judgments: ", v.judgments.filter((j) => !j.primary).map((j) => `${j.rubric_version} by ${j.judge_model}: ${fmt(j.composite)} ${j.verdict}`).join("; ")) : null,
    h("h2", {}, "Transcript"), h("p", { class: "small muted" }, "highlighted: evidence quotes; wavy: recognition noise (hover for what was heard)",
      ` · transcript format ${c.format_version ? c.format_version : "0 (stored before formats were versioned)"}`), turns,
    h("h2", {}, "Probe answers"), v.probes.length ? table(["probe", "polarity", "answer", "evidence", "by"], v.probes.map((p) => h("tr", {},
      h("td", {}, p.probe_id), h("td", {}, p.polarity), h("td", {}, p.answer), h("td", {}, p.evidence || ""), h("td", { class: "small" }, p.answered_by)))) : h("p", { class: "muted" }, "none"));
  if (location.hash) document.querySelector(location.hash)?.scrollIntoView();
}

// -- comparison screen -------------------------------------------------------------------------

async function chooseRuns() {
  const page = await api("/api/runs?limit=100");
  const chosen = new Set();
  render(h("h1", {}, "Compare runs"), h("p", {}, "Choose two or more runs judged under the same rubric version."),
    table(["", "run", "agent", "version", "rubric", "composite"], page.items.map((r) => h("tr", {},
      h("td", {}, h("input", { type: "checkbox", onchange: (e) => { e.target.checked ? chosen.add(r.id) : chosen.delete(r.id); } })),
      h("td", {}, r.id), h("td", {}, r.agent_name), h("td", {}, r.agent_version), h("td", {}, r.rubric_version), h("td", { class: "num" }, fmt(r.mean_composite))))),
    h("button", { onclick: () => { location.href = "/compare?" + [...chosen].map((r) => "runs=" + enc(r)).join("&"); } }, "Compare"));
}

function pairView(p) {
  const cell = (t) => t === null ? h("td", { class: "muted" }, "(ended)") : h("td", {},
    h("span", { class: "who" }, `${t.speaker}: `), t.text, t.end ? h("span", { class: "badge" }, "end: " + t.end) : null,
    t.tool_calls.length ? h("div", { class: "small" }, t.tool_calls.map((c) => h("div", { class: c.valid ? "" : "fail" }, `→ ${c.name}(${JSON.stringify(c.arguments)})`))) : null);
  const rows = p.rows.map((r) => h("tr", { class: (r.divergence ? "divergence " : "") + (r.consequential ? "consequential" : ""), "data-turn": r.index },
    h("th", {}, r.index, r.divergence ? h("div", { class: "marker" }, "diverges: " + p.divergence.reasons.join(", ")) : null,
      r.consequential && !r.divergence ? h("div", { class: "marker" }, "acts differently: " + p.consequential.reasons.join(", ")) : null),
    cell(r.a), cell(r.b)));
  return h("div", { class: "pairview" },
    h("h2", {}, `Scenario ${p.scenario_id}, seed ${p.seed}`),
    h("p", {}, p.divergence ? [`First divergence at turn ${p.divergence.turn} (`, h("b", {}, p.divergence.reasons.join(", ")), ")",
      p.consequential ? `; the agents first act differently at turn ${p.consequential.turn} (${p.consequential.reasons.join(", ")})` : ""] : "The two conversations never part.",
      p.seeds.length > 1 ? h("span", { class: "muted" }, ` · seeds run by both: ${p.seeds.join(", ")}`) : null),
    h("div", { class: "scroll" }, h("table", { class: "pair" }, h("thead", {}, h("tr", {}, h("th", {}, "turn"),
      h("th", {}, h("a", { href: `/runs/${enc(p.runs.a.id)}/conversations/${enc(p.a.conversation_id)}` }, p.runs.a.label), ` (${p.a.end_reason})`),
      h("th", {}, h("a", { href: `/runs/${enc(p.runs.b.id)}/conversations/${enc(p.b.conversation_id)}` }, p.runs.b.label), ` (${p.b.end_reason})`))),
      h("tbody", {}, rows))));
}

function differencesTable(diffs) {
  return table(["candidate", "metric", "scope", "pairs", "baseline", "candidate", "Δ", "95% CI", "noise floor", "label"], diffs.map((d) => h("tr", { class: "difference" },
    h("td", {}, d.candidate), h("td", {}, d.metric), h("td", {}, d.scope), h("td", { class: "num" }, d.pairs),
    h("td", { class: "num" }, fmt(d.baseline_mean, 2)), h("td", { class: "num" }, fmt(d.candidate_mean, 2)),
    h("td", { class: "num" }, d.delta === null ? "—" : (d.delta > 0 ? "+" : "") + fmt(d.delta, 2)),
    h("td", { class: "num" }, d.ci_low === null ? "—" : `[${fmt(d.ci_low, 2)}, ${fmt(d.ci_high, 2)}]`),
    h("td", { class: "num" }, fmt(d.noise_floor, 2)),
    h("td", { class: { worse: "fail", better: "pass" }[d.label] || "muted" }, d.label))), { class: "differences" });
}

function probeComparison(probes, labels) {
  if (!probes.length) return h("p", { class: "muted" }, "No probe answers.");
  return table(["probe", ...labels, "comparable"], probes.map((p) => h("tr", { class: p.comparable ? "" : "incomparable-row" },
    h("td", {}, p.probe_id),
    labels.map((l) => { const r = p.rates[l];
      return h("td", { class: "num" }, r ? `${pct(r.rate)} [${fmt(r.low, 2)}, ${fmt(r.high, 2)}] ${r.k}/${r.n}` : "—",
        h("div", { class: "small muted" }, (p.wording_hashes[l] || []).join(", "))); }),
    h("td", {}, p.comparable ? "yes" : h("span", { class: "fail" }, "no: wording changed")))), { class: "probe-compare" });
}

function divergenceBox(qs, candidate) {
  const state = { offset: 0, limit: 25, diverged: true };
  const box = h("div", { id: "divergences" });
  async function load() {
    const page = await api(`/api/compare/divergences?${qs}&candidate=${enc(candidate)}&offset=${state.offset}&limit=${state.limit}&diverged=${state.diverged}`);
    box.replaceChildren(h("label", { class: "small" }, h("input", { type: "checkbox", checked: state.diverged, onchange: (e) => { state.diverged = e.target.checked; state.offset = 0; load(); } }), " only pairs that part"),
      page.total ? table(["scenario", "seed", "first divergence", "acts differently", `${page.a}`, `${page.b}`], page.items.map((d) => h("tr", {},
        h("td", {}, d.scenario_id), h("td", { class: "num" }, d.seed),
        h("td", {}, d.turn === null ? "never" : `turn ${d.turn}: ${d.reasons.join(", ")}`),
        h("td", {}, d.consequential_turn === null || d.consequential_turn === undefined ? "—" : `turn ${d.consequential_turn}: ${d.consequential_reasons.join(", ")}`),
        h("td", { class: "small" }, d.a_text || ""), h("td", { class: "small" }, d.b_text || ""))), { class: "divergences" }) : h("p", { class: "muted" }, "No pair parts."),
      pager(page, (o) => { state.offset = o; load(); }));
  }
  load().catch((e) => box.replaceChildren(h("p", { class: "refused" }, e.message)));
  return box;
}

async function pageCompare() {
  if ((ARGS.runs || []).length < 2) return chooseRuns();
  const qs = ARGS.runs.map((r) => "runs=" + enc(r)).join("&") + (ARGS.baseline ? "&baseline=" + enc(ARGS.baseline) : "");
  const pending = api("/api/compare?" + qs);
  pending.catch(() => {}); // handled below, once the scorecards are shown: not an unhandled rejection meanwhile
  // What is ready at once: each run's stored scorecard, and the baseline's scenarios for the
  // side-by-side view. The comparison (differences, matrix, divergences) fills in when computed.
  let runs;
  try { runs = await Promise.all(ARGS.runs.map((r) => api(`/api/runs/${enc(r)}`))); } catch (e) { return fail(e); }
  const pairBox = h("div", { id: "pair" }, h("p", { class: "muted" }, "Click a scenario to see its two conversations side by side."));
  const rest = h("div", { id: "comparison" }, h("p", { class: "muted", id: "computing" }, "Computing the paired differences and divergences…"));
  const baseRun = runs.find((r) => r.id === ARGS.baseline || (ARGS.baseline && r.id.startsWith(ARGS.baseline))) || runs[0];
  let candidateRun = runs.find((r) => r.id !== baseRun.id);
  async function showPair(scenario, tr) {
    main.querySelectorAll("tr.selected").forEach((x) => x.classList.remove("selected"));
    if (tr) tr.classList.add("selected");
    pairBox.replaceChildren(h("p", { class: "muted" }, "Loading…"));
    try {
      const p = await api(`/api/compare/pair?a=${enc(baseRun.id)}&b=${enc(candidateRun.id)}&scenario=${enc(scenario)}`);
      pairBox.replaceChildren(pairView(p));
      pairBox.querySelector("tr.divergence")?.scrollIntoView({ block: "center" });
    } catch (e) { pairBox.replaceChildren(h("p", { class: "refused" }, e.message)); }
  }
  // Until the matrix arrives, the baseline's scenarios already open the side-by-side view.
  api(`/api/runs/${enc(baseRun.id)}/facets`).then((f) => {
    if (!document.getElementById("computing")) return;
    fill(rest, h("p", { class: "muted", id: "computing" }, "Computing the paired differences and divergences… Meanwhile, side by side:"),
      h("p", { class: "scenario-list" }, f.scenario.map((x) => h("button", { type: "button", "data-scenario": x.value, onclick: () => showPair(x.value, null) }, x.value))));
  }).catch(() => {});
  render(h("h1", {}, "Compare runs"),
    h("h2", {}, "Scorecards"), h("div", { id: "cards" }, scorecardTable(runs.map((r) => Object.assign({ label: r.id }, r.scorecard)), runs.map((r) => r.calibration), runs.map((r) => r.judge_warning))),
    rest, pairBox);
  let cmp;
  try { cmp = await pending; } catch (e) {
    return rest.replaceChildren(h("p", { class: "refused", id: "refused" }, e.status === 422 ? "Refused: " + e.message : e.message));
  }
  const byId = Object.fromEntries(runs.map((r) => [r.id, r]));
  const candidates = cmp.labels.filter((l) => l !== cmp.baseline);
  let candidate = candidates[0];
  candidateRun = byId[cmp.run_ids[candidate]] || candidateRun;
  const pick = h("select", { onchange: (e) => { candidate = e.target.value; candidateRun = byId[cmp.run_ids[candidate]]; } }, candidates.map((l) => h("option", { value: l }, l)));
  const matrix = h("table", { class: "matrix" },
    h("thead", {}, h("tr", {}, h("th", {}, "scenario"), cmp.labels.map((l) => h("th", {}, l)), h("th", {}, "spread"))),
    h("tbody", {}, cmp.matrix.map((row) => {
      const tr = h("tr", { class: "scenario", "data-scenario": row.scenario_id, onclick: () => showPair(row.scenario_id, tr) },
        h("td", {}, h("a", { href: "#pair" }, row.scenario_id)),
        cmp.labels.map((l) => { const c = row.cells[l];
          return c === null ? h("td", { class: "incomparable", title: "no result for this configuration" }, "incomparable")
            : h("td", { class: "num" }, fmt(c.mean_composite), " ", h("span", { class: "small" }, verdicts(c.verdicts))); }),
        h("td", { class: "num" }, row.incomparable ? "incomparable" : fmt(row.spread)));
      return tr;
    })));
  // Redrawn with the comparison's cards: the calibrations and a forced fit's warnings stay (the
  // warnings were dropped here, so the row vanished once the comparison came in).
  document.getElementById("cards").replaceChildren(scorecardTable(cmp.cards, cmp.cards.map((c) => (cmp.calibrations || {})[c.label]),
    cmp.cards.map((c) => (byId[cmp.run_ids[c.label]] || {}).judge_warning || null)));
  const charts = candidates.map((l) => {
    const items = cmp.differences.filter((d) => d.candidate === l && d.metric === "composite" && d.scope.startsWith("scenario:"));
    const overall = cmp.differences.find((d) => d.candidate === l && d.metric === "composite" && d.scope === "overall");
    const floor = overall ? overall.noise_floor : 0;
    return h("section", {}, h("h3", {}, `${l} − ${cmp.baseline}, per scenario`),
      overall ? h("p", { class: "small" }, `overall ${overall.delta === null ? "—" : (overall.delta > 0 ? "+" : "") + fmt(overall.delta, 2)} [${fmt(overall.ci_low, 2)}, ${fmt(overall.ci_high, 2)}] over ${overall.pairs} pairs: `,
        h("b", { class: { worse: "fail", better: "pass" }[overall.label] || "" }, overall.label), ` · noise floor ${fmt(floor, 2)}`) : null,
      PolygonCharts.deltas("deltas-" + candidates.indexOf(l), items, floor, `${items.length ? items[0].method : ""}; grey band: the noise floor (±${fmt(floor, 2)})`));
  });
  fill(rest,
    h("p", {}, `Baseline ${cmp.baseline}; rubric ${cmp.runs[0].rubric_version}. `, cmp.ci.exit_code ? h("b", { class: "fail" }, "CI would block: ") : h("b", { class: "pass" }, "CI would pass. "),
      cmp.ci.reasons.join("; ")),
    h("h2", {}, "Analysis"), h("div", { class: "prose" }, cmp.prose || "—"),
    h("h2", {}, "Per-scenario differences"), h("div", { class: "charts wide" }, charts),
    h("h2", {}, "Paired differences"), differencesTable(cmp.differences),
    h("h2", {}, "Probes"), probeComparison(cmp.probes, cmp.labels),
    h("h2", {}, "Scenarios, most divergent first"),
    candidates.length > 1 ? h("p", {}, "Side by side: baseline against ", pick) : null,
    h("div", { class: "scroll" }, matrix),
    h("h2", {}, `Divergences: ${cmp.baseline} vs ${candidate}`), divergenceBox(qs, candidate));
}

// -- trends ------------------------------------------------------------------------------------

const METRIC_NAMES = { mean_composite: "mean composite", resolution_rate: "resolution rate", policy_safety_rate: "policy safety rate" };

// The suite last chosen on the trends page, kept in the browser: the page opens on it next time.
const TRENDS_SUITE = "polygon.trends.suite";

function rememberedSuite() {
  try { return localStorage.getItem(TRENDS_SUITE) || ""; } catch (e) { return ""; }
}

function rememberSuite(suite) {
  try { if (suite) localStorage.setItem(TRENDS_SUITE, suite); else localStorage.removeItem(TRENDS_SUITE); } catch (e) { /* storage off */ }
}

async function pageTrends() {
  const state = { agent: ARGS.agent || "", suite: ARGS.suite || rememberedSuite(), source: "", rubric_version: "", metric: "mean_composite" };
  const out = h("div", { id: "trends" });
  const form = h("form", { class: "filters", onsubmit: (e) => e.preventDefault() });
  render(h("h1", {}, "Trends"), h("p", { class: "muted" }, "One suite over time (oldest left), a line per agent, each value with its 95% interval. "
    + "A line joins only runs of one agent version judged under the same rubric version, from the same source, by the same judge; a probe's line only runs with the same wording."), form, out);
  let latest = 0; // a filter changed again before the answer came: only the newest answer is shown
  async function load() {
    const mine = ++latest;
    const qs = new URLSearchParams(Object.entries(state).filter(([, v]) => v !== ""));
    let data;
    try { data = await api("/api/trends?" + qs); } catch (e) { out.replaceChildren(h("p", { class: "refused" }, e.message)); return; }
    if (mine !== latest) return;
    if (state.suite && !data.choices.some((c) => c.suite === state.suite)) { // a remembered suite no longer stored
      rememberSuite(""); state.suite = ""; return load();
    }
    state.suite = data.suite || "";
    const choice = data.choices.find((c) => c.suite === data.suite) || { sources: [], rubric_versions: [], agents: [] };
    const sel = (name, label, options) => h("label", { "data-filter": name }, label, h("select", { onchange: (e) => {
      state[name] = e.target.value;
      if (name === "suite") { rememberSuite(state.suite); state.agent = ""; state.source = ""; state.rubric_version = ""; }
      load(); } }, options.map(([v, l]) => h("option", { value: v, selected: v === state[name] }, l))));
    form.replaceChildren(
      sel("suite", "suite", data.choices.map((c) => [c.suite, `${c.suite} (${c.runs} runs${c.sweep ? ", a sweep" : ""})`])),
      sel("agent", "agent", [["", "every agent"], ...choice.agents.map((x) => [x, x])]),
      sel("source", "source", [["", "any"], ...choice.sources.map((x) => [x, x])]),
      sel("rubric_version", "rubric", [["", "any"], ...choice.rubric_versions.map((x) => [x, x])]),
      sel("metric", "metric", data.metrics.map((m) => [m, METRIC_NAMES[m] || m])));
    if (!data.series.length && !data.probes.length) { out.replaceChildren(h("div", { class: "empty", id: "no-trends" }, "No finished runs of this suite yet.")); return; }
    const key = (s) => `${s.label} · ${s.source} · rubric ${s.rubric_version} · ${s.judge_model}`;
    const rate = data.metric !== "mean_composite" && !data.metric.startsWith("criterion:");
    const agents = new Set(data.series.map((s) => s.label)).size;
    fill(out,
      h("h2", {}, METRIC_NAMES[data.metric] || data.metric),
      PolygonCharts.trend("trend-metric", data.series.map((s) => ({ key: key(s), points: s.points })), METRIC_NAMES[data.metric] || data.metric,
        rate ? [0, 1] : null, `${data.runs} runs on ${data.suite}, ${agents} line(s)`),
      h("ul", { class: "calibrations small" }, data.series.map((s) => h("li", {}, `${key(s)}: `, s.calibration.line))),
      h("h2", {}, "Probe conformance"),
      data.probes.length ? [...new Set(data.probes.map((p) => p.probe_id))].map((pid) => {
        const mine = data.probes.filter((p) => p.probe_id === pid);
        return h("section", { class: "probe-trend", "data-probe": pid }, h("h3", {}, `${pid} `, h("span", { class: "muted small" }, mine[0].polarity || "")),
          PolygonCharts.trend("trend-probe-" + pid, mine.map((p) => ({ key: `${p.label} · wording ${p.wording_hash} · ${p.source}`, points: p.points })), "conformance", [0, 1],
            "Wilson 95% intervals; a line per agent, and another when the wording (or source) changed"));
      }) : h("p", { class: "muted" }, "No probe answers."));
  }
  await load();
}

// -- prompt analyses ---------------------------------------------------------------------------

const AXES = ["overload", "attention_dilution", "conflict", "ambiguity", "redundancy"];

async function pageAnalyses() {
  let page;
  try { page = await api("/api/analyses"); } catch (e) { return fail(e); }
  if (!page.total) return render(h("h1", {}, "Prompt analyses"), h("div", { class: "empty" }, "No analyses stored yet: run `polygon analyze --agent AGENT.yaml`."));
  render(h("h1", {}, "Prompt analyses"), table(["prompt version", "agents", "language", ...AXES], page.items.map((a) => h("tr", {},
    h("td", {}, h("a", { href: `/analyses/${enc(a.prompt_hash)}` }, a.prompt_hash)), h("td", {}, a.agents.join(", ")), h("td", {}, a.language),
    AXES.map((ax) => h("td", { class: "num" }, fmt(a.axes[ax], 2)))))));
}

async function pageAnalysis() {
  let a;
  try { a = await api(`/api/analyses/${enc(ARGS.prompt_hash)}`); } catch (e) { return fail(e); }
  const shown = new Set(AXES);
  const text = h("div", { class: "prompt" });
  const paint = () => text.replaceChildren(...marked(a.prompt, AXES.filter((ax) => shown.has(ax)).flatMap((ax) =>
    a.axes[ax].highlights.map((hl) => ({ start: hl.start, end: hl.end, cls: "ax-" + ax, title: `${ax} (${hl.tier}): ${hl.reason}` })))));
  paint();
  const legend = h("p", { class: "legend" }, AXES.map((ax) => h("label", {}, h("input", { type: "checkbox", checked: true, onchange: (e) => { e.target.checked ? shown.add(ax) : shown.delete(ax); paint(); } }), " ", h("mark", { class: "ax-" + ax }, ax))));
  const scores = table(["axis", "score (higher is worse)", "tiers", "highlights"], AXES.map((ax) => h("tr", {},
    h("td", {}, ax), h("td", {}, h("span", { class: "bar", style: `width:${Math.round(a.axes[ax].score * 120)}px` }), " ", fmt(a.axes[ax].score, 2)),
    h("td", {}, a.axes[ax].tiers.join(", ")), h("td", { class: "num" }, a.axes[ax].highlights.length))));
  const change = a.previous ? [h("h2", {}, `Change since the previous version (${a.previous.prompt_hash})`),
    table(["axis", "before", "after", "change", "new passages", "resolved passages"], AXES.map((ax) => { const c = a.previous.axes[ax];
      return h("tr", {}, h("td", {}, ax), h("td", { class: "num" }, fmt(c.before, 2)), h("td", { class: "num" }, fmt(c.after, 2)),
        h("td", { class: "num " + (c.delta > 0 ? "fail" : c.delta < 0 ? "pass" : "") }, (c.delta > 0 ? "+" : "") + fmt(c.delta, 2)),
        h("td", { class: "small" }, c.new.map((p) => h("div", {}, "“" + p + "”"))), h("td", { class: "small" }, c.resolved.map((p) => h("div", {}, "“" + p + "”")))); }))]
    : [h("p", { class: "muted" }, "No previous version of this prompt has an analysis.")];
  const skipped = Object.entries(a.tiers_skipped || {}).map(([t, why]) => `${t}: ${why}`).join("; ");
  render(h("h1", {}, `Prompt ${a.prompt_hash}`), h("p", { class: "muted" }, `${a.language}, ${a.length} characters · tiers run: ${a.tiers_run.join(", ")}${skipped ? " · skipped " + skipped : ""}`),
    h("h2", {}, "Axis scores"), scores, h("h2", {}, "The prompt, highlighted per axis"), legend, text, ...change);
}

// -- sweeps and personas -----------------------------------------------------------------------

async function pageSweeps() {
  let data;
  try { data = await api("/api/sweeps"); } catch (e) { return fail(e); }
  if (!data.total) return render(h("h1", {}, "Sweeps"), h("div", { class: "empty", id: "no-sweeps" }, "No sweeps yet: run `polygon sweep SPEC.yaml`."));
  render(h("h1", {}, "Sweeps"), table(["sweep", "points", "refused", "leader", "mean composite"], data.items.map((s) => h("tr", {},
    h("td", {}, h("a", { href: `/sweeps/${enc(s.name)}` }, s.name)), h("td", { class: "num" }, s.points), h("td", { class: "num" }, s.refused),
    h("td", {}, s.leader ? s.leader.label : "—"), h("td", { class: "num" }, s.leader ? fmt(s.leader.mean_composite) : "—")))));
}

async function pageSweep() {
  let s;
  try { s = await api(`/api/sweeps/${enc(ARGS.name)}`); } catch (e) { return fail(e); }
  const curves = await api(`/api/sweeps/${enc(ARGS.name)}/curves`);
  // The points were judged by their runs' judge: its calibration stands beside their numbers.
  const first = s.leaderboard.length ? await api(`/api/runs/${enc(s.leaderboard[0].run_id)}`).catch(() => null) : null;
  render(h("h1", {}, `Sweep ${s.name}`), s.stopped_early ? h("p", { class: "refused" }, "Stopped early: " + s.stopped_early) : null,
    first ? calibrationNote(first.calibration) : null,
    h("h2", {}, "Mean composite against each parameter"),
    curves.curves.length ? h("div", { class: "charts" }, curves.curves.map((c) => h("section", {}, h("h3", {}, c.parameter),
      PolygonCharts.sweepCurve(c, c.base ? `dashed line and band: the base point, ${fmt(c.base.mean_composite)} [${fmt(c.base.ci_low)}, ${fmt(c.base.ci_high)}]` : "95% intervals")))) : h("p", { class: "muted" }, "No point varies a parameter."),
    h("h2", {}, "Leaderboard"), s.leaderboard.length ? table(["rank", "point", "mean composite [95% CI]", "spread across seeds", "latency / turn", "tokens", "cost", "run"],
      s.leaderboard.map((p, i) => h("tr", {}, h("td", { class: "num" }, i + 1), h("td", {}, p.label),
        h("td", { class: "num" }, `${fmt(p.mean_composite)} [${fmt(p.ci_low)}, ${fmt(p.ci_high)}]`), h("td", { class: "num" }, fmt(p.spread_across_seeds, 2)),
        h("td", { class: "num" }, p.median_latency_per_turn_ms === null ? "—" : fmt(p.median_latency_per_turn_ms, 0) + " ms"),
        h("td", { class: "num" }, (p.tokens_estimated ? "~" : "") + p.tokens), h("td", { class: "num" }, p.cost_usd === null ? "—" : "$" + fmt(p.cost_usd, 4)),
        h("td", {}, runLink(p.run_id))))) : h("div", { class: "empty" }, "No point finished."),
    h("h2", {}, "Refused points"), s.refused.length ? table(["point", "reason"], s.refused.map((r) => h("tr", {}, h("td", {}, r.label || JSON.stringify(r.values || r)), h("td", {}, r.reason || "")))) : h("p", { class: "muted" }, "none"));
}

async function pagePersonas() {
  let data;
  try { data = await api("/api/personas"); } catch (e) { return fail(e); }
  if (!data.total) return render(h("h1", {}, "Personas"), h("div", { class: "empty" }, "No personas stored yet: run `polygon personas generate`."));
  render(h("h1", {}, "Personas"), data.groups.map((g) => h("section", {},
    h("h2", {}, `${g.agent} · prompt ${g.prompt_hash} `, g.stale ? h("span", { class: "badge stale" }, "stale: the prompt changed") : null),
    table(["persona", "status", "type", "outcome", "difficulty", "task", "generator"], g.personas.map((p) => h("tr", {},
      h("td", {}, p.id), h("td", {}, p.stale ? h("span", { class: "badge stale" }, "stale") : p.status === "failed" ? h("span", { class: "badge fail", title: p.error || "" }, "failed") : p.status),
      h("td", {}, p.type || "—"), h("td", {}, p.intended_outcome || "—"), h("td", { class: "num" }, p.difficulty ?? "—"), h("td", {}, p.task || ""), h("td", { class: "small" }, p.generator)))))));
}

const PAGES = { runs: pageRuns, run: pageRun, conversation: pageConversation, compare: pageCompare, probes: pageTrends, trends: pageTrends,
  analyses: pageAnalyses, analysis: pageAnalysis, sweeps: pageSweeps, sweep: pageSweep, personas: pagePersonas };
// body[data-ready] tells a test (or a screenshot tool) the page has its data; charts finish drawing
// on their own (each figure.chart gets data-drawn, or data-error).
(PAGES[PAGE] || (() => fail(new Error("unknown page " + PAGE))))().catch(fail).finally(() => { document.body.dataset.ready = "1"; });
