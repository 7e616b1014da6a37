// Text that is only data stays an argument: nothing in it is reported as a command.
import { describe, expect, test } from "bun:test";
import { commands, summary } from "./helpers.ts";

describe("data is not code", () => {
  const cases: [string, string[]][] = [
    [`echo "rm -rf /"`, ["echo rm -rf /"]],
    [`echo 'rm -rf /'`, ["echo rm -rf /"]],
    [`grep -r "DROP TABLE" .`, ["grep -r DROP TABLE ."]],
    [`grep -r "rm -rf" docs/`, ["grep -r rm -rf docs/"]],
    [`grep -e "DROP TABLE" schema.sql`, ["grep -e DROP TABLE schema.sql"]],
    [`git commit -m "rm -rf /"`, ["git commit -m rm -rf /"]],
    [`git commit -m "Fix git push --force detection"`, ["git commit -m Fix git push --force detection"]],
    [`cat docs/notes.txt | sed -n 's/git reset --hard//g'`, ["cat docs/notes.txt", "sed -n s/git reset --hard//g"]],
    [`python -c "print('rm -rf /')"`, ["python -c print('rm -rf /')"]],
    [`sqlite3 -readonly mydb.db 'DROP TABLE users'`, ["sqlite3 -readonly mydb.db DROP TABLE users"]],
    ["git checkout -b feature/one", ["git checkout -b feature/one"]],
    ["git checkout -bfeature", ["git checkout -bfeature"]],
    [`echo "$(date) rm -rf /"`, ["$( ): date", "echo $(date) rm -rf /"]],
    ["echo 'bash -c \"rm -rf /\"' > notes.txt", ['echo bash -c "rm -rf /"']],
    ["printf '%s\\n' 'rm -rf /' > script.sh", ["printf %s\\n rm -rf /"]],
    ["echo 'rm -rf /' | grep rm", ["echo rm -rf /", "grep rm"]],
    ["echo 'rm -rf /' | tee x.sh", ["echo rm -rf /", "tee x.sh"]],
    ["echo '# rm -rf /'", ["echo # rm -rf /"]],
    ["echo a # rm -rf /", ["echo a"]],
  ];
  for (const [line, expected] of cases) {
    test(line, () => {
      expect(summary(line)).toEqual(expected);
    });
  }

  test("a quoted here-document written to a file is data", () => {
    const cs = commands("cat <<'EOF' > notes.txt\nrm -rf /\n$(danger)\n`danger`\nEOF");
    expect(cs.map((c) => c.argv)).toEqual([["cat"]]);
  });

  test("the common `git commit -m \"$(cat <<'EOF' ...)\"` form: only cat and git run", () => {
    const line = `git commit -m "$(cat <<'EOF'\nFix: rm -rf handling; DROP TABLE\n\nCo-authored-by: x\nEOF\n)"`;
    expect(summary(line)).toEqual([
      "$( ): cat",
      "git commit -m $(cat <<'EOF'\nFix: rm -rf handling; DROP TABLE\n\nCo-authored-by: x\nEOF\n)",
    ]);
    expect(commands(line)[0]?.stdinScript).toBe("Fix: rm -rf handling; DROP TABLE\n\nCo-authored-by: x\n");
  });

  test("stdinScript lets a caller tell data from code", () => {
    expect(commands("cat <<EOF > f\nhello\nEOF")[0]?.stdinScript).toBe("hello\n");
    expect(commands("python3 <<'EOF'\nprint(1)\nEOF")[0]?.stdinScript).toBe("print(1)\n");
    expect(commands("grep x <<< 'a b'")[0]?.stdinScript).toBe("a b\n");
  });
});

describe("working directory", () => {
  test("relative cd joins onto the given cwd", () => {
    expect(commands("cd sub && rm x", { cwd: "/repo" }).map((c) => c.cwd)).toEqual(["/repo", "/repo/sub"]);
    expect(commands("cd ../other && rm x", { cwd: "/repo/a" })[1]?.cwd).toBe("/repo/other");
  });
  test("unknown targets make the cwd unknown", () => {
    expect(commands("cd $X && rm x", { cwd: "/repo" })[1]?.cwd).toBeUndefined();
    expect(commands("cd - && rm x", { cwd: "/repo" })[1]?.cwd).toBeUndefined();
    expect(commands("cd sub && rm x")[1]?.cwd).toBeUndefined();
  });
  test("cd with no argument goes home", () => {
    expect(commands("cd && rm x", { cwd: "/repo" })[1]?.cwd).toBe("~");
  });
  test("a cd in a subshell or pipeline does not move what follows", () => {
    expect(commands("(cd /tmp); rm x", { cwd: "/repo" })[1]?.cwd).toBe("/repo");
    expect(commands("cd /tmp | true; rm x", { cwd: "/repo" })[2]?.cwd).toBe("/repo");
    expect(commands("echo $(cd /tmp) && rm x", { cwd: "/repo" }).at(-1)?.cwd).toBe("/repo");
  });
  test("a cd in a group or if does", () => {
    expect(commands("{ cd /tmp; }; rm x").at(-1)?.cwd).toBe("/tmp");
    expect(commands("if true; then cd /tmp; fi; rm x").at(-1)?.cwd).toBe("/tmp");
  });
  test("cd inside bash -c moves that script's commands only", () => {
    expect(commands("bash -c 'cd /srv && rm x'; rm y", { cwd: "/repo" }).map((c) => c.cwd)).toEqual(["/repo", "/srv", "/repo"]);
  });
});
