// Parser benchmark: per-parse time of src/shell on the toolchain's inputs and
// on the shared corpus, and the start-up cost of a compiled binary that parses
// one command, against a compiled binary that only prints a line.
//
//   npx bun bench/parser/run.ts [--runs N] [--candidates DIR]
//
// --candidates DIR: a node_modules folder holding other parsers (mvdan-sh,
// just-bash) to time their compiled start-up the same way. They are not
// dependencies of verdict; install them in a scratch folder to compare.

import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseCommandLine } from "../../src/shell/index.ts";

const args = process.argv.slice(2);
const flag = (name: string): string | undefined => {
  const i = args.indexOf(name);
  return i === -1 ? undefined : args[i + 1];
};
const RUNS = Number(flag("--runs") ?? 40);
const CANDIDATES = flag("--candidates");
const ROOT = resolve(import.meta.dir, "../..");
const BUN = process.execPath;

const INPUTS: string[] = [
  "ls -la /tmp | grep foo | wc -l",
  "cd /repo && make build || echo failed; rm -rf build",
  `bash -c 'rm -rf ~/x && echo "done"'`,
  `sh -c "curl -s http://x | sh"`,
  `eval "$(ssh-agent -s)"`,
  `find . -name '*.tmp' -exec rm -f {} \\;`,
  "find / -type f -delete",
  "echo a b | xargs -n1 rm -rf",
  "cat <<'EOF' > notes.txt\nrm -rf /\n$(danger)\nEOF",
  "cat <<EOF\nhello $(whoami)\nEOF",
  `echo "rm -rf /" 'and $(not this)'`,
  `FOO=1 BAR="x y" npm test`,
  "sudo -u root rm -rf /var/log",
  "(cd /tmp && rm -rf *)",
  "echo $(rm -rf /) `whoami`",
  "echo hi > /etc/passwd 2>&1 >> log; > important.txt",
  `git commit -m "fix: handle \\"quotes\\" and \\$vars"`,
  `for f in *.log; do gzip "$f"; done`,
  "if [ -f x ]; then rm x; fi && [[ $a == b* ]] && echo y",
  "diff <(ls a) <(sort b)",
  `f() { rm -rf "$1"; }; f /`,
  "command -v git >/dev/null 2>&1 && git status &",
  "time nice -n 10 env -i PATH=/bin timeout 5 rm -rf x",
  "x=$(rm -rf /tmp/y)",
  "cat <<-EOF | sh\n\trm -rf /\n\tEOF",
  "echo ${x:-$(rm y)}",
  `while read l; do rm "$l"; done < list.txt`,
  "case $1 in a) rm a;; *) echo no;; esac",
  "printf $'a\\tb'",
  "echo $(( $(rm z) + 1 ))",
  "# cleanup\nset -e\nrm -rf ./build # go\nexit 0",
];
const LARGE: [string, string][] = [
  ["5 KB here-document", `cat > notes.md <<'EOF'\n${"lorem ipsum dolor sit amet rm -rf / $(x)\n".repeat(120)}EOF`],
  ["100 KB line", `echo ${"abcdefghi ".repeat(10_240)}`],
  ["100 KB line piped (20k words | wc -w)", `echo ${"word ".repeat(20_000)}| wc -w`],
  ["5,000 commands (ls a; ...)", `${"ls a; ".repeat(5_000)}ls`],
  ["nested bash -c", `sudo bash -c "sh -c 'eval \\"rm -rf /tmp/x\\"'"`],
];

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] as number;
}

function timeParse(line: string, iterations: number): number {
  for (let i = 0; i < 50; i++) parseCommandLine(line);
  const samples: number[] = [];
  for (let i = 0; i < iterations; i++) {
    const t0 = performance.now();
    parseCommandLine(line);
    samples.push(performance.now() - t0);
  }
  return median(samples) * 1000;
}

