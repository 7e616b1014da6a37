// A minimal MCP server over stdio (newline-delimited JSON-RPC), for the e2e tests: two tools, one that
// only reads (list_things) and one whose name says it deletes (delete_thing). Calling either appends its
// name to the file named by MCP_E2E_MARKER, so a test can tell whether the host really ran it.
import { appendFileSync } from "node:fs";

const marker = process.env.MCP_E2E_MARKER ?? "/dev/null";
const tools = [
  { name: "list_things", description: "List the things.", inputSchema: { type: "object", properties: { filter: { type: "string" } } } },
  {
    name: "delete_thing",
    description: "Delete a thing by its id.",
    inputSchema: { type: "object", properties: { id: { type: "string" } }, required: ["id"] },
  },
];

function reply(id: unknown, result: unknown) {
  process.stdout.write(`${JSON.stringify({ jsonrpc: "2.0", id, result })}\n`);
}

let buffer = "";
process.stdin.setEncoding("utf8");
process.stdin.on("data", (chunk: string) => {
  buffer += chunk;
  let at: number;
  while ((at = buffer.indexOf("\n")) !== -1) {
    const line = buffer.slice(0, at).trim();
    buffer = buffer.slice(at + 1);
    if (!line) continue;
    let message: any;
    try {
      message = JSON.parse(line);
    } catch {
      continue;
    }
    if (message.id === undefined) continue; // a notification
    switch (message.method) {
      case "initialize":
        reply(message.id, {
          protocolVersion: message.params?.protocolVersion ?? "2024-11-05",
          capabilities: { tools: {} },
          serverInfo: { name: "e2e", version: "1.0.0" },
        });
        break;
      case "tools/list":
        reply(message.id, { tools });
        break;
      case "tools/call":
        appendFileSync(marker, `${message.params?.name}\n`);
        reply(message.id, { content: [{ type: "text", text: `done: ${message.params?.name}` }] });
        break;
      case "ping":
        reply(message.id, {});
        break;
      default:
        process.stdout.write(
          `${JSON.stringify({ jsonrpc: "2.0", id: message.id, error: { code: -32601, message: "method not found" } })}\n`,
        );
    }
  }
});
