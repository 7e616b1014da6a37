// A scripted fake model on 127.0.0.1 speaking the three APIs the hosts call: Anthropic Messages (Claude
// Code), OpenAI Responses (Codex CLI) and Gemini v1beta (Gemini CLI). Every request is recorded.
//
// The script is a list of steps; the i-th main-loop request (one that offers the shell tool) gets step i
// (the last step repeats). A step either asks for one shell command or answers with text. Side requests
// (Gemini's router, titles, summaries) get a short fixed answer.

/**
 * `run`: commands the runner executes before this step is answered, as a person at another terminal would
 * (e.g. `verdict approvals approve {{APPROVAL}}`, the id taken from what the model was last sent).
 */
export type Step = (
  | { command: string }
  | { text: string }
  | { file: FileStep }
  | { mcp: McpStep }
  | { tool: { name: string; input: Record<string, unknown> } }
) & { run?: string[][] };

/** A call of an MCP server's tool, by the tool's own name: the host's name for it is found among the tools it offers. */
export type McpStep = { server: string; tool: string; args: Record<string, unknown> };

/** Every tool name a request offers, namespaces included (Codex groups some tools), with its namespace. */
function offeredNames(tools: any[], namespace?: string): { name: string; namespace?: string }[] {
  const out: { name: string; namespace?: string }[] = [];
  for (const t of tools ?? []) {
    if (Array.isArray(t?.tools)) out.push(...offeredNames(t.tools, t.name));
    if (Array.isArray(t?.functionDeclarations)) out.push(...offeredNames(t.functionDeclarations, namespace));
    if (typeof t?.name === "string") out.push({ name: t.name, ...(namespace ? { namespace } : {}) });
  }
  return out;
}

/** The host's name for an MCP tool: the offered name that is the tool's or ends with it. */
export function mcpToolName(body: any, step: McpStep): { name: string; namespace?: string } {
  const offered = offeredNames(body?.tools ?? []);
  // Claude Code defers MCP tools (not listed until searched for) but runs them by their full name.
  return (
    offered.find((o) => o.name === step.tool) ??
    offered.find((o) => o.name.endsWith(step.tool)) ?? { name: `mcp__${step.server}__${step.tool}` }
  );
}

/**
 * A write through the host's own file tool: Claude Code's Write, Gemini CLI's write_file, Codex's
 * apply_patch (an Add File patch, or an Update when `replace` is given).
 */
export type FileStep = { path: string; content: string; replace?: string };

function codexPatch(file: FileStep): string {
  if (file.replace !== undefined)
    return `*** Begin Patch\n*** Update File: ${file.path}\n@@\n-${file.replace}\n+${file.content.replace(/\n$/, "")}\n*** End Patch\n`;
  const lines = file.content
    .replace(/\n$/, "")
    .split("\n")
    .map((line) => `+${line}`);
  return `*** Begin Patch\n*** Add File: ${file.path}\n${lines.join("\n")}\n*** End Patch\n`;
}

/** How this Codex offers apply_patch: a freeform (custom) tool, or a function taking {input}. */
function codexPatchItem(body: any, file: FileStep, n: number): any {
  const tool = (body?.tools ?? []).find((t: any) => t?.name === "apply_patch");
  const patch = codexPatch(file);
  if (tool?.type === "custom")
    return {
      type: "custom_tool_call",
      id: `ctc_fake_${n}`,
      call_id: `call_fake_${n}`,
      name: "apply_patch",
      input: patch,
      status: "completed",
    };
  if (tool)
    return {
      type: "function_call",
      id: `fc_fake_${n}`,
      call_id: `call_fake_${n}`,
      name: "apply_patch",
      arguments: JSON.stringify({ input: patch }),
      status: "completed",
    };
  // No apply_patch tool offered: the shell's apply_patch command, which Codex intercepts.
  return {
    type: "function_call",
    id: `fc_fake_${n}`,
    call_id: `call_fake_${n}`,
    name: shellToolName(body),
    arguments: JSON.stringify(shellArgs(body, `apply_patch <<'EOF'\n${patch}EOF`)),
    status: "completed",
  };
}

