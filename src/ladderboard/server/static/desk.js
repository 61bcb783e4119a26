// The create form works without this script, every mechanism's fields shown.
// With it: only the chosen mechanism's parameters show (the others are
// disabled, so they are not sent), the scores it cannot take are disabled,
// the ranks show for a per-rank board only, and choosing the solution file
// counts its public rows and preselects what the advisor's table recommends.
"use strict";

(function () {
  const form = document.getElementById("create-form");
  if (!form) return;
  const mechanism = form.querySelector("#mechanism");
  const score = form.querySelector("#score");
  const board = form.querySelector("#board");
  const ranks = form.querySelector("#ranks-field");
  const solution = form.querySelector("#solution");
  const count = form.querySelector("#holdout-count");
  const advice = JSON.parse(document.getElementById("advice-data").textContent);
  const firstChoice = { losses: "zero_one", predictions: "accuracy" };

  function kindOf(name) {
    const option = mechanism.querySelector(`option[value="${CSS.escape(name)}"]`);
    return option ? option.dataset.kind : "losses";
  }

  function showMechanism() {
    for (const fieldset of form.querySelectorAll("fieldset.params")) {
      const chosen = fieldset.dataset.mechanism === mechanism.value;
      fieldset.hidden = !chosen;
      fieldset.disabled = !chosen;
    }
    const kind = kindOf(mechanism.value);
    for (const group of score.querySelectorAll("optgroup")) {
      group.disabled = group.dataset.kind !== kind;
    }
    const selected = score.options[score.selectedIndex];
    if (!selected || selected.parentElement.disabled) score.value = firstChoice[kind];
  }

  function showRanks() {
    ranks.hidden = board.value !== "per-rank";
  }

  // The public rows of a solution file: the lines whose Usage (or split)
  // column says public. Ids with commas in quotes may miscount: it is an
  // estimate for a recommendation, and the server reads the file itself.
  async function publicRows(file) {
    let stream = file.stream();
    if (/\.gz$/i.test(file.name)) {
      if (typeof DecompressionStream === "undefined") return null;
      stream = stream.pipeThrough(new DecompressionStream("gzip"));
    }
    const lines = (await new Response(stream).text()).split(/\r?\n/);
    const cell = (text) => text.trim().replace(/^"|"$/g, "").toLowerCase();
    const usage = lines[0].split(",").map(cell).findIndex((c) => c === "usage" || c === "split");
    if (usage < 0) return null;
    let n = 0;
    for (let i = 1; i < lines.length; i++) {
      if (cell(lines[i].split(",")[usage] || "") === "public") n++;
    }
    return n;
  }

  function nearest(metric, n) {
    let best = null;
    for (const row of advice.rows) {
      if (row.metric !== metric) continue;
      if (!best || Math.abs(Math.log(row.n / n)) < Math.abs(Math.log(best.n / n))) best = row;
    }
    return best;
  }

  function preselect(row, n) {
    mechanism.value = row.mechanism;
    showMechanism();
    score.value = row.score;
    const set = (name, value) => {
      const field = form.querySelector(`[name="${CSS.escape(`param-${row.mechanism}-${name}`)}"]`);
      if (field) field.value = String(value);
    };
    for (const [name, value] of Object.entries(row.params)) set(name, value);
    for (const [name, multiple] of Object.entries(row.per_root_n)) {
      set(name, Number((multiple / Math.sqrt(n)).toPrecision(3)));
    }
  }

  solution.addEventListener("change", async () => {
    count.textContent = "";
    const file = solution.files[0];
    if (!file) return;
    let n = null;
    try {
      n = await publicRows(file);
    } catch (error) {
      n = null;
    }
    if (n === null || n < 1) {
      count.textContent = "The public rows could not be counted here: see the advisor's table below.";
      return;
    }
    const metric = advice.metrics[score.value] || "zero_one";
    const row = nearest(metric, n);
    if (!row || !mechanism.querySelector(`option[value="${CSS.escape(row.mechanism)}"]`)) {
      count.textContent = `${n} public rows.`;
      return;
    }
    preselect(row, n);
    const command = document.createElement("code");
    command.textContent = row.command.replace(/--n \d+/, `--n ${n}`);
    count.replaceChildren(
      `${n} public rows. The advisor's table, at its nearest size (${row.n} rows scored by ` +
        `${metric}), recommends ${row.label}: preselected below. For your own size, run `,
      command,
      "."
    );
  });

  mechanism.addEventListener("change", showMechanism);
  board.addEventListener("change", showRanks);
  showMechanism();
  showRanks();
})();
