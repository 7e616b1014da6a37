import { afterEach, describe, expect, test } from "bun:test";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { closeSync } from "node:fs";
import { tmpdir, userInfo } from "node:os";
import { join } from "node:path";
import { cacheDir, configDir, homeDir, stateDir } from "../../src/files/dirs.ts";
import {
  ensurePrivateDir,
  openPrivateAppend,
  readPrivate,
  UnsafePathError,
  widerThanPrivate,
  writePrivateAtomic,
} from "../../src/files/private.ts";

let root: string;
afterEach(() => root && rmSync(root, { recursive: true, force: true }));
const fresh = () => (root = mkdtempSync(join(tmpdir(), "verdict-files-")));

describe("verdict's folders", () => {
  test("follow XDG, and ignore relative values", () => {
    expect(stateDir({ HOME: "/h" })).toBe("/h/.local/state/verdict");
    expect(configDir({ HOME: "/h", XDG_CONFIG_HOME: "/x" })).toBe("/x/verdict");
    expect(cacheDir({ HOME: "/h", XDG_CACHE_HOME: "rel/cache" })).toBe("/h/.cache/verdict");
    expect(configDir({ HOME: "/h", XDG_CONFIG_HOME: ".config" })).toBe("/h/.config/verdict");
  });
  test("with HOME unset or relative, the account's home from the system, never the working directory", () => {
    const system = userInfo().homedir;
    expect(homeDir({})).toBe(system);
    expect(homeDir({ HOME: "." })).toBe(system);
    expect(configDir({ HOME: "" })).toBe(join(system, ".config", "verdict"));
  });
});

describe("private files", () => {
  test("created 0600 in 0700 folders, and a wider folder is tightened", () => {
    fresh();
    const dir = join(root, "verdict");
    mkdirSync(dir, { mode: 0o755 });
    chmodSync(dir, 0o755);
    writePrivateAtomic(join(dir, "a.json"), "{}");
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(statSync(join(dir, "a.json")).mode & 0o777).toBe(0o600);
    closeSync(openPrivateAppend(join(dir, "log.jsonl")));
    expect(statSync(join(dir, "log.jsonl")).mode & 0o777).toBe(0o600);
  });
  test("a link is refused, not written through; a linked folder is refused", () => {
    fresh();
    const dir = join(root, "verdict");
    ensurePrivateDir(dir);
    const target = join(root, "profile");
    writeFileSync(target, "keep\n");
    symlinkSync(target, join(dir, "log.jsonl"));
    expect(() => openPrivateAppend(join(dir, "log.jsonl"))).toThrow(UnsafePathError);
    expect(() => readPrivate(join(dir, "log.jsonl"))).toThrow(UnsafePathError);
    expect(readFileSync(target, "utf8")).toBe("keep\n");
    // verdict's own folder as a link is refused (a link above it, like ~/.local/state, is the user's own).
    mkdirSync(join(root, "state"));
    mkdirSync(join(root, "elsewhere"));
    symlinkSync(join(root, "elsewhere"), join(root, "state", "verdict"));
    expect(() => ensurePrivateDir(join(root, "state", "verdict", "continues"))).toThrow(UnsafePathError);
    expect(require("node:fs").readdirSync(join(root, "elsewhere"))).toEqual([]);
  });
  test("a file found wider is tightened when read, and reported before that", () => {
    fresh();
    const dir = join(root, "verdict");
    ensurePrivateDir(dir);
    writeFileSync(join(dir, "trusted.json"), "{}", { mode: 0o644 });
    chmodSync(join(dir, "trusted.json"), 0o644);
    expect(widerThanPrivate([dir]).map((w) => w.path)).toEqual([join(dir, "trusted.json")]);
    expect(readPrivate(join(dir, "trusted.json"))?.toString()).toBe("{}");
    expect(statSync(join(dir, "trusted.json")).mode & 0o777).toBe(0o600);
    expect(readPrivate(join(dir, "missing.json"))).toBeUndefined();
  });
});