export interface RecordedRequest {
  method: string;
  path: string;
  main: boolean;
  body: unknown;
}

export interface FakeModel {
  port: number;
  requests: RecordedRequest[];
  stop(): void;
}

const USAGE_ANTHROPIC = { input_tokens: 20, output_tokens: 30, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };

function sse(frames: Array<[string | null, unknown]>): Response {
  const text = frames.map(([event, data]) => (event ? `event: ${event}\n` : "") + `data: ${JSON.stringify(data)}\n\n`).join("");
  return new Response(text, { headers: { "content-type": "text/event-stream", "cache-control": "no-cache" } });
}

function json(data: unknown, status = 200): Response {
  return Response.json(data, { status });
}

function anthropic(body: any, step: Step | null, n: number): Response {
  const id = `msg_fake_${n}`;
  const model = body?.model ?? "claude-fake";
  const blocks: any[] =
    step && "command" in step
      ? [
          {
            type: "tool_use",
            id: `toolu_fake_${n}`,
            name: "Bash",
            input: { command: step.command, description: "Run the scripted test command" },
          },
        ]
      : step && "file" in step
        ? [{ type: "tool_use", id: `toolu_fake_${n}`, name: "Write", input: { file_path: step.file.path, content: step.file.content } }]
        : step && "mcp" in step
          ? [{ type: "tool_use", id: `toolu_fake_${n}`, name: mcpToolName(body, step.mcp).name, input: step.mcp.args }]
          : step && "tool" in step
            ? [{ type: "tool_use", id: `toolu_fake_${n}`, name: step.tool.name, input: step.tool.input }]
            : [{ type: "text", text: step && "text" in step ? step.text : "Fake title" }];
  const stopReason = step && ("command" in step || "file" in step || "mcp" in step || "tool" in step) ? "tool_use" : "end_turn";
  if (!body?.stream) {
    return json({
      id,
      type: "message",
      role: "assistant",
      model,
      content: blocks,
      stop_reason: stopReason,
      stop_sequence: null,
      usage: USAGE_ANTHROPIC,
    });
  }
  const frames: Array<[string, unknown]> = [
    [
      "message_start",
      {
        type: "message_start",
        message: {
          id,
          type: "message",
          role: "assistant",
          model,
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: USAGE_ANTHROPIC,
        },
      },
    ],
  ];
  blocks.forEach((b, index) => {
    if (b.type === "text") {
      frames.push(["content_block_start", { type: "content_block_start", index, content_block: { type: "text", text: "" } }]);
      frames.push(["content_block_delta", { type: "content_block_delta", index, delta: { type: "text_delta", text: b.text } }]);
    } else {
      frames.push([
        "content_block_start",
        { type: "content_block_start", index, content_block: { type: "tool_use", id: b.id, name: b.name, input: {} } },
      ]);
      frames.push([
        "content_block_delta",
        { type: "content_block_delta", index, delta: { type: "input_json_delta", partial_json: JSON.stringify(b.input) } },
      ]);
    }
    frames.push(["content_block_stop", { type: "content_block_stop", index }]);
  });
  frames.push([
    "message_delta",
    { type: "message_delta", delta: { stop_reason: stopReason, stop_sequence: null }, usage: { output_tokens: 30 } },
  ]);
  frames.push(["message_stop", { type: "message_stop" }]);
  return sse(frames);
}

