/**
 * An OpenAI-compatible chat completions client with one tool: `shell`, a
 * command line. It sends `stream: false` and reads one reply per request.
 * Failures come back as values with the outcome they lead to; the client
 * never throws for anything the endpoint does.
 */

const TOOL_NAME = "shell";

/** The one tool, in the OpenAI function shape: a required `command` string. */
const SHELL_TOOL = {
  type: "function",
  function: {
    name: TOOL_NAME,
    description:
      "Run one command in the working directory, as an argument vector without a shell: no pipes, lists, redirections or substitutions. Returns its output and exit code.",
    parameters: {
      type: "object",
      properties: { command: { type: "string", description: "The command line to run." } },
      required: ["command"],
      additionalProperties: false,
    },
  },
} as const;

export type ChatMessage =
  | { role: "user" | "system"; content: string }
  | { role: "assistant"; content: string; tool_calls?: WireToolCall[] }
  | { role: "tool"; tool_call_id: string; content: string };

type WireToolCall = { id: string; type: "function"; function: { name: string; arguments: string } };

export type ToolCall = { id: string; name: string; command: string };

export type Completion = {
  id?: string;
  content: string;
  finishReason: string | null;
  toolCalls: ToolCall[];
  /** The server's dispatch handler: a top-level `handler`, or Formal AI's `dispatch_handler` thinking step. */
  handler?: string;
  /** Set when the server refused to call tools at all (Formal AI without agent mode, or a tool class not granted). */
  toolRefusal?: { kind: "agent-mode-required" | "capability-not-granted"; text: string };
  httpStatus: number;
};

type CompletionFailure = {
  kind: "unavailable" | "protocol-error" | "budget-exhausted" | "cancelled";
  reason: string;
  message: string;
  httpStatus?: number;
  /** The start of the body, when there was one. */
  body?: string;
};

type CompletionResult = { ok: true; completion: Completion } | { ok: false; failure: CompletionFailure };

export type ClientOptions = {
  endpoint: string;
  model: string;
  apiKey?: string;
  /** Named in the message for a 401, so the user knows what to set. */
  keyEnv: string;
};

type CompleteOptions = {
  /** The most this request may take. */
  timeoutMs: number;
  /** True when the limit is the run's time left rather than the request's own. */
  limitIsRunTime: boolean;
  signal: AbortSignal;
};

const BODY_PREVIEW = 500;
/** A chat reply larger than this is not one (Formal AI's are a few kilobytes). */
const MAX_REPLY_BYTES = 16 * 1024 * 1024;

async function readCapped(response: Response): Promise<string | undefined> {
  if (!response.body) return "";
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of response.body) {
    size += chunk.length;
    if (size > MAX_REPLY_BYTES) return undefined; // leaving the loop cancels the stream
    chunks.push(chunk);
  }
  return new TextDecoder().decode(Buffer.concat(chunks));
}

export function chatUrl(endpoint: string): string {
  return `${endpoint.replace(/\/+$/, "")}/chat/completions`;
}

export async function complete(client: ClientOptions, messages: ChatMessage[], options: CompleteOptions): Promise<CompletionResult> {
  const url = chatUrl(client.endpoint);
  const timeout = new AbortController();
  const timer = setTimeout(() => timeout.abort(), Math.max(1, options.timeoutMs));
  const signal = AbortSignal.any([options.signal, timeout.signal]);
  const headers: Record<string, string> = { "content-type": "application/json", accept: "application/json" };
  if (client.apiKey) headers.authorization = `Bearer ${client.apiKey}`;
  const body = JSON.stringify({ model: client.model, messages, tools: [SHELL_TOOL], tool_choice: "auto", stream: false });
  let response: Response;
  let text: string;
  try {
    response = await fetch(url, { method: "POST", headers, body, signal });
    const read = await readCapped(response);
    if (read === undefined) {
      return fail("protocol-error", "reply-too-large", `the reply from ${url} is larger than ${MAX_REPLY_BYTES} bytes`, response.status);
    }
    text = read;
  } catch (error) {
    if (options.signal.aborted) return fail("cancelled", "cancelled", "the request was cancelled");
    if (timeout.signal.aborted) {
      return options.limitIsRunTime
        ? fail("budget-exhausted", "run-time", `the run's time ran out while waiting for ${url}`)
        : fail("unavailable", "request-timeout", `${url} did not answer within ${options.timeoutMs} ms`);
    }
    return fail("unavailable", "unreachable", `cannot reach ${url}: ${describeFetchError(error)}`);
  } finally {
    clearTimeout(timer);
  }
  return readResponse(client, url, response.status, text);
}

