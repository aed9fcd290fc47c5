// Small hand-written SVG plots: no library, classes for colours (the CSP
// allows no inline style).
import { s, h } from "./dom.js";

const W = 860, H = 300, M = { l: 52, r: 16, t: 12, b: 34 };

function scale(d0, d1, r0, r1) {
  const span = d1 - d0 || 1;
  return (v) => r0 + ((v - d0) / span) * (r1 - r0);
}

function axes(svg, x, y, xTicks, yTicks, xFmt, yFmt, yLabel) {
  for (const t of yTicks) {
    svg.append(s("line", { class: "grid", x1: M.l, x2: W - M.r, y1: y(t), y2: y(t) }));
    svg.append(s("text", { x: M.l - 6, y: y(t) + 4, "text-anchor": "end" }, yFmt(t)));
  }
  for (const t of xTicks) {
    svg.append(s("text", { x: x(t), y: H - M.b + 16, "text-anchor": "middle" }, xFmt(t)));
  }
  svg.append(s("line", { class: "axis", x1: M.l, x2: W - M.r, y1: H - M.b, y2: H - M.b }));
  svg.append(s("line", { class: "axis", x1: M.l, x2: M.l, y1: M.t, y2: H - M.b }));
  if (yLabel) svg.append(s("text", { x: 4, y: M.t + 8 }, yLabel));
}

function ticks(lo, hi, n) {
  if (hi <= lo) return [lo];
  const out = [];
  for (let i = 0; i <= n; i++) out.push(lo + ((hi - lo) * i) / n);
  return out;
}

// scoresOverTime plots points {t, score, env} (score in [0, 1]) with one
// colour per env and each env's running mean; envs lists the names in
// colour order.
export function scoresOverTime(points, envs, id) {
  const svg = s("svg", { class: "plot", id, viewBox: `0 0 ${W} ${H}`, width: W, height: H, role: "img" });
  if (!points.length) return svg;
  const ts = points.map((p) => p.t);
  const t0 = Math.min(...ts), t1 = Math.max(...ts);
  const x = scale(t0, t1 === t0 ? t0 + 1 : t1, M.l + 4, W - M.r - 4);
  const y = scale(0, 1, H - M.b, M.t);
  axes(svg, x, y, ticks(t0, t1, 4), [0, 0.25, 0.5, 0.75, 1],
    (t) => new Date(t).toISOString().slice(5, 16).replace("T", " "), (v) => v.toFixed(2), "score");
  envs.forEach((env, i) => {
    const ps = points.filter((p) => p.env === env).sort((a, b) => a.t - b.t);
    const cls = "env-" + (i % 6);
    let sum = 0;
    const mean = [];
    ps.forEach((p, k) => {
      sum += p.score;
      mean.push(`${x(p.t).toFixed(1)},${y(sum / (k + 1)).toFixed(1)}`);
      svg.append(s("circle", { class: cls + " pt", cx: x(p.t).toFixed(1), cy: y(p.score).toFixed(1), r: 2.6, "fill-opacity": 0.55 },
        s("title", null, `${env}: ${p.score.toFixed(3)}`)));
    });
    if (mean.length > 1) svg.append(s("polyline", { class: cls + " mean", fill: "none", points: mean.join(" ") }));
  });
  return svg;
}

// legend names the env colours.
export function legend(envs, extra) {
  return h("div", { class: "legend" },
    envs.map((e, i) => h("span", null, h("span", { class: "swatch env-" + (i % 6) }), e, " (points, running mean)")),
    extra || []);
}

// winRate plots one env of a duel: the contender's win rate (line) and its
// Wilson interval (band) against the number of challenges, the ratio to
// beat (dashed) and the looks of the rule (dotted verticals).
export function winRate(curve, ratioPPM, id) {
  const svg = s("svg", { class: "plot", id, viewBox: `0 0 ${W} ${H}`, width: W, height: H, role: "img" });
  const pts = curve.points;
  const n = Math.max(pts.length, 1);
  const x = scale(0, n, M.l, W - M.r);
  const y = scale(0, 1, H - M.b, M.t);
  axes(svg, x, y, ticks(0, n, Math.min(n, 8)).map(Math.round), [0, 0.25, 0.5, 0.75, 1],
    (v) => String(v), (v) => v.toFixed(2), "win rate");
  if (pts.length) {
    const upper = pts.map((p) => `${x(p.challenge).toFixed(1)},${y(p.upper_ppm / 1e6).toFixed(1)}`);
    const lower = pts.map((p) => `${x(p.challenge).toFixed(1)},${y(p.lower_ppm / 1e6).toFixed(1)}`).reverse();
    svg.append(s("polygon", { class: "band", points: upper.concat(lower).join(" ") }));
    for (const p of pts.filter((p) => p.look)) {
      svg.append(s("line", { class: "look", x1: x(p.challenge), x2: x(p.challenge), y1: M.t, y2: H - M.b }));
    }
    const decisive = pts.filter((p) => p.wins + p.losses > 0);
    if (decisive.length) {
      svg.append(s("polyline", { class: "rate", points: decisive.map((p) => `${x(p.challenge).toFixed(1)},${y(p.rate_ppm / 1e6).toFixed(1)}`).join(" ") }));
    }
  }
  svg.append(s("line", { class: "ratio", x1: M.l, x2: W - M.r, y1: y(ratioPPM / 1e6), y2: y(ratioPPM / 1e6) }));
  svg.append(s("text", { x: W - M.r - 4, y: y(ratioPPM / 1e6) - 5, "text-anchor": "end" }, `ratio to beat ${(ratioPPM / 1e4).toFixed(2)}%`));
  svg.append(s("text", { x: W / 2, y: H - 4, "text-anchor": "middle" }, "challenges"));
  return svg;
}
