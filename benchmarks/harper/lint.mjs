// Lints each line's "text" of the JSONL files named on the command line with harper.js (offline) and
// writes one JSON line per text: {"file", "id", "lints": [{"start", "end", "kind", "rule", "message", "problem", "suggestions"}]}.
// Run from a folder where `npm install harper.js` was done:  node lint.mjs SET.jsonl ... > lints.jsonl
// Spans are converted from Unicode code points (Harper's) to UTF-16 indices, the same as Python's for BMP text.
import { readFileSync } from "node:fs";
import { LocalLinter, Dialect } from "harper.js";
import { binaryInlined } from "harper.js/binaryInlined";

const linter = new LocalLinter({ binary: binaryInlined, dialect: Dialect.American });
await linter.setup();
for (const file of process.argv.slice(2)) {
  for (const line of readFileSync(file, "utf8").split("\n")) {
    if (!line.trim()) continue;
    const row = JSON.parse(line);
    const cps = Array.from(row.text);
    const toIndex = (cp) => cps.slice(0, cp).join("").length;
    const organized = await linter.organizedLints(row.text, { language: "plaintext" });
    const lints = [];
    for (const [rule, list] of Object.entries(organized)) {
      for (const lint of list) {
        const span = lint.span();
        lints.push({
          start: toIndex(span.start), end: toIndex(span.end), kind: lint.lint_kind(), rule,
          message: lint.message(), problem: lint.get_problem_text(),
          suggestions: lint.suggestions().map((s) => s.get_replacement_text()),
        });
      }
    }
    console.log(JSON.stringify({ file, id: row.id ?? null, lints }));
  }
}