function inProcess(): void {
  console.log("## Per-parse time (parse + extraction, median of 1000, µs)\n");
  const times = INPUTS.map((l) => timeParse(l, 1000));
  const sorted = [...times].sort((a, b) => a - b);
  console.log(`32 toolchain inputs: median ${median(times).toFixed(1)} µs, max ${(sorted.at(-1) as number).toFixed(1)} µs`);
  for (const [label, line] of LARGE) console.log(`${label}: ${timeParse(line, 200).toFixed(1)} µs`);

  const dir = join(ROOT, "../shared/corpus");
  if (!existsSync(dir)) return;
  const rows: string[] = [];
  for (const f of readdirSync(dir).filter((f) => f.endsWith(".jsonl"))) {
    for (const l of readFileSync(join(dir, f), "utf8").trim().split("\n")) rows.push((JSON.parse(l) as { command: string }).command);
  }
  for (const r of rows) parseCommandLine(r);
  const t0 = performance.now();
  let errors = 0;
  for (const r of rows) if (!parseCommandLine(r).ok) errors++;
  const ms = performance.now() - t0;
  console.log(
    `shared corpus: ${rows.length} commands in ${ms.toFixed(0)} ms (${((ms * 1000) / rows.length).toFixed(1)} µs each), ${errors} parse errors`,
  );
}

type Binary = { label: string; path: string; arg: string };

function build(dir: string, label: string, source: string, arg: string): Binary | undefined {
  const entry = join(dir, `${label}.ts`);
  writeFileSync(entry, source);
  const out = join(dir, label);
  const r = Bun.spawnSync([BUN, "build", entry, "--compile", "--minify", "--bytecode", "--format=esm", "--outfile", out], {
    stderr: "pipe",
    stdout: "pipe",
  });
  if (r.exitCode !== 0) {
    console.log(`(${label}: build failed: ${r.stderr.toString().trim().split("\n").at(-1)})`);
    return undefined;
  }
  return { label, path: out, arg };
}

function startup(): void {
  console.log(`\n## Start-up of compiled binaries (--compile --minify --bytecode --format=esm), ${RUNS} runs each, ms\n`);
  const dir = mkdtempSync(join(tmpdir(), "verdict-parser-bench-"));
  const line = "sudo -u root bash -c 'cd /srv && rm -rf data' | tee log";
  try {
    const bins: Binary[] = [];
    const add = (b: Binary | undefined) => b !== undefined && bins.push(b);
    add(build(dir, "noop", `console.log("ok");\n`, line));
    add(
      build(
        dir,
        "verdict-shell",
        `import { parseCommandLine } from ${JSON.stringify(join(ROOT, "src/shell/index.ts"))};\nconst r = parseCommandLine(process.argv[2] ?? "");\nconsole.log(r.ok ? r.commands.map((c) => c.name).join(",") : r.error);\n`,
        line,
      ),
    );
    if (CANDIDATES !== undefined) {
      const mod = (name: string) => join(resolve(CANDIDATES), name);
      if (existsSync(mod("mvdan-sh"))) {
        add(
          build(
            dir,
            "mvdan-sh",
            `import sh from ${JSON.stringify(mod("mvdan-sh"))};\nconst p = sh.syntax.NewParser();\nconst f = p.Parse(process.argv[2] ?? "", "x");\nconsole.log(f.Stmts.length);\n`,
            line,
          ),
        );
      }
      if (existsSync(mod("just-bash"))) {
        add(
          build(
            dir,
            "just-bash",
            `import { parse } from ${JSON.stringify(mod("just-bash"))};\nconsole.log(parse(process.argv[2] ?? "").statements.length);\n`,
            line,
          ),
        );
      }
    }
    const samples = new Map<string, number[]>(bins.map((b) => [b.label, []]));
    for (const b of bins) for (let i = 0; i < 5; i++) Bun.spawnSync([b.path, b.arg]);
    // Interleave the binaries so background load affects them alike.
    for (let i = 0; i < RUNS; i++) {
      for (const b of bins) {
        const t0 = performance.now();
        const r = Bun.spawnSync([b.path, b.arg], { stdout: "pipe" });
        samples.get(b.label)?.push(performance.now() - t0);
        if (i === 0) console.log(`${b.label} prints: ${r.stdout.toString().trim().slice(0, 60)}`);
      }
    }
    console.log("");
    const base = median(samples.get("noop") ?? [1]);
    console.log("| binary | median | min | ratio to noop (median) |\n|---|---|---|---|");
    for (const b of bins) {
      const s = samples.get(b.label) ?? [];
      console.log(`| ${b.label} | ${median(s).toFixed(2)} | ${Math.min(...s).toFixed(2)} | ${(median(s) / base).toFixed(2)} |`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

inProcess();
startup();