function openaiResponses(body: any, step: Step | null, n: number): Response {
  const model = body?.model ?? "gpt-fake";
  const respId = `resp_fake_${n}`;
  const item: any =
    step && "command" in step
      ? {
          type: "function_call",
          id: `fc_fake_${n}`,
          call_id: `call_fake_${n}`,
          name: shellToolName(body),
          arguments: JSON.stringify(shellArgs(body, step.command)),
          status: "completed",
        }
      : step && "file" in step
        ? codexPatchItem(body, step.file, n)
        : step && "tool" in step
          ? {
              type: "function_call",
              id: `fc_fake_${n}`,
              call_id: `call_fake_${n}`,
              name: step.tool.name,
              arguments: JSON.stringify(step.tool.input),
              status: "completed",
            }
          : step && "mcp" in step
            ? (() => {
                const found = mcpToolName(body, step.mcp);
                return {
                  type: "function_call",
                  id: `fc_fake_${n}`,
                  call_id: `call_fake_${n}`,
                  name: found.name,
                  ...(found.namespace ? { namespace: found.namespace } : {}),
                  arguments: JSON.stringify(step.mcp.args),
                  status: "completed",
                };
              })()
            : {
                type: "message",
                id: `msg_fake_${n}`,
                role: "assistant",
                status: "completed",
                content: [{ type: "output_text", text: step && "text" in step ? step.text : "ok", annotations: [] }],
              };
  const usage = {
    input_tokens: 20,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: 30,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: 50,
  };
  const frames: Array<[string, unknown]> = [
    [
      "response.created",
      { type: "response.created", response: { id: respId, object: "response", model, status: "in_progress", output: [] } },
    ],
    [
      "response.output_item.added",
      {
        type: "response.output_item.added",
        output_index: 0,
        item:
          item.type === "message"
            ? { ...item, content: [], status: "in_progress" }
            : item.type === "custom_tool_call"
              ? { ...item, input: "", status: "in_progress" }
              : { ...item, arguments: "", status: "in_progress" },
      },
    ],
  ];
  if (item.type === "message") {
    frames.push([
      "response.content_part.added",
      {
        type: "response.content_part.added",
        item_id: item.id,
        output_index: 0,
        content_index: 0,
        part: { type: "output_text", text: "", annotations: [] },
      },
    ]);
    frames.push([
      "response.output_text.delta",
      { type: "response.output_text.delta", item_id: item.id, output_index: 0, content_index: 0, delta: item.content[0].text },
    ]);
    frames.push([
      "response.output_text.done",
      { type: "response.output_text.done", item_id: item.id, output_index: 0, content_index: 0, text: item.content[0].text },
    ]);
    frames.push([
      "response.content_part.done",
      { type: "response.content_part.done", item_id: item.id, output_index: 0, content_index: 0, part: item.content[0] },
    ]);
  } else if (item.type === "custom_tool_call") {
    frames.push([
      "response.custom_tool_call_input.delta",
      { type: "response.custom_tool_call_input.delta", item_id: item.id, output_index: 0, delta: item.input },
    ]);
    frames.push([
      "response.custom_tool_call_input.done",
      { type: "response.custom_tool_call_input.done", item_id: item.id, output_index: 0, input: item.input },
    ]);
  } else {
    frames.push([
      "response.function_call_arguments.delta",
      { type: "response.function_call_arguments.delta", item_id: item.id, output_index: 0, delta: item.arguments },
    ]);
    frames.push([
      "response.function_call_arguments.done",
      { type: "response.function_call_arguments.done", item_id: item.id, output_index: 0, arguments: item.arguments },
    ]);
  }
  frames.push(["response.output_item.done", { type: "response.output_item.done", output_index: 0, item }]);
  frames.push([
    "response.completed",
    { type: "response.completed", response: { id: respId, object: "response", model, status: "completed", output: [item], usage } },
  ]);
  return sse(frames);
}

/** The shell tool's name and argument shape vary across Codex versions. */
function shellToolName(body: any): string {
  const names: string[] = (body?.tools ?? []).map((t: any) => t?.name ?? t?.type).filter(Boolean);
  for (const n of ["exec_command", "shell_command", "shell", "local_shell"]) if (names.includes(n)) return n;
  return "exec_command";
}
function shellArgs(body: any, command: string): unknown {
  const name = shellToolName(body);
  if (name === "exec_command") return { cmd: command };
  if (name === "shell_command") return { command };
  return { command: ["bash", "-lc", command] };
}

function geminiOffersShell(body: any): boolean {
  return (body?.tools ?? []).some((t: any) => (t?.functionDeclarations ?? []).some((f: any) => f?.name === "run_shell_command"));
}

