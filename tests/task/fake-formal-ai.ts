/**
 * A fake Formal AI server on 127.0.0.1, behaving as the protocol notes
 * describe (../shared/reference/formal-ai.md): stateless, it reads the whole
 * conversation on every request and plans from the request text.
 *
 *  - "copy A to B" / "move A to B": one call per turn, test -e A; test ! -e B;
 *    mkdir -p -- PARENT; cp|mv A B; test -e B; test -e A (cp) or test ! -e A (mv).
 *    A step whose result reads as failed stops the recipe with a blocked report
 *    naming the check and its exit code; when every step passed, a completion
 *    report lists the postconditions checked.
 *  - "delete the file X": rm X.
 *  - "what files are in this folder?": ls, then a report of its output.
 *  - "show current directory": pwd.
 *  - "hello": a greeting, no tool.
 *  - anything else: the seed "unknown" answer with a dispatch_handler step of unknown.
 *  - a tool result that is a JSON status (refused, cancelled, ...) is an expected stop.
 *
 * Tests can also script the calls (`script`) or make it misbehave (`behaviour`).
 */

export type Behaviour =
  | "normal"
  | "status-500"
  | "status-503"
  | "not-json"
  | "no-choices"
  | "unknown-tool"
  | "bad-arguments"
  | "tool-calls-without-calls"
  | "hang";

export type ScriptStep = { command: string } | { commands: string[] } | { answer: string };

export type FakeOptions = {
  agentMode?: boolean;
  /** When set, every request needs `Authorization: Bearer <token>`. */
  token?: string;
  behaviour?: Behaviour;
  /** Replaces the recipes: the i-th request gets step i (the last repeats). */
  script?: ScriptStep[];
};

export type Recorded = { path: string; authorization: string | null; body: any };

export type FakeServer = { url: string; port: number; requests: Recorded[]; stop: () => void };

type Message = { role: string; content?: unknown; tool_calls?: any[]; tool_call_id?: string };

const UNKNOWN_TEXT = "I do not know how to help with that yet.";
const AGENT_MODE_REFUSAL =
  "Tool calls and function execution are not allowed without explicit agent mode. Enable agent mode only for an isolated execution environment.";

export function startFake(options: FakeOptions = {}): FakeServer {
  const requests: Recorded[] = [];
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    idleTimeout: 0,
    async fetch(request) {
      const url = new URL(request.url);
      if (request.method === "GET" && url.pathname === "/health")
        return Response.json({ status: "ok", model: "formal-ai", version: "fake" });
      if (request.method !== "POST" || !/^(\/api\/openai)?\/v1\/chat\/completions$/.test(url.pathname)) {
        return error(404, "route not found");
      }
      const text = await request.text();
      let body: any;
      try {
        body = JSON.parse(text);
      } catch {
        return error(400, "invalid chat request: expected value");
      }
      requests.push({ path: url.pathname, authorization: request.headers.get("authorization"), body });
      if (options.token && request.headers.get("authorization") !== `Bearer ${options.token}`) {
        return error(401, "missing or invalid bearer token");
      }
      return respond(body, options, requests.length);
    },
  });
  return { url: `http://127.0.0.1:${server.port}/api/openai/v1`, port: server.port!, requests, stop: () => server.stop(true) };
}

function error(status: number, message: string): Response {
  return Response.json({ error: { message, type: "formal_ai_error" } }, { status });
}

async function respond(body: any, options: FakeOptions, n: number): Promise<Response> {
  switch (options.behaviour ?? "normal") {
    case "status-500":
      return error(500, "persistence failed");
    case "status-503":
      return new Response("upstream unavailable", { status: 503 });
    case "not-json":
      return new Response("<html>this is not json</html>", { status: 200, headers: { "content-type": "text/html" } });
    case "no-choices":
      return Response.json({ id: "chatcmpl-x", object: "chat.completion", model: "formal-ai", choices: [] });
    case "unknown-tool":
      return toolCalls([{ id: `call${n}`, name: "write_file", args: { path: "x", content: "y" } }], n);
    case "bad-arguments":
      return Response.json(
        completion(
          {
            role: "assistant",
            content: "",
            tool_calls: [{ id: `call${n}`, type: "function", function: { name: "shell", arguments: "{not json" } }],
          },
          "tool_calls",
          n,
        ),
      );
    case "tool-calls-without-calls":
      return Response.json(completion({ role: "assistant", content: "" }, "tool_calls", n));
    case "hang":
      await new Promise(() => {});
      return new Response("never");
    default:
  }
  const messages: Message[] = body.messages ?? [];
  const tools: any[] = body.tools ?? [];
  const toolName: string | undefined = tools[0]?.function?.name;
  if (tools.length > 0 && options.agentMode === false) {
    return stop(AGENT_MODE_REFUSAL, n, [step(1, "policy_refusal", "agent_mode_required_for_tools")]);
  }
  const results = messages.filter((m) => m.role === "tool").map((m) => String(m.content ?? ""));
  const last = results.at(-1);
  if (last !== undefined) {
    const expected = expectedStop(last);
    if (expected) return stop(`Stopped: the last tool call was ${expected}.`, n, [step(1, "dispatch_handler", "tool_result_stop")]);
  }
  if (options.script) {
    const index = Math.min(n - 1, options.script.length - 1);
    const scripted = options.script[index]!;
    if ("answer" in scripted) return stop(scripted.answer, n, [step(1, "dispatch_handler", "scripted")]);
    const commands = "commands" in scripted ? scripted.commands : [scripted.command];
    return toolCalls(
      commands.map((command, i) => ({ id: `call${n}_${i}`, name: toolName ?? "shell", args: { command } })),
      n,
    );
  }
  const request = String(messages.find((m) => m.role === "user")?.content ?? "");
  return plan(request, results, toolName ?? "shell", n);
}

