/** A tool call judged by the model: shown as state (redacted), the same math, rules' outright decisions first. */
import { afterAll, beforeEach, describe, expect, test } from "bun:test";
import { judgeTool } from "../../src/judge/tool.ts";
import { toolCall } from "../../src/tools/payload.ts";
import { jevReply, startFake } from "../model/fakes.ts";
import { defaultPolicy, home, logRecords } from "../model/helpers.ts";

const KEY = "apikey_0123456789abcdefSECRET";
const SECRET = "ghp_abcdefghijklmnopqrstuvwxyz0123456789";

describe("judging a tool call with Jev", () => {
  const fake = startFake(jevReply({ act: "edit", undo: 1, load: 0 }));
  let env: Record<string, string>;
  const loaded = defaultPolicy();
  beforeEach(() => {
    env = home({ TYPESAFE_API_KEY: KEY, TYPESAFE_BASE_URL: `${fake.url}/v1` }).env;
    fake.requests.length = 0;
  });
  afterAll(() => fake.stop());

  test("a call no outright rule decides is shown to the model as state, redacted; its answers decide by the same math", async () => {
    fake.handle(jevReply({ act: "delete", undo: 3, load: 0 }));
    const call = toolCall("mcp__acme__frobnicate", { token: SECRET, target: "prod" })!;
    const judged = await judgeTool({ call, cwd: "/tmp", env, host: "claude", event: "PreToolUse" }, loaded);
    expect(judged).toMatchObject({ verdict: "ask", answerer: "jev", rulesVerdict: "pass" });
    const sent = fake.requests[0]!.text;
    expect(sent).toContain('"tool_call"');
    expect(sent).toContain('"mcp_tool":"frobnicate"');
    expect(sent).not.toContain(SECRET);
    const record = logRecords(env).at(-1);
    expect(record).toMatchObject({ subject: "tool", verdict: "ask", answerer: "jev" });
    expect(JSON.stringify(record)).not.toContain(SECRET);
  });

  test("an outright tool rule decides without asking the model", async () => {
    const call = toolCall("Write", { file_path: `${env.HOME}/.bashrc`, content: "x" })!;
    const judged = await judgeTool({ call, cwd: "/tmp", env }, loaded);
    expect(judged).toMatchObject({
      verdict: "ask",
      answerer: "rules",
      rule: { id: "tool-write-shell-startup" },
      modelNotUsedKind: "decided",
    });
    expect(fake.requests.length).toBe(0);
  });

  test("the cache binds the exact content: the same call is answered from the cache, another content is asked again", async () => {
    fake.handle(jevReply({ act: "edit", undo: 1, load: 0 }));
    const edit = (text: string) => toolCall("mcp__acme__update_doc", { body: text })!;
    await judgeTool({ call: edit("one"), cwd: "/tmp", env }, loaded);
    const again = await judgeTool({ call: edit("one"), cwd: "/tmp", env }, loaded);
    expect(again.model?.cached).toBe(true);
    const other = await judgeTool({ call: edit("two"), cwd: "/tmp", env }, loaded);
    expect(other.model?.cached).toBe(false);
    expect(fake.requests.length).toBe(2);
  });
});
