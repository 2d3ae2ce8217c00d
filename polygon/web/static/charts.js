// Polygon web app: the charts, as Vega-Lite specs drawn to SVG by the vendored Vega (static/vendor/).
// Each chart's data is the API's numbers unchanged, in a dataset named "points", so the browser
// tests (and anyone with the console open) can read back exactly what is drawn:
//   document.querySelector('[data-chart="composite"]').polygonView.data("points")
"use strict";

const PolygonCharts = (() => {
  const VERDICT_COLORS = { better: "#1f7a3d", worse: "#b3261e", "within noise": "#66707c" };
  const base = (height) => ({
    width: "container", height, autosize: { type: "fit-x", contains: "padding" },
    config: { view: { stroke: "#d9dee4" }, axis: { labelFontSize: 11, titleFontSize: 11, labelLimit: 150 },
      legend: { labelFontSize: 11, titleFontSize: 11, orient: "bottom", labelLimit: 220 }, font: "system-ui, sans-serif" },
  });

  // Draw `spec` with `points` into a new box named `name`; returns the box at once (drawing is async).
  function draw(name, spec, points, caption) {
    const plot = document.createElement("div");
    plot.className = "plot";
    const box = document.createElement("figure");
    box.className = "chart";
    box.dataset.chart = name;
    box.append(plot);
    if (caption) {
      const cap = document.createElement("figcaption");
      cap.className = "small muted";
      cap.textContent = caption;
      box.append(cap);
    }
    const full = Object.assign(base(spec.height || 180), spec, { data: { name: "points", values: points } });
    box.polygonReady = vegaEmbed(plot, full, { renderer: "svg", actions: false, tooltip: true })
      .then((result) => { box.polygonView = result.view; box.dataset.drawn = String(points.length); return result.view; })
      .catch((err) => { plot.textContent = "chart failed: " + err.message; box.dataset.error = err.message; });
    return box;
  }

  // A run's composite scores: one bar per 10-point bin (`bins` from /api/runs/{id}/distributions).
  function composite(bins, caption) {
    return draw("composite", {
      height: 160, mark: { type: "bar", color: "#2f5fb3" },
      encoding: {
        x: { field: "start", type: "quantitative", bin: { binned: true, step: 10 }, scale: { domain: [0, 100] }, title: "composite (0–100)" },
        x2: { field: "end" },
        y: { field: "count", type: "quantitative", title: "conversations" },
        tooltip: [{ field: "start", title: "from" }, { field: "end", title: "to" }, { field: "count", title: "conversations" }],
      },
    }, bins, caption);
  }

  // Per criterion, how many conversations got each score: one stacked bar per criterion.
  function criteria(list, caption) {
    const points = list.flatMap((c) => c.counts.map((k) => ({ criterion: c.criterion, score: k.score, count: k.count })));
    return draw("criteria", {
      height: Math.max(120, 24 * list.length), mark: "bar",
      encoding: {
        y: { field: "criterion", type: "nominal", title: null },
        x: { field: "count", type: "quantitative", stack: "normalize", title: "share of judged conversations", axis: { format: "%" } },
        color: { field: "score", type: "ordinal", title: "score", scale: { scheme: "redyellowgreen" } },
        order: { field: "score" },
        tooltip: [{ field: "criterion" }, { field: "score" }, { field: "count", title: "conversations" }],
      },
    }, points, caption);
  }

  // pass^k: the chance a scenario passes on all of k seeds, k = 1…K.
  function passK(passHatK, caption) {
    const points = Object.entries(passHatK || {}).map(([k, v]) => ({ k: Number(k), value: v })).sort((a, b) => a.k - b.k);
    return draw("pass-k", {
      height: 120, mark: { type: "line", point: true, color: "#1d3f86" },
      encoding: {
        x: { field: "k", type: "quantitative", title: "k (seeds)", axis: { tickMinStep: 1, format: "d" } },
        y: { field: "value", type: "quantitative", scale: { domain: [0, 1] }, title: "pass^k" },
        tooltip: [{ field: "k" }, { field: "value", format: ".2f", title: "pass^k" }],
      },
    }, points, caption);
  }

  // Per-scenario paired differences of one candidate: the mean delta, its 95% interval, and the
  // noise floor as a grey band around zero (a delta inside it is never called a change).
  function deltas(name, items, floor, caption) {
    const points = items.map((d) => ({ scenario: d.scope.replace(/^scenario:/, ""), delta: d.delta, low: d.ci_low, high: d.ci_high,
      label: d.label, pairs: d.pairs }));
    const rows = points.length;
    return draw(name, {
      height: Math.max(80, 22 * rows),
      layer: [
        { data: { values: [{ lo: -floor, hi: floor }] }, mark: { type: "rect", color: "#e7e9ed" }, encoding: { x: { field: "lo", type: "quantitative" }, x2: { field: "hi" } } },
        { data: { values: [{ zero: 0 }] }, mark: { type: "rule", color: "#66707c" }, encoding: { x: { field: "zero", type: "quantitative" } } },
        { mark: { type: "rule", strokeWidth: 2 }, encoding: { y: { field: "scenario", type: "nominal", title: null, sort: null }, x: { field: "low", type: "quantitative", title: "candidate − baseline (composite points)" }, x2: { field: "high" },
          color: { field: "label", type: "nominal", scale: { domain: Object.keys(VERDICT_COLORS), range: Object.values(VERDICT_COLORS) }, title: "label" } } },
        { mark: { type: "point", filled: true, size: 50 }, encoding: { y: { field: "scenario", type: "nominal", sort: null }, x: { field: "delta", type: "quantitative" },
          color: { field: "label", type: "nominal" },
          tooltip: [{ field: "scenario" }, { field: "delta", format: "+.2f" }, { field: "low", format: ".2f" }, { field: "high", format: ".2f" }, { field: "pairs" }, { field: "label" }] } },
      ],
    }, points, caption);
  }

  // One swept parameter: mean composite against its value, 95% intervals, one line per combination
  // of the other parameters; the base point (the agent's own values) as a band with its mean.
  function sweepCurve(curve, caption) {
    const points = curve.points.map((p) => ({ value: p.value, mean: p.mean_composite, low: p.ci_low, high: p.ci_high, others: p.others || "alone", label: p.label }));
    const x = { field: "value", type: curve.numeric ? "quantitative" : "ordinal", title: curve.parameter, sort: null,
      scale: curve.numeric ? { zero: false, padding: 16 } : {} };
    const layers = [];
    if (curve.base && curve.base.mean_composite !== null) {
      layers.push({ data: { values: [curve.base] }, mark: { type: "rect", color: "#eef1f5" }, encoding: { y: { field: "ci_low", type: "quantitative" }, y2: { field: "ci_high" } } });
      layers.push({ data: { values: [curve.base] }, mark: { type: "rule", strokeDash: [4, 3], color: "#66707c" }, encoding: { y: { field: "mean_composite", type: "quantitative" } } });
    }
    layers.push(
      { mark: { type: "rule", strokeWidth: 2 }, encoding: { x, y: { field: "low", type: "quantitative", title: "mean composite [95% CI]", scale: { zero: false } }, y2: { field: "high" }, color: { field: "others", type: "nominal", title: "other parameters" } } },
      { mark: { type: "line", point: { filled: true, size: 50 } }, encoding: { x, y: { field: "mean", type: "quantitative" }, color: { field: "others", type: "nominal" },
        tooltip: [{ field: "label", title: "point" }, { field: "mean", format: ".1f" }, { field: "low", format: ".1f" }, { field: "high", format: ".1f" }] } });
    return draw("sweep-" + curve.parameter, { height: 200, layer: layers }, points, caption);
  }

  // A metric (or a probe's conformance) over runs, oldest left; one line per comparable series.
  // `series`: [{key, points: [{run_id, created_at, agent_version, value, low, high}]}].
  // A value over time: x is each run's created_at (a run made a week later sits a week right), one
  // coloured line per series (an agent version, or a production source).
  function trend(name, series, yTitle, domain, caption) {
    const points = series.flatMap((s) => s.points.map((p) => ({ series: s.key, run: p.run_id, at: p.created_at, version: p.agent_version,
      value: p.value, low: p.low, high: p.high, n: p.n })));
    const x = { field: "at", type: "temporal", title: "run created (UTC)" };
    const y = { type: "quantitative", scale: domain ? { domain } : { zero: false } };
    return draw(name, {
      height: 180,
      layer: [
        { mark: { type: "rule", strokeWidth: 2, opacity: 0.6 }, encoding: { x, y: Object.assign({ field: "low", title: yTitle }, y), y2: { field: "high" }, color: { field: "series", type: "nominal", title: null } } },
        { mark: { type: "line", point: { filled: true, size: 45 } }, encoding: { x, y: Object.assign({ field: "value" }, y), color: { field: "series", type: "nominal" }, detail: { field: "series" },
          tooltip: [{ field: "series", title: "line" }, { field: "run" }, { field: "version", title: "agent version" }, { field: "at", type: "temporal", title: "created", format: "%Y-%m-%d %H:%M" }, { field: "value", format: ".2f" }, { field: "low", format: ".2f" }, { field: "high", format: ".2f" }, { field: "n" }] } },
      ],
    }, points, caption);
  }

  return { draw, composite, criteria, passK, deltas, sweepCurve, trend };
})();
