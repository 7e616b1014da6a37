// verdict run keeps secrets from its tool calls' environment and from everything the output reaches:
// the model's requests, the evidence file, --json and the terminal. Through the compiled binary.
import { afterEach, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { startFake, type FakeServer } from "../task/fake-formal-ai.ts";
import { evidenceOf, runVerdict, setup } from "../task/helpers.ts";
import { toolEnvironment } from "../../src/task/environment.ts";

let fake: FakeServer | undefined;
afterEach(() => fake?.stop());

const KEYS = {
  TYPESAFE_API_KEY: "apikey_SECRETtypesafe0001",
  OPENAI_API_KEY: "sk-proj-SECRETopenai000000000001",
  AWS_SECRET_ACCESS_KEY: "SECRETaws/K7MDENG/bPxRfiCYEXAMPLEKEY0001",
  GITHUB_TOKEN: "ghp_SECRETgithub00000000000000000000001",
  VERDICT_TASK_API_KEY: "SECRETtaskkey0001",
};

describe("verdict run and secrets", () => {
  test("a tool call that dumps its environment sees none of verdict's or the user's keys", async () => {
    // (`python3 -c '...os.environ...'` itself asks now; a script file does not show what it reads.)
    fake = startFake({ script: [{ command: "python3 show.py" }, { answer: "done" }] });
    const s = setup({ "show.py": "import os\nprint(sorted(os.environ.items()))\n" });
    const ran = await runVerdict(s, fake.url, ["--effects", "any", "show the environment"], { env: KEYS });
    expect(ran.code).toBe(0);
    const sent = fake.requests[1]!.body.messages.at(-1).content as string;
    expect(sent).toContain("'PATH'");
    for (const name of Object.keys(KEYS)) expect(sent).not.toContain(name);
  });

  test("a secret a tool prints is redacted for the model, the evidence, --json and the terminal", async () => {
    fake = startFake({ script: [{ command: "cat notes.txt" }, { answer: "done" }] });
    const s = setup({ "notes.txt": "deploy with GITHUB_TOKEN=ghp_SECRETprinted000000000000000000001 and curl -u ops:SECRETpw0001 x\n" });
    const ran = await runVerdict(s, fake.url, ["--json", "--mirror", "on", "read the notes"]);
    expect(ran.code).toBe(0);
    const sent = JSON.stringify(fake.requests.map((r) => r.body));
    const evidence = evidenceOf(s);
    expect(JSON.stringify(evidence)).toContain("[REDACTED]");
    for (const where of [sent, JSON.stringify(evidence), ran.stdout, ran.stderr, readFileSync(evidence.evidencePath, "utf8")]) {
      expect(where).not.toContain("SECRETprinted");
      expect(where).not.toContain("SECRETpw0001");
    }
  });
});

describe("the tool environment", () => {
  test("keeps the allowlist and what the policy names, never keys or credential-like names", () => {
    const { env, withheld } = toolEnvironment(
      {
        PATH: "/bin",
        HOME: "/h",
        LC_ALL: "C",
        GOPATH: "/go",
        NODE_ENV: "test",
        MY_SETTING: "x",
        NPM_TOKEN: "npm_x",
        HTTPS_PROXY: "http://u:pw@proxy:3128",
        ...KEYS,
      },
      {
        keyEnvs: ["VERDICT_TASK_API_KEY", "TYPESAFE_API_KEY", "OPENAI_API_KEY"],
        pass: ["MY_SETTING", "NPM_TOKEN"],
        set: { EXTRA: "1", VERDICT_RUN_ID: "r" },
      },
    );
    expect(Object.keys(env).sort()).toEqual(["EXTRA", "GOPATH", "HOME", "LC_ALL", "MY_SETTING", "NODE_ENV", "PATH", "VERDICT_RUN_ID"]);
    expect(withheld).toEqual(["NPM_TOKEN"]);
  });
});
