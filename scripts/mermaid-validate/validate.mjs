#!/usr/bin/env node
// Validate Mermaid diagrams with mermaid's own parser (mermaid.parse) under node.
//
// Input (stdin): a JSON array of diagram source strings.
// Output (stdout): a JSON array of {ok, diagramType, error} in the same order.
// Exit code: 0 when every diagram parses, 1 when any fails, 2 on bad input.
//
// mermaid needs a DOM for DOMPurify (it sanitises labels while parsing),
// so a jsdom window is installed before mermaid is imported.
import { readFileSync } from 'node:fs';
import { JSDOM } from 'jsdom';

const dom = new JSDOM('<!doctype html><html><body></body></html>');
globalThis.window = dom.window;
globalThis.document = dom.window.document;

const { default: mermaid } = await import('mermaid');
mermaid.initialize({ startOnLoad: false, securityLevel: 'strict' });

let diagrams;
try {
  diagrams = JSON.parse(readFileSync(0, 'utf8'));
  if (!Array.isArray(diagrams) || !diagrams.every((d) => typeof d === 'string')) {
    throw new Error('expected a JSON array of strings');
  }
} catch (err) {
  process.stderr.write(`validate.mjs: ${err.message}\n`);
  process.exit(2);
}

const results = [];
for (const source of diagrams) {
  try {
    const parsed = await mermaid.parse(source);
    results.push({ ok: true, diagramType: parsed.diagramType, error: null });
  } catch (err) {
    results.push({ ok: false, diagramType: null, error: String(err?.message ?? err) });
  }
}
process.stdout.write(JSON.stringify(results));
process.exit(results.every((r) => r.ok) ? 0 : 1);
