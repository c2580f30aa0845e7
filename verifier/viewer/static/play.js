// The playground's script: open a contract, check it as it is typed, try it on one
// case, save it. Every request goes to this server as JSON; the server's answers are
// shown as text (the verdicts come as HTML the server rendered from escaped templates).
"use strict";

(function () {
  const $ = (id) => document.getElementById(id);
  const editor = $("contract");
  const gutter = $("gutter");
  const problems = $("problems");
  const summary = $("check-summary");
  let problemLines = new Map();
  let checkTimer = null;
  let checkSent = 0;
  let contractId = null;

  function send(path, body) {
    return fetch(path, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(body),
      credentials: "omit",
    }).then((response) => response.json().then((data) => ({ status: response.status, data })));
  }

  function get(path) {
    return fetch(path, { credentials: "omit" }).then((response) =>
      response.json().then((data) => ({ status: response.status, data })),
    );
  }

  function say(element, text, kind) {
    element.textContent = text;
    element.className = "play-status" + (kind ? " " + kind : "");
  }

  function detail(data) {
    if (typeof data.detail === "string") return data.detail;
    if (Array.isArray(data.detail)) return data.detail.map((d) => d.msg).join("; ");
    return "the server refused the request";
  }

  // The gutter: a line number per line, the lines with a problem marked.
  function drawGutter() {
    const count = editor.value.split("\n").length;
    gutter.textContent = "";
    for (let line = 1; line <= count; line += 1) {
      const severity = problemLines.get(line);
      if (severity) {
        const mark = document.createElement("span");
        mark.className = severity === "error" ? "bad" : "warn";
        mark.id = "gutter-line-" + line;
        mark.textContent = String(line);
        gutter.appendChild(mark);
      } else {
        gutter.appendChild(document.createTextNode(String(line)));
      }
      gutter.appendChild(document.createTextNode("\n"));
    }
    gutter.scrollTop = editor.scrollTop;
  }

  function goToLine(line) {
    const lines = editor.value.split("\n");
    const target = Math.max(1, Math.min(line, lines.length));
    let start = 0;
    for (let i = 0; i < target - 1; i += 1) start += lines[i].length + 1;
    editor.focus();
    editor.setSelectionRange(start, start + lines[target - 1].length);
    const height = editor.scrollHeight / lines.length;
    editor.scrollTop = Math.max(0, (target - 4) * height);
  }

  function showProblems(answer) {
    problemLines = new Map();
    problems.textContent = "";
    for (const problem of answer.problems) {
      if (problem.line > 0 && problemLines.get(problem.line) !== "error") {
        problemLines.set(problem.line, problem.severity);
      }
      const item = document.createElement("li");
      item.className = problem.severity;
      item.dataset.line = String(problem.line);
      const link = document.createElement("a");
      link.href = "#contract";
      const at = document.createElement("span");
      at.className = "at";
      at.textContent = problem.line > 0 ? "line " + problem.line + ":" + problem.col : "file";
      link.appendChild(at);
      const prefix = problem.severity === "warning" ? "warning: " : "";
      link.appendChild(document.createTextNode(prefix + problem.message));
      link.addEventListener("click", (event) => {
        event.preventDefault();
        goToLine(problem.line);
      });
      item.appendChild(link);
      problems.appendChild(item);
    }
    const errors = answer.problems.filter((p) => p.severity === "error").length;
    if (answer.ok) {
      summary.textContent = "✓ " + answer.summary;
      summary.className = "check-summary ok";
    } else {
      summary.textContent = errors + " problem" + (errors === 1 ? "" : "s");
      summary.className = "check-summary alert";
    }
    drawGutter();
    if (answer.ok && answer.contract !== contractId) {
      contractId = answer.contract;
      loadRuns();
    }
  }

  function check() {
    const sent = ++checkSent;
    send("/play/check", { name: $("name").value, text: editor.value }).then(({ status, data }) => {
      if (sent !== checkSent) return; // a later check is on its way
      if (status === 200) showProblems(data);
      else say(summary, detail(data), "alert");
    });
  }

  function checkSoon() {
    drawGutter();
    clearTimeout(checkTimer);
    checkTimer = setTimeout(check, 300);
  }

  function open() {
    const [kind, value] = splitOnce($("pick").value, ":");
    if (!kind) return;
    const query = kind === "starter" ? "starter=" : "name=";
    get("/play/contract?" + query + encodeURIComponent(value)).then(({ status, data }) => {
      if (status !== 200) {
        say($("save-status"), detail(data), "alert");
        return;
      }
      editor.value = data.text;
      $("name").value = data.name;
      editor.scrollTop = 0;
      say($("save-status"), "opened " + data.name, "");
      check();
    });
  }

  function splitOnce(text, separator) {
    const at = text.indexOf(separator);
    return at < 0 ? [text, ""] : [text.slice(0, at), text.slice(at + 1)];
  }

  function fillSelect(select, first, items) {
    select.textContent = "";
    const placeholder = document.createElement("option");
    placeholder.value = "";
    placeholder.textContent = first;
    select.appendChild(placeholder);
    for (const [value, label] of items) {
      const option = document.createElement("option");
      option.value = value;
      option.textContent = label;
      select.appendChild(option);
    }
  }

  function loadRuns() {
    get("/play/runs?contract=" + encodeURIComponent(contractId || "")).then(({ status, data }) => {
      if (status !== 200) return;
      const runs = data.runs.map((r) => [r.run_id, r.run_id + " · " + (r.cases ?? "?") + " cases"]);
      fillSelect($("run"), runs.length ? "(a run of this contract)" : "(no run stored)", runs);
      fillSelect($("case-id"), "(case)", []);
    });
  }

  function loadCases() {
    const run = $("run").value;
    if (!run) return;
    get("/play/cases?run=" + encodeURIComponent(run)).then(({ status, data }) => {
      if (status === 200) fillSelect($("case-id"), "(case)", data.cases.map((id) => [id, id]));
    });
  }

  function loadCase() {
    const run = $("run").value;
    const id = $("case-id").value;
    if (!run || !id) return;
    const query = "run=" + encodeURIComponent(run) + "&id=" + encodeURIComponent(id);
    get("/play/case?" + query).then(({ status, data }) => {
      if (status !== 200) {
        say($("run-status"), detail(data), "alert");
        return;
      }
      const { input, output, ...rest } = data.case;
      $("input").value = typeof input === "string" ? input : JSON.stringify(input ?? "");
      $("output").value = typeof output === "string" ? output : JSON.stringify(output ?? "");
      $("fields").value = JSON.stringify(rest, null, 2);
      if (Object.keys(rest).length > 1) $("more").open = true;
      say($("run-status"), "case " + id + " of run " + shortRun(run), "");
    });
  }

  function shortRun(run) {
    return run.length > 24 ? run.slice(0, 24) + "…" : run;
  }

  function theCase() {
    let rest = {};
    const text = $("fields").value.trim();
    if (text) {
      rest = JSON.parse(text); // a SyntaxError is shown by run()
      if (rest === null || typeof rest !== "object" || Array.isArray(rest)) {
        throw new SyntaxError("other fields: give a JSON object");
      }
    }
    return { ...rest, input: $("input").value, output: $("output").value };
  }

  function run() {
    let item;
    try {
      item = theCase();
    } catch (error) {
      say($("run-status"), "other fields: " + error.message, "alert");
      return;
    }
    $("run-button").disabled = true;
    say($("run-status"), "running…", "");
    const body = { name: $("name").value, text: editor.value, case: item };
    send("/play/run", body)
      .then(({ status, data }) => {
        if (status === 200) {
          $("verdicts").innerHTML = data.html;
          const failed = data.verdicts.filter((v) => v.status !== "pass").length;
          say($("run-status"), data.passed ? "passed" : failed + " claim(s) did not pass", data.passed ? "ok" : "alert");
          $("verdicts").scrollIntoView({ behavior: "smooth", block: "start" });
        } else if (status === 422 && data.problems) {
          showProblems(data);
          say($("run-status"), "the contract has problems: fix them to run", "alert");
        } else {
          say($("run-status"), detail(data), "alert");
        }
      })
      .catch(() => say($("run-status"), "the server did not answer", "alert"))
      .finally(() => {
        $("run-button").disabled = false;
      });
  }

  function save() {
    const body = { name: $("name").value, text: editor.value };
    send("/play/save", body).then(({ status, data }) => {
      if (status === 200) {
        const how = data.replaced === null ? "saved as a new file" : "saved over version " + data.replaced;
        say($("save-status"), data.name + ": " + how, "ok");
      } else {
        if (data.problems) showProblems(data);
        say($("save-status"), detail(data), "alert");
      }
    });
  }

  editor.addEventListener("input", checkSoon);
  editor.addEventListener("scroll", () => {
    gutter.scrollTop = editor.scrollTop;
  });
  editor.addEventListener("keydown", (event) => {
    if (event.key === "Tab" && !event.shiftKey) {
      event.preventDefault();
      editor.setRangeText("  ", editor.selectionStart, editor.selectionEnd, "end");
      checkSoon();
    }
  });
  // Ctrl+Enter (or Cmd+Enter) runs, from the editor or a box of the case.
  document.addEventListener("keydown", (event) => {
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey) && !$("run-button").disabled) {
      event.preventDefault();
      run();
    }
  });
  $("name").addEventListener("change", check);
  $("open").addEventListener("click", open);
  $("run").addEventListener("change", loadCases);
  $("case-id").addEventListener("change", loadCase);
  $("run-button").addEventListener("click", run);
  $("save").addEventListener("click", save);
  $("verdicts").addEventListener("click", (event) => {
    const link = event.target.closest("a.claim-line");
    if (link) {
      event.preventDefault();
      goToLine(Number(link.dataset.line));
    }
  });
  open();
})();