/** Formal AI's reading of a tool result: failed, passed, or an expected stop. */
function readResult(text: string): "passed" | "failed" {
  const exit = /(?:^|\n)Exit Code: (-?\d+)\s*(?:\n|$)/.exec(text);
  if (exit) return exit[1] === "0" ? "passed" : "failed";
  try {
    const json = JSON.parse(text);
    if (json && typeof json === "object") {
      if ((json.exit_code ?? json.exitCode ?? 0) !== 0) return "failed";
      if (json.stderr || json.error || json.is_error === true || json.ok === false) return "failed";
    }
  } catch {
    /* plain text: unreported */
  }
  return "passed";
}

function expectedStop(text: string): string | undefined {
  try {
    const json = JSON.parse(text);
    const status = json?.status;
    if (
      typeof status === "string" &&
      ["refused", "denied", "cancelled", "canceled", "aborted", "pending", "awaiting_approval", "not_granted"].includes(status)
    ) {
      return `${status}${json.reason ? ` (${json.reason})` : ""}`;
    }
  } catch {
    /* not a JSON status */
  }
  return undefined;
}

function exitOf(text: string): string {
  return /Exit Code: (-?\d+)/.exec(text)?.[1] ?? "?";
}

function plan(request: string, results: string[], toolName: string, n: number): Response {
  const copy = /^(copy|move)\s+(\S+)\s+to\s+(\S+?)\.?$/i.exec(request.trim());
  if (copy) {
    const [, verb, src, dst] = copy as unknown as [string, string, string, string];
    const action = verb.toLowerCase() === "copy" ? "cp" : "mv";
    const parent = dst.includes("/") ? dst.slice(0, dst.lastIndexOf("/")) || "/" : ".";
    const steps = [
      `test -e ${src}`,
      `test ! -e ${dst}`,
      `mkdir -p -- ${parent}`,
      `${action} ${src} ${dst}`,
      `test -e ${dst}`,
      action === "cp" ? `test -e ${src}` : `test ! -e ${src}`,
    ];
    return recipe(
      steps,
      results,
      toolName,
      n,
      (done) => `Completed: ${action} ${src} ${dst}. Postconditions checked: ${done.filter((s) => s.startsWith("test")).join("; ")}.`,
    );
  }
  const del = /^delete the file\s+(\S+?)\.?$/i.exec(request.trim());
  if (del) return recipe([`rm ${del[1]}`], results, toolName, n, () => `Deleted ${del[1]}.`);
  if (/^what files are in this folder\??$/i.test(request.trim())) {
    return recipe(
      ["ls"],
      results,
      toolName,
      n,
      () => `The folder holds:\n${/Output: ([\s\S]*?)\nError:/.exec(results[0] ?? "")?.[1] ?? ""}`,
    );
  }
  if (/^show current directory$/i.test(request.trim()))
    return recipe(["pwd"], results, toolName, n, () => "That is the current directory.");
  if (/^(hello|hi)\b/i.test(request.trim())) return stop("Hello! How can I help?", n, [step(1, "dispatch_handler", "greeting")]);
  return stop(UNKNOWN_TEXT, n, [step(1, "dispatch_handler", "unknown")]);
}

function recipe(steps: string[], results: string[], toolName: string, n: number, report: (done: string[]) => string): Response {
  const done = results.length;
  if (done > 0 && readResult(results[done - 1]!) === "failed") {
    const failedStep = steps[done - 1] ?? "the last step";
    return stop(
      `Blocked: the check \`${failedStep}\` failed with exit code ${exitOf(results[done - 1]!)}; the action was not requested.`,
      n,
      [step(1, "dispatch_handler", "mutating_action")],
    );
  }
  if (done >= steps.length) return stop(report(steps), n, [step(1, "dispatch_handler", "mutating_action")]);
  return toolCalls([{ id: `call${hash(steps[done]!)}${done}`, name: toolName, args: { command: steps[done]! } }], n);
}

function toolCalls(calls: { id: string; name: string; args: unknown }[], n: number): Response {
  return Response.json(
    completion(
      {
        role: "assistant",
        content: "",
        tool_calls: calls.map((call) => ({
          id: call.id,
          type: "function",
          function: { name: call.name, arguments: JSON.stringify(call.args) },
        })),
      },
      "tool_calls",
      n,
    ),
  );
}

function stop(content: string, n: number, thinking: unknown[]): Response {
  return Response.json(completion({ role: "assistant", content }, "stop", n, thinking));
}

function completion(message: unknown, finish: string, n: number, thinking?: unknown[]) {
  return {
    id: `chatcmpl${n}`,
    object: "chat.completion",
    created: 1_700_000_000 + n,
    model: "formal-ai",
    choices: [{ index: 0, message, finish_reason: finish }],
    usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
    ...(thinking ? { thinking_steps: thinking } : {}),
  };
}

function step(order: number, name: string, detail: string) {
  return { id: `step${order}`, order, step: name, detail, level: 0, source_event: name };
}

function hash(text: string): string {
  let h = 0;
  for (const ch of text) h = (h * 31 + ch.charCodeAt(0)) >>> 0;
  return h.toString(16);
}
