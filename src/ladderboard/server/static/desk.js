// The create form works without this script, every mechanism's fields shown.
// With it: only the chosen mechanism's parameters show (the others are
// disabled, so they are not sent), the scores it cannot take are disabled,
// the ranks show for a per-rank board only, and choosing the solution file
// counts its public rows and fills in the default's parameters for that size
// (a step of 1/√n, to three significant digits, as the server would), or
// preselects a row of the advisor's table measured better than the default.
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

  // The nearest row of the advisor's table, on a log scale, if it is one the
  // form may offer over the default (organiser_advice.advice_for).
  function nearest(metric, n) {
    let best = null;
    for (const row of advice.rows) {
      if (row.metric !== metric) continue;
      if (!best || Math.abs(Math.log(row.n / n)) < Math.abs(Math.log(best.n / n))) best = row;
    }
    return best && best.shown ? best : null;
  }

  const scaled = (multiple, n) => Number((multiple / Math.sqrt(n)).toPrecision(3));

  // A setting's parameters at n public rows; a scaled one's help then names
  // the value the field holds. The default's fields are filled only where
  // empty or still as this script filled them: a value the organiser typed
  // stays when the file is chosen again.
  function fill(setting, n) {
    const chosen = setting !== advice.default;
    const set = (name, value) => {
      const id = `param-${setting.mechanism}-${name}`;
      const field = form.querySelector(`[name="${CSS.escape(id)}"]`);
      if (field && (chosen || field.value === "" || field.value === field.dataset.filled)) {
        field.value = String(value);
        field.dataset.filled = field.value;
      }
      return document.getElementById(`${id}-default`);
    };
    for (const [name, value] of Object.entries(setting.params)) set(name, value);
    // The default's scaled parameters are left to the server, which writes
    // them in the loss's units when it creates the competition (a count made
    // here is an estimate, and the loss's range is the server's to know):
    // the help says what it will be for a loss in [0, 1].
    for (const [name, multiple] of Object.entries(setting.per_root_n)) {
      const value = scaled(multiple, n);
      if (setting !== advice.default) {
        set(name, value);
        continue;
      }
      const help = document.getElementById(`param-${setting.mechanism}-${name}-default`);
      if (help) {
        help.textContent =
          `Default: ${multiple}/√n times the loss's range, written when the competition is ` +
          `created: ${value} for the solution's ${n} public rows on a loss in [0, 1] (the 0/1 ` +
          `loss, the accuracy's), ${setting.label} being ladderboard's default.`;
      }
    }
  }

  function preselect(row, n) {
    mechanism.value = row.mechanism;
    showMechanism();
    score.value = row.score;
    fill(row, n);
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
    const fallback = advice.default;
    fill(fallback, n);
    const metric = advice.metrics[score.value] || "zero_one";
    const row = nearest(metric, n);
    if (!row || !mechanism.querySelector(`option[value="${CSS.escape(row.mechanism)}"]`)) {
      const set = Object.entries(fallback.per_root_n).map(
        ([name, multiple]) => `${name} = ${scaled(multiple, n)}`
      );
      count.textContent =
        `${n} public rows. ladderboard's default, ${fallback.label}` +
        (set.length ? `, runs with ${set.join(", ")} at this size` : "") +
        (mechanism.value === fallback.mechanism ? ": filled in below." : ".");
      return;
    }
    preselect(row, n);
    const command = document.createElement("code");
    command.textContent = row.command.replace(/--n \d+/, `--n ${n}`);
    count.replaceChildren(
      `${n} public rows. The advisor's table, at its nearest size (${row.n} rows scored by ` +
        `${metric}), measured ${row.label} better than the default: preselected below. For ` +
        "your own size, run ",
      command,
      "."
    );
  });

  mechanism.addEventListener("change", showMechanism);
  board.addEventListener("change", showRanks);
  showMechanism();
  showRanks();
})();
