/**
 * The memory available now, in MB (10^6 bytes), for judging a command's
 * load. Linux: MemAvailable bounded by the cgroup's limit minus its usage
 * (Bun's own figure ignores cgroups); macOS: vm_stat's free, inactive,
 * purgeable and speculative pages. `undefined` where it cannot be measured,
 * which leaves load unjudged rather than guessed.
 */
import { readFileSync } from "node:fs";

function read(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
}

/** MemAvailable from the text of /proc/meminfo, in bytes. */
export function memAvailableBytes(meminfo: string): number | undefined {
  const match = /^MemAvailable:\s+(\d+)\s+kB/m.exec(meminfo);
  return match ? Number(match[1]) * 1024 : undefined;
}

/** A cgroup limit file's value in bytes, or undefined for "max" / no limit. */
export function cgroupLimitBytes(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const trimmed = text.trim();
  if (trimmed === "max" || trimmed === "") return undefined;
  const value = Number(trimmed);
  // cgroup v1 writes a huge number (near 2^63) for "no limit".
  return Number.isFinite(value) && value < 2 ** 60 ? value : undefined;
}

/** The cgroup's room left (limit minus usage), in bytes, or undefined. */
function cgroupRoomBytes(): number | undefined {
  const self = read("/proc/self/cgroup");
  if (!self) return undefined;
  for (const line of self.split("\n")) {
    const [, controllers, path] = line.split(":");
    if (path === undefined) continue;
    if (controllers === "") {
      const base = `/sys/fs/cgroup${path}`;
      const limit = cgroupLimitBytes(read(`${base}/memory.max`));
      const usage = Number(read(`${base}/memory.current`)?.trim());
      if (limit !== undefined && Number.isFinite(usage)) return Math.max(limit - usage, 0);
    } else if (controllers?.split(",").includes("memory")) {
      const base = `/sys/fs/cgroup/memory${path}`;
      const limit = cgroupLimitBytes(read(`${base}/memory.limit_in_bytes`));
      const usage = Number(read(`${base}/memory.usage_in_bytes`)?.trim());
      if (limit !== undefined && Number.isFinite(usage)) return Math.max(limit - usage, 0);
    }
  }
  return undefined;
}

/** Available memory in bytes from vm_stat's output (macOS). */
export function vmStatAvailableBytes(output: string): number | undefined {
  const pageSize = Number(/page size of (\d+) bytes/.exec(output)?.[1]);
  if (!Number.isFinite(pageSize)) return undefined;
  const pages = (name: string) => Number(new RegExp(`^Pages ${name}:\\s+(\\d+)`, "m").exec(output)?.[1] ?? 0);
  return (pages("free") + pages("inactive") + pages("purgeable") + pages("speculative")) * pageSize;
}

export function availableMemoryMb(): number | undefined {
  if (process.platform === "linux") {
    const meminfo = read("/proc/meminfo");
    const available = meminfo ? memAvailableBytes(meminfo) : undefined;
    if (available === undefined) return undefined;
    const room = cgroupRoomBytes();
    return Math.min(available, room ?? Infinity) / 1e6;
  }
  if (process.platform === "darwin") {
    try {
      const result = Bun.spawnSync(["vm_stat"], { stdout: "pipe", stderr: "ignore" });
      const available = vmStatAvailableBytes(result.stdout.toString());
      return available === undefined ? undefined : available / 1e6;
    } catch {
      return undefined;
    }
  }
  return undefined;
}
