// Wrappers are unwrapped to the command they run; code handed to a shell is parsed as code.
import { describe, expect, test } from "bun:test";
import { parseCommandLine } from "../../src/shell/index.ts";
import { commands, expectError, summary } from "./helpers.ts";

describe("wrappers", () => {
  const cases: [string, string[]][] = [
    ["sudo rm -rf /", ["sudo: rm -rf /"]],
    ["sudo -E -u deploy -- rm x", ["sudo: rm x"]],
    ["sudo -uroot rm x", ["sudo: rm x"]],
    ["sudo --user=root rm x", ["sudo: rm x"]],
    ["sudo -l", ["sudo -l"]],
    ["sudo -v", ["sudo -v"]],
    ["doas -u root rm x", ["doas: rm x"]],
    ["env FOO=1 rm x", ["env: rm x"]],
    ["env -u HOME -i rm x", ["env: rm x"]],
    ["env", ["env"]],
    ["env --split-string", ["env --split-string"]],
    ["env -S 'PATH=/usr/bin' git reset --hard", ["env -S: git reset --hard"]],
    ["env '-Sgit status'", ["env -S: git status"]],
    ["command rm x", ["command: rm x"]],
    ["command -v rm", ["command -v rm"]],
    ["builtin cd /tmp", ["builtin: cd /tmp"]],
    ["exec rm x", ["exec: rm x"]],
    ["exec -a name rm x", ["exec: rm x"]],
    ["nohup rm x &", ["nohup: rm x"]],
    ["nice -n 10 rm x", ["nice: rm x"]],
    ["nice -10 rm x", ["nice: rm x"]],
    ["nice rm x", ["nice: rm x"]],
    ["timeout 5 rm x", ["timeout: rm x"]],
    ["timeout -s KILL -k 2 5s rm x", ["timeout: rm x"]],
    ["timeout --signal=TERM 5 rm x", ["timeout: rm x"]],
    ["/usr/bin/time -v rm x", ["time: rm x"]],
    ["time rm x", ["time: rm x"]],
    ["stdbuf -oL rm x", ["stdbuf: rm x"]],
    ["stdbuf -o L rm x", ["stdbuf: rm x"]],
    ["ionice -c 3 rm x", ["ionice: rm x"]],
    ["ionice -p 123", ["ionice -p 123"]],
    ["xargs rm", ["xargs: rm"]],
    ["xargs -0 -I {} rm {}", ["xargs: rm {}"]],
    ["xargs -i rm {}", ["xargs: rm {}"]],
    ["xargs -P 4 -n 1 rm -f", ["xargs: rm -f"]],
    ["xargs sh -c 'rm \"$1\"' _", ["xargs > sh -c: rm $1"]],
    ["find . -execdir rm {} +", ["find . -execdir rm {} +", "find -execdir: rm {}"]],
    ["find . -ok rm {} \\;", ["find . -ok rm {} ;", "find -ok: rm {}"]],
    ["find . -exec sh -c 'rm -rf \"$0\"' {} \\;", ['find . -exec sh -c rm -rf "$0" {} ;', "find -exec > sh -c: rm -rf $0"]],
    [
      "find . -name x -exec chmod 644 {} \\; -exec rm {} +",
      ["find . -name x -exec chmod 644 {} ; -exec rm {} +", "find -exec: chmod 644 {}", "find -exec: rm {}"],
    ],
    ["parallel rm ::: a b", ["parallel: rm a", "parallel: rm b"]],
    ["parallel -j4 'rm -rf {}' ::: a 'b c'", ["parallel: rm -rf a", "parallel: rm -rf b c"]],
    ["parallel rm -rf {} ::: build /", ["parallel: rm -rf build", "parallel: rm -rf /"]],
    ["parallel bash -c 'rm -rf {}' ::: /", ["parallel > bash -c: rm"]],
    ["parallel ::: 'rm -rf /'", ["parallel ::: rm -rf /", "parallel: rm -rf /"]],
    ["parallel ::: 'rm -rf x' ls", ["parallel ::: rm -rf x ls", "parallel: rm -rf x", "parallel: ls"]],
    [
      "parallel -j2 ::: 'cd /srv && rm -rf data'",
      ["parallel -j2 ::: cd /srv && rm -rf data", "parallel: cd /srv", "parallel: rm -rf data"],
    ],
    ["parallel", ["parallel"]],
    ["parallel :::", ["parallel :::"]],
    ["parallel echo {1} {2} ::: a b ::: x y", ["parallel: echo a x", "parallel: echo a y", "parallel: echo b x", "parallel: echo b y"]],
    ["parallel cp {1} {2} ::: a b :::+ x y", ["parallel: cp a x", "parallel: cp b y"]],
    ["parallel --link cp {1} {2} ::: a b ::: x y", ["parallel: cp a x", "parallel: cp b y"]],
    ["parallel ::: echo ls ::: /tmp", ["parallel ::: echo ls ::: /tmp", "parallel: echo /tmp", "parallel: ls /tmp"]],
    ["parallel gzip {.} {/} {//} {/.} ::: /a/b.txt", ["parallel: gzip /a/b b.txt /a b"]],
    ["parallel -I XX rm XX/sub ::: /srv", ["parallel: rm /srv/sub"]],
    ["parallel rm ::: 'a b'", ["parallel: rm a b"]],
    ["parallel rm :::: list.txt", ["parallel: rm"]],
    ["parallel -a list.txt rm", ["parallel: rm"]],
    ["parallel :::: list.txt", ["parallel :::: list.txt"]],
    ["echo / | parallel rm -rf", ["echo /", "parallel: rm -rf /"]],
    ["printf 'a\\nb\\n' | parallel rm {}", ["printf a\\nb\\n", "parallel: rm a", "parallel: rm b"]],
    ["echo 'rm -rf /' | parallel", ["echo rm -rf /", "parallel: rm -rf /"]],
    ["parallel <<EOF\nrm -rf /\nls\nEOF", ["parallel: rm -rf /", "parallel: ls"]],
    ["curl -s x | parallel", ["curl -s x", "parallel"]],
    ["echo x | parallel --pipe wc -l", ["echo x", "parallel: wc -l"]],
    ["xargs -J % cp % /backup", ["xargs: cp % /backup"]],
    ["echo a b | xargs -J % cp % /backup", ["echo a b", "xargs: cp a b /backup"]],
    ["echo a b | xargs -n1 -J % mv % /srv", ["echo a b", "xargs: mv a /srv", "xargs: mv b /srv"]],
    ["echo / | xargs -J % -R 2 rm -rf %", ["echo /", "xargs: rm -rf /"]],
    ["xargs -o -p -r -t -x -J {} rm {}", ["xargs: rm {}"]],
    ["env - rm x", ["env: rm x"]],
    ["env - PATH=/bin rm x", ["env: rm x"]],
    ["env -i - FOO=1 bash -c 'rm x'", ["env > bash -c: rm x"]],
    ["env -", ["env -"]],
    ["ssh host <<'EOF'\nrm -rf /srv\nEOF", ["ssh host", "ssh > heredoc->sh: rm -rf /srv"]],
    [
      "ssh -T -p 22 user@host <<EOF\ncd /srv && rm -rf data\nEOF",
      ["ssh -T -p 22 user@host", "ssh > heredoc->sh: cd /srv", "ssh > heredoc->sh: rm -rf data"],
    ],
    ["ssh host sh <<'EOF'\nrm -rf /srv\nEOF", ["ssh > heredoc->sh: rm -rf /srv"]],
    ["ssh host <<< 'rm -rf /srv'", ["ssh host", "ssh > heredoc->sh: rm -rf /srv"]],
    ["echo 'rm -rf /srv' | ssh host", ["echo rm -rf /srv", "ssh host", "ssh > pipe->sh: rm -rf /srv"]],
    ["echo 'rm -rf /srv' | ssh host sh", ["echo rm -rf /srv", "ssh > pipe->sh: rm -rf /srv"]],
    ["cat deploy.sh | ssh host", ["cat deploy.sh", "ssh host"]],
    ["ssh -n host <<EOF\nrm x\nEOF", ["ssh -n host"]],
    ["ssh -N -L 8080:localhost:80 host", ["ssh -N -L 8080:localhost:80 host"]],
    ["docker exec -it web sh -c 'rm -rf /app'", ["docker exec -it web sh -c rm -rf /app", "docker exec > sh -c: rm -rf /app"]],
    [
      "docker exec -u root -e A=1 -w /app web rm -rf data",
      ["docker exec -u root -e A=1 -w /app web rm -rf data", "docker exec: rm -rf data"],
    ],
    ["docker container exec web rm x", ["docker container exec web rm x", "docker exec: rm x"]],
    [
      "docker compose -f dc.yml exec -T db psql -c 'drop table x'",
      ["docker compose -f dc.yml exec -T db psql -c drop table x", "docker compose exec: psql -c drop table x"],
    ],
    [
      "docker-compose exec db bash -c 'rm -rf /data'",
      ["docker-compose exec db bash -c rm -rf /data", "docker-compose exec > bash -c: rm -rf /data"],
    ],
    ["podman exec c rm x", ["podman exec c rm x", "podman exec: rm x"]],
    ["docker exec web", ["docker exec web"]],
    ["docker ps -a", ["docker ps -a"]],
    ["docker run --rm alpine rm -rf /x", ["docker run --rm alpine rm -rf /x"]],
    [
      "kubectl exec -it pod-1 -c app -n prod -- sh -c 'rm -rf /data'",
      ["kubectl exec -it pod-1 -c app -n prod -- sh -c rm -rf /data", "kubectl exec > sh -c: rm -rf /data"],
    ],
    ["kubectl -n prod exec pod-1 -- rm -rf /data", ["kubectl -n prod exec pod-1 -- rm -rf /data", "kubectl exec: rm -rf /data"]],
    ["kubectl exec pod-1 rm x", ["kubectl exec pod-1 rm x", "kubectl exec: rm x"]],
    ["kubectl exec pod-1 --", ["kubectl exec pod-1 --"]],
    ["kubectl get pods", ["kubectl get pods"]],
    ["find . -name '*.o' | parallel rm", ["find . -name *.o", "parallel: rm"]],
    ["echo / | xargs rm -rf", ["echo /", "xargs: rm -rf /"]],
    ["echo / | xargs -P2 rm -rf", ["echo /", "xargs: rm -rf /"]],
    ["echo / | xargs -I% bash -c 'rm -rf %'", ["echo /", "xargs > bash -c: rm -rf /"]],
    ["echo / | xargs --replace=FOO bash -c 'rm -rf FOO'", ["echo /", "xargs > bash -c: rm -rf /"]],
    ["echo 'rm -rf /' | xargs bash -c", ["echo rm -rf /", "xargs > bash -c: rm"]],
    ["printf 'a\\nb\\n' | xargs -I{} rm {}", ["printf a\\nb\\n", "xargs: rm a", "xargs: rm b"]],
    ["printf 'a b\\0c' | xargs -0 rm", ["printf a b\\0c", "xargs: rm a b c"]],
    ["echo --force | xargs git clean -f", ["echo --force", "xargs: git clean -f --force"]],
    ["find . -name '*.o' | xargs rm -f", ["find . -name *.o", "xargs: rm -f"]],
    ["xargs -a list.txt rm", ["xargs: rm"]],
    ["watch -n 1 'ls | wc -l'", ["watch: ls", "watch: wc -l"]],
    ["watch -x rm x", ["watch: rm x"]],
    ["ssh host 'rm -rf /srv'", ["ssh: rm -rf /srv"]],
    ["ssh -p 22 -i key user@host rm -rf /srv", ["ssh: rm -rf /srv"]],
    ["ssh host", ["ssh host"]],
    ["su -c 'rm -rf /' root", ["su -c: rm -rf /"]],
    ["eval 'rm -rf /'", ["eval: rm -rf /"]],
    ["eval rm -rf /", ["eval: rm -rf /"]],
    ["bash -lc 'rm -rf /'", ["bash -c: rm -rf /"]],
    ["bash -ec 'rm -rf /'", ["bash -c: rm -rf /"]],
    ["bash -e -o pipefail -c 'rm -rf /'", ["bash -c: rm -rf /"]],
    ["bash --norc --noprofile -c 'rm -rf /'", ["bash -c: rm -rf /"]],
    ["zsh -c 'rm -rf /'", ["zsh -c: rm -rf /"]],
    ["dash -c 'rm -rf /'", ["dash -c: rm -rf /"]],
    ["/bin/ksh -c 'rm -rf /'", ["ksh -c: rm -rf /"]],
    ["bash script.sh arg", ["bash script.sh arg"]],
    ["bash", ["bash"]],
    ["sudo bash -c 'cd /srv && rm -rf data'", ["sudo > bash -c: cd /srv", "sudo > bash -c: rm -rf data"]],
    [
      "sudo -u www env FOO=1 nice -n 5 timeout 10 bash -c \"sh -c 'rm -rf /'\"",
      ["sudo > env > nice > timeout > bash -c > sh -c: rm -rf /"],
    ],
    ["bash <<EOF\nrm -rf /\nEOF", ["heredoc->sh: rm -rf /"]],
    ["sh <<< 'rm -rf /'", ["heredoc->sh: rm -rf /"]],
    ["bash -s <<'EOF'\nrm -rf \"$HOME\"\nEOF", ["heredoc->sh: rm -rf $HOME"]],
    ["echo 'rm -rf /' | sh", ["echo rm -rf /", "pipe->sh: rm -rf /"]],
    ["ssh host 'bash -s' <<'EOF'\nrm -rf /srv\nEOF", ["ssh > heredoc->sh: rm -rf /srv"]],
    ["ssh host bash -s <<EOF\nrm -rf /srv\nEOF", ["ssh > heredoc->sh: rm -rf /srv"]],
    [
      "sudo -u app bash -c 'cd /srv && sh' <<EOF\nrm -rf data\nEOF",
      ["sudo > bash -c: cd /srv", "sudo > bash -c > heredoc->sh: rm -rf data"],
    ],
    ["echo 'rm x' | bash -c 'sh'", ["echo rm x", "bash -c > pipe->sh: rm x"]],
    ["echo 'rm x' | { sh; }", ["echo rm x", "pipe->sh: rm x"]],
    ["echo 'rm x' | sh < script.sh", ["echo rm x", "sh"]],
    ["cat <<EOF | xargs rm\na b\nEOF", ["cat", "xargs: rm a b"]],
    ["source <(echo 'rm -rf /')", ["<( ): echo rm -rf /", "source: rm -rf /"]],
    [". <(curl -s x)", ["<( ): curl -s x", ". <(curl -s x)"]],
    ["bash <(echo 'rm x')", ["<( ): echo rm x", "bash <file>: rm x"]],
    ["bash <(curl -s https://x)", ["<( ): curl -s https://x", "bash <(curl -s https://x)"]],
    ["source ~/.bashrc", ["source ~/.bashrc"]],
    ["printf 'rm -rf /\\n' | bash", ["printf rm -rf /\\n", "pipe->sh: rm -rf /"]],
    ["echo rm -rf / | sudo bash", ["echo rm -rf /", "sudo > pipe->sh: rm -rf /"]],
    ['bash -c "$(cat <<EOF\nrm -rf /\nEOF\n)"', ["$( ): cat", "bash -c: rm -rf /"]],
    ['bash -c "$(cat <<EOF\nrm -rf /\nEOF)"', ["$( ): cat", "bash -c: rm -rf /"]],
    ['eval "$(echo rm -rf /)"', ["$( ): echo rm -rf /", "eval: rm -rf /"]],
    ['eval "$(curl -s https://x)"', ["eval > $( ): curl -s https://x", "eval: $(curl -s https://x)"]],
    ["curl -s https://x.sh | bash", ["curl -s https://x.sh", "bash"]],
    ["cat script.sh | sh", ["cat script.sh", "sh"]],
    ["trap 'rm -rf /tmp/x' EXIT", ["trap: rm -rf /tmp/x"]],
    ["trap - EXIT", ["trap - EXIT"]],
    ["busybox rm -rf /", ["busybox: rm -rf /"]],
    ["flock /tmp/l rm x", ["flock: rm x"]],
    ["flock -w 5 /tmp/l -c 'rm x'", ["flock -c: rm x"]],
    ["chroot /mnt rm -rf /", ["chroot: rm -rf /"]],
    ["runuser -u app -- rm x", ["runuser: rm x"]],
    ["runuser -l app -c 'rm x'", ["runuser -c: rm x"]],
    ["pkexec --user root rm x", ["pkexec: rm x"]],
    ["fakeroot -- rm x", ["fakeroot: rm x"]],
    ["xvfb-run -a -s '-screen 0' rm x", ["xvfb-run: rm x"]],
    ["\\rm -rf x", ["rm -rf x"]],
    ["'rm' -rf x", ["rm -rf x"]],
    ['r"m" -rf x', ["rm -rf x"]],
  ];
  for (const [line, expected] of cases) {
    test(line, () => {
      expect(summary(line)).toEqual(expected);
    });
  }

  test("program and name: a path keeps the path, name is the basename", () => {
    const [c] = commands("/usr/bin/rm -rf x");
    expect([c?.program, c?.name]).toEqual(["/usr/bin/rm", "rm"]);
    const [t] = commands("/tmp/git push");
    expect([t?.program, t?.name]).toEqual(["/tmp/git", "git"]);
  });

  test("env assignments reach the wrapped command", () => {
    const [c] = commands("FOO=1 sudo BAR=2 env BAZ=3 make");
    expect(c?.env).toEqual({ FOO: "1", BAR: "2", BAZ: "3" });
    const [d] = commands("sudo FOO=1 bash -c 'make'");
    expect(d?.env).toEqual({ FOO: "1" });
  });

  test("redirections of a code wrapper apply to the code's commands", () => {
    const [c] = commands("bash -c 'cat x' > /etc/passwd");
    expect(c?.redirects).toEqual([{ op: ">", target: "/etc/passwd" }]);
    const [s] = commands("sudo tee /etc/hosts < x > /dev/null");
    expect(s?.redirects).toEqual([
      { op: "<", target: "x" },
      { op: ">", target: "/dev/null" },
    ]);
  });

  test("sudo -D and env -C change the working directory", () => {
    expect(commands("sudo -D /srv rm -rf data")[0]?.cwd).toBe("/srv");
    expect(commands("env -C sub rm x", { cwd: "/repo" })[0]?.cwd).toBe("/repo/sub");
    expect(commands("find . -execdir rm {} +", { cwd: "/repo" }).map((c) => c.cwd)).toEqual(["/repo", undefined]);
  });

  test("dynamic program names", () => {
    const cs = commands('$CMD -rf /; "$(which rm)" x; /bin/r? x');
    expect(cs.map((c) => [c.argv[0], c.dynamic, c.via])).toEqual([
      ["$CMD", true, []],
      ["which", false, ["$( )"]],
      ["$(which rm)", true, []],
      ["/bin/r?", true, []],
    ]);
    // A wrapper around a dynamic program still reports it as dynamic.
    expect(commands("sudo $X")[0]?.dynamic).toBe(true);
  });

  test("a sh -c script's arguments fill $1...", () => {
    expect(summary("sh -c 'rm -rf \"$1\"' sh /srv")).toEqual(["sh -c: rm -rf /srv"]);
    expect(summary("sh -c 'rm -rf \"$@\"' sh a 'b c'")).toEqual(["sh -c: rm -rf a b c"]);
    expect(commands("sh -c 'rm -rf \"$@\"' sh a 'b c'")[0]?.argv).toEqual(["rm", "-rf", "a", "b c"]);
    // An argument that is an expansion stays unknown.
    const [d] = commands("sh -c '\"$1\" x' sh $CMD");
    expect([d?.argv[0], d?.dynamic]).toEqual(["$1", true]);
  });

  test("ssh's own listing keeps the here-document; a container's commands have the container's directory", () => {
    const cs = commands("ssh prod <<'EOF'\nrm -rf /var/log\nEOF", { cwd: "/repo" });
    expect(cs.map((c) => [c.argv[0], c.stdinScript])).toEqual([
      ["ssh", "rm -rf /var/log\n"],
      ["rm", undefined],
    ]);
    const d = commands("docker exec -w /app -e A=1 web rm -rf data", { cwd: "/repo" });
    expect(d.map((c) => [c.argv[0], c.cwd, c.env])).toEqual([
      ["docker", "/repo", {}],
      ["rm", "/app", { A: "1" }],
    ]);
    expect(commands("kubectl exec p -- rm x", { cwd: "/repo" })[1]?.cwd).toBeUndefined();
  });

  test("xargs/parallel with more known input than is listed report the template, arguments unknown", () => {
    const many = Array.from({ length: 20 }, (_, k) => `d${k}`).join(" ");
    expect(summary(`parallel rm -rf ::: ${many} /`)).toEqual(["parallel: rm -rf"]);
    expect(summary(`echo ${many} / | xargs -n1 rm -rf`)).toEqual([`echo ${many} /`, "xargs: rm -rf"]);
    expect(summary(`echo ${many} / | xargs rm -rf`)).toEqual([`echo ${many} /`, `xargs: rm -rf ${many} /`]);
    expect(summary("parallel echo {1}{2} ::: a b c d e ::: 1 2 3 4 5")).toEqual(["parallel: echo {1}{2}"]);
  });

  test("code that does not parse makes the line an error", () => {
    expectError("bash -c 'echo \"'", /in code run by bash -c: .*unterminated double quote/);
    expectError("eval 'fi'", /in code run by eval/);
    expectError("echo 'rm (' | sh", /in code run by pipe->sh/);
  });

  test("code nesting is bounded by maxDepth", () => {
    const line = "bash -c \"sh -c 'eval rm x'\"";
    expect(parseCommandLine(line, { maxDepth: 3 }).ok).toBe(true);
    const r = parseCommandLine(line, { maxDepth: 2 });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toMatch(/code nested deeper than 2 levels/);
  });

  test("interpreters' -c/-e bodies are not shell: left as argv", () => {
    expect(summary(`python -c "import os; os.system('rm -rf /')"`)).toEqual([`python -c import os; os.system('rm -rf /')`]);
    expect(summary(`node -e "require('fs').rmSync('/', {recursive: true})"`)).toEqual([
      `node -e require('fs').rmSync('/', {recursive: true})`,
    ]);
    expect(summary(`perl -e 'unlink "x"'`)).toEqual([`perl -e unlink "x"`]);
    expect(summary(`ruby -e 'File.delete("x")'`)).toEqual([`ruby -e File.delete("x")`]);
  });
});