function gemini(path: string, body: any, step: Step | null, n: number): Response {
  const parts =
    step === null
      ? [
          {
            text: JSON.stringify({
              reasoning: "fake",
              next_speaker: "user",
              model_choice: "flash",
              complexity_reasoning: "fake",
              complexity_score: 1,
            }),
          },
        ]
      : "command" in step
        ? [{ functionCall: { name: "run_shell_command", args: { command: step.command, description: "Run the scripted test command" } } }]
        : "file" in step
          ? [{ functionCall: { name: "write_file", args: { file_path: step.file.path, content: step.file.content } } }]
          : "mcp" in step
            ? [{ functionCall: { name: mcpToolName(body, step.mcp).name, args: step.mcp.args } }]
            : "tool" in step
              ? [{ functionCall: { name: step.tool.name, args: step.tool.input } }]
              : [{ text: step.text }];
  const resp = {
    candidates: [{ content: { role: "model", parts }, finishReason: "STOP", index: 0 }],
    usageMetadata: { promptTokenCount: 20, candidatesTokenCount: 30, totalTokenCount: 50 },
    modelVersion: "gemini-fake",
    responseId: `gemini_fake_${n}`,
  };
  if (path.includes(":streamGenerateContent")) return sse([[null, resp]]);
  return json(resp);
}

export function startFakeModel(
  steps: Step[],
  onRequest?: (r: RecordedRequest) => void,
  beforeStep?: (step: Step, body: unknown) => Promise<void>,
): FakeModel {
  const requests: RecordedRequest[] = [];
  let mainCount = 0;
  let current: Step | undefined;
  const nextStep = (): Step => (current = steps[Math.min(mainCount++, steps.length - 1)]!);
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    idleTimeout: 0,
    async fetch(req) {
      const url = new URL(req.url);
      const path = url.pathname + url.search;
      let body: any = null;
      const raw = req.method === "POST" ? await req.text() : "";
      try {
        body = raw ? JSON.parse(raw) : null;
      } catch {
        body = raw;
      }
      const record = (main: boolean) => {
        const r = { method: req.method, path, main, body };
        requests.push(r);
        onRequest?.(r);
      };
      const p = url.pathname;
      // Anthropic Messages
      if (p === "/v1/messages" && req.method === "POST") {
        const main = (body?.tools ?? []).some((t: any) => t?.name === "Bash");
        record(main);
        const step = main ? nextStep() : null;
        if (step?.run && beforeStep) await beforeStep(step, body);
        return anthropic(body, step, requests.length);
      }
      if (p === "/v1/messages/count_tokens") {
        record(false);
        return json({ input_tokens: 20 });
      }
      // OpenAI Responses
      if (p.endsWith("/responses") && req.method === "POST") {
        const main = (body?.tools ?? []).some((t: any) =>
          ["exec_command", "shell_command", "shell", "local_shell"].includes(t?.name ?? t?.type),
        );
        record(main);
        const step = main ? nextStep() : null;
        if (step?.run && beforeStep) await beforeStep(step, body);
        return openaiResponses(body, step ?? { text: "ok" }, requests.length);
      }
      if (p.endsWith("/models") && req.method === "GET") {
        record(false);
        return json({ object: "list", data: [] });
      }
      // Gemini v1beta
      if (p.startsWith("/v1beta/models/") && p.includes(":countTokens")) {
        record(false);
        return json({ totalTokens: 20 });
      }
      if (p.startsWith("/v1beta/models/") && p.includes("enerateContent")) {
        const main = geminiOffersShell(body);
        record(main);
        const step = main ? nextStep() : null;
        if (step?.run && beforeStep) await beforeStep(step, body);
        return gemini(p, body, step, requests.length);
      }
      record(false);
      return json({ type: "error", error: { type: "not_found_error", message: `fake model: no route for ${req.method} ${path}` } }, 404);
    },
  });
  return { port: server.port!, requests, stop: () => server.stop(true) };
}
