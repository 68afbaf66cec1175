// A client of `recall mcp` on the official TypeScript SDK, as a Node-based
// host speaks to it: it pages through a search and through a whole
// session with the smallest budget, sending every number as a string as
// some clients do, and prints what it saw as one JSON object.
// Usage: node mcp-client.mjs SDK_DIR RECALL ARGS... (the SDK's node_modules
// folder, then the command line of the server).
import { pathToFileURL } from "node:url";
import path from "node:path";

const [sdkDir, command, ...args] = process.argv.slice(2);
const load = (p) => import(pathToFileURL(path.join(sdkDir, "@modelcontextprotocol/sdk/dist/esm", p)).href);
const { Client } = await load("client/index.js");
const { StdioClientTransport } = await load("client/stdio.js");

const client = new Client({ name: "recall-ts-test", version: "0" });
await client.connect(new StdioClientTransport({ command, args, stderr: "inherit" }));

const out = { tools: [], pages: [], searchSessions: [], searchTotal: null, showLines: [], showTotal: 0, errors: [] };
out.tools = (await client.listTools()).tools.map((t) => t.name).sort();

async function call(name, args) {
  const res = await client.callTool({ name, arguments: args });
  const text = res.content.filter((c) => c.type === "text").map((c) => c.text).join("");
  if (res.isError) {
    out.errors.push({ name, args, text });
    return null;
  }
  out.pages.push({ name, structured: JSON.stringify(res.structuredContent).length, text: Buffer.byteLength(text) });
  return res.structuredContent;
}

for (let offset = 0, n = 0; n < 100; n++) {
  const r = await call("search", { query: "jwt", limit: "0", offset: String(offset), max_tokens: "1000" });
  if (!r) break;
  out.searchSessions.push(...r.sessions.map((s) => s.session_id));
  out.searchTotal = r.total ?? null;
  if (!r.next_offset) break;
  offset = r.next_offset;
}
for (let offset = 0, n = 0; n < 100; n++) {
  const r = await call("show", { session: "11111111", full: true, offset: String(offset), max_tokens: "1000" });
  if (!r) break;
  out.showTotal = r.messages_total;
  out.showLines.push(...r.messages.map((m) => `${m.source}:${m.line}`));
  if (!r.next_offset) break;
  offset = r.next_offset;
}
await call("search", { query: "jwt", limit: -1 });
await client.close();
process.stdout.write(JSON.stringify(out) + "\n");
