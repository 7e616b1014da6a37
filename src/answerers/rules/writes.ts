/**
 * Where a command writes through its options and operands, not through a
 * redirection: `curl -o FILE`, `wget -P DIR`, `tar -x -C DIR`, `dd of=FILE`,
 * `tee FILE`, the destination of cp/mv/ln/install/rsync, the files of
 * `sed -i`, `truncate`, and the targets of chmod/chown. The engine judges
 * each target with the redirect rules, so a write into a profile, a system
 * folder or over an untracked file is classified the same whichever way it
 * is written.
 *
 * `op` says what the write does to an existing file, in redirect terms:
 * ">" replaces it (its old content is gone), ">>" changes or adds to it.
 */
import { GIT_CLONE_VALUES, parseArgs, TAR_VALUES } from "./args.ts";

export type WriteTarget = {
  /** The path as written. */
  word: string;
  op: ">" | ">>";
  /** How the command names it, for the line the user reads: "curl -o", "cp onto". */
  how: string;
  /** The target is a directory the command writes into (tar -C, wget -P, cp -t). */
  dir?: boolean;
  /** Changes permissions, ownership or attributes, not content (chmod, chown, chgrp, setfacl, chattr). */
  permissions?: boolean;
};

const set = (...words: string[]) => new Set(words);

/** Options that take a value, per program, so operands are found where the program finds them. */
const CURL_VALUES = set(
  "-o",
  "--output",
  "-D",
  "--dump-header",
  "-c",
  "--cookie-jar",
  "--output-dir",
  "--trace",
  "--trace-ascii",
  "--stderr",
  "-H",
  "--header",
  "-d",
  "--data",
  "--data-raw",
  "--data-binary",
  "--data-urlencode",
  "-F",
  "--form",
  "-u",
  "--user",
  "-X",
  "--request",
  "-A",
  "--user-agent",
  "-e",
  "--referer",
  "-b",
  "--cookie",
  "-T",
  "--upload-file",
  "-x",
  "--proxy",
  "-m",
  "--max-time",
  "--connect-timeout",
  "-w",
  "--write-out",
  "-r",
  "--range",
  "-K",
  "--config",
  "--retry",
  "--cacert",
  "--cert",
  "--key",
  "-E",
  "--resolve",
  "--url",
);
const WGET_VALUES = set(
  "-O",
  "--output-document",
  "-P",
  "--directory-prefix",
  "-o",
  "--output-file",
  "-a",
  "--append-output",
  "-U",
  "--user-agent",
  "--header",
  "-t",
  "--tries",
  "-T",
  "--timeout",
  "--post-data",
  "--post-file",
  "-i",
  "--input-file",
  "-e",
  "--execute",
  "--user",
  "--password",
  "-Q",
  "--quota",
  "-l",
  "--level",
  "-A",
  "--accept",
  "-R",
  "--reject",
);
const GIT_VALUES = set(...GIT_CLONE_VALUES, "-u", "--upload-pack");
const UNZIP_VALUES = set("-d", "-x", "-P");
const COPY_VALUES = set(
  "-t",
  "--target-directory",
  "-S",
  "--suffix",
  "--backup",
  "--reflink",
  "--sparse",
  "--preserve",
  "--no-preserve",
  "-m",
  "--mode",
  "-o",
  "--owner",
  "-g",
  "--group",
  "--context",
  "-Z",
  "--strip-program",
);
const RSYNC_VALUES = set(
  "-e",
  "--rsh",
  "--exclude",
  "--include",
  "--exclude-from",
  "--include-from",
  "--filter",
  "-f",
  "--files-from",
  "--rsync-path",
  "--backup-dir",
  "--suffix",
  "--chmod",
  "--chown",
  "--log-file",
  "--password-file",
  "--bwlimit",
  "--timeout",
  "--port",
  "-T",
  "--temp-dir",
  "--partial-dir",
  "--compare-dest",
  "--copy-dest",
  "--link-dest",
  "--max-size",
  "--min-size",
  "--out-format",
  "-M",
  "--remote-option",
);
const SED_VALUES = set("-e", "--expression", "-f", "--file", "-l", "--line-length");
const PERL_VALUES = set("-e", "-E", "-M", "-m", "-I", "-x", "-C", "-d", "-D", "-V");
const TRUNCATE_VALUES = set("-s", "--size", "-r", "--reference", "-o");
const PERM_VALUES = set("--reference", "--from");
const SETFACL_VALUES = set("-m", "--modify", "-x", "--remove", "-M", "--modify-file", "-X", "--remove-file", "--set", "--set-file");
const SORT_VALUES = set(
  "-o",
  "--output",
  "-k",
  "--key",
  "-t",
  "--field-separator",
  "-S",
  "--buffer-size",
  "-T",
  "--temporary-directory",
  "--parallel",
  "--batch-size",
  "--files0-from",
  "--compress-program",
  "--random-source",
);
const TEE_VALUES = set("--output-error");

