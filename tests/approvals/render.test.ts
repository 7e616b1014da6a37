import { describe, expect, test } from "bun:test";
import { mixedScriptWords, visible } from "../../src/approvals/render.ts";

describe("one rendering", () => {
  test("shows characters that hide or reorder text where they stand", () => {
    expect(visible("rm -rf build\u202E/\u200B")).toBe("rm -rf build⟦U+202E⟧/⟦U+200B⟧");
    expect(visible("a\u0007b\u001b[31m")).toBe("a⟦U+0007⟧b⟦U+001B⟧[31m");
  });
  test("keeps one line one line, and trims nothing", () => {
    const long = `cat <<EOF > x\n${"y".repeat(5000)}\nEOF`;
    const shown = visible(long);
    expect(shown).not.toContain("\n");
    expect(shown.length).toBeGreaterThan(5000);
  });
  test("flags words mixing Latin with look-alike Cyrillic or Greek letters", () => {
    expect(mixedScriptWords("git push origin main")).toEqual([]);
    expect(mixedScriptWords("echo привет")).toEqual([]);
    expect(mixedScriptWords("git push \u043erigin")).toEqual(["\u043erigin"]);
    expect(mixedScriptWords("curl https://exаmple.com")).toEqual(["https://exаmple.com"]);
  });
});
