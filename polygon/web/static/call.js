// Polygon web app: a call's player on the conversation page. The stereo WAV plays in an <audio>; the
// transcript follows it (the turn being heard is highlighted, a click on a turn seeks there); the
// timeline (GET .../timeline) is drawn as inline SVG: a lane per side with its speech segments by
// kind, barge-ins and yields, silences and the line's condition events; the call's metrics beside it.
// No dependency: plain DOM and SVG.
"use strict";

const PolygonCall = (() => {
  // The SVG namespace, read from the HTML parser rather than spelt out (the app's files name no URL).
  const SVG = (() => { const t = document.createElement("template"); t.innerHTML = "<svg></svg>"; return t.content.firstChild.namespaceURI; })();

  function svg(tag, attrs, ...children) {
    const el = document.createElementNS(SVG, tag);
    for (const [k, v] of Object.entries(attrs || {})) if (v !== null && v !== undefined && v !== false) el.setAttribute(k, v);
    for (const c of children.flat()) if (c !== null && c !== undefined) el.append(c instanceof Node ? c : document.createTextNode(String(c)));
    return el;
  }

  function el(tag, attrs, ...children) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) if (v !== null && v !== undefined && v !== false) (k === "class" ? (e.className = v) : e.setAttribute(k, v));
    for (const c of children.flat()) if (c !== null && c !== undefined) e.append(c instanceof Node ? c : document.createTextNode(String(c)));
    return e;
  }

  // 83_400 ms -> "1:23.4"
  function clock(ms) {
    if (ms === null || ms === undefined) return "—";
    const s = ms / 1000;
    return `${Math.floor(s / 60)}:${(s % 60).toFixed(1).padStart(4, "0")}`;
  }

  // -- metrics ----------------------------------------------------------------------------------

  // name -> label; the symbols are tau-voice's (docs/voice.md, "Metrics").
  const METRIC_LABELS = {
    response_latency: "response latency L_R", yield_latency: "yield latency L_Y", response_rate: "response rate R_R",
    yield_rate: "yield rate R_Y", agent_interruption_rate: "agent interruptions I_A",
    selectivity_backchannel: "selectivity to backchannels S_BC", selectivity_vocal_tic: "selectivity to vocal tics S_VT",
    selectivity_non_directed: "selectivity to non-directed speech S_ND", time_to_first_audio: "time to first agent audio",
    longest_silence: "longest silence", word_error_rate: "word error rate (what the agent heard)",
  };
  // Seconds: latencies (and their percentiles), the first audio and the longest silence; the rest are ratios.
  const inSeconds = (name) => /latency/.test(name) || name === "time_to_first_audio" || name === "longest_silence";

  function metricValue(name, value) {
    if (value === null || value === undefined) return "—";
    if (inSeconds(name)) return `${Number(value).toFixed(2)} s`;
    return `${Number((100 * value).toFixed(1))}%`;
  }

  function metricsPanel(metrics) {
    const names = Object.keys(metrics || {});
    if (!names.length) return el("p", { class: "muted call-metrics" }, "No metrics were measured on this call.");
    return el("div", { class: "scroll" }, el("table", { class: "call-metrics" },
      el("thead", {}, el("tr", {}, el("th", {}, "metric"), el("th", { class: "num" }, "value"), el("th", { class: "num" }, "events"))),
      el("tbody", {}, names.map((name) => el("tr", { "data-metric": name },
        el("td", {}, METRIC_LABELS[name] || name.replaceAll("_", " ")),
        el("td", { class: "num value" }, metricValue(name, metrics[name].value)),
        el("td", { class: "num count" }, metrics[name].count))))));
  }

  // -- the timeline chart -----------------------------------------------------------------------

  const W = 1000, LEFT = 70, RIGHT = 14;
  const LANES = { caller: [8, 26], agent: [40, 26], line: [76, 16] }; // y, height
  const AXIS = 100, H = 122;
  const SEGMENT_KINDS = ["speech", "backchannel", "vocal_tic", "non_directed", "hello"];
  const CONDITIONS = ["noise", "muffle", "burst", "frame_drop"];
  // The line lane's drawing order: long stretches first, so the short ones are drawn over them.
  const LINE_ORDER = ["noise", "muffle", "silence", "burst", "frame_drop"];
  const LEGEND = [...SEGMENT_KINDS.map((k) => ["k-" + k, k.replace("_", " "), "seg"]), ["interrupted", "agent cut short", "seg"],
    ["k-barge_in", "barge-in", "line"], ["k-yield", "yield", "line"], ["silence", "silence", "seg"],
    ...CONDITIONS.map((k) => ["k-" + k, k.replace("_", " "), "seg"])];

  // Stretches of at least `min` ms where neither side is heard (from the start of the call to its end).
  function gaps(segments, duration, min) {
    const out = [];
    let at = 0;
    for (const s of [...segments].sort((a, b) => a.start_ms - b.start_ms)) {
      if (s.start_ms - at >= min) out.push([at, s.start_ms]);
      at = Math.max(at, s.end_ms);
    }
    if (duration - at >= min) out.push([at, duration]);
    return out;
  }

  function tickStep(duration) {
    return [500, 1000, 2000, 5000, 10000, 15000, 30000, 60000, 120000, 300000, 600000].find((s) => duration / s <= 10) || 1200000;
  }

  function chart(tl, duration) {
    const x = (ms) => LEFT + (Math.min(Math.max(ms, 0), duration) / duration) * (W - LEFT - RIGHT);
    const wide = (a, b) => Math.max(2, x(b) - x(a)); // an instant (a frame drop) still shows
    const title = (text) => svg("title", {}, text);
    const parts = [];
    for (const [side, [y, h]] of Object.entries(LANES)) {
      parts.push(svg("rect", { class: "lane", x: LEFT, y, width: W - LEFT - RIGHT, height: h }),
        svg("text", { class: "lane-label", x: 4, y: y + h / 2 + 4 }, side));
    }
    const speech = tl.segments || [];
    for (const [a, b] of gaps(speech, duration, tl.tick_ms || 200)) {
      parts.push(svg("rect", { class: "silence gap", x: x(a), y: 4, width: wide(a, b), height: 66 },
        title(`silence ${clock(a)}–${clock(b)} (${((b - a) / 1000).toFixed(1)} s)`)));
    }
    const events = tl.events || [];
    const rank = (e) => LINE_ORDER.indexOf(e.kind);
    for (const e of events.filter((e) => LINE_ORDER.includes(e.kind)).sort((a, b) => rank(a) - rank(b))) {
      const [y, h] = LANES.line;
      const cls = e.kind === "silence" ? "ev silence" : `ev k-${e.kind}`;
      const detail = Object.entries(e.detail || {}).map(([k, v]) => `${k} ${v}`).join(", ");
      parts.push(svg("rect", { class: cls, "data-event": e.kind, x: x(e.start_ms), y, width: wide(e.start_ms, e.end_ms), height: h },
        title(`${e.kind.replace("_", " ")}${e.side ? " on the " + e.side + "'s audio" : ""} ${clock(e.start_ms)}–${clock(e.end_ms)}${detail ? ": " + detail : ""}`)));
    }
    for (const s of speech) {
      const [y, h] = LANES[s.side];
      const said = s.text ? ` “${s.text}”` : "";
      const heard = s.heard !== null && s.heard !== undefined && s.heard !== s.text ? `, heard “${s.heard}”` : "";
      parts.push(svg("rect", { class: `seg k-${s.kind}${s.interrupted ? " interrupted" : ""}`, "data-side": s.side, "data-kind": s.kind,
        "data-turn": s.turn ?? null, x: x(s.start_ms), y, width: wide(s.start_ms, s.end_ms), height: h },
        title(`${s.side} ${s.kind.replace("_", " ")} ${clock(s.start_ms)}–${clock(s.end_ms)}${s.interrupted ? " (cut short)" : ""}:${said}${heard}`)));
    }
    for (const e of events.filter((e) => e.kind === "barge_in" || e.kind === "yield")) {
      const at = x(e.start_ms);
      const label = e.kind === "barge_in" ? `the ${e.side || "caller"} barges in` : `the ${e.side || "agent"} yields`;
      parts.push(svg("g", { class: `interruption k-${e.kind}`, "data-event": e.kind },
        svg("line", { x1: at, x2: at, y1: 2, y2: 72 }), svg("path", { d: `M${at - 5},0 L${at + 5},0 L${at},7 Z` }),
        title(`${label} at ${clock(e.start_ms)}`)));
    }
    for (const e of events.filter((e) => e.kind === "tool_call" || e.kind === "hangup")) {
      const at = x(e.start_ms);
      const name = e.kind === "tool_call" ? `tool call ${(e.detail || {}).name || ""}`.trim() : "hang-up";
      parts.push(svg("g", { class: `marker k-${e.kind}`, "data-event": e.kind },
        svg("path", { d: `M${at},${LANES.line[0] - 1} l5,9 l-5,9 l-5,-9 Z` }), title(`${name} at ${clock(e.start_ms)}`)));
    }
    const step = tickStep(duration);
    for (let t = 0; t <= duration; t += step) {
      parts.push(svg("line", { class: "tick", x1: x(t), x2: x(t), y1: AXIS - 4, y2: AXIS + 2 }),
        svg("text", { class: "tick-label", x: x(t), y: AXIS + 16, "text-anchor": "middle" }, step < 1000 ? clock(t) : clock(t).replace(/\.0$/, "")));
    }
    const playhead = svg("line", { class: "playhead", x1: LEFT, x2: LEFT, y1: 0, y2: AXIS });
    const root = svg("svg", { class: "call-timeline", viewBox: `0 0 ${W} ${H}`, role: "img",
      "aria-label": "the call's timeline: caller and agent speech, interruptions, silences and line conditions" },
      svg("line", { class: "axis", x1: LEFT, x2: W - RIGHT, y1: AXIS - 4, y2: AXIS - 4 }), parts, playhead);
    return { root, playhead, x, toMs: (svgX) => ((svgX - LEFT) / (W - LEFT - RIGHT)) * duration };
  }

  function legend() {
    return el("ul", { class: "call-legend small" }, LEGEND.map(([cls, label, shape]) =>
      el("li", {}, el("span", { class: `swatch ${shape} ${cls}` }), label)));
  }

  // -- the section ------------------------------------------------------------------------------

  // The current turn at `ms`: of the turns heard then, the one that started last (a barge-in overlaps two).
  function turnAt(timed, ms) {
    let best = null;
    for (const t of timed) if (t.start_ms <= ms && ms < t.end_ms && (!best || t.start_ms >= best.start_ms)) best = t;
    return best;
  }

  // What the conversation page shows of a call. `base` is the conversation's API path; `turns` the
  // view's turns and `turnEls` their elements (same order). Resolves once the timeline is drawn.
  async function section(base, voice, turns, turnEls, api) {
    const audio = el("audio", { controls: true, preload: "auto", src: base + "/audio", id: "call-audio" });
    const player = el("div", { class: "call-player" }, audio);
    const figure = el("figure", { class: "call-timeline", id: "call-timeline" });
    const cond = voice.conditions || {};
    const stack = Object.entries(voice.stack || {}).map(([role, engine]) => `${role.replace("_", " ")} ${engine}`).join(" · ");
    const about = el("p", { class: "small muted call-about" }, `${clock(voice.duration_ms)} at ${voice.sample_rate} Hz · conditions ${cond.preset || "clean"}`
      + (cond.intensity !== undefined ? ` (intensity ${cond.intensity})` : "") + " · caller on the left channel, agent on the right"
      + (stack ? " · " + stack : ""));
    const timed = turns.map((t, i) => ({ index: t.index, start_ms: t.start_ms, end_ms: t.end_ms, el: turnEls[i] }))
      .filter((t) => t.start_ms !== null && t.start_ms !== undefined && t.end_ms !== null && t.end_ms !== undefined);
    let drawn = null;
    let current = null;
    const show = () => {
      const ms = Math.round(audio.currentTime * 1000);
      const now = turnAt(timed, ms);
      if (drawn) { const at = drawn.x(ms); drawn.playhead.setAttribute("x1", at); drawn.playhead.setAttribute("x2", at); }
      if (now === current) return;
      if (current) current.el.classList.remove("playing");
      current = now;
      figure.querySelectorAll("rect.seg.current").forEach((r) => r.classList.remove("current"));
      if (!now) return;
      now.el.classList.add("playing");
      figure.querySelectorAll(`rect.seg[data-turn="${now.index}"]`).forEach((r) => r.classList.add("current"));
      if (!audio.paused) now.el.scrollIntoView({ block: "nearest" });
    };
    for (const ev of ["timeupdate", "seeked", "seeking", "loadedmetadata"]) audio.addEventListener(ev, show);
    const seek = (ms) => { audio.currentTime = ms / 1000; show(); };
    for (const t of timed) {
      t.el.classList.add("timed");
      t.el.dataset.startMs = t.start_ms;
      t.el.title = `play from ${clock(t.start_ms)}`;
      t.el.addEventListener("click", (e) => { if (!e.target.closest("a, button, input, select, pre")) seek(t.start_ms); });
    }
    try {
      const tl = await api(base + "/timeline");
      const duration = Math.max(1, tl.duration_ms || voice.duration_ms || Math.max(0, ...(tl.segments || []).map((s) => s.end_ms)));
      drawn = chart(tl, duration);
      drawn.root.addEventListener("click", (e) => {
        const box = drawn.root.getBoundingClientRect();
        const ms = drawn.toMs(((e.clientX - box.left) / box.width) * W);
        if (ms >= 0 && ms <= duration) seek(ms);
      });
      figure.append(el("div", { class: "call-chart" }, drawn.root), legend(),
        el("figcaption", { class: "small muted" }, "Speech by side, coloured by kind; marks: barge-ins and yields; grey: silence "
          + `of ${((tl.tick_ms || 200) / 1000).toFixed(1)} s or more; bottom lane: the line's conditions. A click plays from there.`));
      figure.dataset.drawn = String((tl.segments || []).length);
    } catch (err) {
      figure.append(el("p", { class: "refused" }, "No timeline: " + (err.message || String(err))));
      figure.dataset.error = err.message || String(err);
    }
    show();
    return [el("h2", {}, "Call"), about, player, figure, el("h3", {}, "Interaction metrics"), metricsPanel(voice.metrics)];
  }

  return { clock, metricValue, section };
})();
