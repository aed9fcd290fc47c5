// The explorer: one page, routed on the URL fragment (#/miner/<hotkey>,
// ...), every view built from the JSON API with the helpers of dom.js.
import { api, pages } from "./api.js";
import { h, link, hotkeyLink, short, time, ppm, num, table, kv, card } from "./dom.js";
import { scoresOverTime, legend, winRate } from "./plot.js";

const app = () => document.getElementById("app");

function show(...nodes) {
  app().replaceChildren(...nodes.flat(Infinity).filter((n) => n !== null && n !== undefined && n !== false));
}

function fail(err) {
  show(h("h1", null, err.status === 404 ? "Not found" : "Error"), h("p", { class: "error", id: "error" }, err.message));
}

const routes = {
  "": overview,
  validators: validators,
  validator: validator,
  block: block,
  transcript: transcript,
  miners: miners,
  miner: miner,
  duels: duels,
  duel: duelPage,
  vtrust: vtrust,
  leaderboard: leaderboard,
  chain: chainPage,
};

async function render() {
  const parts = location.hash.replace(/^#\/?/, "").split("/").map(decodeURIComponent);
  const page = routes[parts[0]];
  show(h("p", { class: "muted" }, "Loading…"));
  document.body.dataset.ready = "";
  try {
    if (!page) throw Object.assign(new Error("no such page"), { status: 404 });
    await page(...parts.slice(1));
  } catch (err) {
    fail(err);
  }
  document.body.dataset.ready = "1";
}

window.addEventListener("hashchange", render);
render();

// ---- overview and validators

async function overview() {
  const st = await api("/status");
  const vals = await api("/validators", { limit: 50 });
  const ds = await api("/duels", { limit: 10 });
  const forks = st.fork_proofs ? await api("/forks", { limit: 100 }) : { items: [] };
  show(
    h("h1", null, "Overview"),
    h("div", { class: "cards" },
      card("validators", st.validators), card("transcripts", st.indexed.transcripts), card("miners", st.miners),
      card("models", st.models), card("duel results", st.duels), card("outcomes", st.indexed.outcomes),
      card("fork proofs", st.fork_proofs)),
    st.problems.length ? h("div", { class: "error" }, "Records the index could not read: ", st.problems.join("; ")) : null,
    forks.items.length ? [h("h2", { class: forks.items.some((f) => f.proves_equivocation) ? "bad" : null }, "Fork proofs"),
      table(["Validator", "#Height", "Block A", "Block B", "Proof"], forks.items.map((f) => [hotkeyLink("validator", f.validator), f.height,
        link(["block", f.a], short(f.a), { class: "mono" }), link(["block", f.b], short(f.b), { class: "mono" }),
        h("span", { class: f.proves_equivocation ? "bad" : "muted" }, forkVerdict(f))]))] : null,
    h("h2", null, "Validators"), validatorTable(vals.items),
    h("h2", null, "Latest duels"), duelTable(ds.items),
  );
}

// forkVerdict says what a fork proof proves: a valid one of format 1 shows two blocks the
// validator signed at one height, but they name no network (spec/ledger.md, "Fork proof").
function forkVerdict(f) {
  if (!f.valid) return "invalid";
  if (f.proves_equivocation) return "valid: the validator signed both (equivocation)";
  return `format ${f.format}: does not prove equivocation (names no network)`;
}

function validatorTable(rows) {
  return table(["Validator", "#Height", "#Transcripts", "Root", "Anchor", "Time", "Commitment", "Equivocating"],
    rows.map((v) => [
      hotkeyLink("validator", v.validator), v.height, v.checkpoint.size, h("span", { class: "mono" }, short(v.checkpoint.root)),
      v.anchor.number, time(v.time_ms), v.commitment ? commitmentText(v.commitment) : "",
      v.equivocating ? h("span", { class: "bad" }, "yes") : "no",
    ]), { id: "validators" });
}

function commitmentText(c) {
  if (c.status === "none") return "none";
  if (c.status === "error") return h("span", { class: "bad" }, c.error);
  const cls = c.status === "matches" ? "good" : c.status === "mismatch" ? "bad" : "muted";
  return h("span", { class: cls }, `${c.status} (height ${c.height}, size ${c.size}, chain block ${c.block})`);
}

async function validators() {
  const rows = await pages("/validators", { limit: 200 }, 2000);
  show(h("h1", null, "Validators"), validatorTable(rows.items), rows.more ? h("p", { class: "muted" }, "First 2000 shown.") : null);
}

async function validator(hotkey) {
  const v = await api("/validators/" + encodeURIComponent(hotkey));
  const hd = v.head;
  const blocksBox = h("div");
  show(
    h("h1", null, "Validator ", h("span", { class: "mono" }, hd.validator)),
    kv([
      ["height", hd.height], ["head block", link(["block", hd.block], hd.block, { class: "mono" })],
      ["transcripts (checkpoint size)", hd.checkpoint.size], ["checkpoint root", h("span", { class: "mono" }, hd.checkpoint.root)],
      ["anchor", `${hd.anchor.number} (${short(hd.anchor.hash)})`], ["time", time(hd.time_ms)],
      ["equivocating", hd.equivocating ? h("span", { class: "bad" }, "yes: a fork proof is stored") : "no"],
      ["champion", v.frontier ? hotkeyLink("miner", v.frontier.champion.hotkey) : "none yet"],
      ["ratio to beat now", ppm(v.ratio_ppm)],
      v.history_error ? ["duel history", h("span", { class: "bad" }, v.history_error)] : null,
      v.commitment ? ["on-chain commitment", commitmentText(v.commitment)] : null,
      v.neuron ? ["neuron", `uid ${v.neuron.uid}, stake ${v.neuron.stake}, permit ${v.neuron.validator_permit}, validator trust ${v.neuron.validator_trust}`] : null,
    ]),
    h("h2", null, `Duels (${v.duel_count})`), duelTable(v.duels),
    h("h2", null, "Blocks"), blocksBox,
  );
  await pagedTable(blocksBox, "/validators/" + encodeURIComponent(hotkey) + "/blocks", { limit: 25 },
    ["#Height", "Block", "Time", "#Anchor", "#Transcripts", "#Decisions", "#Size", "Root"],
    (b) => [b.height, link(["block", b.cid], short(b.cid), { class: "mono" }), time(b.time_ms), b.anchor.number,
      b.transcripts, b.decisions, b.checkpoint.size, h("span", { class: "mono" }, short(b.checkpoint.root))]);
}

// pagedTable fills box with a table of a list and a button for more.
async function pagedTable(box, path, params, headers, row) {
  const tbl = table(headers, []);
  const tbody = tbl.querySelector("tbody");
  const more = h("button", { class: "more", type: "button" }, "More");
  box.replaceChildren(tbl);
  let cursor = "";
  async function load() {
    const page = await api(path, { ...params, cursor });
    for (const item of page.items) {
      const cells = row(item);
      tbody.append(h("tr", null, cells.map((c, i) => h("td", headers[i].startsWith("#") ? { class: "num" } : null, c))));
    }
    cursor = page.next;
    if (cursor) box.append(more);
    else more.remove();
  }
  more.addEventListener("click", () => load().catch(fail));
  await load();
}

async function block(cid) {
  const b = await api("/blocks/" + encodeURIComponent(cid), { limit: 200 });
  const list = h("div");
  show(
    h("h1", null, "Block ", h("span", { class: "mono" }, b.cid)),
    kv([
      ["validator", hotkeyLink("validator", b.validator)], ["height", b.height],
      ["previous", b.prev ? link(["block", b.prev], b.prev, { class: "mono" }) : "none (height 0)"],
      ["time", time(b.time_ms)], ["anchor", `${b.anchor.number} (${b.anchor.hash})`],
      ["checkpoint", `size ${b.checkpoint.size}, root ${b.checkpoint.root}`],
      ["signature", h("span", { class: b.signature_valid ? "good" : "bad" }, b.signature_valid ? "valid" : "INVALID")],
      ["leaves", `${b.first_leaf} to ${b.first_leaf + b.transcripts - 1}`],
    ]),
    h("h2", null, `Decision records (${b.decisions})`),
    table(["Record", "Type", "Summary"], b.decision_records.map((d) => [
      d.type === "duel" ? link(["duel", d.cid], short(d.cid), { class: "mono" }) : h("span", { class: "mono" }, short(d.cid)),
      d.type || "?",
      d.error ? h("span", { class: "bad" }, d.error)
        : d.duel ? `${short(d.duel.contender.hotkey)} vs champion ${short(d.duel.champion.hotkey)}: ${d.duel.winner} wins`
          : d.outcome ? [d.outcome.verdict, " on ", link([d.outcome_on === "duel" ? "duel" : "transcript", d.outcome.record], short(d.outcome.record)), " of ", short(d.outcome.validator), d.outcome.reason ? ": " + d.outcome.reason : ""]
            : "",
    ])),
    h("h2", null, `Transcripts (${b.transcripts})`), list,
  );
  list.append(transcriptTable(b.transcript_list.items));
  if (b.transcript_list.next) list.append(h("p", { class: "muted" }, "First 200 shown; the API pages the rest."));
}

function transcriptTable(rows, attrs) {
  return table(["#Leaf", "Transcript", "Env", "Miner", "#Reward", "#Score", "Reason", "Started"],
    rows.map((t) => [t.leaf, link(["transcript", t.cid], short(t.cid), { class: "mono transcript-link" }), t.env,
      hotkeyLink("miner", t.miner), t.reward, num(t.score, 2), t.error ? h("span", { class: "bad" }, t.error) : t.reason, time(t.started_ms)]), attrs);
}

// ---- transcripts

async function transcript(cid) {
  const v = await api("/transcripts/" + encodeURIComponent(cid));
  const t = v.transcript;
  const conv = h("div", { id: "conversation" },
    t.conversation.map((m) => h("div", { class: "msg " + (m.role === "assistant" ? "assistant" : "") },
      h("div", { class: "role" }, m.role), h("pre", { class: "content" }, m.content))));
  const proofHref = "/api/v1/transcripts/" + encodeURIComponent(cid) + "/proof";
  show(
    h("h1", null, "Transcript ", h("span", { class: "mono" }, v.cid)),
    h("p", { class: "score-box" }, "Score ", h("span", { id: "score" }, num(v.score, 3)),
      h("span", { class: "muted" }, ` (reward ${t.reward}${v.reward_range ? ` in [${v.reward_range.min}, ${v.reward_range.max}]` : ""})`)),
    kv([
      ["reason", h("span", { id: "reason" }, t.reason)],
      ["challenge", h("span", { class: "mono" }, t.challenge)],
      ["env", `${t.env} v${t.env_version}`],
      ["miner", [hotkeyLink("miner", t.miner.hotkey), ` uid ${t.miner.uid}, ${t.miner.model}@${t.miner.revision}`]],
      ["model hash", h("span", { class: "mono" }, t.miner.model_hash)],
      ["endpoint", t.miner.endpoint],
      ["validator", hotkeyLink("validator", v.validator)],
      ["location", [`leaf ${v.leaf} of the log, block height ${v.height} `, link(["block", v.block], short(v.block), { class: "mono" })]],
      ["turn rewards", t.turn_rewards.join(", ")],
      ["latency", `${t.latency_ms} ms, ${t.attempts} attempt(s), HTTP ${t.http_status}`],
      ["usage", t.usage ? `${t.usage.prompt_tokens} prompt + ${t.usage.completion_tokens} completion tokens` : "not reported"],
      ["error", t.error ? h("span", { class: "bad" }, t.error) : "none"],
      ["time", `${time(t.started_ms)} to ${time(t.finished_ms)}`],
      ["duel", v.duel_records.length ? v.duel_records.map((d) => link(["duel", d], short(d), { class: "mono" })) : "none"],
      ["inclusion proof", [h("a", { id: "proof-link", href: proofHref, download: `inclusion-proof-${v.cid}.json` }, "download"),
        h("span", { class: "muted" }, " (check offline with: ledger verify-proof FILE)")]],
    ]),
    h("h2", null, `Conversation (${t.conversation.length} messages)`),
    conv,
  );
}

// ---- miners

async function miners() {
  const rows = await pages("/miners", { limit: 500 }, 5000);
  show(h("h1", null, "Miners"),
    table(["Miner", "#UID", "Model", "#Transcripts", "#Mean score", "#Errors", "#Envs", "#Duels", "Last seen"],
      rows.items.map((m) => [hotkeyLink("miner", m.hotkey), m.uid, m.model, m.transcripts, num(m.mean_score, 3), m.errors, m.envs, m.duels, time(m.last_ms)]),
      { id: "miners" }));
}

async function miner(hotkey) {
  const m = await api("/miners/" + encodeURIComponent(hotkey));
  const envs = m.env_stats.map((e) => e.env);
  const pts = await pages("/miners/" + encodeURIComponent(hotkey) + "/transcripts", { limit: 1000 }, 5000);
  const list = h("div", { id: "miner-transcripts" });
  show(
    h("h1", null, "Miner ", h("span", { class: "mono" }, m.hotkey)),
    kv([
      ["uid", m.uid], ["model", `${m.model}@${m.revision}`], ["model hash", h("span", { class: "mono" }, m.model_hash)],
      ["endpoint", m.endpoint], ["transcripts", `${m.transcripts} (${m.errors} with errors)`], ["mean score", num(m.mean_score, 3)],
      ["first seen", `${time(m.first_ms)} (anchor ${m.first_anchor})`], ["last seen", time(m.last_ms)],
      m.commitment ? ["on-chain commitment", m.commitment.error ? m.commitment.error
        : `${m.commitment.model}@${m.commitment.revision} at block ${m.commitment.block}${m.commitment.copy_of != null ? ` (a copy of uid ${m.commitment.copy_of})` : ""}`] : null,
      m.neuron ? ["neuron", `uid ${m.neuron.uid}, stake ${m.neuron.stake}, incentive ${m.neuron.incentive}`] : null,
    ]),
    h("h2", null, "Scores over time"),
    scoresOverTime(pts.items.map((t) => ({ t: t.started_ms, score: t.score, env: t.env })), envs, "miner-plot"),
    legend(envs),
    pts.more ? h("p", { class: "muted" }, `First ${pts.items.length} transcripts plotted.`) : null,
    h("h2", null, "By env"),
    table(["Env", "#Transcripts", "#Mean score", "#Mean reward", "#Min", "#Max"],
      m.env_stats.map((e) => [e.env, e.n, num(e.mean_score, 3), num(e.mean_reward, 3), e.min_reward, e.max_reward])),
    h("h2", null, `Duels (${m.duels})`), duelTable(m.duel_list),
    h("h2", null, "Models served"),
    table(["Model hash", "Names"], m.models.map((x) => [h("span", { class: "mono" }, x.model_hash), x.names.join(", ")])),
    h("h2", null, "Transcripts"), list,
  );
  list.append(transcriptTable(pts.items.slice(0, 200), { id: "miner-transcript-table" }));
  if (pts.items.length > 200) list.append(h("p", { class: "muted" }, `First 200 of ${pts.items.length}${pts.more ? "+" : ""} listed.`));
}

// ---- duels

function duelTable(rows) {
  return table(["Result", "Validator", "#Start", "Champion", "Contender", "#Ratio", "Winner", "#Envs won", "#Challenges"],
    rows.map((d) => [link(["duel", d.record], short(d.record), { class: "mono" }), hotkeyLink("validator", d.validator), d.start.number,
      hotkeyLink("miner", d.champion.hotkey), hotkeyLink("miner", d.contender.hotkey), ppm(d.ratio_ppm),
      h("span", { class: d.winner === "contender" ? "good" : "" }, d.winner), `${d.envs_won}/${d.envs.length}`, d.challenges]),
    { class: "duels" });
}

async function duels() {
  const box = h("div");
  show(h("h1", null, "Duels"), box);
  await pagedTable(box, "/duels", { limit: 50 },
    ["Result", "Validator", "#Start", "Champion", "Contender", "#Ratio", "Winner", "#Envs won", "#Challenges"],
    (d) => [link(["duel", d.record], short(d.record), { class: "mono" }), hotkeyLink("validator", d.validator), d.start.number,
      hotkeyLink("miner", d.champion.hotkey), hotkeyLink("miner", d.contender.hotkey), ppm(d.ratio_ppm), d.winner,
      `${d.envs_won}/${d.envs.length}`, d.challenges]);
}

async function duelPage(cid) {
  const d = await api("/duels/" + encodeURIComponent(cid));
  const ts = await api("/duels/" + encodeURIComponent(cid) + "/transcripts", { limit: 100 });
  const plots = d.curves.map((c, i) => {
    const e = d.envs[i];
    return [
      h("h2", null, `${c.env}: ${e.decision}${e.reason ? " (" + e.reason + ")" : ""}`),
      h("p", { class: "muted" }, `${e.wins} wins, ${e.losses} losses, ${e.draws} draws; win rate ${ppm(e.rate_ppm)}, ` +
        `Wilson interval at the last of ${e.looks} looks [${ppm(e.lower_ppm)}, ${ppm(e.upper_ppm)}]`),
      winRate(c, d.ratio_ppm, "curve-" + c.env),
    ];
  });
  show(
    h("h1", null, "Duel result ", h("span", { class: "mono" }, d.record)),
    kv([
      ["validator", hotkeyLink("validator", d.validator)], ["block", link(["block", d.block], d.block, { class: "mono" })],
      ["duel ID", h("span", { class: "mono" }, d.duel_id)], ["start", `chain block ${d.start.number}`],
      ["champion", hotkeyLink("miner", d.champion.hotkey)], ["contender", hotkeyLink("miner", d.contender.hotkey)],
      ["ratio to beat at the start", ppm(d.ratio_ppm)], ["ratio to beat now (this validator)", ppm(d.ratio_now_ppm)],
      ["winner", h("span", { class: d.winner === "contender" ? "good" : "" }, d.winner)],
      ["envs won", `${d.envs_won} of ${d.envs.length}`], ["geometric mean of rates", ppm(d.geomean_ppm)],
      ["rule", `z = ${d.rule.z_milli / 1000}, looks at ${d.rule.looks.join(", ")} decisive outcomes, at most ${d.rule.max_challenges} challenges per env`],
    ]),
    h("p", { class: "note" }, "Each plot: the contender's win rate over decisive challenges (line) with its Wilson interval (band), " +
      "the ratio to beat (dashed) and the rule's looks (dotted). The contender takes an env when the band clears the ratio at a look."),
    plots,
    d.other_records.length ? [h("h2", null, "Same duel recorded by other validators"), duelTable(d.other_records)] : null,
    h("h2", null, `Transcripts (${2 * d.challenges}: each challenge to both miners)`),
    transcriptTable(ts.items),
    ts.next ? h("p", { class: "muted" }, "First 100 shown; the API pages the rest.") : null,
  );
}

// ---- vTrust, leaderboard, chain

async function vtrust(epoch) {
  const v = await api("/vtrust", { epoch });
  const e = v.epoch;
  const nodes = [h("h1", null, "vTrust and weights"), h("p", { class: "note" }, v.note)];
  nodes.push(table(["#Epoch", "#Duel results", "#Standing", "#Outcomes", "Winner"],
    v.epochs.map((x) => [link(["vtrust", x.epoch], x.epoch), x.votes, x.standing, x.outcomes, x.winner ? hotkeyLink("miner", x.winner.hotkey) : "none"])));
  if (!e) {
    nodes.push(h("p", { class: "muted" }, "No duel result or outcome in this store yet."));
    show(...nodes);
    return;
  }
  nodes.push(h("h2", null, `Epoch ${e.epoch} (chain blocks ${e.first_block} to ${e.last_block})`));
  if (e.error) {
    nodes.push(h("p", { class: "error" }, e.error));
    show(...nodes);
    return;
  }
  const o = e.output;
  nodes.push(kv([
    ["champion at the start", e.champion_in ? hotkeyLink("miner", e.champion_in.hotkey) : "none"],
    ["winner", o.champion.hotkey ? hotkeyLink("miner", o.champion.hotkey) : "none"],
    ["weights", o.weights.uids.length ? o.weights.uids.map((u, i) => `uid ${u}: ${o.weights.values[i]}`).join(", ") : "none to set"],
    ["total trusted stake", o.total],
  ]));
  nodes.push(h("h2", null, "Validators"));
  nodes.push(table(["Validator", "#Stake", "#Agreed", "#Disagreed", "#Faulted", "#Re-exec", "#Votes", "#Standing", "#Agreeing", "#Decision", "#vTrust"],
    o.validators.map((t) => [hotkeyLink("validator", t.hotkey), t.stake, t.agreed, t.disagreed,
      t.faulted ? h("span", { class: "bad" }, t.faulted) : 0, ppm(t.reexec_ppm), t.votes, t.standing, `${t.votes_agreed}/${t.scored}`,
      ppm(t.decision_ppm), h("span", { class: t.vtrust_ppm === 1e6 ? "good" : "bad" }, ppm(t.vtrust_ppm))]), { id: "vtrust-table" }));
  nodes.push(h("h2", null, "Duels"));
  nodes.push(table(["Champion", "Contender", "#Votes", "#Standing", "#Latest start", "Majority", "For", "Against", "Winner"],
    o.duels.map((d) => [hotkeyLink("miner", d.champion.hotkey), hotkeyLink("miner", d.contender.hotkey), d.votes, d.standing, d.latest_start, d.majority || "none", d.for, d.against, d.winner])));
  show(...nodes);
}

async function leaderboard() {
  const lb = await api("/leaderboard", { limit: 500 });
  show(
    h("h1", null, "Leaderboard"),
    h("p", { class: "note" }, "Informational: weights follow the duels. Score = (lowest relative score over envs) / (1 + coefficient of variation of " +
      "the relative scores); a model's relative score in an env is its mean score there over the mean of all models' means. " +
      `Miners serving the same model are grouped; the earliest commitment (${lb.credit === "chain" ? "on chain" : "first seen in the ledger"}) holds the credit.`),
    table(["#Rank", "Model", "Credited miner", "Copies", ...lb.envs.map((e) => "#" + e), "#Min rel.", "#CV", "#Score"],
      lb.items.map((r) => [r.rank, [r.names.join(", "), " ", h("span", { class: "mono muted" }, short(r.model_hash))],
        hotkeyLink("miner", r.miner), r.miners.filter((m) => m.copy).map((m) => hotkeyLink("miner", m.hotkey)),
        ...r.envs.map((e) => e.counted ? `${num(e.relative, 2)} (${e.n})` : h("span", { class: "muted" }, `– (${e.n})`)),
        num(r.min_relative, 3), num(r.cv, 3), h("strong", null, num(r.score, 3))]), { id: "leaderboard" }),
  );
}

async function chainPage() {
  const c = await api("/chain");
  show(
    h("h1", null, "Chain"),
    kv([["head", `${c.head.number} (${c.head.hash})`], ["netuid", c.params.netuid], ["tempo", c.params.tempo],
      ["epoch", `${c.metagraph.epoch} (last at block ${c.metagraph.epoch_block})`]]),
    h("h2", null, "Validator commitments"),
    table(["Validator", "#Chain block", "#Height", "#Size", "Root", "Status"],
      c.validator_commitments.map((v) => [hotkeyLink("validator", v.hotkey), v.block, v.height, v.size, h("span", { class: "mono" }, short(v.root)), commitmentText(v)])),
    h("h2", null, "Contender queue"),
    table(["#UID", "Miner", "#Block", "Model", "Where", "Copy of"],
      c.contenders.map((x) => [x.uid, hotkeyLink("miner", x.hotkey), x.block, `${x.commitment.model}@${x.commitment.revision}`,
        x.commitment.chute || x.commitment.endpoint || "", x.copy_of != null ? `uid ${x.copy_of}` : ""])),
    h("h2", null, "Neurons"),
    table(["#UID", "Hotkey", "#Stake", "Permit", "#Validator trust", "#Incentive"],
      c.metagraph.neurons.map((n) => [n.uid, h("span", { class: "mono" }, n.hotkey), n.stake, n.validator_permit ? "yes" : "", n.validator_trust, n.incentive])),
  );
}