function readResponse(client: ClientOptions, url: string, status: number, text: string): CompletionResult {
  const bodyPreview = text.slice(0, BODY_PREVIEW);
  const serverMessage = errorMessage(text);
  if (status === 401 || status === 403) {
    const hint = client.keyEnv
      ? client.apiKey
        ? `the key in ${client.keyEnv} was not accepted`
        : `no key was sent: set ${client.keyEnv}`
      : "no key variable is configured (task.key_env)";
    return fail(
      "unavailable",
      `http-${status}`,
      `${url} refused the request (${status}${serverMessage ? `: ${serverMessage}` : ""}); ${hint}`,
      status,
      bodyPreview,
    );
  }
  if (status >= 500 || status === 429) {
    return fail(
      "unavailable",
      `http-${status}`,
      `${url} failed with ${status}${serverMessage ? `: ${serverMessage}` : ""}`,
      status,
      bodyPreview,
    );
  }
  if (status === 404) {
    return fail("unavailable", "http-404", `${url} does not exist (404); check the endpoint, which should end in /v1`, status, bodyPreview);
  }
  if (status >= 400) {
    return fail(
      "protocol-error",
      `http-${status}`,
      `${url} rejected the request (${status}${serverMessage ? `: ${serverMessage}` : ""})`,
      status,
      bodyPreview,
    );
  }
  if (status < 200 || status > 299) {
    return fail("protocol-error", `http-${status}`, `${url} answered with status ${status}`, status, bodyPreview);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return fail("protocol-error", "malformed-response", `the reply is not JSON: ${JSON.stringify(text.slice(0, 80))}`, status, bodyPreview);
  }
  const parsed = parseCompletion(json);
  if (!parsed.ok) return fail("protocol-error", parsed.reason, parsed.message, status, bodyPreview);
  return { ok: true, completion: { ...parsed.completion, httpStatus: status } };
}

type Parsed = { ok: true; completion: Omit<Completion, "httpStatus"> } | { ok: false; reason: string; message: string };

/** Reads a chat completion body: exported for the tests of the wire shape. */
export function parseCompletion(json: unknown): Parsed {
  const bad = (reason: string, message: string): Parsed => ({ ok: false, reason, message });
  if (!isObject(json)) return bad("malformed-response", "the reply is not a JSON object");
  const choices = json.choices;
  if (!Array.isArray(choices) || choices.length === 0) return bad("malformed-response", "the reply has no choices");
  const choice = choices[0];
  if (!isObject(choice) || !isObject(choice.message)) return bad("malformed-response", "the reply's first choice has no message");
  const message = choice.message;
  const content = contentText(message.content);
  if (content === undefined) return bad("malformed-response", "the message's content is neither text nor text parts");
  const finishReason = typeof choice.finish_reason === "string" ? choice.finish_reason : null;
  const rawCalls = message.tool_calls;
  const toolCalls: ToolCall[] = [];
  if (rawCalls !== undefined && rawCalls !== null) {
    if (!Array.isArray(rawCalls)) return bad("malformed-response", "tool_calls is not a list");
    for (const [index, raw] of rawCalls.entries()) {
      const call = readToolCall(raw, index);
      if ("reason" in call) return bad(call.reason, call.message);
      toolCalls.push(call);
    }
  }
  if (finishReason === "tool_calls" && toolCalls.length === 0) {
    return bad("malformed-response", "finish_reason is tool_calls but the message holds no tool call");
  }
  const handler = readHandler(json, message);
  const toolRefusal = toolCalls.length === 0 ? readToolRefusal(content, json, message) : undefined;
  return {
    ok: true,
    completion: {
      id: typeof json.id === "string" ? json.id : undefined,
      content,
      finishReason,
      toolCalls,
      ...(handler !== undefined ? { handler } : {}),
      ...(toolRefusal ? { toolRefusal } : {}),
    },
  };
}