/** The value given to an option, by any of its spellings (-o X, -oX, --output X, --output=X), last one wins. */
function valuesOf(values: [string, string][], ...names: string[]): string[] {
  return values.filter(([name]) => names.includes(name)).map(([, value]) => value);
}

const isStream = (word: string) => word === "-" || word === "";

/** Each path a command writes through its options and operands; none for a program not listed here. */
export function writeTargets(name: string, args: readonly string[]): WriteTarget[] {
  switch (name) {
    case "curl":
    case "curlie": {
      const p = parseArgs(args, CURL_VALUES);
      const out: WriteTarget[] = [];
      for (const word of valuesOf(p.values, "-o", "--output")) if (!isStream(word)) out.push({ word, op: ">", how: `${name} -o` });
      for (const word of valuesOf(p.values, "--output-dir")) out.push({ word, op: ">>", how: `${name} --output-dir`, dir: true });
      for (const word of valuesOf(p.values, "-D", "--dump-header", "-c", "--cookie-jar", "--trace", "--trace-ascii", "--stderr"))
        if (!isStream(word)) out.push({ word, op: ">", how: `${name} writes` });
      return out;
    }
    case "wget": {
      const p = parseArgs(args, WGET_VALUES);
      const out: WriteTarget[] = [];
      for (const word of valuesOf(p.values, "-O", "--output-document")) if (!isStream(word)) out.push({ word, op: ">", how: "wget -O" });
      for (const word of valuesOf(p.values, "-P", "--directory-prefix")) out.push({ word, op: ">>", how: "wget -P", dir: true });
      for (const word of valuesOf(p.values, "-o", "--output-file")) if (!isStream(word)) out.push({ word, op: ">", how: "wget -o" });
      for (const word of valuesOf(p.values, "-a", "--append-output")) out.push({ word, op: ">>", how: "wget -a" });
      return out;
    }
    case "tar":
    case "gtar":
    case "bsdtar":
      return tarTargets(name, args);
    case "unzip": {
      const p = parseArgs(args, UNZIP_VALUES);
      return valuesOf(p.values, "-d").map((word) => ({ word, op: ">>", how: p.letters.has("o") ? "unzip -o -d" : "unzip -d", dir: true }));
    }
    case "dd": {
      const of = args.filter((arg) => arg.startsWith("of=")).map((arg) => arg.slice(3));
      const notrunc = args.some((arg) => /^conv=.*\bnotrunc\b/.test(arg));
      return of.map((word) => ({ word, op: notrunc ? ">>" : ">", how: "dd of=" }));
    }
    case "tee": {
      const p = parseArgs(args, TEE_VALUES);
      const append = p.letters.has("a") || p.longs.has("--append");
      return p.operands
        .filter((word) => !isStream(word))
        .map((word) => ({ word, op: append ? ">>" : ">", how: append ? "tee -a" : "tee" }));
    }
    case "cp":
    case "mv":
    case "install":
    case "ln":
    case "gcp":
    case "gmv":
      return copyTargets(name, args);
    case "rsync": {
      const p = parseArgs(args, RSYNC_VALUES);
      const dest = p.operands.at(-1);
      if (p.operands.length < 2 || dest === undefined || /^[^/]*:/.test(dest)) return [];
      // A destination that is a file (not a folder, not written with a slash) is replaced, as by cp.
      if (!dest.endsWith("/") && p.operands.length === 2 && !(p.operands[0] as string).endsWith("/"))
        return [{ word: dest, op: ">", how: "rsync onto" }];
      return [{ word: dest, op: ">>", how: "rsync into", dir: true }];
    }
    case "uniq":
    case "xxd": {
      // uniq IN OUT, xxd [-r] IN OUT: the second operand is written.
      const p = parseArgs(
        args,
        name === "uniq"
          ? set("-f", "--skip-fields", "-s", "--skip-chars", "-w", "--check-chars")
          : set("-c", "-g", "-l", "-o", "-s", "-n", "--name", "--cols", "--groupsize", "--len", "--seek", "--offset"),
      );
      const out = p.operands[1];
      return out === undefined || isStream(out) ? [] : [{ word: out, op: ">", how: `${name} writes` }];
    }
    case "iconv": {
      const p = parseArgs(args, set("-f", "--from-code", "-t", "--to-code", "-o", "--output"));
      return valuesOf(p.values, "-o", "--output").map((word) => ({ word, op: ">", how: "iconv -o" }));
    }
    case "split":
    case "csplit": {
      // split IN PREFIX: files PREFIXaa, PREFIXab… are written next to PREFIX.
      const p = parseArgs(
        args,
        name === "split"
          ? set(
              "-a",
              "--suffix-length",
              "-b",
              "--bytes",
              "-C",
              "--line-bytes",
              "-l",
              "--lines",
              "-n",
              "--number",
              "-t",
              "--separator",
              "--additional-suffix",
              "--filter",
            )
          : set("-f", "--prefix", "-b", "--suffix-format", "-n", "--digits"),
      );
      const prefix = name === "split" ? p.operands[1] : valuesOf(p.values, "-f", "--prefix")[0];
      return prefix === undefined ? [] : [{ word: `${prefix}__split__`, op: ">", how: `${name} writes files named` }];
    }
    case "cpio": {
      // cpio -i keeps absolute member names unless told not to: they land wherever they say.
      const p = parseArgs(
        args,
        set("-F", "--file", "-H", "--format", "-D", "--directory", "-E", "--pattern-file", "-R", "--owner", "-I", "-O"),
      );
      if (!(p.letters.has("i") || p.longs.has("--extract"))) return [];
      const into = valuesOf(p.values, "-D", "--directory")[0] ?? ".";
      const out: WriteTarget[] = [{ word: into, op: ">>", how: "cpio -i into", dir: true }];
      if (!p.longs.has("--no-absolute-filenames"))
        out.push({ word: "/", op: ">>", how: "cpio -i (absolute member names) under", dir: true });
      return out;
    }
    case "scp": {
      const p = parseArgs(args, set("-P", "-i", "-o", "-F", "-S", "-l", "-c", "-J"));
      const dest = p.operands.at(-1);
      if (p.operands.length < 2 || dest === undefined || /^[^/]*:/.test(dest)) return [];
      return [{ word: dest, op: ">", how: "scp onto" }];
    }
    case "sed":
    case "gsed": {
      const p = parseArgs(args, SED_VALUES);
      if (!p.letters.has("i") && !p.longs.has("--in-place") && !p.options.some((o) => o.startsWith("-i"))) return [];
      const scripted = p.values.some(([option]) => option === "-e" || option === "--expression" || option === "-f" || option === "--file");
      return p.operands.slice(scripted ? 0 : 1).map((word) => ({ word, op: ">>", how: "sed -i" }));
    }
    case "perl": {
      const p = parseArgs(args, PERL_VALUES);
      if (!p.letters.has("i")) return [];
      const scripted = p.values.some(([option]) => option === "-e" || option === "-E");
      return p.operands.slice(scripted ? 0 : 1).map((word) => ({ word, op: ">>", how: "perl -i" }));
    }
    case "truncate": {
      const p = parseArgs(args, TRUNCATE_VALUES);
      return p.operands.map((word) => ({ word, op: ">", how: "truncate" }));
    }
    case "chmod":
    case "chown":
    case "chgrp": {
      const p = parseArgs(args, PERM_VALUES);
      const files = p.values.some(([option]) => option === "--reference") ? p.operands : p.operands.slice(1);
      const recursive = p.letters.has("R") || p.longs.has("--recursive");
      return files.map((word) => ({ word, op: ">>", how: recursive ? `${name} -R` : name, permissions: true }));
    }
    case "setfacl":
    case "chattr": {
      const p = parseArgs(args, SETFACL_VALUES);
      const files = name === "chattr" ? p.operands.filter((word) => !/^[-+=][a-zA-Z]+$/.test(word)) : p.operands;
      return files.map((word) => ({ word, op: ">>", how: name, permissions: true }));
    }
    case "sort": {
      const p = parseArgs(args, SORT_VALUES);
      return valuesOf(p.values, "-o", "--output").map((word) => ({ word, op: ">", how: "sort -o" }));
    }
    case "find":
    case "gfind": {
      const out: WriteTarget[] = [];
      for (let i = 0; i < args.length - 1; i++) {
        const action = args[i] as string;
        if (action === "-fprint" || action === "-fprint0" || action === "-fls")
          out.push({ word: args[i + 1] as string, op: ">", how: `find ${action}` });
        if (action === "-fprintf") out.push({ word: args[i + 1] as string, op: ">", how: "find -fprintf" });
      }
      return out;
    }
    case "git": {
      // git clone URL DIR: the folder it creates.
      const p = parseArgs(args, GIT_VALUES, true);
      const at = p.operands.indexOf("clone");
      const dir = at === -1 ? undefined : p.operands[at + 2];
      if (dir !== undefined) return [{ word: dir, op: ">>", how: "git clone into", dir: true }];
      // git apply|am --directory=DIR: the patch's files are written under DIR; --unsafe-paths lets them be anywhere.
      const verb = p.operands[0];
      if (verb !== "apply" && verb !== "am") return [];
      const after = args.slice(args.indexOf(verb) + 1);
      const out: WriteTarget[] = [];
      for (let i = 0; i < after.length; i++) {
        const word = after[i] as string;
        if (word === "--directory" && after[i + 1] !== undefined)
          out.push({ word: after[++i] as string, op: ">>", how: `git ${verb} --directory`, dir: true });
        else if (word.startsWith("--directory=")) out.push({ word: word.slice(12), op: ">>", how: `git ${verb} --directory`, dir: true });
      }
      if (after.includes("--unsafe-paths") && out.length === 0)
        out.push({ word: "$PATCH_PATHS", op: ">>", how: `git ${verb} --unsafe-paths writes wherever the patch says:` });
      return out;
    }
    case "docker":
    case "podman":
    case "kubectl": {
      // docker cp CONTAINER:SRC DEST, kubectl cp POD:SRC DEST: a local DEST is written.
      const p = parseArgs(args, set("-n", "--namespace", "-c", "--container", "--context", "--kubeconfig", "-H", "--host"));
      if (p.operands[0] !== "cp" || p.operands.length !== 3) return [];
      const dest = p.operands[2] as string;
      return /^[^/]*:/.test(dest) || isStream(dest) ? [] : [{ word: dest, op: ">", how: `${name} cp to` }];
    }
    case "openssl": {
      const p = parseArgs(
        args,
        set(
          "-out",
          "-keyout",
          "-in",
          "-key",
          "-config",
          "-passin",
          "-passout",
          "-subj",
          "-days",
          "-newkey",
          "-CA",
          "-CAkey",
          "-signkey",
          "-inkey",
          "-certfile",
          "-name",
          "-md",
          "-aes256",
          "-pass",
          "-K",
          "-iv",
        ),
      );
      return p.values
        .filter(([option]) => option === "-out" || option === "-keyout")
        .map(([, word]) => ({ word, op: ">", how: "openssl -out" }));
    }
    case "ssh-keygen": {
      const p = parseArgs(
        args,
        set("-f", "-t", "-b", "-C", "-N", "-P", "-m", "-Z", "-a", "-E", "-O", "-n", "-I", "-s", "-V", "-z", "-D", "-Y", "-r"),
      );
      // Reading (-l, -y, -F) or changing known_hosts (-R) writes no key.
      if (["l", "y", "F", "R", "B", "L", "Q"].some((letter) => p.letters.has(letter))) return [];
      return p.values.filter(([option]) => option === "-f").map(([, word]) => ({ word, op: ">", how: "ssh-keygen -f" }));
    }
    case "7z":
    case "7za":
    case "7zz":
      // 7z x ARCHIVE -oDIR: the output folder is glued to -o.
      return args
        .filter((arg) => arg.startsWith("-o") && arg.length > 2)
        .map((arg) => ({ word: arg.slice(2), op: ">>", how: `${name} -o`, dir: true }));
    case "aws":
    case "awslocal": {
      // aws s3 cp|mv|sync SRC DEST: a local DEST is written.
      const p = parseArgs(
        args,
        set(
          "--profile",
          "--region",
          "--output",
          "--query",
          "--endpoint-url",
          "--exclude",
          "--include",
          "--acl",
          "--storage-class",
          "--sse",
          "--content-type",
          "--cache-control",
          "--expires",
          "--metadata",
          "--grants",
        ),
      );
      const [service, verb] = p.operands;
      if (service !== "s3" || !(verb === "cp" || verb === "mv" || verb === "sync")) return [];
      const dest = p.operands[3];
      if (dest === undefined || p.operands.length !== 4 || /^s3:\/\//.test(dest) || isStream(dest)) return [];
      return [{ word: dest, op: verb === "sync" ? ">>" : ">", how: `aws s3 ${verb} to`, ...(verb === "sync" ? { dir: true } : {}) }];
    }
    case "vi":
    case "vim":
    case "nvim":
    case "ex":
    case "ed":
    case "red": {
      // Told what to do (-c, +cmd, -s script, ex or silent mode), the editor writes its files without anyone at the keyboard.
      const ed = name === "ed" || name === "red";
      const p = parseArgs(args, ed ? set("-p", "--prompt") : VIM_VALUES);
      const scripted =
        name === "ex" ||
        name === "ed" ||
        name === "red" ||
        p.letters.has("e") ||
        p.letters.has("E") ||
        p.letters.has("s") ||
        p.longs.has("--headless") ||
        p.values.some(([option]) => option === "-c" || option === "--cmd" || option === "-S" || option === "-s") ||
        args.some((arg) => arg.startsWith("+"));
      if (!scripted) return [];
      return p.operands
        .filter((word) => !word.startsWith("+") && !isStream(word))
        .map((word) => ({ word, op: ">>", how: `${name} (told what to do) edits` }));
    }
    case "awk":
    case "gawk": {
      // gawk -i inplace rewrites each file it reads.
      const p = parseArgs(args, AWK_VALUES);
      const inplace = p.values.some(([option, value]) => (option === "-i" || option === "--include") && /^inplace(\.awk)?$/.test(value));
      if (!inplace) return [];
      const programGiven = p.values.some(([option]) => option === "-f" || option === "--file" || option === "-e" || option === "--source");
      return p.operands
        .slice(programGiven ? 0 : 1)
        .filter((word) => !word.includes("=") && !isStream(word))
        .map((word) => ({ word, op: ">>", how: `${name} -i inplace` }));
    }
    case "npm":
    case "pnpm":
    case "yarn":
    case "bun": {
      // npm pkg set|delete|fix rewrites package.json.
      const p = parseArgs(args, set("--prefix", "-C", "--dir", "--cwd", "-w", "--workspace"));
      if (p.operands[0] !== "pkg" || !["set", "delete", "fix"].includes(p.operands[1] ?? "")) return [];
      const dir = valuesOf(p.values, "--prefix", "-C", "--dir", "--cwd")[0];
      return [
        {
          word: dir === undefined ? "package.json" : `${dir.replace(/\/+$/, "")}/package.json`,
          op: ">>",
          how: `${name} pkg ${p.operands[1]}`,
        },
      ];
    }
    default:
      return [];
  }
}

const VIM_VALUES = set(
  "-c",
  "--cmd",
  "-S",
  "-s",
  "-u",
  "-U",
  "-i",
  "-T",
  "-w",
  "-W",
  "-t",
  "-q",
  "--startuptime",
  "--servername",
  "-r",
  "--listen",
);
const AWK_VALUES = set(
  "-f",
  "--file",
  "-v",
  "--assign",
  "-F",
  "--field-separator",
  "-i",
  "--include",
  "-l",
  "--load",
  "-e",
  "--source",
  "-E",
  "--exec",
);

/** tar: where it extracts (-C while extracting) and the archive it creates (-f while creating). */
function tarTargets(name: string, args: readonly string[]): WriteTarget[] {
  let words = [...args];
  // The old style: a first word of letters without a dash (xzf, czf) is a cluster of options.
  if (words[0] !== undefined && /^[a-zA-Z]+$/.test(words[0])) words = [`-${words[0]}`, ...words.slice(1)];
  const p = parseArgs(words, TAR_VALUES);
  // An old-style cluster takes its values from the following words in order (tar czf out.tgz -C dir).
  const cluster = words[0]?.startsWith("-") && !words[0].startsWith("--") ? words[0].slice(1) : "";
  const values = [...p.values];
  if (cluster.length > 1) {
    let next = 1;
    for (const letter of cluster) {
      if (!TAR_VALUES.has(`-${letter}`)) continue;
      if (values.some(([option]) => option === `-${letter}`)) continue;
      const value = words[next++];
      if (value !== undefined) values.push([`-${letter}`, value]);
    }
  }
  const extracting = p.letters.has("x") || p.longs.has("--extract") || p.longs.has("--get");
  const creating =
    p.letters.has("c") ||
    p.longs.has("--create") ||
    p.letters.has("r") ||
    p.letters.has("u") ||
    p.longs.has("--append") ||
    p.longs.has("--update");
  const out: WriteTarget[] = [];
  if (extracting) {
    const into = valuesOf(values, "-C", "--directory");
    // -P, --absolute-names: members named /etc/x or ../x land there, wherever -C says.
    if (p.letters.has("P") || p.longs.has("--absolute-names"))
      out.push({ word: "/", op: ">>", how: `${name} -x -P (absolute member names) under`, dir: true });
    const overwrite = !p.letters.has("k") && !p.longs.has("--keep-old-files") && !p.longs.has("--skip-old-files");
    // Unpacking replaces same-named files inside the folder, not the folder: a change to it, judged by where it is.
    for (const word of into) out.push({ word, op: ">>", how: overwrite ? `${name} -x -C` : `${name} -xk -C`, dir: true });
  }
  if (creating) for (const word of valuesOf(values, "-f", "--file")) if (!isStream(word)) out.push({ word, op: ">", how: `${name} -c -f` });
  return out;
}

/** cp, mv, install, ln: the destination (the last operand, or -t DIR). */
function copyTargets(name: string, args: readonly string[]): WriteTarget[] {
  const p = parseArgs(args, COPY_VALUES);
  const base = name.replace(/^g(?=cp|mv)/, "");
  const into = valuesOf(p.values, "-t", "--target-directory");
  if (into.length > 0) return into.map((word) => ({ word, op: ">>", how: `${base} -t`, dir: true }));
  if (base === "install" && p.letters.has("d")) return p.operands.map((word) => ({ word, op: ">>", how: "install -d", dir: true }));
  if (p.operands.length < 2) return [];
  const dest = p.operands.at(-1) as string;
  // ln without -f does not replace an existing file; cp -n and mv -n do not either.
  const keeps =
    p.letters.has("n") ||
    p.longs.has("--no-clobber") ||
    p.longs.has("--update") ||
    (base === "ln" && !p.letters.has("f") && !p.longs.has("--force"));
  return [{ word: dest, op: keeps ? ">>" : ">", how: `${base} onto` }];
}