function readToolCall(raw: unknown, index: number): ToolCall | { reason: string; message: string } {
  const where = `tool call ${index + 1}`;
  if (!isObject(raw) || !isObject(raw.function)) return { reason: "malformed-response", message: `${where} has no function` };
  const name = raw.function.name;
  if (typeof name !== "string") return { reason: "malformed-response", message: `${where} has no function name` };
  if (name !== TOOL_NAME) {
    return {
      reason: "unknown-tool",
      message: `${where} names the tool ${JSON.stringify(name)}, but only ${JSON.stringify(TOOL_NAME)} was offered`,
    };
  }
  const args = raw.function.arguments;
  let parsed: unknown = args;
  if (typeof args === "string") {
    try {
      parsed = JSON.parse(args);
    } catch {
      return { reason: "bad-arguments", message: `${where}'s arguments are not JSON: ${JSON.stringify(args.slice(0, 80))}` };
    }
  }
  if (!isObject(parsed)) return { reason: "bad-arguments", message: `${where}'s arguments are not an object` };
  const command = typeof parsed.command === "string" ? parsed.command : typeof parsed.cmd === "string" ? parsed.cmd : undefined;
  if (command === undefined) return { reason: "bad-arguments", message: `${where}'s arguments have no string command` };
  const id = typeof raw.id === "string" && raw.id.length > 0 ? raw.id : "";
  return { id, name, command };
}

/** The server's handler: a top-level field if the server has one, else Formal AI's dispatch_handler thinking step. */
function readHandler(json: Record<string, unknown>, message: Record<string, unknown>): string | undefined {
  for (const holder of [json, message]) {
    if (typeof holder.handler === "string") return holder.handler;
  }
  for (const holder of [message, json]) {
    const steps = holder.thinking_steps;
    if (!Array.isArray(steps)) continue;
    for (const step of steps) {
      if (isObject(step) && step.step === "dispatch_handler" && typeof step.detail === "string") return step.detail;
    }
  }
  return undefined;
}

const AGENT_MODE_TEXT = /not allowed without explicit agent mode/i;
const CAPABILITY_TEXT = /^Tool calls are not allowed for `/;

function readToolRefusal(content: string, json: Record<string, unknown>, message: Record<string, unknown>): Completion["toolRefusal"] {
  const steps = [message.thinking_steps, json.thinking_steps].flatMap((steps) => (Array.isArray(steps) ? steps : []));
  const agentStep = steps.some(
    (step) => isObject(step) && (step.detail === "agent_mode_required_for_tools" || step.step === "agent_mode_required_for_tools"),
  );
  if (agentStep || AGENT_MODE_TEXT.test(content)) return { kind: "agent-mode-required", text: content };
  if (CAPABILITY_TEXT.test(content.trim())) return { kind: "capability-not-granted", text: content };
  return undefined;
}

function contentText(content: unknown): string | undefined {
  if (content === undefined || content === null) return "";
  if (typeof content === "string") return content;
  if (Array.isArray(content)) {
    const parts: string[] = [];
    for (const part of content) {
      if (isObject(part) && typeof part.text === "string") parts.push(part.text);
      else if (typeof part === "string") parts.push(part);
      else return undefined;
    }
    return parts.join("");
  }
  return undefined;
}

function errorMessage(text: string): string | undefined {
  try {
    const json = JSON.parse(text);
    if (isObject(json) && isObject(json.error) && typeof json.error.message === "string") return json.error.message.slice(0, 200);
    if (isObject(json) && typeof json.error === "string") return json.error.slice(0, 200);
  } catch {
    /* not JSON: no message of the server's own */
  }
  return undefined;
}

function describeFetchError(error: unknown): string {
  const err = error as { code?: string; message?: string };
  if (err?.code === "ConnectionRefused" || err?.code === "ECONNREFUSED") return "connection refused";
  return err?.message ?? String(error);
}

function fail(kind: CompletionFailure["kind"], reason: string, message: string, httpStatus?: number, body?: string): CompletionResult {
  return { ok: false, failure: { kind, reason, message, ...(httpStatus !== undefined ? { httpStatus } : {}), ...(body ? { body } : {}) } };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
